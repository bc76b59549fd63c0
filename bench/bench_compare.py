"""Benchmark: this checkout against an earlier commit, side by side, in one run.

    python bench/bench_compare.py [--before REV] [--rounds N] [--parts replay,decide,server]
                                  [--events N] [--games N] [--server-seconds S]

The earlier commit (default ``cde8ffb``: issue 12 done, the last commit before issue 13's redesign) is
extracted with ``git archive`` into a temporary folder; both trees then run the same
measurements in turns (before, after, before, after, ...), so that a neighbour's load on this
shared machine falls on both alike. Each measurement runs in a fresh interpreter of this venv,
with the tree's own code first on ``sys.path`` (a commit from before the one import name
imports ``engine``, ``server``...; a later one ``skirmish.engine``..., shimmed to the tree).

- ``replay``: ``bench/bench_replay.py`` of each tree: decode, + hash-chain check, + evolve (events/s).
- ``decide``: the rules themselves: random players play every bundled mission the two trees share
  (``--games`` games each, the same seeds), timing each ``decide`` call (microseconds per command)
  and each ``evolve`` (microseconds per event).
- ``server``: ``bench/bench_server.py --phases echo,peak`` of each tree (``--server-mission``, default
  ridge): commands/s, ack p50/p99,
  server CPU per command, and the echo server's requests/s as the machine's yardstick.

The table gives each figure's median over the rounds for both trees, the ratio after / before
(> 1 is better for a rate, < 1 for a time), and the spread of the before runs (max/min - 1):
a change smaller than that spread is noise.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("protocol", "engine", "server", "client", "bots")

# Runs inside each tree's interpreter: plays random games, timing decide and evolve.
DECIDE = r"""
import hashlib, importlib, json, random, sys, time
import os
def mod(name):  # a tree from before the one import name imports bare names
    bare = os.environ["SKIRMISH_BENCH_NAMES"] == "bare"
    return importlib.import_module(name.removeprefix("skirmish.") if bare else name)
decide = mod("skirmish.engine.decide").decide
ev = mod("skirmish.engine.evolve")
cmds = mod("skirmish.engine.commands")
Dice = mod("skirmish.engine.dice").ProvablyFairDice
game_created = mod("skirmish.engine.mission").game_created
missions = mod("skirmish.server.missions")
names, games = json.loads(sys.argv[1]), int(sys.argv[2])
out = {}
for name in names:
    mission = missions.load(name)
    t_decide = t_evolve = 0.0
    n_cmd = n_ev = 0
    for i in range(games):
        dice = Dice(hashlib.sha256(f"bench-compare:{name}:{i}".encode()).digest())
        state = ev.initial_state(game_created(f"g-{name}-{i}", mission, "fair", dice.commitment))
        rng, command = random.Random(i), cmds.Start()
        while True:
            t0 = time.perf_counter()
            events = decide(state, command, dice)
            t1 = time.perf_counter()
            for e in events:
                ev.evolve(state, e)
            t_evolve += time.perf_counter() - t1
            t_decide += t1 - t0
            n_cmd += 1
            n_ev += len(events)
            if state.outcome is not None:
                break
            p = state.pending
            command = cmds.Choose(p.id, rng.choice(p.options), p.side)
    out[name] = {"decide us/command": t_decide / n_cmd * 1e6, "evolve us/event": t_evolve / n_ev * 1e6,
                 "commands": n_cmd, "events": n_ev}
