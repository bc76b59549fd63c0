"""The ``skirmish`` command line's arguments: for each command this package runs, the function
that adds its subparser (flags, help, epilog), and the exit statuses those texts promise.
``skirmish.server.cli.build_parser`` puts them together with each command's ``run``; the networked client's
and the bots' commands add themselves (``skirmish.client.cli``, ``skirmish.bots.cli``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
EXIT_FORFEIT = 3  # match: the game was played and stored, but a bot forfeited it


def db_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", default=None, metavar="PATH",
                   help="the store holding the games: a SQLite file (a path or sqlite:PATH) or a PostgreSQL "
                        "database (postgresql://HOST/DB[?schema=NAME]) (default: $SKIRMISH_DB or "
                        "~/.local/share/skirmish/games.sqlite)")


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
  ray = true                          # games as Ray tasks on a local Ray; or "ray://HOST:10001"

Every pairing plays its games as mirrored pairs: game 2k and 2k+1 share the mission and the
bots' seeds, with the sides swapped; each game has dice of its own (shared dice would let one
game's revealed seed or hidden cards give the other's away). A bot that crashes, answers an option it was not offered or
takes longer than the decision time limit forfeits that game (counted as F, apart from
losses). Rerun the same command with the same --out to resume an interrupted tournament.
Ctrl-C stops at once: the games in flight are cancelled, every finished game is kept, and the
command that resumes is printed (exit status 130).
With --ray, the games are Ray tasks (pip install 'skirmish[ray]'): on a local Ray started for the
tournament (--ray alone) or on the cluster at ADDRESS (auto, HOST:PORT or ray://HOST:10001, whose
nodes have skirmish and the bots installed); --workers is then the number of games in flight
(default: the cluster's CPUs). The tasks hand each game back: this process alone writes OUT, and
the games are the same, event for event, as with worker processes; resume on either.
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
With --all (every game of the store, --workers processes): 0 every game verifies, 1 at least
one does not (each failure is printed, with its game id).
"""

REPLAY_EPILOG = """\
exit status: 0 the game was printed; 1 an event cannot be read or replayed (the events
before it are printed, then the error names it); 2 no such game, store or file, or a file
that is not a replay file. Replay does not verify: 'skirmish verify' does.
With --all: 0 every game replays, 1 at least one does not (each failure is printed).
"""


