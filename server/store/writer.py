"""The SQLite store's writer process: ``SQLiteStore.open(path, writer="process")`` starts it as
``python -m skirmish.server.store.writer FD PATH CACHE_SIZE`` with its end of a socket pair as FD. Not
a command for people: see ``skirmish.server.store.sqlite_process``."""

from __future__ import annotations

import socket
import sys

from skirmish.server.store.sqlite_process import serve


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: python -m skirmish.server.store.writer FD PATH CACHE_SIZE (started by SQLiteStore, not by hand)",
              file=sys.stderr)
        return 2
    fd, path, cache_size = argv
    serve(socket.socket(fileno=int(fd)), path, int(cache_size))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
