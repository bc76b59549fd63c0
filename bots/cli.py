"""``skirmish bot``: play one game on a server with a built-in or third-party bot."""

from __future__ import annotations

import argparse
import os
import sys


def add_commands(sub) -> None:
    p = sub.add_parser(
        "bot", help="play one game on a server with a bot (an ordinary client)",
        description="Connect a bot to a skirmish server over WebSockets and play one game, either "
                    "creating it (--create MISSION) or joining an existing one (--game ID). The bot "
                    "sees only its own side's view.")
    p.add_argument("--strategy", default="random",
                   help="a built-in strategy (random, greedy, mcts; mcts:MS sets its time per decision) "
                        "or a third-party bot as module:Class (a subclass of skirmish.bots.base.Bot)")
    p.add_argument("--server", required=True, metavar="URL", help="the server, e.g. ws://127.0.0.1:8765")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--create", metavar="MISSION", help="create a game of this mission and wait for an opponent")
    where.add_argument("--game", metavar="ID", help="join this game")
    p.add_argument("--seat", choices=["a", "b", "any"], default="any", help="the seat to take (default: any)")
    p.add_argument("--resume", action="store_true",
                   help="with --game: resume the seat whose token is in $SKIRMISH_SEAT_TOKEN instead of joining")
    p.add_argument("--seed", type=int, default=None, help="the bot's random seed (reproducible choices)")
    p.add_argument("--codec", choices=["msgpack", "json"], default="msgpack", help="wire codec (default: msgpack)")
    p.add_argument("--name", default=None, help="the player name the server records (default: the strategy)")
    p.add_argument("--client-seed", default=None, metavar="TEXT",
                   help="the client seed the bot's seat mixes into every die roll (up to 64 printable ASCII "
                        "characters, no ':' or ','; default: a random one)")
    p.set_defaults(run=cmd_bot)


async def cmd_bot(args: argparse.Namespace) -> int:
    from skirmish.bots import make_bot
    from skirmish.bots.runner import run_bot
    from skirmish.client.cli import head_line
    from skirmish.client.connection import ClientError, GameOverUpdate

    def fail(message: str) -> int:
        print(f"skirmish bot: {message}", file=sys.stderr)
        return 2

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
                                on_update=over, client_seed=args.client_seed, token=token)
    except ClientError as exc:
        return fail(f"the server refused: {exc}")
    except OSError as exc:
        return fail(f"cannot reach {args.server}: {exc}")
    who = f"side {outcome.winner} wins" if outcome.winner else "a draw"
    print(head_line(heads[-1] if heads else ""), end="")
    print(f"game over: {who} ({outcome.reason})")
    return 0

