"""The ``skirmish`` command: play, replay, verify, export and import games.

Every command that reads or writes the store takes ``--db PATH`` (a SQLite file, or a PostgreSQL
database: ``postgresql://HOST/DB[?schema=NAME]``, see skirmish.server.store.location). The default
is ``$SKIRMISH_DB`` if set, else ``$XDG_DATA_HOME/skirmish/games.sqlite``
(``~/.local/share/skirmish/games.sqlite``); each command prints the file it uses.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from skirmish.server import cli_args
from skirmish.server.cli_args import EXIT_FAILED, EXIT_FORFEIT, EXIT_OK, EXIT_USAGE, package_version

def default_db() -> Path:
    if os.environ.get("SKIRMISH_DB"):
        return Path(os.environ["SKIRMISH_DB"])
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "skirmish" / "games.sqlite"


class CliError(Exception):
    """A problem to report in one line, with exit code 2."""



def db_path(text: str | None):
    """The store ``--db`` (or else ``$SKIRMISH_DB``, or else the default) names, checked: a SQLite
    file's Path or a PostgreSQL location (skirmish.server.store.location.Postgres)."""
    from skirmish.server.store.location import resolve

    if text is not None:
        return resolve(text, what="--db")
    if os.environ.get("SKIRMISH_DB"):
        return resolve(os.environ["SKIRMISH_DB"], what="$SKIRMISH_DB")
    return default_db()


async def _open(db: str | None, *, create: bool, what: str = "--db"):
    from skirmish.server.store.location import Postgres, open_postgres, open_sqlite, prepare, resolve

    path = db_path(db) if what == "--db" else resolve(db, what=what)
    label = "store" if what == "--db" else f"{what.lstrip('-')} store"
    if isinstance(path, Postgres):
        print(f"{label}: {path}", file=sys.stderr)
        return await open_postgres(path, create=create)
    prepare(path, create=False)
    if not create and not path.exists():
        raise CliError(f"no store at {path} (play a game with 'skirmish match', or pass {what})")
    print(f"{label}: {path}", file=sys.stderr)
    return await open_sqlite(path, create=create)


async def _load_log(store, game_id: str):
    from skirmish.server.store import UnknownGame

    try:
        return await store.read(game_id)
    except UnknownGame:
        games = [g.game_id for g in await store.list_games()][-5:]
        hint = f"; recent games: {', '.join(games)}" if games else "; the store has no games"
        raise CliError(f"no game {game_id!r} in the store{hint}") from None


# -- commands --------------------------------------------------------------------------------


