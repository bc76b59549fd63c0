"""A game's actor on one node of several (``skirmish.server.cluster``): the **owner** (the node
holding the game's lease) or a **replica**.

Every node that has connections following a game runs an actor for it. The owner's is the game
as on one node: it decides, appends (every append fenced by its lease epoch), runs the clock,
and also publishes each append's stored events over NATS. A replica never appends: it applies
the events the owner publishes (or, after a gap, reads them from the store, the truth) with the
same code as the owner, so that its own connections get every event in their viewer's view,
then what is pending. A replica's clock is shown, never run: time-outs and expiries are the
owner's.

``promote`` makes a replica the owner (its node took the lease): it catches up from the store,
reloads the game (dice, seeds, time-outs counted so far) and starts the clock of what is pending
(a fresh move time for the decision in hand). ``demote`` is the reverse (the lease is lost or
handed over): as a job, so that commands already queued try their append first (and are refused
by the store's fencing if the lease moved: the node's appends keep carrying its last epoch).
"""

from __future__ import annotations

import asyncio
import sys

from skirmish.engine.codec import decode_event, encode_event
from skirmish.protocol.messages import Ack
from skirmish.server.actor import GameActor
from skirmish.server.game import LiveGame, Submitted
from skirmish.server.logreads import forfeit_of, timeouts_in
from skirmish.server.store import LeaseLost


class ClusterActor(GameActor):
    def __init__(self, game: LiveGame, *, node, owner: bool, **kw) -> None:
        self.node = node
        self.owner = owner
        self._finished = False
        self._waiters: list[tuple[int, asyncio.Future]] = []
        super().__init__(game, **kw)

    # -- the owner's events go out to every node ---------------------------------------------------

    def _publish(self, sub: Submitted, exclude=None, announce: bool = True) -> None:
        if self.owner and not sub.duplicate:
            self.node.publish_events(self.game_id, sub.first_seq, [encode_event(e) for e in sub.events],
                                     self.game.head_hash)
        super()._publish(sub, exclude, announce)
        self._wake()

    def _after(self, events, announce: bool = True) -> None:
        super()._after(events, announce)
        if self.owner and self.state.outcome is not None and not self._finished:
            self._finished = True  # over: nobody needs to take it over
            self.node.finished(self.game_id)

    # -- what only the owner does ----------------------------------------------------------------

    async def boot(self) -> None:
        if self.owner:
            await super().boot()
            self.node.owned(self)  # (its hosted bot, if it has one, plays on this node)
        else:
            # What the owner stored while this node was loading the game (its log read, its actor
            # not yet registered) was published to nobody here: read it, or a seat resuming here
            # is shown a decision already answered and waits for ever (tests/server/cluster).
            await self.sync()
            self._after(())

    async def _time_out(self, decision_id: int) -> None:
        if self.owner:
            await super()._time_out(decision_id)

    async def _expire(self) -> None:
        if self.owner:
            await super()._expire()

    def expire_at(self, when: float) -> None:
        if self.owner:
            super().expire_at(when)

    async def _recover(self) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, LeaseLost):  # the store refused the append: the lease moved on
            self.log.warning("append.fenced", epoch=exc.epoch, node=self.node.name, seq=self.state.seq)
            self.node.fenced(self.game_id)
            self._demote()
        if not self.owner:
            await self.sync()
            return
        await self.sync()
        await super()._recover()

    # -- a replica follows the owner ---------------------------------------------------------------

    async def absorb(self, first_seq: int, datas: list[bytes], head_hash: bytes) -> None:
        """The owner's events ``first_seq..``; a gap (a message missed) is read from the store."""
        if self.owner:
            return
        s = self.state
        if first_seq + len(datas) - 1 <= s.seq:
            return
        if first_seq > s.seq + 1:
            await self.sync()
            return
        events = [decode_event(d) for d in datas[s.seq + 1 - first_seq:]]
        self._absorb(events, s.seq + 1, head_hash)

    async def sync(self) -> None:
        """Apply (and show) what the store holds past this actor's state."""
        stored = await self.game.store.read(self.game_id, self.state.seq + 1)
        if stored:
            self._absorb([decode_event(e.data) for e in stored], stored[0].seq, stored[-1].hash)

    def _absorb(self, events, first_seq: int, head_hash: bytes) -> None:
        seen = self.game._apply(events)
        self.game.head_hash = head_hash
        self._publish(Submitted(events, first_seq, first_seq + len(events) - 1, views=seen))

    async def wait_seq(self, seq: int, timeout: float = 2.0) -> None:
        """Until this actor has applied event ``seq`` (read from the store if it takes too long)."""
        if self.state.seq >= seq:
            return
        fut = self.loop.create_future()
        self._waiters.append((seq, fut))
        try:
            await asyncio.wait_for(asyncio.shield(fut), timeout)
        except TimeoutError:
            await self.call(self.sync)

    def _wake(self) -> None:
        if self._waiters:
            seq, keep = self.state.seq, []
            for n, fut in self._waiters:
                if n <= seq:
                    if not fut.done():
                        fut.set_result(None)
                else:
                    keep.append((n, fut))
            self._waiters = keep

    async def ack(self, conn, seq: int, msg_id: int) -> int:
        """A job: the ack of a command the owner ran for one of this node's connections."""
        self._outbox.deliver(conn, Ack(game_id=self.game_id, seq=seq, id=msg_id))
        return seq

    # -- changes of owner ----------------------------------------------------------------------------

    async def promote(self) -> None:
        """A job: this node holds the lease now; catch up, reload, run the clock."""
        if self.owner:
            return
        await self.sync()
        store = self.game.store
        self.game = await LiveGame.load(store, self.game_id)
        events = [decode_event(e.data) for e in await store.read(self.game_id)]
        for seat, n in timeouts_in(events).items():
            self.clock.seats[seat].timeouts = n
        self.forfeit = self.forfeit or forfeit_of(events)
        self.owner = True
        self._cancel_timer()
        self.clock.running = None
        await self.boot()
        ttl = self.node.open_game_ttl
        if ttl and not self.state.started and self.state.outcome is None:
            self.expire_at((await store.game_info(self.game_id)).created_at + ttl)

    async def demote(self) -> None:
        """A job: the lease is gone (lost, or handed over); from now on a replica."""
        self._demote()

    def _demote(self) -> None:
        # (the store keeps this node's old epoch for the game: an append that still comes, from a
        # job queued before, goes to the database and is refused there, LeaseLost with that epoch)
        if self.owner:
            self.owner = False
            self.node.disowned(self.game_id)
            self._cancel_timer()
            if self._expiry is not None:
                self._expiry.cancel()
                self._expiry = None