def package_version() -> str:
    """The installed package's version (its metadata, from pyproject.toml)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("skirmish")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"



def add_match(sub) -> argparse.ArgumentParser:
    """``skirmish match``: two in-process bots play one game into the store."""
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
    db_arg(p)
    p.epilog = ("A bot that crashes, answers an option it was not offered or takes longer than "
                "--decision-timeout-ms forfeits, as in a tournament: the game ends with its side's "
                "resignation (reason 'forfeit (crash|illegal|timeout)'), is stored whole and verifies; the "
                "error and the end of the bot's traceback go to stderr. Exit status: 0 the game was played, "
                f"{EXIT_FORFEIT} it was played and a bot forfeited, 2 a problem with the arguments, mission, "
                "bots or store (one line on stderr).")
    return p



def all_arg(p: argparse.ArgumentParser, text: str) -> None:
    """``--all`` and ``--workers`` of ``verify`` and ``replay``."""
    p.add_argument("--all", action="store_true", help=text)
    p.add_argument("--workers", type=int, metavar="N",
                   help="with --all: worker processes (default: one per core; 1 checks in this process)")


def add_replay(sub) -> argparse.ArgumentParser:
    """``skirmish replay``: print a game event by event."""
    p = sub.add_parser("replay", help="print a game event by event",
                       description="Print a game event by event, from the store or from a replay file "
                                   "(--file), as one side, a spectator or (once it is over) all see it.",
                       epilog=REPLAY_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("game", nargs="?", help="the game id (or --file)")
    p.add_argument("--file", help="replay an exported replay file instead of a game in the store")
    all_arg(p, "replay every game of the store (nothing printed but failures, progress and a games/s "
                "summary; with --as all, games not yet over are counted and left out)")
    p.add_argument("--as", dest="viewer", choices=["a", "b", "spectator", "all"], default="spectator",
                   help="whose view to replay (default: spectator; 'all' once the game is over)")
    db_arg(p)
    return p



def add_verify(sub) -> argparse.ArgumentParser:
    """``skirmish verify``: check a game's log."""
    p = sub.add_parser("verify", help="check a game's log: hash chain, seed, every roll, every rule",
                       description="Check a game's log, from the store or a replay file (--file): sequence, "
                                   "hash chain, decoding, rules, checkpoints, seed commitment and every die "
                                   "roll. Stops at the first bad event and names it.",
                       epilog=VERIFY_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("game", nargs="?", help="the game id (or --file)")
    p.add_argument("--file", help="verify a replay file instead of a game in the store")
    all_arg(p, "verify every game of the store in parallel workers (failures, progress and a games/s "
                "summary; exit 1 if any game fails)")
    p.add_argument("--expect-head", metavar="HASH",
                   help="also check that the log ends at this head hash (64 hex digits: what the server "
                        "announced in game_over and list_games); a different head fails (exit 1)")
    db_arg(p)
    return p



def add_export(sub) -> argparse.ArgumentParser:
    """``skirmish export``: write a game to a replay file."""
    p = sub.add_parser("export", help="write a game to one self-contained replay file",
                       description="Write a game from the store to one self-contained replay file, which "
                                   "'skirmish verify --file' checks without any store.")
    p.add_argument("game", help="the game id")
    p.add_argument("file", help="the replay file to write")
    db_arg(p)
    return p



def add_copy(sub) -> argparse.ArgumentParser:
    """``skirmish copy``: move games between two stores."""
    p = sub.add_parser("copy", help="copy games from one store to another, verifying each on arrival",
                       description="Copy games from one store to another (a SQLite file or a PostgreSQL database, "
                                   "either way). Each game is verified before it is written and again on "
                                   "arrival; a game already in the target with the same content is skipped, "
                                   "one with other content is refused and nothing of it is written.",
                       epilog="exit status: 0 every game copied or already there; 1 a game does not verify; "
                              "2 a game is in the target with other content, or is not in the source, or a "
                              "store cannot be opened")
    p.add_argument("--from", dest="source", required=True, metavar="DB",
                   help="the store to copy from: a SQLite file (a path or sqlite:PATH) or postgresql://HOST/DB")
    p.add_argument("--to", dest="target", required=True, metavar="DB",
                   help="the store to copy into (created if missing), same forms as --from")
    p.add_argument("--game", dest="games", action="append", metavar="ID",
                   help="a game to copy (repeat for several; default: every game of the source)")
    return p


def add_import(sub) -> argparse.ArgumentParser:
    """``skirmish import``: load a replay file into the store."""
    p = sub.add_parser("import", help="load a replay file into the store (only if it verifies)",
                       description="Load a replay file into the store. The game is verified in full first "
                                   "(as 'skirmish verify --file' does); a game that does not verify is refused, "
                                   "naming its first bad event, and nothing is imported.",
                       epilog="exit status: 0 imported; 1 refused: the game does not verify (the first bad "
                              "event is named); 2 the file cannot be read or is not a replay file, or the "
                              "game is already in the store")
    p.add_argument("file", help="the replay file to read")
    db_arg(p)
    return p



def add_serve(sub) -> argparse.ArgumentParser:
    """``skirmish serve``: run the game server (each option also read from ``SKIRMISH_<OPTION>``)."""
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
    from skirmish.server.store.sqlite import WRITERS

    p.add_argument("--store-writer", default=None, choices=WRITERS,
                   help="where the SQLite store writes: a child process (the default: the event loop keeps "
                        "the GIL to itself) or a thread of the server")
    p.add_argument("--loop", default=None, choices=["uvloop", "asyncio"],
                   help="the event loop: uvloop (the default where it is installed: less CPU per command) or "
                        "the standard library's asyncio")
    p.add_argument("--open-game-ttl", type=float, default=None, metavar="SECONDS",
                   help="a game nobody joined expires this long after it was created, recorded in its log "
                        "(default: 3600; 0 never)")
    p.add_argument("--house-bots", default=None, metavar="NAMES",
                   help="bots the server hosts, e.g. random,greedy,mcts (mcts:MS: MS ms a decision): in the web client a person can "
                        "play one (each runs as a subprocess client seeing only its own view)")
    p.add_argument("--tournaments", default=None, metavar="DIRS",
                   help="tournament output folders (skirmish tournament --out), comma-separated: the web client "
                        "lists them and serves their report.html")
    p.add_argument("--nats", default=None, metavar="URL",
                   help="run as one node of several on one PostgreSQL store (--db postgresql://...), linked by "
                        "the NATS server at URL, e.g. nats://127.0.0.1:4222 (default: one node, no NATS)")
    p.add_argument("--node", default=None, metavar="NAME",
                   help="this node's name among several (default: HOSTNAME-PID)")
    p.add_argument("--lease-ttl", type=float, default=None, metavar="S",
                   help="seconds a node's lease on a game lasts unrenewed; a dead node's games are taken over "
                        "after it (default: 3)")
    return p



def add_missions(sub) -> argparse.ArgumentParser:
    """``skirmish missions``: list the bundled missions."""
    p = sub.add_parser("missions", help="list the bundled missions",
                       description="List the bundled missions: id, name, board size, units, rounds and the "
                                   "rules modules each switches on. Any --mission also takes a .toml file "
                                   "(docs/missions.md).")
    return p



def add_tournament(sub) -> argparse.ArgumentParser:
    """``skirmish tournament``: bots play a round robin, Swiss or gauntlet."""
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
    p.add_argument("--ray", nargs="?", const=True, default=None, metavar="ADDRESS",
                   help="play the games as Ray tasks: on a local Ray started for the tournament, or on the "
                        "Ray cluster at ADDRESS (auto, HOST:PORT, ray://HOST:10001); needs Ray (the 'ray' extra)")
    p.add_argument("--quiet", action="store_true", help="no progress bar or progress lines")
    return p
