"""An asyncio client for the skirmish server (the wire contract: ``protocol/``, ``docs/protocol.md``).

::

    async with connect("ws://127.0.0.1:8765", codec="json", name="me") as c:
        seat = await c.create_game("ridge", seat="a")
        async for update in c.updates(seat.game_id):
            if isinstance(update, DecisionUpdate) and c.my_decision(seat.game_id):
                await c.choose(update.decision, update.decision.options[0])

The protocol itself (ids and replies, sequence numbers, gaps, duplicates, the view fold,
``updates`` unpacked) is a sans-I/O ``skirmish.client.session.ClientSession``; ``skirmish.client.transport`` moves
its frames over a WebSocket, waits for replies, queues each game's updates and reconnects; this
module is the client's API on top (the calls, each game's view, ``updates``).

What it does for you:

- **calls and replies**: every call gets a fresh ``id``; the reply with that ``id`` (or the
  ``error``, raised as ``ClientError(code, message)``) resolves it. Pushes (``event``,
  ``decision``, ``game_over``) go to their game's queue, read with ``updates(game_id)``; with
  ``batch`` (the default) the server sends them as one ``updates`` per step, unpacked here into
  the same pushes (and the ``ack`` of a command folded into it);
- **the view state**: each game's stream of view events is reduced with ``skirmish.engine.evolve`` into
  this client's own ``State`` (from the ``GameCreated`` it receives), as soon as it arrives:
  ``view(game_id)`` is the latest view, ``pending(game_id)`` the pending decision and its clock;
- **sequence numbers**: ``last_seq`` is the highest seq received. An event at or below it is a
  duplicate and is dropped (counted in ``GameView.duplicates``); a jump is recorded in
  ``GameView.gaps`` (a viewer may legitimately skip events the server redacts away);
- **reconnection**: ``reconnect()`` opens a new connection, says hello and resumes every game
  it follows (``resume`` with the seat token, or ``spectate`` with ``after_seq``) from
  ``last_seq``, so the stream carries on with exactly the missed events. With
  ``auto_reconnect=True`` a dropped connection is reconnected in the background;
- **client seeds**: ``create_game`` (with a seat) and ``join`` send a random client seed unless
  given one, so that no game's dice rest on the server's seed alone; ``game_over``'s
  ``head_hash`` is kept in ``GameView.head_hash`` (a replay file of the game must end there);
- **commands**: ``choose`` sends a ``command`` with a fresh ``command_id`` and waits for its
  ``ack`` (the events are durable). If the connection drops first, the same ``command_id`` is
  sent again after reconnecting (``auto_reconnect``), or the caller retries with
  ``choose(..., command_id=exc.command_id)``: the server acts on a command id once;
- **seats**: ``create_game`` and ``join`` send a fresh random ``request_id``; if the connection
  drops before ``seated`` arrives, the same request is sent again after reconnecting
  (``auto_reconnect``), or the caller retries with ``join(..., request_id=exc.request_id)``: the
  server hands the seat (and its token) that request took to its retry, never a second one.

Exceptions (all ``ClientError``): ``ClientError`` (the server's ``error`` reply: ``code`` is one of
``skirmish.protocol.errors.CODES``), ``ConnectFailed`` (no server there, or it refused the handshake),
``ConnectionLost`` (the connection dropped while a call waited).
"""

from __future__ import annotations

import asyncio
import secrets
import time
import uuid
from dataclasses import dataclass
from typing import AsyncIterator

import msgspec

from skirmish.client.errors import ClientError, ConnectFailed, ConnectionLost
from skirmish.client.session import DecisionUpdate, EventUpdate, GameOverUpdate, GameView, Update
from skirmish.client.transport import Lost, Transport
from skirmish.engine.model import Decision, Option, State
from skirmish.protocol import messages as m

# refusals a command is sent again after (with its command id: never acted on twice): a node
# shutting down (it hands its games to another node, and the client reconnects), or a game moving
# between nodes (docs/store.md, "Several nodes")
RETRIED = ("server.shutting_down", "server.unavailable")

__all__ = ["Client", "ClientError", "ConnectFailed", "ConnectionLost", "DecisionUpdate", "EventUpdate",
           "GameOverUpdate", "GameView", "Seat", "Update", "connect", "new_client_seed"]


@dataclass(frozen=True)
class Seat:
    """A seat held: keep ``token`` secret, it is how you resume."""

    game_id: str
    seat: str
    token: str


def connect(url: str, codec: str = "msgpack", name: str = "skirmish-client", *,
            auto_reconnect: bool = False, open_timeout: float = 10.0, batch: bool = True) -> "Client":
    """A client for the server at ``url``: ``async with connect(...) as c`` (or ``await c.open()``).

    ``codec`` is ``"msgpack"`` (binary frames) or ``"json"`` (text frames). ``batch`` (the
    default) asks the server for one ``updates`` frame per step instead of v1's separate pushes;
    either way ``updates()`` yields the same stream."""
    return Client(url, codec=codec, name=name, auto_reconnect=auto_reconnect, open_timeout=open_timeout,
                  batch=batch)