print(json.dumps(out))
"""

REPLAY = re.compile(r"^\s+\((a|b|c)\) .*?([\d,]+) events/s", re.M)
ECHO = re.compile(r"^\s+echo server\s+([\d.]+) requests/s", re.M)
PEAK = re.compile(r"^\s+skirmish peak\s+([\d.]+) commands/s\s+p50\s+([\d.]+) ms\s+p99\s+([\d.]+) ms.*?(\d+) us of server CPU",
                  re.M)
REPLAY_NAMES = {"a": "replay: decode (events/s)", "b": "replay: + chain check (events/s)",
                "c": "replay: + evolve (events/s)"}


def extract(rev: str, into: Path) -> Path:
    tree = into / f"before-{rev}"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


def environment(tree: Path, shims: Path) -> dict:
    """The environment a tree's code runs in: a tree that installs one import name gets a
    ``skirmish`` package of symlinks to its folders on PYTHONPATH, ahead of the installed one; an
    older tree (bare ``engine``, ``server``...) gets the tree itself."""
    env = dict(os.environ)
    if re.search(r'"skirmish\.engine"\s*=\s*"engine"', (tree / "pyproject.toml").read_text()):
        shim = shims / tree.name / "skirmish"
        shim.mkdir(parents=True)
        (shim / "__init__.py").write_text("")
        for name in PACKAGES:
            (shim / name).symlink_to(tree / name)
        env["PYTHONPATH"], env["SKIRMISH_BENCH_NAMES"] = str(shim.parent), "skirmish"
    else:
        env["PYTHONPATH"], env["SKIRMISH_BENCH_NAMES"] = str(tree), "bare"
    return env


def run(args: list[str], tree: Path, env: dict, timeout: float) -> str:
    done = subprocess.run([sys.executable, *args], cwd=tree, env=env, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args[:2])} failed in {tree} (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return done.stdout


def which_tree(tree: Path, env: dict) -> str:
    name = "engine.decide" if env["SKIRMISH_BENCH_NAMES"] == "bare" else "skirmish.engine.decide"
    code = f"import importlib; print(importlib.import_module({name!r}).__file__)"
    return run(["-c", code], tree, env, 60).strip()


def measure(part: str, tree: Path, env: dict, opts) -> dict[str, float]:
    if part == "replay":
        out = run(["bench/bench_replay.py", "--events", str(opts.events), "--repeat", "3"], tree, env, 900)
        return {REPLAY_NAMES[k]: float(v.replace(",", "")) for k, v in REPLAY.findall(out)}
    if part == "decide":
        out = json.loads(run(["-c", DECIDE, json.dumps(opts.missions), str(opts.games)], tree, env, 1800))
        figures = {}
        for name, f in out.items():
            figures[f"decide {name} (us/command)"] = f["decide us/command"]
            figures[f"evolve {name} (us/event)"] = f["evolve us/event"]
        return figures
    out = run(["bench/bench_server.py", "--phases", "echo,peak", "--seconds", str(opts.server_seconds),
               "--warmup", "2", "--mission", opts.server_mission], tree, env, 1800)
    echo, peak = ECHO.search(out), PEAK.search(out)
    if not (echo and peak):
        raise SystemExit(f"bench_server's summary not understood in {tree}:\n{out[-2000:]}")
    return {"server: echo (requests/s)": float(echo[1]), "server: peak (commands/s)": float(peak[1]),
            "server: ack p50 (ms)": float(peak[2]), "server: ack p99 (ms)": float(peak[3]),
            "server: CPU per command (us)": float(peak[4])}


def shared_missions(trees: list[Path]) -> list[str]:
    names = [{p.stem for p in (t / "server" / "missions").glob("*.toml")} for t in trees]
    return sorted(set.intersection(*names))


def higher_is_better(name: str) -> bool:
    return "/s)" in name


def report(rows: dict[str, dict[str, list[float]]], before: str) -> None:
    print(f"\n{'figure':44} {'before ' + before:>16} {'after (this)':>14} {'after/before':>13} {'before spread':>14}")
    for name, runs in rows.items():
        b, a = runs["before"], runs["after"]
        if not b or not a:
            continue
        mb, ma = statistics.median(b), statistics.median(a)
        ratio = ma / mb if mb else float("nan")
        better = (ratio >= 1) == higher_is_better(name)
        spread = max(b) / min(b) - 1 if min(b) else float("nan")
        print(f"{name:44} {mb:16,.2f} {ma:14,.2f} {ratio:12.3f}{'+' if better else '-'} {spread:13.1%}")
    print("\n(+: after is better or equal; -: after is worse; within the before spread it is noise)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", default="cde8ffb", help="the earlier commit (default cde8ffb: the last before issue 13)")
    ap.add_argument("--rounds", type=int, default=3, help="turns of each tree (default 3); medians are reported")
    ap.add_argument("--parts", default="replay,decide,server", help="comma-separated subset of replay,decide,server")
    ap.add_argument("--events", type=int, default=100_000, help="events for bench_replay (default 100000)")
    ap.add_argument("--games", type=int, default=20, help="games per mission for decide (default 20)")
    ap.add_argument("--server-seconds", type=float, default=8.0, help="measured seconds per bench_server phase (default 8)")
    ap.add_argument("--server-mission", default="ridge",
                    help="the mission bench_server plays (default ridge; knives has hidden cards, so views to make)")
    opts = ap.parse_args(argv)
    parts = [p for p in opts.parts.split(",") if p]
    unknown = set(parts) - {"replay", "decide", "server"}
    if unknown:
        ap.error(f"unknown parts {sorted(unknown)}; choose from replay, decide, server")
    with tempfile.TemporaryDirectory(prefix="bench-compare-") as tmp:
        tmp = Path(tmp)
        trees = {"before": extract(opts.before, tmp), "after": ROOT}
        envs = {side: environment(tree, tmp / "shims") for side, tree in trees.items()}
        for side, tree in trees.items():
            print(f"{side}: {tree} -> rules from {which_tree(tree, envs[side])}")
        opts.missions = shared_missions(list(trees.values()))
        print(f"missions for decide: {', '.join(opts.missions)}; {opts.games} random games each; "
              f"{opts.rounds} rounds of {', '.join(parts)}; load average {os.getloadavg()}")
        rows: dict[str, dict[str, list[float]]] = {}
        started = time.monotonic()
        for r in range(opts.rounds):
            for part in parts:
                for side in ("before", "after"):
                    figures = measure(part, trees[side], envs[side], opts)
                    for name, value in figures.items():
                        rows.setdefault(name, {"before": [], "after": []})[side].append(value)
                    print(f"  round {r + 1}/{opts.rounds} {part:6} {side:6} done ({time.monotonic() - started:5.0f} s)",
                          flush=True)
        report(rows, opts.before)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
