"""The ``skirmish`` command: play, replay, verify, export and import games.

Every command that reads or writes the store takes ``--db PATH`` (a SQLite file). The default
is ``$SKIRMISH_DB`` if set, else ``$XDG_DATA_HOME/skirmish/games.sqlite``
(``~/.local/share/skirmish/games.sqlite``); each command prints the file it uses.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
EXIT_FORFEIT = 3  # match: the game was played and stored, but a bot forfeited it


def default_db() -> Path:
    if os.environ.get("SKIRMISH_DB"):
        return Path(os.environ["SKIRMISH_DB"])
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "skirmish" / "games.sqlite"


class CliError(Exception):
    """A problem to report in one line, with exit code 2."""


def _db_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", default=None, metavar="PATH",
                   help="the SQLite file holding the games, a path or sqlite:PATH (default: $SKIRMISH_DB or "
                        "~/.local/share/skirmish/games.sqlite)")


def db_path(text: str | None) -> Path:
    """The store file ``--db`` (or else ``$SKIRMISH_DB``, or else the default) names, checked."""
    from server.store.location import resolve

    if text is not None:
        return resolve(text, what="--db")
    if os.environ.get("SKIRMISH_DB"):
        return resolve(os.environ["SKIRMISH_DB"], what="$SKIRMISH_DB")
    return default_db()


async def _open(db: str | None, *, create: bool):
    from server.store.location import open_sqlite, prepare

    path = db_path(db)
    prepare(path, create=False)
    if not create and not path.exists():
        raise CliError(f"no store at {path} (play a game with 'skirmish match', or pass --db)")
    print(f"store: {path}", file=sys.stderr)
    return await open_sqlite(path, create=create)


async def _load_log(store, game_id: str):
    from server.store import UnknownGame

    try:
        return await store.read(game_id)
    except UnknownGame:
        games = [g.game_id for g in await store.list_games()][-5:]
        hint = f"; recent games: {', '.join(games)}" if games else "; the store has no games"
        raise CliError(f"no game {game_id!r} in the store{hint}") from None


# -- commands --------------------------------------------------------------------------------


async def cmd_match(args) -> int:
    from functools import partial

    from bots import make_bot
    from server import missions
    from server.match import play_match
    from server.tournament.guard import GuardedBot

    mission = missions.load(args.mission)
    names = args.bots.split(",")
    if len(names) != 2:
        raise CliError(f"--bots takes two strategies separated by a comma, not {args.bots!r}")
    if args.decision_timeout_ms < 0:
        raise CliError(f"--decision-timeout-ms must be 0 (no limit) or more, not {args.decision_timeout_ms}")
    seeds = [None if args.seed is None else args.seed * 2 + i for i in range(2)]
    for name, seed in zip(names, seeds):
        try:
            make_bot(name, seed)
        except ValueError as exc:  # no such bot: a usage problem
            raise CliError(str(exc)) from None
        except Exception:  # noqa: BLE001 - a bot whose constructor fails forfeits, below
            pass
    # as in a tournament, a bot that crashes (creating it included), answers what it was not offered
    # or runs out of time forfeits: the game ends with its resignation, stored whole and verifiable
    # (what the bot prints is not captured here: it goes to this terminal)
    guards = {side: GuardedBot(partial(make_bot, name, seed), args.decision_timeout_ms, name, capture=False)
              for side, name, seed in zip("ab", names, seeds)}
    async with await _open(args.db, create=True) as store:
        result = await play_match(store, mission, guards, seed=args.seed, game_id=args.game_id)
    o = result.outcome
    print(f"game {result.game_id}: {mission.name} — {names[0]} (a) vs {names[1]} (b)")
    print(f"  {'side ' + o.winner + ' wins' if o.winner else 'draw'}: {o.reason}")
    print(f"  {result.decisions} decisions, {result.events} events stored")
    print(f"  replay: skirmish replay {result.game_id}    verify: skirmish verify {result.game_id}")
    f = result.forfeit
    if f is None:
        return EXIT_OK
    who = names["ab".index(f.side)]
    print(f"skirmish match: side {f.side} ({who}) forfeits ({f.kind}): {f.error}", file=sys.stderr)
    if f.traceback:
        print("  where the bot failed (the end of its traceback):", file=sys.stderr)
        print("\n".join("    " + line for line in f.traceback.rstrip().splitlines()), file=sys.stderr)
    print(f"  the game is stored and verifies; exit status {EXIT_FORFEIT} (a bot forfeited)", file=sys.stderr)
    return EXIT_FORFEIT


async def cmd_replay(args) -> int:
    if args.file:
        if args.game:
            raise CliError("name a GAME or a replay file with --file, not both")
        rf = _read_replay_file(args.file)
        datas = rf.events
    else:
        if not args.game:
            raise CliError("name a GAME, or a replay file with --file")
        async with await _open(args.db, create=False) as store:
            datas = [s.data for s in await _load_log(store, args.game)]
    return _narrate(datas, args.viewer)


def _narrate(datas: list[bytes], viewer: str) -> int:
    """Print the events (stored bytes) as ``viewer`` sees them. An event that cannot be read or
    replayed stops it: the events before it are printed, then the error names it (exit 1)."""
    from client.narrate import describe
    from engine.codec import DecodeError, decode_event
    from engine.evolve import evolve, initial_state
    from engine.view import view

    events, bad = [], None
    for seq, data in enumerate(datas, start=1):
        try:
            events.append(decode_event(data))
        except DecodeError as exc:
            bad = (seq, f"not a valid event: {exc}")
            break
    finished = any(type(e).__name__ == "GameEnded" for e in events)
    if viewer == "all" and not finished and bad is None:
        raise CliError("the full log opens when the game is over; use --as a, b or spectator")
    state = None
    for seq, event in enumerate(events, start=1):
        try:
            if seq == 1:
                state = initial_state(event)
            seen = event if seq == 1 else view(event, viewer)
            if seen is None:
                continue
            line = describe(seen, state)
            if seq > 1:
                evolve(state, seen)
        except Exception as exc:  # noqa: BLE001 - a malformed log: name the event, no traceback
            bad = (seq, f"{type(event).__name__} cannot be replayed: {type(exc).__name__}: {exc}")
            break
        if line:
            print(f"{seq:5d}  {line}")
    if bad is None and not datas:
        bad = (1, "the log is empty")
    if bad is not None:
        sys.stdout.flush()
        print(f"skirmish replay: FAILED at event {bad[0]}: {bad[1]} "
              f"(skirmish verify checks the whole log)", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def _read_replay_file(path: str):
    from server.replayfile import ReplayFileError, read_file

    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return read_file(data)
    except ReplayFileError as exc:
        raise CliError(f"{path}: {exc}") from None


def _hex_digest(value: str) -> str:
    text = value.strip().lower()
    if len(text) != 64 or any(c not in "0123456789abcdef" for c in text):
        raise CliError(f"--expect-head takes a head hash: 64 hex digits, not {value!r}")
    return text


async def cmd_verify(args) -> int:
    from engine.verify import LoggedEvent, verify_log
    from server.replayfile import verify_file

    expect = _hex_digest(args.expect_head) if args.expect_head is not None else None
    if args.file:
        if args.game:
            raise CliError("name a GAME or a replay file with --file, not both")
        rf = _read_replay_file(args.file)
        game_id = rf.header.game_id
        report = verify_file(rf)
    else:
        if not args.game:
            raise CliError("name a GAME, or a replay file with --file")
        game_id = args.game
        async with await _open(args.db, create=False) as store:
            stored = await _load_log(store, game_id)
        report = verify_log(game_id, [LoggedEvent(s.seq, s.data, s.hash) for s in stored])
    print(f"verify {game_id}: {report.summary()}")
    if report.ok and report.finished:
        print(f"  outcome: {report.outcome}")
    if report.ok:
        print(f"  head hash: {report.head_hash}")
    if report.ok and expect is not None:
        if report.head_hash != expect:
            print(f"  FAILED: the log's head hash is {report.head_hash}, but {expect} was expected "
                  f"(this is not the log that was announced)")
            return EXIT_FAILED
        print("  the head hash is the one expected")
    return EXIT_OK if report.ok else EXIT_FAILED


async def cmd_export(args) -> int:
    from server.replayfile import export_game

    async with await _open(args.db, create=False) as store:
        if not await _load_log(store, args.game):
            raise CliError(f"game {args.game!r} has no events to export")
        data = await export_game(store, args.game)
    Path(args.file).write_bytes(data)
    print(f"exported {args.game} to {args.file} ({len(data)} bytes)")
    return EXIT_OK


async def cmd_import(args) -> int:
    from server.replayfile import ImportRefused, ReplayFileError, import_game
    from server.store import GameExists

    try:
        data = Path(args.file).read_bytes()
    except OSError as exc:
        raise CliError(f"cannot read {args.file}: {exc.strerror}") from None
    async with await _open(args.db, create=True) as store:
        try:
            header = await import_game(store, data)
        except ReplayFileError as exc:
            raise CliError(f"{args.file}: {exc}") from None
        except ImportRefused as exc:
            print(f"skirmish import: refused {args.file}, nothing imported: the game does not verify: "
                  f"{exc.report.summary()}", file=sys.stderr)
            return EXIT_FAILED
        except GameExists:
            raise CliError("that game is already in the store") from None
    print(f"imported game {header.game_id} ({header.events} events, mission {header.mission})")
    return EXIT_OK


async def cmd_missions(args) -> int:
    from server import missions

    for m in missions.bundled().values():
        mods = ", ".join(m.modules) or "core only"
        print(f"{m.id:12s} {m.name} — {m.board.width}x{m.board.height}, {len(m.units)} units, "
              f"{m.rounds} rounds, modules: {mods}")
        if m.description:
            print(f"{'':12s} {m.description}")
    return EXIT_OK


async def cmd_tournament(args) -> int:
    from server.tournament import TournamentError, load_config, run_tournament

    flags = {key: getattr(args, key.replace("-", "_")) for key in (
        "bots", "mission", "games", "format", "rounds", "champion", "workers", "seed", "out",
        "decision-timeout-ms", "server")}
    import signal

    # Blocking on purpose: the worker processes play, this process only records. Ctrl-C must
    # interrupt it at once, not when asyncio.run's handler next gets to run (at the very end).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        config = load_config(args.config, flags)
        run_tournament(config, progress=False if args.quiet else None, command=_command_line(args))
    except TournamentError as exc:
        raise CliError(str(exc)) from None
    finally:
        signal.signal(signal.SIGINT, previous)
    return EXIT_OK


def _command_line(args) -> str:
    """The command line that ran this command, as the user can type it again (to resume)."""
    import shlex

    argv = getattr(args, "argv", None)
    if argv is None:
        return "the same command"
    script = sys.argv[0] if sys.argv else ""
    if Path(script).name == "skirmish":
        prog = [script]
    elif Path(script).name == "cli.py" and Path(script).parent.name == "server":
        prog = [sys.executable, "-m", "server.cli"]
    else:
        prog = ["skirmish"]
    return shlex.join([*prog, *argv])


TOURNAMENT_EPILOG = """\
config file (--config FILE, TOML): the keys are the flags' names; flags given on the
command line override the file. Relative paths in the file are relative to the file.

  bots = ["random", "greedy", "cautious=mybots:Cautious"]   # or "random,greedy"
  mission = ["ridge", "outpost"]      # bundled ids or .toml paths
  games = 10                          # per pairing, as mirrored pairs (odd: rounded up)
  format = "swiss"                    # round-robin | swiss | gauntlet
  rounds = 3                          # swiss only (default: ceil(log2(entrants)))
  champion = "greedy"                 # gauntlet only (added as an entrant if not listed)
  workers = 4                         # default: one per core
  seed = 7                            # default: the recorded one when resuming, else random
  out = "var/tourney"                 # default: ./tournament
  decision-timeout-ms = 2000          # default 5000; 0: no limit
  server = "ws://127.0.0.1:8765"      # play through a running server

