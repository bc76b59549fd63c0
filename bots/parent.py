"""A bot that must not outlive the process that started it (``skirmish bot --parent-pid PID``).

A server's hosted bot (``skirmish serve --house-bots``) is its subprocess and plays a seat the
server's node owns. If the node dies (SIGKILL, a crash), another node takes the game over and
starts the bot again there: the first copy must be gone by then, or two clients would play one
seat. On Linux the kernel sees to it: ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` asks for SIGKILL the
moment the parent dies, with no polling; checking ``getppid()`` afterwards closes the race of a
parent that died before the call. Elsewhere a daemon thread compares ``getppid()`` with the
parent's pid every 0.2 s and ends the process when they differ.

The bot's own imports take 0.6 s (seconds on a loaded machine: longer than a take-over), so the
server starts it through ``guarded``: a bare interpreter (``python -S``, 0.03 s) that asks for the
death signal, checks its parent, then ``exec``s the bot (the death signal survives ``execve``).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _prctl_death_signal(sig: int) -> bool:
    """Ask the kernel to send ``sig`` to this process when its parent dies; False if it cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)  # (the C library, already loaded)
        return libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent: int, every: float) -> None:
    while True:
        time.sleep(every)
        if os.getppid() != parent:
            os._exit(1)


# (run by ``python -S -c``: no site, no skirmish import; argv: the parent's pid, then the command)
_LAUNCH = """import ctypes, os, sys
parent = int(sys.argv[1])
try:
    ctypes.CDLL(None).prctl(1, 9, 0, 0, 0)
except (OSError, AttributeError):
    pass
if os.getppid() != parent:
    os._exit(1)
os.execv(sys.argv[2], sys.argv[2:])
"""


def guarded(argv: list[str], parent: int) -> list[str]:
    """The command that runs ``argv`` (its first item a path) with the death signal asked for
    before anything else (Linux; elsewhere ``argv`` as it is, for ``exit_with_parent`` to watch)."""
    if not sys.platform.startswith("linux"):
        return argv
    return [sys.executable, "-S", "-c", _LAUNCH, str(parent), *argv]


def exit_with_parent(parent: int, every: float = 0.2) -> None:
    """End this process when process ``parent`` (its parent) is gone, at once if it is already."""
    if not _prctl_death_signal(signal.SIGKILL):
        threading.Thread(target=_watch, args=(parent, every), name="parent-watch", daemon=True).start()
    if os.getppid() != parent:  # (it died before the request: the kernel will not signal)
        os._exit(1)
