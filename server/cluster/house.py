"""Hosted bots on one node of several (``skirmish serve --nats ... --house-bots ...``).

A game's hosted bot (``skirmish.server.housebots``) runs on the node that **owns** the game, as
a subprocess connected to that node, so its commands run where the game's actor is:

- the web client's invitation (``GET /api/games/ID/house-bot``) reaches any node; it is forwarded
  to the owner over NATS (op "house"), which starts the bot;
- a node that becomes a game's owner (it took the lease of a dead owner's game, or one handed
  over by SIGTERM, and loaded or promoted its actor) starts that game's bot again on its seat
  (the seat named "house NAME", resumed with the seat's token) if the game is not over and NAME
  is one of its ``--house-bots`` (else it says so, ``house_bot.not_hosted``);
- a node that stops owning a game (lease lost, fenced, handed over) stops the game's bot here;
  on SIGTERM it stops all its bots (and waits for their processes) before it hands any game over;
- a bot never outlives its node (``skirmish bot --parent-pid``, ``skirmish.bots.parent``), so
  the bot of a SIGKILLed node is gone before its lease expires and another node starts one.

A node restarted under its name holds no lease, so it starts no bot until it takes a game as any
node does (``App._resume_house_bots`` does nothing on a cluster).
"""

from __future__ import annotations

import asyncio

from skirmish.protocol.errors import ProtocolError
from skirmish.server.housebots import HouseBots


class ClusterHouse:
    def __init__(self, node, house: HouseBots, log) -> None:
        self.node = node
        self.house = house
        self.log = log
        house.router = self.invite
        self.suspended: set[str] = set()  # games whose bot stopped while their lease went unrenewed

    # -- ownership changes ---------------------------------------------------------------------

    def owned(self, actor) -> None:
        """``actor``'s game is this node's now: its hosted bot, if it has one, plays here. A game taken
        over (epoch > 1) gets it a third of the lease's TTL later: an old owner that is alive but
        was late renewing has stopped its own by then (``Node._deadlines``, ``Node._renewer``)."""
        stopping = actor.game_id in self.house.stopping
        if actor.state.outcome is not None or (actor.game_id in self.house.games and not stopping):
            return
        held = [(seat, name[6:]) for seat, name in actor.state.seats.items() if name.startswith("house ")]
        if not held:
            return
        epoch = self.node.held.get(actor.game_id)
        if (epoch is not None and epoch > 1) or stopping:
            self.node._spawn(self._later(actor, *held[0], epoch))
        else:
            self._start(actor, *held[0])

    async def _later(self, actor, seat: str, name: str, epoch: int) -> None:
        await asyncio.sleep(self.node.ttl / 3)
        for _ in range(100):  # (its own bot of this game's previous ownership, being stopped: gone first)
            if actor.game_id not in self.house.stopping:
                break
            await asyncio.sleep(0.05)
        if self.node.held.get(actor.game_id) == epoch and actor.owner:
            self._start(actor, seat, name)

    def _start(self, actor, seat: str, name: str) -> None:
        if (self.node.leaving or self.house.closed or actor.state.outcome is not None
                or actor.game_id in self.house.games):
            return
        if name not in self.house.names:
            self.log.warning("house_bot.not_hosted", game=actor.game_id, seat=seat, bot=name,
                             hosted=",".join(self.house.names),
                             problem=f"this node does not host bot {name!r} (--house-bots): the seat waits for "
                                     "its clock, or for a node that hosts it")
            return
        try:
            self.house.start(actor.game_id, name, token=actor.game.token_for(seat))
        except RuntimeError as exc:
            self.log.warning("house_bot.resume_failed", game=actor.game_id, bot=name, error=str(exc))
            return
        self.log.info("house_bot.resume", game=actor.game_id, seat=seat, bot=name)

    def unrenewed(self, game_id: str) -> None:
        """The game's lease may expire before this node renews it: its bot stops meanwhile."""
        if game_id in self.suspended or game_id not in self.house.games:
            return
        self.suspended.add(game_id)
        self.log.warning("house_bot.suspended", game=game_id, why="its lease is not renewed in time")
        self.node._spawn(self.house.stop(game_id))

    def renewed(self, games: set[str]) -> None:
        """The leases of ``games`` were renewed: a bot suspended meanwhile plays again."""
        for game_id in games & self.suspended:
            self.suspended.discard(game_id)
            actor = self.node.lobby.actors.get(game_id)
            if actor is not None and actor.owner:
                self.owned(actor)

    def disowned(self, game_id: str) -> None:
        """The game is not this node's any more: its bot here stops (the new owner starts its own)."""
        self.suspended.discard(game_id)
        if game_id in self.house.games:
            self.node._spawn(self.house.stop(game_id))

    async def leave(self) -> None:
        """SIGTERM, before any game is handed over: every bot here stops, its process gone."""
        await self.house.close()

    # -- invitations ---------------------------------------------------------------------------

    async def invite(self, game_id: str, name: str) -> None:
        """Start bot ``name`` on the free seat of ``game_id`` on the game's owner (here, or over NATS).
        RuntimeError: refused (the owner hosts no such bot, too many bots, shutting down)."""
        for _ in range(4):
            actor = self.node.lobby.actors.get(game_id)
            if game_id in self.node.held and actor is not None and actor.owner:
                self.house.start(game_id, name)
                return
            reply = await self.node.forward(game_id, {"game": game_id, "op": "house", "bot": name})
            if reply is None:  # nobody owned it: this node took the lease
                await self.node.take_over(game_id)
                continue
            if reply.get("over"):
                raise RuntimeError(f"game {game_id} is over")
            if "error" in reply:
                raise RuntimeError(reply.get("message") or reply["error"])
            if not reply.get("moved"):
                return
        raise ProtocolError("server.unavailable", f"game {game_id} is moving between nodes; try again")

    def run_forwarded(self, r: dict) -> dict:
        """The owner's side of ``invite``."""
        name = r.get("bot", "")
        if name not in self.house.names:
            return {"error": "house", "message": f"the node running game {r['game']} does not host bot {name!r} "
                                                 f"(it hosts {', '.join(self.house.names) or 'none'})"}
        try:
            self.house.start(r["game"], name)
        except RuntimeError as exc:
            return {"error": "house", "message": str(exc)}
        return {"started": True}