Every pairing plays its games as mirrored pairs: game 2k and 2k+1 share the mission and the
bots' seeds, with the sides swapped; each game has dice of its own (shared dice would let one
game's revealed seed or hidden cards give the other's away). A bot that crashes, answers an option it was not offered or
takes longer than the decision time limit forfeits that game (counted as F, apart from
losses). Rerun the same command with the same --out to resume an interrupted tournament.
Ctrl-C stops at once: the games in flight are cancelled, every finished game is kept, and the
command that resumes is printed (exit status 130).
Results: OUT/report.md, results.json, games.csv, standings.csv; games in OUT/games.sqlite
(skirmish verify GAME --db OUT/games.sqlite).
"""


VERIFY_EPILOG = """\
exit status:
  0  the log verifies (and ends at --expect-head, if given)
  1  it does not: the first bad event is named ("FAILED at event N: ..."), or the head
     hash is not the one --expect-head names (both are printed)
  2  nothing could be checked: no such game or store, a file that cannot be read or is
     not a replay file, or bad arguments
"""

REPLAY_EPILOG = """\
exit status: 0 the game was printed; 1 an event cannot be read or replayed (the events
before it are printed, then the error names it); 2 no such game, store or file, or a file
that is not a replay file. Replay does not verify: 'skirmish verify' does.
"""


async def cmd_serve(args) -> int:
    from server.app import ServerConfig, serve_until_signalled
    from server.logs import configure_logging

    try:
        config = ServerConfig.from_env(
            host=args.host, port=args.port, db=str(args.db) if args.db else None, move_ms=args.move_ms,
            reserve_ms=args.reserve_ms, max_timeouts=args.max_timeouts, max_frame=args.max_frame,
            rate=args.rate, burst=args.burst, log_level=args.log_level, compression=args.compression,
            store_writer=args.store_writer, open_game_ttl=args.open_game_ttl, hello_timeout=args.hello_timeout,
            idle_timeout=args.idle_timeout, connections_per_address=args.connections_per_address, games_per_minute=args.games_per_minute,
            games_burst=args.games_burst, list_limit=args.list_limit)
        configure_logging(config.log_level)
    except (TypeError, ValueError) as exc:
        raise CliError(str(exc)) from None
    try:
        return await serve_until_signalled(config)
    except OSError as exc:  # the address is in use, or not ours
        raise CliError(f"cannot listen on {config.host}:{config.port}: {exc.strerror or exc}") from None


def package_version() -> str:
    """The installed package's version (its metadata, from pyproject.toml)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("skirmish")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="skirmish", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"skirmish {package_version()}",
                        help="print the installed version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("match", help="two in-process bots play a mission; the log goes into the store",
                       description="Two bots play one game of a mission in this process; every event goes into "
                                   "the store (--db), so the game can be replayed, verified and exported. A bot "
                                   "is a strategy (random, greedy, mcts, mcts:MS), module:Class (a module on "
                                   "Python's path or in the current folder) or path/to/file.py:Class.")
    p.add_argument("--mission", default="ridge", help="a bundled mission id or a .toml file (default: ridge)")
    p.add_argument("--bots", default="random,random",
                   help="strategies for side a and side b, comma-separated (default: random,random)")
    p.add_argument("--seed", type=int, default=None,
                   help="make the game reproducible: the same seed gives the same game "
                        "(the dice seed is derived from it, so it is not secret)")
    p.add_argument("--game-id", default=None, help="the new game's id (default: a random g-… id)")
    p.add_argument("--decision-timeout-ms", type=int, default=0, metavar="T",
                   help="a bot taking longer than T ms over one decision forfeits (default: 0, no limit)")
    _db_arg(p)
    p.epilog = ("A bot that crashes, answers an option it was not offered or takes longer than "
                "--decision-timeout-ms forfeits, as in a tournament: the game ends with its side's "
                "resignation (reason 'forfeit (crash|illegal|timeout)'), is stored whole and verifies; the "
                "error and the end of the bot's traceback go to stderr. Exit status: 0 the game was played, "
                f"{EXIT_FORFEIT} it was played and a bot forfeited, 2 a problem with the arguments, mission, "
                "bots or store (one line on stderr).")
    p.set_defaults(run=cmd_match)

    p = sub.add_parser("replay", help="print a game event by event",
                       description="Print a game event by event, from the store or from a replay file "
                                   "(--file), as one side, a spectator or (once it is over) all see it.",
                       epilog=REPLAY_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("game", nargs="?", help="the game id (or --file)")
    p.add_argument("--file", help="replay an exported replay file instead of a game in the store")
    p.add_argument("--as", dest="viewer", choices=["a", "b", "spectator", "all"], default="spectator",
                   help="whose view to replay (default: spectator; 'all' once the game is over)")
    _db_arg(p)
    p.set_defaults(run=cmd_replay)

    p = sub.add_parser("verify", help="check a game's log: hash chain, seed, every roll, every rule",
                       description="Check a game's log, from the store or a replay file (--file): sequence, "
                                   "hash chain, decoding, rules, checkpoints, seed commitment and every die "
                                   "roll. Stops at the first bad event and names it.",
                       epilog=VERIFY_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("game", nargs="?", help="the game id (or --file)")
    p.add_argument("--file", help="verify a replay file instead of a game in the store")
    p.add_argument("--expect-head", metavar="HASH",
                   help="also check that the log ends at this head hash (64 hex digits: what the server "
                        "announced in game_over and list_games); a different head fails (exit 1)")
    _db_arg(p)
    p.set_defaults(run=cmd_verify)

    p = sub.add_parser("export", help="write a game to one self-contained replay file",
                       description="Write a game from the store to one self-contained replay file, which "
                                   "'skirmish verify --file' checks without any store.")
    p.add_argument("game", help="the game id")
    p.add_argument("file", help="the replay file to write")
    _db_arg(p)
    p.set_defaults(run=cmd_export)

    p = sub.add_parser("import", help="load a replay file into the store (only if it verifies)",
                       description="Load a replay file into the store. The game is verified in full first "
                                   "(as 'skirmish verify --file' does); a game that does not verify is refused, "
                                   "naming its first bad event, and nothing is imported.",
                       epilog="exit status: 0 imported; 1 refused: the game does not verify (the first bad "
                              "event is named); 2 the file cannot be read or is not a replay file, or the "
                              "game is already in the store")
    p.add_argument("file", help="the replay file to read")
    _db_arg(p)
    p.set_defaults(run=cmd_import)

    p = sub.add_parser(
        "serve", help="run the game server (WebSockets); prints 'listening on ws://HOST:PORT' once bound",
        description="Run the game server until SIGTERM or SIGINT, then shut down gracefully (exit 0). "
                    "Logs JSON lines to stderr. Every option also reads SKIRMISH_<OPTION> (e.g. SKIRMISH_PORT, "
                    "SKIRMISH_MOVE_MS); a flag wins over the variable.")
    p.add_argument("--host", default=None, help="address to listen on (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default: 8765; 0 picks a free one)")
    p.add_argument("--db", default=None, metavar="PATH",
                   help="the SQLite file holding the games (default: $SKIRMISH_DB or "
                        "~/.local/share/skirmish/games.sqlite; ':memory:' keeps nothing)")
    p.add_argument("--move-ms", type=int, default=None, help="time per decision, ms (default: 30000)")
    p.add_argument("--reserve-ms", type=int, default=None,
                   help="banked time per seat for the game, used after the move time, ms (default: 120000)")
    p.add_argument("--max-timeouts", type=int, default=None,
                   help="time-outs after which a seat forfeits; 0 never (default: 3)")
    p.add_argument("--max-frame", type=int, default=None,
                   help="largest message accepted, bytes (default: 65536; larger get protocol.too_large)")
    p.add_argument("--rate", type=float, default=None, help="messages per second per connection (default: 50)")
    p.add_argument("--burst", type=int, default=None, help="messages a connection may send at once (default: 100)")
    p.add_argument("--hello-timeout", type=float, default=None, metavar="S",
                   help="seconds a new connection has to say hello, else it is closed (default: 10; 0: no limit)")
    p.add_argument("--idle-timeout", type=float, default=None, metavar="S",
                   help="seconds of silence after which a connection that follows no unfinished game (no seat, "
                        "not watching) is closed (default: 300; 0: never)")
    p.add_argument("--connections-per-address", type=int, default=None, metavar="N",
                   help="connections open at once from one IP address (default: 64; 0: no limit)")
    p.add_argument("--games-per-minute", type=float, default=None, metavar="R",
                   help="games one IP address may create per minute, sustained (default: 30; 0: no limit)")
    p.add_argument("--games-burst", type=int, default=None, metavar="N",
                   help="games one IP address may create at once (default: 10)")
    p.add_argument("--list-limit", type=int, default=None, metavar="N",
                   help="the most games one list_games page holds (default: 200)")
    p.add_argument("--log-level", default=None, choices=["debug", "info", "warning", "error"],
                   help="default: info")
    p.add_argument("--compression", default=None, choices=["deflate", "none"],
                   help="permessage-deflate when a client offers it (deflate), or never (none, the default: less CPU and memory per connection, more bytes)")
    from server.store.sqlite import WRITERS

    p.add_argument("--store-writer", default=None, choices=WRITERS,
                   help="where the SQLite store writes: a child process (the default: the event loop keeps "
                        "the GIL to itself) or a thread of the server")
    p.add_argument("--open-game-ttl", type=float, default=None, metavar="SECONDS",
                   help="a game nobody joined expires this long after it was created, recorded in its log "
                        "(default: 3600; 0 never)")
    p.set_defaults(run=cmd_serve)

    p = sub.add_parser("missions", help="list the bundled missions",
                       description="List the bundled missions: id, name, board size, units, rounds and the "
                                   "rules modules each switches on. Any --mission also takes a .toml file "
                                   "(docs/missions.md).")
    p.set_defaults(run=cmd_missions)

    p = sub.add_parser("tournament", help="bots play a round robin, Swiss or gauntlet; ratings and a report",
                       description="Play a tournament between bots: every pairing as mirrored pairs, games\n"
                                   "in parallel worker processes, openskill ratings, a report in --out.",
                       epilog=TOURNAMENT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", type=Path, default=None, metavar="FILE",
                   help="a TOML file with the settings below (flags override it)")
    p.add_argument("--bots", default=None, metavar="LIST",
                   help="the entrants, comma-separated: strategy names (random, greedy, mcts), "
                        "package.module:Class, or name=either")
    p.add_argument("--mission", default=None, metavar="NAME[,NAME]",
                   help="mission(s) to play, bundled ids or .toml files (default: ridge)")
    p.add_argument("--games", type=int, default=None, metavar="N",
                   help="games per pairing, played as N/2 mirrored pairs; odd N is rounded up (default: 2)")
    p.add_argument("--format", default=None, choices=["round-robin", "swiss", "gauntlet"],
                   help="round-robin (every pair of entrants; the default), swiss (--rounds rounds paired by "
                        "score, no rematches where avoidable) or gauntlet (--champion against each other entrant)")
    p.add_argument("--rounds", type=int, default=None, metavar="R",
                   help="swiss: the number of rounds (default: ceil(log2(entrants)))")
    p.add_argument("--champion", default=None, metavar="BOT",
                   help="gauntlet: the entrant (or a bot to add) that plays every other entrant")
    p.add_argument("--workers", type=int, default=None, metavar="W",
                   help="worker processes playing games in parallel (default: one per core)")
    p.add_argument("--seed", type=int, default=None, metavar="S",
                   help="the tournament's seed: the same config and seed give the same schedule and dice")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="the output directory: games.sqlite and the report (default: ./tournament); "
                        "rerun with the same DIR to resume")
    p.add_argument("--decision-timeout-ms", type=int, default=None, metavar="T",
                   help="a bot taking longer than T ms over one decision forfeits the game "
                        "(default: 5000; 0: no limit)")
    p.add_argument("--server", default=None, metavar="URL",
                   help="play every game through the server at URL (ws://...) with two networked bots; "
                        "the server keeps the logs")
    p.add_argument("--quiet", action="store_true", help="no progress bar or progress lines")
    p.set_defaults(run=cmd_tournament)

    from bots.cli import add_commands as add_bot_commands  # bot: a bot on a server
    from client.cli import add_commands  # play, spectate, games: the networked client

    add_commands(sub)
    add_bot_commands(sub)
    for name, command in sub.choices.items():  # every command's --help says what it does
        if not command.description:
            command.description = next(a.help for a in sub._choices_actions if a.dest == name)
    return parser


def main(argv: list[str] | None = None) -> int:
    from engine.errors import MissionError
    from server.store import StoreError

    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # (tournament: shown as the way to resume)
    try:
        return asyncio.run(args.run(args))
    except (CliError, MissionError, StoreError) as exc:
        print(f"skirmish {args.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # output piped into head, less, ...: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
