"""Running a tournament: schedule, worker pool, recording, progress, report; and resuming one.

``run_tournament(config)``:

1. opens ``DIR/games.sqlite`` and compares the config's fingerprint with the one recorded
   there: a new directory records it, the same one resumes, another one is refused (naming
   what differs). Without ``--seed`` a resumed tournament keeps its recorded seed; a new one
   draws a seed and prints it;
2. plans each round's games (deterministic from the config, its seed and, for Swiss, the
   results of the rounds before) and hands those not yet recorded to a pool of worker
   processes (``config.workers``; at most one per game left), or with ``--ray`` to Ray tasks
   (``raypool.py``: ``config.workers`` games in flight), which return the games to this process;
3. records each game as it finishes: the game and its result in one transaction (so a kill at
   any moment loses at most the games being played, which a rerun plays again);
4. shows progress (a tqdm bar on a terminal; otherwise a line every ~10%);
5. computes the standings and writes the report (``report.py``); prints the table.
"""

from __future__ import annotations

import contextlib
import math
import os
import secrets
import signal
import sys
import threading
import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from . import report, schedule
from .config import TournamentConfig, TournamentError
from .db import TournamentDB
from .schedule import GameSpec
from .standings import Standings, compute, scores
from .worker import Played, init_worker, play_game


@dataclass
class TournamentResult:
    config: TournamentConfig
    standings: Standings
    records: list[dict]
    played_now: int  # games played by this run
    resumed: int  # games found recorded when this run started
    discarded: list[str]  # games stored without a result, deleted before playing them again
    files: list[Path] = field(default_factory=list)
    rounds: list[dict] = field(default_factory=list)  # per round: pairings (and the bye, in Swiss)


def run_tournament(config: TournamentConfig, *, stdout: TextIO | None = None, stderr: TextIO | None = None,
                   progress: bool | None = None, command: str | None = None) -> TournamentResult:
    """Play (or resume) the tournament, write its report, print its table. See the module docstring.

    ``progress``: None shows a tqdm bar if stderr is a terminal and progress lines otherwise;
    False shows nothing but the start and the end. ``command``: the command line that runs this
    tournament, shown as the way to resume it after an interruption.

    Ctrl-C (SIGINT, when called on the main thread) stops it promptly: the first says so at once,
    cancels the games in flight (their worker processes are stopped; a resume plays them again),
    keeps every finished game, and raises :class:`TournamentInterrupted` after saying how to
    resume; a second Ctrl-C kills the workers and stops at once, finished games still kept.
    """
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    out = config.out
    _make_out(out)
    with TournamentDB(out / "games.sqlite") as db:
        _check_and_record_config(config, db, stderr)

        records = db.records()
        discarded = db.discard_unrecorded(schedule.game_id_prefix(config))
        total = schedule.total_games(config)
        resumed = len(records)

        ray_pool = _ray_pool(config) if total > resumed else None
        _announce(config, total, resumed, discarded, stderr, ray_pool)

        runner = _Runner(config, db, records, total, stderr, progress, ray_pool)
        resume = command or "the same command (same --out)"
        try:
            with _on_interrupt(runner):
                rounds = runner.run()
        except KeyboardInterrupt:
            runner.close(kill=True)
            print(f"\ntournament: stopped; {len(records)} of {total} games are recorded in {db.path} "
                  f"(every finished game); to resume, run: {resume}", file=stderr, flush=True)
            raise TournamentInterrupted(len(records), total) from None
        finally:
            runner.close()
        all_records = [records[i] for i in sorted(records)]

    standings = compute(config.entrants, all_records)
    files = report.write_all(out, config, standings, all_records, rounds)
    result = TournamentResult(config, standings, all_records, runner.played, resumed, discarded, files, rounds)
    _summary(result, stdout)
    return result


