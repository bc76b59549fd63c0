"""``skirmish schema``: the wire protocol as JSON Schema (``skirmish.protocol.schema``).

``skirmish schema`` prints it; ``--out FILE`` writes it (the repository keeps it at
``docs/schema/skirmish.schema.json``); ``--check FILE`` says whether FILE is what this version
generates, byte for byte (exit 1 and the command that regenerates it when it is not).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

EPILOG = """\
exit status: 0 written, printed, or FILE is up to date; 1 (--check) FILE differs or is missing;
2 FILE cannot be written
"""


def add_schema(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("schema", help="print or write the wire protocol's JSON Schema (every message and event)",
                       description="Generate the JSON Schema (2020-12) of every wire message and every event "
                                   "from the protocol's own types: print it, write it (--out) or check a copy "
                                   "(--check). docs/protocol.md, 'The JSON Schema', says how it maps onto "
                                   "MessagePack frames.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    what = p.add_mutually_exclusive_group()
    what.add_argument("--out", metavar="FILE", help="write the schema to FILE (its folders are created)")
    what.add_argument("--check", metavar="FILE",
                      help="exit 1 unless FILE holds exactly the schema this version generates")
    return p


async def cmd_schema(args: argparse.Namespace) -> int:
    from skirmish.protocol.schema import render_schema

    text = render_schema()
    if args.check:
        path = Path(args.check)
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        if current == text:
            print(f"{path} is up to date")
            return 0
        print(f"skirmish schema: {path} {'is missing' if current is None else 'is out of date'}; regenerate it "
              f"with: skirmish schema --out {args.check}", file=sys.stderr)
        return 1
    if not args.out:
        sys.stdout.write(text)
        return 0
    path = Path(args.out)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        print(f"skirmish schema: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"wrote {path} ({len(text.encode())} bytes)")
    return 0
