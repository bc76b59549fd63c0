"""The lobby of one node of several (``skirmish.server.cluster``).

Games, seats and open games come from the shared store (``Lobby.list_games`` lists the store's
games; a game in memory here is listed from its actor, which follows the owner), so every node
shows the same lobby. A game loaded here is owned when this node can take its lease (nobody
holds it, or the holder's lease expired), else it runs as a replica of the owner's.

Requests that change a game (``command``, ``resign``, ``offer_draw``, ``join``, ``cancel``) run on
the owner's actor: here if this node owns the game, else forwarded over NATS
(``Node.forward``); the asking connection then gets the events from this node's replica, then
its ``ack`` (or its ``seated`` with the backlog, for a join). A forwarded request nobody answers
makes this node take the lease and run it itself.
"""

from __future__ import annotations

import time
import weakref

from skirmish.protocol import messages as m
from skirmish.protocol.errors import ProtocolError
from skirmish.server.actor import GameActor
from skirmish.server.cluster.actor import ClusterActor
from skirmish.server.game import LiveGame
from skirmish.server.lobby import Lobby, check_request_id, seat_held
from skirmish.server.logreads import SEATS
from skirmish.server.store import LeaseLost

FORWARDED = (m.Command, m.ResignGame, m.OfferDraw, m.Join, m.CancelGame)


class ClusterLobby(Lobby):
    def __init__(self, store, config, log, node, admit_creation=None) -> None:
        super().__init__(store, config, log, admit_creation=admit_creation)
        self.node = node
        self._claims: dict[str, int | None] = {}
        self._since: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # conn -> {game: when it resumed}

    def _new_actor(self, game: LiveGame, **kw) -> GameActor:
        owner = self._claims.get(game.game_id) is not None
        return ClusterActor(game, node=self.node, owner=owner, clock=self._clock(), log=self.log,
                            on_retire=self._retired, **kw)

    async def _load(self, game_id: str) -> GameActor:
        # the lease first (None: another node's is live, or there is no such game), then the
        # game's events heard from now on, then the log (what the owner publishes meanwhile is
        # heard; what it published before is in the log)
        self._claims[game_id] = await self.node.claim(game_id)
        try:
            await self.node.follow(game_id)
            return await super()._load(game_id)
        except BaseException:
            if game_id not in self.actors:  # (no such game: nothing to hear)
                self.node.unfollow(game_id)
            raise
        finally:
            self._claims.pop(game_id, None)

    async def create(self, request: m.CreateGame, name: str = "") -> tuple[GameActor, str]:
        actor, seat = await super().create(request, name)
        await self.node.follow(actor.game_id)  # (should its lease move to another node)
        if not actor.owner and await self.node.claim(actor.game_id) is not None:
            await actor.call(actor.promote)  # a new game: its creator's node owns it
        return actor, seat

    def _retired(self, actor: GameActor) -> None:
        super()._retired(actor)
        if actor.game_id not in self.actors and actor.game_id not in self._loading:
            self.node.unfollow(actor.game_id)  # (a load in flight follows it again, or still needs it)

    async def handle(self, conn, request, received: float = 0.0) -> None:
        if isinstance(request, (m.Resume, m.Spectate)):
            # a client resuming here what it saw on another node: this node's replica may lag
            # the owner by the events in flight; it catches up from the store first
            seen = request.last_seq if isinstance(request, m.Resume) else request.after_seq
            actor = await self.get(request.game_id)
            if not actor.owner and seen > actor.state.seq:
                await actor.call(actor.sync)
        if not isinstance(request, FORWARDED):
            await super().handle(conn, request, received)
            if isinstance(request, m.Resume) and conn.roles.get(request.game_id) in SEATS:
                self._resumed(conn, request.game_id, conn.roles[request.game_id])
            return
        for _ in range(4):
            actor = await self.get(request.game_id)
            if actor.owner or actor.state.outcome is not None:
                try:
                    return await super().handle(conn, request, received)
                except LeaseLost:
                    continue  # the store refused this node's append: the game has moved; forward it
            if await self._forward(conn, actor, request):
                return
        raise ProtocolError("server.unavailable", f"game {request.game_id} is moving between nodes; try again")

    # -- one connection per seat, across the nodes ---------------------------------------------------

    def _resumed(self, conn, game_id: str, seat: str) -> None:
        """``conn`` resumed ``seat``: an older connection holding it on another node lets go (on this
        node ``GameActor.watch`` saw to it)."""
        stamp = time.time()
        self._since.setdefault(conn, {})[game_id] = stamp
        self.node.publish_seat(game_id, seat, conn.id, stamp)

    def seat_elsewhere(self, game_id: str, seat: str, node: str, stamp: float) -> None:
        """Another node's connection resumed ``seat`` at ``stamp`` (its wall clock)."""
        actor = self.actors.get(game_id)
        if actor is not None:
            actor._post(self._let_go, actor, seat, node, stamp)

    async def _let_go(self, actor: ClusterActor, seat: str, node: str, stamp: float) -> None:
        for other, viewer in list(actor.watchers.items()):
            # (a connection that resumed the seat here after that one did keeps it)
            if viewer == seat and self._since.get(other, {}).get(actor.game_id, 0.0) < stamp:
                actor.detach(other, idle_check=False)
                other.error("auth.not_seated", f"seat {seat} of game {actor.game_id} was resumed on another "
                                               f"connection (node {node})")
                self.log.info("seat.resumed_elsewhere", game=actor.game_id, seat=seat, conn=other.id, node=node)

    async def _forward(self, conn, actor: ClusterActor, request) -> bool:
        """Run ``request`` on the owner; False if this node took the lease meanwhile (run it here)."""
        game_id = request.game_id
        ask: dict = {"game": game_id, "name": conn.name}
        match request:
            case m.Command():
                ask.update(op="choose", seat=seat_held(conn, game_id), decision_id=request.decision_id,
                           option=list(request.option), command_id=request.command_id)
            case m.ResignGame():
                ask.update(op="resign", seat=seat_held(conn, game_id), command_id=request.command_id)
            case m.OfferDraw():
                ask.update(op="draw", seat=seat_held(conn, game_id), command_id=request.command_id)
            case m.CancelGame():
                ask.update(op="cancel", seat=await self._seat_of_token(conn, game_id, request.token))
            case m.Join():
                if conn.roles.get(game_id) in SEATS:
                    raise ProtocolError("lobby.seat_taken",
                                        f"this connection already holds seat {conn.roles[game_id]} of game {game_id}")
                ask.update(op="join", seat=request.seat, client_seed=request.client_seed,
                           request_id=check_request_id(request.request_id))
        reply = await self.node.forward(game_id, ask)
        if reply is None:
            await self.node.take_over(game_id)
            return False
        if reply.get("over"):
            await actor.call(actor.sync)  # over: this node's replica runs it (the engine refuses it, or
            return False  # its command id finds the first try's ack)
        if "error" in reply:
            raise ProtocolError(reply["error"], reply.get("message", ""))
        await actor.wait_seq(reply["seq"])
        if isinstance(request, m.Join):
            seat = reply["seat"]
            await self.run(game_id, GameActor.watch, conn, seat, 0,
                           m.Seated(game_id=game_id, seat=seat, token=actor.game.token_for(seat), id=request.id))
        else:
            await self.run(game_id, ClusterActor.ack, conn, reply["seq"], request.id)
        return True