class Client(Transport):
    """A client of the server: the protocol's calls, and what this client knows of each game
    (the connection, the reader and reconnection are :class:`~skirmish.client.transport.Transport`'s)."""

    async def ping(self) -> None:
        await self._call(m.Ping())

    async def list_missions(self) -> list[m.MissionInfo]:
        return (await self._call(m.ListMissions())).missions

    async def list_games(self, status: str = "", *, offset: int = 0, limit: int = 0) -> list[m.GameSummary]:
        """A page of the server's games with ``status`` ("open": waiting for players, "live",
        "finished"; "": any): the ``offset`` newest skipped, up to ``limit`` (0: the server's page
        size), oldest first. ``games_page`` also says how many there are."""
        return (await self.games_page(status, offset=offset, limit=limit)).games

    async def games_page(self, status: str = "", *, offset: int = 0, limit: int = 0) -> m.Games:
        """``list_games``' reply: ``games`` (a page, oldest first) and ``total`` (all that match)."""
        return await self._call(m.ListGames(status=status, offset=offset, limit=limit))

    async def create_game(self, mission: str, seat: str | None = None, client_seed: str | None = None,
                          request_id: str | None = None, reserve_for: str = "") -> Seat:
        """Create a game; with ``seat`` ("a", "b", "any") take that seat at once. Without one, the
        returned ``Seat`` has only the game id (join or spectate it next).

        ``client_seed`` is mixed into every die roll of the game (logged as ``ClientSeedAdded``):
        None (the default) sends a fresh random one (``new_client_seed``), "" sends none.
        Sent with a fresh ``request_id`` (or the one given: a retry's), so that a retry after a
        lost reply gets the same game and seat (see ``join``). ``reserve_for``: a player name; the
        other seat is then reserved for the connection whose hello gives that name (others get
        ``lobby.seat_reserved``)."""
        seed = (new_client_seed() if client_seed is None else client_seed) if seat else ""
        return await self._seat_request(m.CreateGame(mission=mission, seat=seat or "", client_seed=seed,
                                                     request_id=request_id or _new_request_id(),
                                                     reserve_for=reserve_for))

    async def join(self, game_id: str, seat: str = "any", client_seed: str | None = None,
                   request_id: str | None = None) -> Seat:
        """Take a seat ("a", "b", "any") in a game; ``client_seed`` as for ``create_game`` (default:
        a random one). Sent with a fresh ``request_id`` (or the one given): if the connection drops
        before ``seated`` arrives, the request is sent again after reconnecting (``auto_reconnect``;
        else ``ConnectionLost.request_id`` is set for the caller's retry), and the server answers it
        with the seat and token its first try took."""
        seed = new_client_seed() if client_seed is None else client_seed
        return await self._seat_request(m.Join(game_id=game_id, seat=seat, client_seed=seed,
                                               request_id=request_id or _new_request_id()))

    async def _seat_request(self, msg: m.CreateGame | m.Join) -> Seat:
        while True:
            try:
                return self._seat(await self._call(msg))
            except ConnectionLost:
                if not self.auto_reconnect or self._closed:
                    raise ConnectionLost(request_id=msg.request_id) from None
                await self.wait_connected()

    async def spectate(self, game_id: str, after_seq: int = 0) -> str:
        """Watch a game; returns the viewer the server gave this connection."""
        reply = await self._call(m.Spectate(game_id=game_id, after_seq=after_seq))
        return getattr(reply, "viewer", "spectator")

    async def resume(self, game_id: str, token: str, last_seq: int = 0) -> Seat:
        """Take up a seat again: the server sends every event after ``last_seq`` in its view.

        The view state starts from ``GameCreated`` (seq 1): a client that has no view of the game
        yet (a new process) resumes from 0 to rebuild it. ``reconnect()`` resumes by itself."""
        g = self.game(game_id)
        reply = await self._call(self.session.resuming(game_id, token, last_seq))
        seat = self._seat(reply)
        return Seat(game_id, seat.seat or g.viewer, token)

    async def resign(self, game_id: str, command_id: str | None = None) -> int:
        self._check_not_over(game_id)
        ack = await self._call(m.ResignGame(game_id=game_id, command_id=command_id or _new_command_id()))
        return ack.seq

    async def offer_draw(self, game_id: str, command_id: str | None = None) -> int:
        """Offer a draw, or accept the other seat's standing offer (it ends the game drawn)."""
        self._check_not_over(game_id)
        ack = await self._call(m.OfferDraw(game_id=game_id, command_id=command_id or _new_command_id()))
        return ack.seq

    def _check_not_over(self, game_id: str) -> None:
        """A command for a game this client has seen end is ``game.over`` at once, as the server
        would answer: after a reconnect the client does not resume an ended game, so the server
        would only say ``auth.not_seated``."""
        if self.session.games.get(game_id) is not None and self.game(game_id).over:
            raise ClientError("game.over", f"game {game_id} is over")

    async def cancel(self, game_id: str, token: str = "") -> int:
        """Cancel a game nobody has joined yet, as the holder of a seat's token (this connection's
        own seat's by default); returns the seq of the ack. ``game.started`` once someone joined."""
        ack = await self._call(m.CancelGame(game_id=game_id, token=token or self.game(game_id).token))
        return ack.seq

    def _seat(self, reply) -> Seat:
        if isinstance(reply, m.Seated):
            return Seat(reply.game_id, reply.seat, reply.token)
        game_id = getattr(reply, "game_id", "")
        return Seat(game_id, getattr(reply, "viewer", ""), "")

    async def choose(self, decision: Decision | DecisionUpdate, option: Option, *, game_id: str | None = None,
                     command_id: str | None = None) -> int:
        """Answer ``decision`` with ``option``; returns the seq of the ack (the events are durable).

        A retry (after a dropped connection) reuses the command id, so it never acts twice."""
        if isinstance(decision, DecisionUpdate):
            game_id = game_id or decision.game_id
            decision = decision.decision
        game_id = game_id or self.session.game_of(decision)
        command_id = command_id or _new_command_id()
        cmd = m.Command(game_id=game_id, decision_id=decision.id, option=tuple(option), command_id=command_id)
        retried = False
        while True:
            self._check_not_over(game_id)
            if self.auto_reconnect and not self._closed and not self.connected:
                # reconnecting: the command waits for the seat's resume (sent first, it would reach
                # a connection that holds no seat yet: auth.not_seated)
                await self.wait_connected()
            try:
                ack = await self._call(cmd)
                return ack.seq
            except ConnectionLost:
                if not self.auto_reconnect or self._closed:
                    raise ConnectionLost(command_id=command_id) from None
                await self.wait_connected()
                retried = True
            except ClientError as exc:
                seq = self.session.answered(game_id, decision, tuple(option)) if retried else None
                if exc.code == "game.stale_decision" and seq:
                    return seq  # our first try went through before the connection dropped
                if exc.code in RETRIED and self.auto_reconnect and not self._closed:
                    # the node is handing its games over, or the game is moving between nodes:
                    # the same command again shortly (on the node the client reconnects to)
                    await asyncio.sleep(0.2)
                    await self.wait_connected()
                    retried = True
                    continue
                raise
    # -- games ---------------------------------------------------------------------------------------

    def game(self, game_id: str) -> GameView:
        """What this client knows of ``game_id`` (created empty on first use)."""
        return self.session.game(game_id)

    def games(self) -> list[GameView]:
        return list(self.session.games.values())

    def queued(self, game_id: str) -> int:
        """How many of the game's updates wait to be read by ``updates()``."""
        queue = self._queues.get(game_id)
        return queue.qsize() if queue is not None else 0

    def view(self, game_id: str) -> State | None:
        """This client's own view state of the game (None before its GameCreated arrives)."""
        return self.game(game_id).state

    def last_seq(self, game_id: str) -> int:
        return self.game(game_id).last_seq

    def pending(self, game_id: str) -> tuple[Decision, m.Clock | None] | None:
        """The pending decision in this view and its clock (None if the clock has not come yet)."""
        return self.session.pending_decision(game_id)

    def my_decision(self, game_id: str) -> Decision | None:
        """The pending decision if it is this client's seat's to answer."""
        g = self.game(game_id)
        pend = self.pending(game_id)
        return pend[0] if pend and pend[0].side == g.viewer else None

    def clock_left(self, game_id: str) -> tuple[int, int, int] | None:
        """(move ms left, reserve ms left, time-outs) for the pending decision, counted down from
        when it arrived; None if no clock is known."""
        return self.session.clock_left(game_id, time.monotonic())

    async def updates(self, game_id: str) -> AsyncIterator[Update]:
        """Every view event, decision and the game's end, in order of arrival; ends after game over.

        Raises ``ConnectionLost`` if the connection drops (unless ``auto_reconnect``): call
        ``reconnect()`` and iterate again, and the stream carries on where it stopped."""
        g = self.game(game_id)
        queue = self._queue(game_id)
        while True:
            if queue.empty() and g.over_seen:
                return
            item = await queue.get()
            if isinstance(item, Lost):
                if item.generation == -1 or (item.generation == self._generation and not self.connected):
                    raise ConnectionLost()
                continue  # a loss that a reconnect has already mended
            yield item
            if isinstance(item, GameOverUpdate):
                g.over_seen = True
                return


def new_client_seed() -> str:
    """A random client seed: 128 bits as 32 hex digits (what clients send unless told a seed)."""
    return secrets.token_hex(16)


def _new_command_id() -> str:
    return uuid.uuid4().hex


def _new_request_id() -> str:
    """A seat-taking request's id: 128 random bits (it is a secret: a retry with it gets the seat)."""
    return uuid.uuid4().hex


def encode_json(message) -> str:
    """A message as the JSON subprotocol carries it (for docs and debugging)."""
    return msgspec.json.encode(message).decode()
