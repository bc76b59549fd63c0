"""What the capture module (seed 000) did in a tournament: counted from the stored logs.

``python -m skirmish.server.tournament.captures OUT`` reads ``OUT/results.json`` (who played which side of
each game) and the logs in ``OUT/games.sqlite``, and writes ``OUT/captures.md`` (and prints it):
for each entrant, on the side the mission lets capture (``[capture] captor``), how many of its
games had at least one capture, and the captures, exits, escapes and rescues in them; with
``--verify`` every game's log is also checked with ``skirmish.engine.verify.verify_log``. Games of missions
without the capture module are skipped.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections import defaultdict
from pathlib import Path

from skirmish.engine import events as ev
from skirmish.engine.rules.capture import events as cev
from skirmish.engine.codec import decode_event
from skirmish.engine.verify import LoggedEvent, verify_log


def game_counts(events: list[ev.Event]) -> dict:
    """The capture module's events of one game, by the side that did them."""
    first = events[0]
    units = {u.id: u.side for u in first.units}
    c: dict = {"captures": {"a": 0, "b": 0}, "exits": {"a": 0, "b": 0}, "escapes": {"a": 0, "b": 0},
               "freed": {"a": 0, "b": 0}, "capture_tests": {"a": 0, "b": 0}}
    for e in events:
        if isinstance(e, cev.UnitCaptured):
            c["captures"][units[e.by]] += 1
        elif isinstance(e, cev.CaptiveRemoved):
            c["exits"][units[e.unit]] += 1
        elif isinstance(e, cev.CaptiveEscaped):
            c["escapes"][units[e.unit]] += 1
        elif isinstance(e, cev.CaptiveFreed):
            c["freed"][units[e.by]] += 1
        elif isinstance(e, cev.D12Tested) and e.test == "capture":
            c["capture_tests"][units[e.unit]] += 1
    return c


def summarise(out: Path, verify: bool = False) -> str:
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    conn = sqlite3.connect(f"file:{out / 'games.sqlite'}?mode=ro", uri=True)
    per_bot: dict[str, dict] = defaultdict(lambda: defaultdict(int))
    verified = bad = skipped = 0
    problems: list[str] = []
    for r in results["games"]:
        rows = conn.execute("SELECT seq, data, hash FROM events WHERE game_id = ? ORDER BY seq", (r["id"],)).fetchall()
        if not rows:
            skipped += 1
            continue
        events = [decode_event(data) for _, data, _ in rows]
        first = events[0]
        if "capture" not in first.modules:
            skipped += 1
            continue
        if verify:
            report = verify_log(r["id"], [LoggedEvent(seq, data, h) for seq, data, h in rows])
            if report.ok:
                verified += 1
            else:
                bad += 1
                problems.append(f"{r['id']}: {report.summary()}")
        captor = first.capture.captor if first.capture else "both"
        counts = game_counts(events)
        for side in ("a", "b") if captor == "both" else (captor,):
            line = per_bot[r["sides"][side]]
            line["games"] += 1
            line["with_capture"] += counts["captures"][side] > 0
            for key in ("captures", "exits", "capture_tests", "freed"):
                line[key] += counts[key][side]
            line["escapes_from"] += counts["escapes"]["b" if side == "a" else "a"]
            line["wins"] += r["outcome"] == side
    conn.close()
    head = ("| entrant (capturing side) | games | games with a capture | capture rate | captures | capture tests "
            "| exits | captives escaped | wins |")
    lines = [f"# Captures (capture module, seed 000) in {out}", "", head, "|---|---|---|---|---|---|---|---|---|"]
    for name in sorted(per_bot):
        t = per_bot[name]
        rate = t["with_capture"] / t["games"] if t["games"] else 0.0
        lines.append(f"| {name} | {t['games']} | {t['with_capture']} | {100 * rate:.1f}% | {t['captures']} | "
                     f"{t['capture_tests']} | {t['exits']} | {t['escapes_from']} | {t['wins']} |")
    lines.append("")
    if verify:
        lines.append(f"verified: {verified} ok, {bad} failed" + "".join(f"\n- {p}" for p in problems))
    if skipped:
        lines.append(f"skipped: {skipped} games without the capture module or without a log")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m skirmish.server.tournament.captures", description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path, help="the tournament's output directory (--out)")
    p.add_argument("--verify", action="store_true", help="also verify every game's log")
    args = p.parse_args(argv)
    text = summarise(args.out, args.verify)
    (args.out / "captures.md").write_text(text, encoding="utf-8")
    print(text, end="")
    return 0 if "failed" not in text or ", 0 failed" in text else 1


if __name__ == "__main__":
    sys.exit(main())