async def cmd_match(args) -> int:
    from functools import partial

    from skirmish.bots import make_bot
    from skirmish.server import missions
    from skirmish.server.match import play_match
    from skirmish.server.tournament.guard import GuardedBot

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
    if args.all:
        return await _check_all(args, "replay")
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
    from skirmish.server.storecheck import replay_lines

    lines, bad, over = replay_lines(datas, viewer)
    if viewer == "all" and not over and bad is None:
        raise CliError("the full log opens when the game is over; use --as a, b or spectator")
    for seq, line in lines:
        print(f"{seq:5d}  {line}")
    if bad is not None:
        sys.stdout.flush()
        print(f"skirmish replay: FAILED at event {bad[0]}: {bad[1]} "
              f"(skirmish verify checks the whole log)", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


async def _check_all(args, mode: str) -> int:
    """``verify --all`` / ``replay --all``: every game of the store, in parallel workers."""
    from skirmish.server.storecheck import check_store, default_workers, summary

    if args.game or args.file:
        raise CliError("--all checks every game of the store: name no GAME and no --file")
    workers = default_workers() if args.workers is None else args.workers
    if workers < 1:
        raise CliError(f"--workers takes a number of processes of at least 1, not {workers}")
    async with await _open(args.db, create=False) as store:
        totals = await check_store(store, mode, workers=workers, viewer=getattr(args, "viewer", "spectator"))
    print(summary(totals, mode, workers))
    return EXIT_FAILED if totals.failed else EXIT_OK


def _read_replay_file(path: str):
    from skirmish.server.replayfile import ReplayFileError, read_file

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
    from skirmish.engine.verify import LoggedEvent, verify_log
    from skirmish.server.replayfile import verify_file

    if args.all:
        if args.expect_head is not None:
            raise CliError("--expect-head checks one game's head: name the GAME, not --all")
        return await _check_all(args, "verify")
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
    from skirmish.server.replayfile import export_game

    async with await _open(args.db, create=False) as store:
        if not await _load_log(store, args.game):
            raise CliError(f"game {args.game!r} has no events to export")
        data = await export_game(store, args.game)
    Path(args.file).write_bytes(data)
    print(f"exported {args.game} to {args.file} ({len(data)} bytes)")
    return EXIT_OK


async def cmd_import(args) -> int:
    from skirmish.server.replayfile import ImportRefused, ReplayFileError, import_game
    from skirmish.server.store import GameExists

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


async def cmd_copy(args) -> int:
    from skirmish.server.copy import copy_games
    from skirmish.server.store.location import resolve

    source_at, target_at = resolve(args.source, what="--from"), resolve(args.target, what="--to")
    if str(source_at) == str(target_at):
        raise CliError(f"--from and --to name the same store ({source_at})")
    async with await _open(args.source, create=False, what="--from") as source, \
            await _open(args.target, create=True, what="--to") as target:
        summary = await copy_games(source, target, args.games)
    print(f"copied {len(summary.copied)}, already there {len(summary.identical)}, refused "
          f"{len(summary.conflicts)} (other content in the target), not verifying {len(summary.unverified)}, "
          f"not in the source {len(summary.missing)}")
    if summary.conflicts or summary.missing:
        return EXIT_USAGE
    return EXIT_OK if summary.ok else EXIT_FAILED


async def cmd_missions(args) -> int:
    from skirmish.server import missions

    for m in missions.bundled().values():
        mods = ", ".join(m.modules) or "core only"
        print(f"{m.id:12s} {m.name} — {m.board.width}x{m.board.height}, {len(m.units)} units, "
              f"{m.rounds} rounds, modules: {mods}")
        if m.description:
            print(f"{'':12s} {m.description}")
    return EXIT_OK


async def cmd_tournament(args) -> int:
    from skirmish.server.tournament import TournamentError, load_config, run_tournament

    flags = {key: getattr(args, key.replace("-", "_")) for key in (
        "bots", "mission", "games", "format", "rounds", "champion", "workers", "seed", "out",
        "decision-timeout-ms", "server", "ray")}
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
        prog = [sys.executable, "-m", "skirmish.server.cli"]
    else:
        prog = ["skirmish"]
    return shlex.join([*prog, *argv])


async def cmd_serve(args) -> int:
    from skirmish.server.app import ServerConfig, serve_until_signalled
    from skirmish.server.housebots import parse_names
    from skirmish.server.logs import configure_logging

    try:
        config = ServerConfig.from_env(
            host=args.host, port=args.port, db=str(args.db) if args.db else None, move_ms=args.move_ms,
            reserve_ms=args.reserve_ms, max_timeouts=args.max_timeouts, max_frame=args.max_frame,
            rate=args.rate, burst=args.burst, log_level=args.log_level, compression=args.compression,
            store_writer=args.store_writer, loop=args.loop, open_game_ttl=args.open_game_ttl, hello_timeout=args.hello_timeout,
            idle_timeout=args.idle_timeout, connections_per_address=args.connections_per_address, games_per_minute=args.games_per_minute,
            games_burst=args.games_burst, list_limit=args.list_limit, house_bots=args.house_bots,
            tournaments=args.tournaments, nats=args.nats, node=args.node, lease_ttl=args.lease_ttl)
        parse_names(config.house_bots)
        configure_logging(config.log_level)
    except (TypeError, ValueError) as exc:
        raise CliError(str(exc)) from None
    try:
        return await serve_until_signalled(config)
    except OSError as exc:  # the address is in use, or not ours
        raise CliError(f"cannot listen on {config.host}:{config.port}: {exc.strerror or exc}") from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="skirmish", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version=f"skirmish {package_version()}",
                        help="print the installed version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands = ((cli_args.add_match, cmd_match), (cli_args.add_replay, cmd_replay),
                (cli_args.add_verify, cmd_verify), (cli_args.add_export, cmd_export),
                (cli_args.add_import, cmd_import), (cli_args.add_copy, cmd_copy), (cli_args.add_serve, cmd_serve),
                (cli_args.add_missions, cmd_missions), (cli_args.add_tournament, cmd_tournament))
    from skirmish.server.backup import add_backup, cmd_backup  # backup: a consistent copy while serving

    from skirmish.server.schema_cli import add_schema, cmd_schema  # schema: the protocol as JSON Schema
    from skirmish.server.tournament.leaderboard import add_leaderboard, cmd_leaderboard  # across tournaments

    commands += ((add_backup, cmd_backup), (add_schema, cmd_schema), (add_leaderboard, cmd_leaderboard))
    for add, run in commands:  # each command's arguments (server/cli_args.py), and what runs it
        add(sub).set_defaults(run=run)

    from skirmish.bots.cli import add_commands as add_bot_commands  # bot: a bot on a server
    from skirmish.client.cli import add_commands  # play, spectate, games: the networked client

    add_commands(sub)
    add_bot_commands(sub)
    for name, command in sub.choices.items():  # every command's --help says what it does
        if not command.description:
            command.description = next(a.help for a in sub._choices_actions if a.dest == name)
    return parser


def _loop_factory(args):
    """``serve``'s event loop (``--loop``, else ``SKIRMISH_LOOP``, else uvloop where installed);
    the standard library's (None) for every other command."""
    if args.command != "serve":
        return None
    from skirmish.server.config import loop_factory

    try:
        return loop_factory(args.loop or os.environ.get("SKIRMISH_LOOP", ""))
    except ValueError as exc:
        raise CliError(str(exc)) from None


def main(argv: list[str] | None = None) -> int:
    from skirmish.engine.errors import MissionError
    from skirmish.server.store import StoreError

    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # (tournament: shown as the way to resume)
    try:
        with asyncio.Runner(loop_factory=_loop_factory(args)) as runner:
            return runner.run(args.run(args))
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
