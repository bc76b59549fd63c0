"""A bot plays one game over the network as an ordinary client (DESIGN.md section 7).

The bot sees only its own view: the state its client reduced from the events the server showed
its seat (``skirmish.client.connection``), never the true state. It answers each decision of its seat;
a decision that is already gone when it answers (the clock ran out and the server played the
default) is skipped, and the game carries on.
"""

from __future__ import annotations

import asyncio
from typing import Callable

from skirmish.bots.base import Bot
from skirmish.client.connection import Client, ClientError, Seat, Update, connect
from skirmish.engine.codec import clone_state
from skirmish.engine.model import Outcome


async def run_bot(url: str, bot: Bot, *, mission: str | None = None, game_id: str | None = None,
                  seat: str = "any", codec: str = "msgpack", client_seed: str | None = None, name: str | None = None,
                  on_seated: Callable[[Seat], None] | None = None,
                  on_update: Callable[[Update], None] | None = None, think_in_thread: bool = False,
                  token: str | None = None, reserve_for: str = "") -> Outcome:
    """Play one game with ``bot``: create one of ``mission`` or join ``game_id``, taking ``seat``
    ("a", "b" or "any"); returns the outcome. ``on_seated`` hears the seat as soon as it is
    held (the creator passes the game id on to its opponent that way); ``on_update`` sees every
    update. A dropped connection is reconnected and the game resumed. ``client_seed``: the
    seat's client seed (None, the default: a random one; "": none). With ``token`` (and
    ``game_id``) the bot resumes the seat of that token instead of joining. ``reserve_for``
    (creating): the player name the other seat is reserved for.

    ``choose`` runs in the event loop's thread (where a tournament's guard can interrupt it
    with SIGALRM), which holds the connection still while the bot thinks: a bot that thinks
    for many seconds (past the server's 20 s keepalive) passes ``think_in_thread=True`` and
    thinks in a worker thread on a copy of its view while the connection is served."""
    if (mission is None) == (game_id is None):
        raise ValueError("run_bot takes a mission (to create a game) or a game_id (to join one)")
    async with connect(url, codec=codec, name=name or f"bot:{bot.name}", auto_reconnect=True) as c:
        if mission is not None:
            held = await c.create_game(mission, seat=seat, client_seed=client_seed, reserve_for=reserve_for)
        elif token:
            held = await c.resume(game_id, token)
        else:
            held = await c.join(game_id, seat=seat, client_seed=client_seed)
        if on_seated:
            on_seated(held)
        return await play_seat(c, held, bot, on_update=on_update, think_in_thread=think_in_thread)


async def play_seat(c: Client, held: Seat, bot: Bot, *, on_update: Callable[[Update], None] | None = None,
                    think_in_thread: bool = False) -> Outcome:
    """Play the seat ``held`` on the client ``c`` to the end of its game with ``bot`` (``run_bot``'s
    loop; the long-running bot plays several seats on one client this way); returns the outcome."""
    bot.new_game(held.seat)
    gid = held.game_id
    answered = 0  # the last decision id this bot answered
    async for update in c.updates(gid):
        if on_update:
            on_update(update)
        decision = c.my_decision(gid)
        if decision is None or decision.id <= answered:
            continue
        if think_in_thread:  # on a copy: the client goes on updating the view meanwhile
            option = await asyncio.to_thread(bot.choose, clone_state(c.view(gid)), decision)
        else:
            option = bot.choose(c.view(gid), decision)
        answered, before = decision.id, answered
        try:
            await c.choose(decision, option, game_id=gid)
        except ClientError as exc:
            if exc.code == "server.shutting_down":  # refused unread: answer it again once resumed
                answered = before
                continue
            # stale: the clock ran out meanwhile and the server chose; over: the game ended
            # (the opponent resigned, say). Either way the stream says what comes next.
            if exc.code not in ("game.stale_decision", "game.over"):
                raise
    outcome = c.game(gid).outcome
    if outcome is None:
        raise ClientError("client.no_outcome", f"the stream of game {gid} ended without its outcome")
    return outcome