def _make_out(out: Path) -> None:
    """Create the output folder, or raise :class:`TournamentError` saying why it cannot be."""
    if out.exists() and not out.is_dir():
        raise TournamentError(f"--out {out} is a file, not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a file on the way (FileExistsError, NotADirectoryError), no permission
        blocker = next((d for d in out.parents if d.exists() and not d.is_dir()), None)
        why = f"{blocker} is a file, not a folder" if blocker else (exc.strerror or str(exc))
        raise TournamentError(f"--out {out}: cannot create the folder: {why}") from None


def _check_and_record_config(config: TournamentConfig, db: TournamentDB, stderr: TextIO) -> None:
    """Pick the seed (the recorded one when resuming, else a fresh one unless given), check that a
    resumed tournament's settings are the recorded ones, and record them."""
    stored = db.get("fingerprint")
    if stored is None and db.has_foreign_games():
        raise TournamentError(f"{db.path} holds games that are not from a tournament; use another --out")
    if config.seed is None:
        # 63 bits: every game's dice follow from it, so it must not be guessable (see schedule.py)
        config.seed = stored["seed"] if stored else secrets.randbelow(2**63)
        if not stored:
            print(f"tournament: seed {config.seed} (pass --seed {config.seed} to play the same tournament "
                  "again)", file=stderr)
    fingerprint = config.fingerprint()
    if stored is not None and stored != fingerprint:
        raise TournamentError(_mismatch(config.out, stored, fingerprint))
    if stored is None:
        db.put("fingerprint", fingerprint)
    db.put("config", config.as_dict())

class TournamentInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped the tournament; the finished games are recorded (``recorded`` of ``total``)."""

    def __init__(self, recorded: int, total: int):
        super().__init__(f"{recorded} of {total} games recorded")
        self.recorded, self.total = recorded, total


@contextlib.contextmanager
def _on_interrupt(runner: "_Runner"):
    """SIGINT while the games are played: the first asks the runner to stop (at once, said at once),
    the second kills the workers and interrupts whatever the main thread is doing but recording."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_sigint(signum, frame):
        if not runner.stopping:
            runner.stopping = True
            in_flight = runner.in_flight
            print(f"\ntournament: Ctrl-C: stopping now; {in_flight} game(s) in flight are cancelled (a resume plays "
                  "them again), every finished game is kept. Ctrl-C again to stop at once.",
                  file=runner.stderr, flush=True)
            return
        print("\ntournament: Ctrl-C again: stopping at once", file=runner.stderr, flush=True)
        runner.kill_workers(signal.SIGKILL)
        if not runner.recording:  # never in the middle of committing finished games
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _ray_pool(config: TournamentConfig):
    """With ``--ray``: the Ray pool (Ray started or joined); the workers then default to its CPUs."""
    if config.ray is None:
        return None
    from .raypool import RayPool

    pool = RayPool(config.ray, None if config.workers_auto else config.workers)
    if config.workers_auto and pool.cpus:
        config.workers = pool.cpus
    return pool


def _announce(config: TournamentConfig, total: int, resumed: int, discarded: list[str], stderr: TextIO,
              ray_pool=None) -> None:
    if config.games_requested:
        print(f"tournament: --games {config.games_requested} is odd; every pairing is played as mirrored pairs, "
              f"so {config.games} games ({config.pairs} pairs) are played per pairing", file=stderr)
    where = f"through {config.server}" if config.server else f"{config.workers} worker(s)"
    if ray_pool is not None:
        where = f"{config.workers} game(s) at once as Ray tasks on {ray_pool.describe()}" + (
            f", through {config.server}" if config.server else "")
    line = (f"tournament: {len(config.entrants)} entrants, {config.format}, {total} games "
            f"({config.games} per pairing), {where}, out {config.out}")
    if resumed:
        line += f"; resuming: {resumed} already recorded, {total - resumed} to play"
    print(line, file=stderr)
    if discarded:
        print(f"tournament: discarded {len(discarded)} game(s) stored without a result, to play them again: "
              f"{', '.join(discarded[:5])}{' …' if len(discarded) > 5 else ''}", file=stderr)


def _mismatch(out: Path, stored: dict, new: dict) -> str:
    diffs = []
    for key in sorted(set(stored) | set(new)):
        if stored.get(key) != new.get(key):
            diffs.append(f"{key}: {_short(stored.get(key))} there, {_short(new.get(key))} now")
    return (f"{out} holds a tournament with a different config ({'; '.join(diffs)}); rerun with the same "
            "settings to resume it, or choose another --out")


def _short(value) -> str:
    if isinstance(value, list) and all(isinstance(v, list) and len(v) == 2 for v in value):
        text = "[" + ", ".join(f"{x}={y}" if y else str(x) for x, y in value) + "]"  # entrants, missions
    else:
        text = repr(value)
    return text if len(text) <= 160 else text[:157] + "..."


def make_record(spec: GameSpec, played: Played, server: str | None) -> dict:
    """The result record of one game (stored in the database, and in results.json)."""
    forfeit = None
    if played.forfeit:
        forfeit = {"entrant": spec.seat(played.forfeit["side"]).entrant, **played.forfeit}
    return {
        "index": spec.index,
        "id": played.game_id,
        "round": spec.round,
        "pairing": list(spec.pairing),
        "game_in_pairing": spec.game_in_pairing,
        "pair": spec.pair,
        "mirrored": spec.mirrored,
        "seed": spec.seed,
        "dice_seed": spec.dice_seed if not server else None,  # through a server, the server rolls its own
        "mission": spec.mission,
        "sides": {"a": spec.a.entrant, "b": spec.b.entrant},
        "bots": {"a": spec.a.bot, "b": spec.b.bot},
        "bot_seeds": {"a": spec.a.seed, "b": spec.b.seed},
        "outcome": played.winner_side or "draw",
        "winner": spec.seat(played.winner_side).entrant if played.winner_side else None,
        "reason": played.reason,
        "points": played.points,
        "forfeit": forfeit,
        "error": forfeit["error"] if forfeit else None,
        "events": (played.stored or len(played.ends)) if not server else None,
        "decisions": played.decisions,
        "duration": round(played.duration, 4),
        "think": {side: round(t, 4) for side, t in played.think.items()},
        "server": server,
    }


class _Progress:
    """A tqdm bar with ETA on a terminal; elsewhere (CI logs) a short line every ~10%."""

    def __init__(self, total: int, initial: int, stream: TextIO, enabled: bool | None):
        from tqdm import tqdm

        self.total, self.done, self.stream = total, initial, stream
        self.start, self.initial = time.monotonic(), initial
        self.quiet = enabled is False
        self.bar = None
        if not self.quiet:
            bar = tqdm(total=total, initial=initial, unit="game", file=stream, disable=None, smoothing=0.05,
                       dynamic_ncols=True, desc="games")
            if bar.disable:
                bar.close()
            else:
                self.bar = bar
        self.step = max(1, math.ceil(total / 10))
        self.next_line = (initial // self.step + 1) * self.step

    def update(self, forfeits: int) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.set_postfix(forfeits=forfeits, refresh=False)
            self.bar.update(1)
        elif not self.quiet and (self.done >= self.next_line or self.done == self.total):
            while self.next_line <= self.done:
                self.next_line += self.step
            elapsed = time.monotonic() - self.start
            played = self.done - self.initial
            rate = played / elapsed if elapsed > 0 else 0.0
            eta = (self.total - self.done) / rate if rate > 0 else float("nan")
            print(f"tournament: {self.done}/{self.total} games ({100 * self.done / self.total:.0f}%), "
                  f"{rate:.1f} games/s, ETA {_duration(eta)}, {forfeits} forfeits", file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _duration(seconds: float) -> str:
    if seconds != seconds:  # nan
        return "?"
    seconds = int(round(seconds))
    return f"{seconds // 3600}h{seconds // 60 % 60:02d}m" if seconds >= 3600 else (
        f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s")


class _Runner:
    def __init__(self, config: TournamentConfig, db: TournamentDB, records: dict[int, dict], total: int,
                 stderr: TextIO, progress: bool | None, ray_pool=None):
        self.config, self.db, self.records, self.stderr = config, db, records, stderr
        self.ray_pool = ray_pool  # --ray: games as Ray tasks (raypool.RayPool), else worker processes
        self.played = 0
        self.forfeits = sum(1 for r in records.values() if r.get("forfeit"))
        self.progress = _Progress(total, len(records), stderr, progress)
        self.pool: ProcessPoolExecutor | None = None
        self.pool_workers = 0
        self.stopping = False  # Ctrl-C: stop handing out games, cancel those in flight
        self.recording = False  # committing finished games: a second Ctrl-C waits for the commit
        self.in_flight = 0

    def close(self, kill: bool = False) -> None:
        """Stop the worker pool: after the games in flight (the end of a run), or at once (``kill``:
        an interruption; the games in flight are lost, a resume plays them again)."""
        self.progress.close()
        if self.ray_pool is not None:
            self.ray_pool.shutdown(wait=not kill, cancel_futures=True)
            self.ray_pool = self.pool = None
        if self.pool is not None:
            processes = self._workers()
            if kill:
                self.kill_workers(signal.SIGTERM)
            self.pool.shutdown(wait=not kill, cancel_futures=True)
            self.pool = None
            for process in processes:  # reaped, so that none is left behind
                process.join(timeout=2 if kill else 5)
                if kill and process.is_alive():  # a bot that ignores SIGTERM
                    process.kill()
                    process.join(timeout=2)

    def _workers(self) -> list:
        # ProcessPoolExecutor has no public way to stop its workers before Python 3.14
        # (terminate_workers); its process table is the one place that lists them
        return list((getattr(self.pool, "_processes", None) or {}).values())

    def kill_workers(self, sig: int) -> None:
        if self.ray_pool is not None:  # Ray's workers are Ray's: their tasks are cancelled, by force
            self.ray_pool.cancel_all(force=True)
        for process in self._workers():
            try:
                if process.pid is not None:
                    os.kill(process.pid, sig)
            except ProcessLookupError:
                pass

    def run(self) -> list[dict]:
        rounds = []
        for r in range(schedule.rounds(self.config)):
            if self.stopping:
                raise KeyboardInterrupt
            pairings, bye = self._pairings(r)
            rounds.append({"round": r, "pairings": [list(p) for p in pairings], "bye": bye})
            specs = schedule.plan_round(self.config, r, pairings)
            for spec in specs:
                rec = self.records.get(spec.index)
                if rec is not None and (rec["sides"] != {"a": spec.a.entrant, "b": spec.b.entrant}
                                        or rec["seed"] != spec.seed
                                        or rec.get("dice_seed") != (None if self.config.server else spec.dice_seed)):
                    raise TournamentError(f"recorded game {spec.index} ({rec['id']}) does not match the schedule; "
                                          f"{self.config.out} was not made by this version of the tournament")
            self._play([s for s in specs if s.index not in self.records])
        return rounds

    def _pairings(self, r: int) -> tuple[list[tuple[str, str]], str | None]:
        config = self.config
        if config.format == "round-robin":
            return schedule.round_robin_pairings(config.entrants), None
        if config.format == "gauntlet":
            return schedule.gauntlet_pairings(config.entrants, config.champion), None
        prior = [rec for rec in self.records.values() if rec["round"] < r]
        names = [e.name for e in config.entrants]
        score = scores(config.entrants, prior)
        byes = set()
        for earlier in range(r):
            seen = {n for rec in prior if rec["round"] == earlier for n in rec["sides"].values()}
            missing = [n for n in names if n not in seen]
            if len(missing) == 1:
                byes.add(missing[0])
                score[missing[0]] += config.games / 2  # a bye scores as a drawn round
        ratings = compute(config.entrants, prior)
        ordinal = {ln.name: ln.ordinal for ln in ratings.lines}
        ranked = sorted(names, key=lambda n: (-score[n], -round(ordinal[n], 9), names.index(n)))
        played = Counter(frozenset(rec["pairing"]) for rec in prior)
        return schedule.swiss_pairings(ranked, played, byes)

    def _play(self, specs: list[GameSpec]) -> None:
        if not specs:
            return
        workers = min(self.config.workers, len(specs))
        if self.ray_pool is not None:
            self.pool = self.ray_pool
        elif self.pool is None or self.pool_workers < workers:
            if self.pool is not None:
                self.pool.shutdown(wait=True)
            # each worker stores the games it plays (a game kept by a server has nothing to store)
            db_path = None if self.config.server else str(self.db.path)
            self.pool = ProcessPoolExecutor(max_workers=workers, initializer=init_worker, initargs=(db_path,))
            self.pool_workers = workers
        pending: dict[Future, GameSpec] = {}
        queue = list(reversed(specs))
        # keep every worker busy with a short queue, rather than submitting thousands of games at once;
        # Ray runs whatever it is handed on any free CPU: there, exactly `workers` games are in flight
        limit = workers if self.ray_pool is not None else workers * 4

        def hand_out() -> None:
            while queue and sum(1 for fut in pending if not fut.done()) < limit and not self.stopping:
                spec = queue.pop()
                pending[self.pool.submit(play_game, spec, self.config.server)] = spec

        try:
            while queue or pending:
                hand_out()
                self.in_flight = min(workers, sum(1 for fut in pending if fut.running()))  # (+ queued)
                # (a short timeout: Ctrl-C only sets self.stopping, so that no commit is cut in half)
                done, _ = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                hand_out()  # the next games start before these are committed
                self._record([(pending[fut], fut) for fut in sorted(done, key=lambda f: pending[f].index)])
                for fut in done:
                    del pending[fut]
                if self.stopping:
                    raise KeyboardInterrupt
        except KeyboardInterrupt:
            # keep what finished meanwhile (a second Ctrl-C may have come in the middle of the sweep)
            finished = [(pending[fut], fut) for fut in sorted(
                (f for f in pending if f.done() and not f.cancelled() and pending[f].index not in self.records),
                key=lambda f: pending[f].index)]
            for fut in pending:
                fut.cancel()
            self._record(finished)
            raise
        except BaseException:
            for fut in pending:
                fut.cancel()
            raise

    def _record(self, finished: list[tuple[GameSpec, Future]]) -> None:
        """Record the games that finished together, in one transaction (each with its result).
        A second Ctrl-C meanwhile does not interrupt it (``recording``): these games are kept."""
        self.recording = True
        try:
            self._record_now(finished)
        finally:
            self.recording = False

    def _record_now(self, finished: list[tuple[GameSpec, Future]]) -> None:
        batch = []
        failure: BaseException | None = None
        for spec, fut in finished:
            try:
                played = fut.result()
            except BrokenProcessPool:
                if self.stopping:  # its worker was stopped by Ctrl-C: a game in flight, played again on resume
                    continue
                failure = TournamentError(
                    f"a worker process died while playing game {spec.index} or a game beside it (a bot may have "
                    f"ended its process); the games recorded so far are kept: rerun the same command to resume")
                break
            except Exception as exc:
                failure = TournamentError(
                    f"game {spec.index} ({spec.a.entrant} vs {spec.b.entrant} on {spec.mission}) failed: "
                    f"{type(exc).__name__}: {exc}; the games recorded so far are kept: rerun the same command "
                    "to resume")
                failure.__cause__ = exc
                break
            batch.append((spec.index, make_record(spec, played, self.config.server),
                          None if self.config.server else played))
        if batch:
            self.db.record_many(batch)
            for index, record, _ in batch:
                self.records[index] = record
                self.played += 1
                if record["forfeit"]:
                    self.forfeits += 1
                self.progress.update(self.forfeits)
        if failure is not None:
            raise failure


def _summary(result: TournamentResult, stdout: TextIO) -> None:
    config, st = result.config, result.standings
    print(report.table(st), file=stdout)
    forfeits = len(st.forfeits)
    print(f"\n{st.games} games ({result.played_now} played now, {result.resumed} resumed); "
          f"side a won {st.sides['a']}, side b won {st.sides['b']}, {st.sides['draw']} drawn; "
          f"{forfeits} forfeit{'s' if forfeits != 1 else ''}", file=stdout)
    print(f"report: {config.out / 'report.md'} (also report.html, results.json, games.csv, standings.csv, ratings.svg)", file=stdout)
    if result.records:
        example = result.records[0]["id"]
        if config.server:
            print(f"games are on the server {config.server}: verify one there with 'skirmish verify {example} "
                  "--db SERVER_DB'", file=stdout)
        else:
            print(f"verify a game: skirmish verify {example} --db {config.out / 'games.sqlite'}", file=stdout)
