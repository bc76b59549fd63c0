"""The web client's figures (issue 16), measured in headless Chromium (Debian's, via Playwright):

- first load: bytes transferred for the lobby, and the time until it is drawn (loopback);
- the replay viewer: time to its first drawn board;
- time to apply one event and redraw the board (the largest bundled board, stepping event by event);
- frames dropped while replaying the whole game at full speed (one event per animation frame).

    python bench/bench_web.py [--mission outpost] [--seed 7] [--steps 200]

A game of ``--mission`` (default: the largest bundled board) is played by two random bots into a
fresh store, which a ``skirmish serve`` subprocess then serves. Without Chromium or Playwright it
says so and exits 0 (nothing to measure).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from skirmish.server import missions


def chromium() -> str | None:
    for c in (os.environ.get("SKIRMISH_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if c and Path(c).exists():
            return c
    return None


def largest_mission() -> str:
    return max(missions.bundled().values(), key=lambda m: m.board.width * m.board.height).id


def serve(db: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "skirmish.server.cli", "serve", "--port", "0", "--db", str(db),
                             "--log-level", "error"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    ws = proc.stdout.readline().split()[-1]
    return proc, "http" + ws.removeprefix("ws")  # the web client: the same host and port


def measure(page, base: str, gid: str, steps: int, playback_limit: int = 0) -> dict:
    sizes: list[int] = []

    def seen(response):
        try:
            sizes.append(len(response.body()))
        except Exception:  # noqa: BLE001 - no body (a redirect, the WebSocket)
            pass
    page.on("response", seen)
    t0 = time.perf_counter()
    page.goto(base + "/")
    page.wait_for_selector(".mission")
    lobby_ms = (time.perf_counter() - t0) * 1000
    first_bytes = sum(sizes)
    t0 = time.perf_counter()
    page.goto(f"{base}/#/replay/{gid}?as=all&seq=1")
    page.wait_for_selector("svg.board .unit")
    replay_ms = (time.perf_counter() - t0) * 1000
    per_event = page.evaluate("""async (steps) => {
        const next = document.querySelector('button[aria-label="next event"]');
        const times = [];
        for (let i = 0; i < steps; i++) {
            const t0 = performance.now();
            next.click();
            await new Promise((r) => requestAnimationFrame(() => r()));
            times.push(performance.now() - t0);
        }
        times.sort((a, b) => a - b);
        return {median: times[Math.floor(times.length / 2)], p95: times[Math.floor(times.length * 0.95)]};
    }""", steps)
    playback = page.evaluate("""async (limit) => {
        const slider = document.querySelector('input.slider');
        const n = limit ? Math.min(limit, Number(slider.max)) : Number(slider.max);
        slider.value = 1; slider.dispatchEvent(new Event('input'));
        const gaps = [];
        let last = performance.now();
        for (let i = 2; i <= n; i++) {
            await new Promise((r) => requestAnimationFrame(() => r()));
            const now = performance.now(); gaps.push(now - last); last = now;
            slider.value = i; slider.dispatchEvent(new Event('input'));
        }
        const frame = 1000 / 60;
        const dropped = gaps.reduce((k, g) => k + Math.max(0, Math.round(g / frame) - 1), 0);
        return {events: n, seconds: gaps.reduce((a, b) => a + b, 0) / 1000, dropped};
    }""", playback_limit)
    return {"first_load_bytes": first_bytes, "lobby_ms": lobby_ms, "replay_first_board_ms": replay_ms,
            "apply_event_ms": per_event, "playback": playback}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mission", default=None, help="default: the largest bundled board")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--steps", type=int, default=200, help="events stepped one by one for the per-event figure")
    p.add_argument("--playback", type=int, default=0, help="events replayed at full speed (default 0: the whole game)")
    args = p.parse_args()
    path = chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    if path is None or sync_playwright is None:
        print("bench_web: skipped (needs Debian's chromium and the playwright package: apt-get install chromium; "
              "pip install -e '.[test]')")
        return 0
    mission = args.mission or largest_mission()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "web.sqlite"
        subprocess.run([sys.executable, "-m", "skirmish.server.cli", "match", "--seed", str(args.seed), "--bots",
                        "random,random", "--mission", mission, "--db", str(db)], check=True, capture_output=True)
        proc, base = serve(db)
        try:
            with urllib.request.urlopen(f"{base}/api/games?status=finished&limit=1") as r:
                game = json.loads(r.read())["games"][0]
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=path, args=["--no-sandbox"])
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                f = measure(page, base, game["game_id"], min(args.steps, game["seq"] - 2), args.playback)
                browser.close()
        finally:
            proc.terminate()
            proc.wait(15)
    b = missions.load(mission).board
    print(f"bench_web: mission {mission} ({b.width}x{b.height}), a game of {game['seq']} events")
    print(f"  first load (lobby): {f['first_load_bytes'] / 1024:.1f} KiB transferred (budget 300 KB), "
          f"drawn in {f['lobby_ms']:.0f} ms on loopback")
    print(f"  replay viewer: first board drawn in {f['replay_first_board_ms']:.0f} ms (frames fetched and indexed)")
    print(f"  apply one event and redraw: median {f['apply_event_ms']['median']:.2f} ms, "
          f"p95 {f['apply_event_ms']['p95']:.2f} ms (to the next animation frame)")
    pb = f["playback"]
    print(f"  full-speed replay: {pb['events']} events in {pb['seconds']:.1f} s, {pb['dropped']} frames dropped "
          f"at 60 Hz (one event per frame)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
