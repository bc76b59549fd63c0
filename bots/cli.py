"""``skirmish bot``: play one game on a server with a built-in or third-party bot, or (``--forever``)
keep joining the open games that match (``skirmish.bots.forever``)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def add_commands(sub) -> None:
    p = sub.add_parser(
        "bot", help="play one game on a server with a bot (an ordinary client)",
        description="Connect a bot to a skirmish server over WebSockets and play one game, either "
                    "creating it (--create MISSION) or joining an existing one (--game ID); or, with "
                    "--forever, keep joining the open games that match its filters, up to --max-games "
                    "at once, reconnecting with back-off and resuming its seats after a restart "
                    "(--state FILE). The bot sees only its own side's view.")
    p.add_argument("--strategy", default="random",
                   help="a built-in strategy (random, greedy, mcts; mcts:MS sets its time per decision) "
                        "or a third-party bot as module:Class (a subclass of skirmish.bots.base.Bot)")
    p.add_argument("--server", required=True, metavar="URL", help="the server, e.g. ws://127.0.0.1:8765")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--create", metavar="MISSION", help="create a game of this mission and wait for an opponent")
    where.add_argument("--game", metavar="ID", help="join this game")
    where.add_argument("--forever", action="store_true",
                       help="run until stopped: join the server's open games that match --missions, --seat and "
                            "--opponents, log each game's result as a JSON line")
    p.add_argument("--seat", choices=["a", "b", "any"], default="any",
                   help="the seat to take (default: any); with --forever, the side it plays")
    p.add_argument("--reserve-for", default="", metavar="NAME",
                   help="with --create: reserve the other seat for the player NAME (the name its client gives); "
                        "anyone else who joins gets lobby.seat_reserved")
    p.add_argument("--resume", action="store_true",
                   help="with --game: resume the seat whose token is in $SKIRMISH_SEAT_TOKEN instead of joining")
    p.add_argument("--parent-pid", type=int, default=0, metavar="PID",
                   help="exit when process PID, this bot's parent, is gone (a server's hosted bot: it never "
                        "outlives its server, which another node may replace; skirmish.bots.parent)")
    p.add_argument("--seed", type=int, default=None, help="the bot's random seed (reproducible choices)")
    p.add_argument("--codec", choices=["msgpack", "json"], default="msgpack", help="wire codec (default: msgpack)")
    p.add_argument("--name", default=None, help="the player name the server records (default: the strategy)")
    p.add_argument("--client-seed", default=None, metavar="TEXT",
                   help="the client seed the bot's seat mixes into every die roll (up to 64 printable ASCII "
                        "characters, no ':' or ','; default: a random one)")
    forever = p.add_argument_group("--forever")
    forever.add_argument("--missions", default="", metavar="LIST", help="only games of these missions (default: any)")
    forever.add_argument("--opponents", default="", metavar="NAMES",
                         help="only games whose seated player is one of these names (default: anyone)")
    forever.add_argument("--max-games", type=int, default=1, metavar="N", help="games played at once (default: 1)")
    forever.add_argument("--state", type=Path, default=None, metavar="FILE",
                         help="keep the seats held (and their tokens: a secret) in FILE, so that a restarted bot "
                              "resumes them (default: none, a restart forgets them)")
    forever.add_argument("--games", type=int, default=0, metavar="N", help="stop after N results (default: never)")
    forever.add_argument("--poll", type=float, default=1.0, metavar="S",
                         help="seconds between looks at the open games (default: 1)")
    forever.add_argument("--backoff-max", type=float, default=30.0, metavar="S",
                         help="the longest wait between reconnection attempts (default: 30)")
    forever.add_argument("--log", type=Path, default=None, metavar="FILE",
                         help="append the JSON log lines to FILE (default: stderr)")
    p.set_defaults(run=cmd_bot)


async def cmd_forever(args: argparse.Namespace) -> int:
    from skirmish.bots import make_bot
    from skirmish.bots.forever import Filters, ForeverBot, json_logger, seeded

    def names(text: str) -> frozenset[str]:
        return frozenset(n.strip() for n in text.split(",") if n.strip())

    try:
        make_bot(args.strategy, args.seed)
    except ValueError as exc:
        print(f"skirmish bot: {exc}", file=sys.stderr)
        return 2
    if args.max_games < 1 or args.games < 0 or args.poll <= 0 or args.backoff_max <= 0:
        print("skirmish bot: --max-games must be >= 1, --games >= 0, --poll and --backoff-max > 0", file=sys.stderr)
        return 2
    stream = open(args.log, "a", buffering=1) if args.log else None
    try:
        bot = ForeverBot(args.server, seeded(lambda seed: make_bot(args.strategy, seed), args.seed),
                         name=args.name or args.strategy, max_games=args.max_games, state=args.state,
                         filters=Filters(names(args.missions), args.seat, names(args.opponents)),
                         codec=args.codec, log=json_logger(stream), poll=args.poll,
                         backoff_max=args.backoff_max, stop_after=args.games)
        await bot.run()
    finally:
        if stream is not None:
            stream.close()
    return 0


async def cmd_bot(args: argparse.Namespace) -> int:
    from skirmish.bots import make_bot
    from skirmish.bots.runner import run_bot
    from skirmish.client.cli import head_line
    from skirmish.client.connection import ClientError, GameOverUpdate

    def fail(message: str) -> int:
        print(f"skirmish bot: {message}", file=sys.stderr)
        return 2

    if args.forever:
        if args.client_seed is not None or args.resume or args.reserve_for:
            return fail("--forever draws a fresh client seed per game; --client-seed, --resume and --reserve-for "
                        "go with --create or --game")
        return await cmd_forever(args)
    if args.reserve_for and not args.create:
        return fail("--reserve-for goes with --create")
    if args.parent_pid:
        from skirmish.bots.parent import exit_with_parent

        exit_with_parent(args.parent_pid)
    try:
        bot = make_bot(args.strategy, args.seed)
    except ValueError as exc:
        return fail(str(exc))
    token = os.environ.get("SKIRMISH_SEAT_TOKEN", "") if args.resume else None
    if args.resume and not (args.game and token):
        return fail("--resume takes --game ID and the seat's token in $SKIRMISH_SEAT_TOKEN")

    def seated(seat) -> None:
        print(f"seated: game {seat.game_id}, seat {seat.seat}" + (
            f" (an opponent joins with: skirmish bot --server {args.server} --game {seat.game_id})"
            if args.create else ""), flush=True)

    heads: list[str] = []

    def over(update) -> None:
        if isinstance(update, GameOverUpdate):
            heads.append(update.head_hash)

    try:
        outcome = await run_bot(args.server, bot, mission=args.create, game_id=args.game, seat=args.seat,
                                codec=args.codec, name=args.name or args.strategy, on_seated=seated,
                                on_update=over, client_seed=args.client_seed, token=token,
                                reserve_for=args.reserve_for)
    except ClientError as exc:
        return fail(f"the server refused: {exc}")
    except OSError as exc:
        return fail(f"cannot reach {args.server}: {exc}")
    who = f"side {outcome.winner} wins" if outcome.winner else "a draw"
    print(head_line(heads[-1] if heads else ""), end="")
    print(f"game over: {who} ({outcome.reason})")
    return 0

