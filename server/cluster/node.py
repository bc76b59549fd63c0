"""One node of several serving one PostgreSQL store, linked by NATS (docs/store.md, "Several nodes").

- **Leases** (``skirmish.server.store.postgres_leases``): the node owning a game holds its lease
  and renews all its leases every ``lease_ttl / 3`` seconds; each of its appends carries the
  lease's epoch (``PostgresStore.fences``) and is refused by the database once the lease expired
  or moved, so a node that was paused or cut off never appends again.
- **Commands** for a game reach its owner on the NATS subject ``PREFIX.cmd.GAME`` (request and
  reply), which only the owner subscribes to. No answer (no responders, or none in time): the
  node asking tries to take the lease (it expired: the owner is gone) and runs the command itself.
- **Events**: the owner publishes each append's stored events on the game's own subject,
  ``PREFIX.ev.GAME``; a node subscribes to the games it holds an actor of (``follow``, before it
  reads the game's log; ``unfollow`` when the actor goes), applies them to its replica and fans
  them out to its own connections (``skirmish.server.cluster.actor``). A node hears only the
  games it serves, not every game of every node.
- **Takeover**: every node looks for expired leases of games that are not over every
  ``lease_ttl / 3`` seconds and takes them (``skirmish_leases_taken_over_total``), so games carry
  on within a few seconds of a node's death.
- **SIGTERM** (``hand_over``): the node stops taking leases, finishes each owned game's queued
  jobs, releases its lease for another node to take at once, then shuts down.

``PREFIX`` is ``skirmish.SCHEMA``: nodes on the same store (schema) talk, others do not hear them.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import socket
import time

import msgspec
import nats
from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NatsTimeout

from skirmish.engine.commands import Choose, OfferDraw, Resign
from skirmish.engine.errors import GameError
from skirmish.protocol.codec import MsgpackCodec
from skirmish.protocol.errors import ProtocolError
from skirmish.server.actor import Retired
from skirmish.server.store import LeaseLost, StoreError
from skirmish.server.store.postgres import PostgresStore
from skirmish.server.store.postgres_leases import Leases

_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,200}")


def default_node_name() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


def subject_token(game_id: str) -> str:
    """A game id as one NATS subject token (ids of other characters: hex)."""
    return game_id if _TOKEN.fullmatch(game_id) else "x" + game_id.encode().hex()


class Ghost:
    """The connection a command forwarded from another node runs under on the owner: it holds the
    seat the asking node checked, and drops what the actor sends (the asking node's own replica
    shows its connection the events, then acks)."""

    batch = False
    closing = False
    codec = MsgpackCodec()

    def __init__(self, game_id: str, seat: str | None, name: str = "") -> None:
        self.id = "remote"
        self.name = name
        self.roles = {game_id: seat} if seat else {}

    def send(self, message) -> None:
        pass

    def push(self, frame) -> None:
        pass

    def error(self, code: str, message: str, msg_id: int = 0) -> None:
        pass


class Node:
    def __init__(self, config, store: PostgresStore, log, metrics) -> None:
        if not isinstance(store, PostgresStore):
            raise ValueError("several nodes (--nats) need a PostgreSQL store (--db postgresql://...)")
        self.config = config
        self.name = config.node or default_node_name()
        self.ttl = config.lease_ttl
        self.open_game_ttl = config.open_game_ttl
        self.store = store
        self.log = log.bind(node=self.name)
        self.metrics = metrics
        self.prefix = f"skirmish.{store.schema}"
        self.leases = Leases(store, self.name, self.ttl)
        self.held: dict[str, int] = {}  # the leases this node renews: game -> epoch
        # game -> when (loop time) its lease expires at the earliest: ttl after the take or renewal
        # that last succeeded was sent (the database's own clock starts it later, never earlier)
        self.until: dict[str, float] = {}
        self.fences: dict[str, int] = {}  # the epochs its appends carry (the last one, also once lost)
        store.fences = self.fences
        self._cmd_subs: dict[str, object] = {}
        self._out: asyncio.Queue = asyncio.Queue()  # (subject, data): the events to publish, in order
        self._following: dict[str, asyncio.Task] = {}  # game -> its events' subscription (being) made
        self._tasks: list[asyncio.Task] = []
        self.leaving = False
        self.lobby = None
        self.nc = None
        self._claiming: dict[str, asyncio.Task] = {}
        self.house = None  # the hosted bots (skirmish.server.cluster.house.ClusterHouse), set by the App

    # -- life ------------------------------------------------------------------------------------

    async def start(self, lobby) -> None:
        self.lobby = lobby
        try:
            # (reconnects forever once connected; the first connection has 10 s)
            # (no_echo: NATS never hands this node what it published itself, its own games' events)
            self.nc = await asyncio.wait_for(nats.connect(
                self.config.nats, name=f"skirmish:{self.name}", connect_timeout=5, allow_reconnect=True,
                max_reconnect_attempts=-1, reconnect_time_wait=0.5, error_cb=self._nats_error, no_echo=True), 10)
        except Exception as exc:  # noqa: BLE001 - (nats-py raises several kinds): said, not a traceback
            raise StoreError(f"cannot reach NATS at {self.config.nats}: {type(exc).__name__}: {exc}") from None
        await self.nc.subscribe(f"{self.prefix}.seat", cb=self._on_seat)
        for loop in (self._publisher, self._renewer, self._taker, self._deadlines):
            self._tasks.append(asyncio.create_task(loop(), name=f"cluster-{loop.__name__}"))
        self.log.info("cluster.joined", nats=self.config.nats, lease_ttl=self.ttl, prefix=self.prefix)

    async def _nats_error(self, exc: Exception) -> None:
        self.log.warning("nats.error", problem=f"{type(exc).__name__}: {exc}")

    async def check(self) -> None:
        """/readyz: NATS answers a round trip."""
        if self.nc is None or not self.nc.is_connected:
            raise ConnectionError("not connected to NATS")
        await self.nc.flush(timeout=2)

    async def hand_over(self) -> None:
        """SIGTERM: every owned game's queued jobs finish, then its lease goes to another node."""
        self.leaving = True
        if self.house is not None:
            await self.house.leave()  # its hosted bots first: the games' next owners start theirs
        handed = 0
        for game_id, epoch in list(self.held.items()):
            actor = self.lobby.actors.get(game_id) if self.lobby else None
            if actor is not None:
                try:
                    await actor.call(actor.demote)
                except Exception:  # noqa: BLE001 - a closing actor: its lease is released all the same
                    pass
            await self._unsubscribe(game_id)
            self.held.pop(game_id, None)
            self.until.pop(game_id, None)
            self.fences.pop(game_id, None)
            try:
                await self.leases.release(game_id, epoch, handover=True)
                handed += 1
            except Exception as exc:  # noqa: BLE001 - it expires then, and is taken over
                self.log.warning("lease.release_failed", game=game_id, problem=str(exc))
        self.log.info("cluster.handed_over", games=handed)

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.nc is not None:
            try:
                await self.nc.drain()
            except Exception:  # noqa: BLE001
                await self.nc.close()

    # -- leases ------------------------------------------------------------------------------------

    async def claim(self, game_id: str) -> int | None:
        """The game's lease for this node (held already, or taken now): its epoch; None if another
        node's lease on it is live (or this node is leaving)."""
        if game_id in self.held:
            return self.held[game_id]
        if self.leaving:
            return None
        task = self._claiming.get(game_id)
        if task is None:
            task = self._claiming[game_id] = asyncio.create_task(self._claim(game_id))
            task.add_done_callback(lambda _: self._claiming.pop(game_id, None))
        return await asyncio.shield(task)

    async def _claim(self, game_id: str) -> int | None:
        sent = asyncio.get_running_loop().time()
        epoch = await self.leases.take(game_id)
        if epoch is None:
            return None
        self.held[game_id] = self.fences[game_id] = epoch
        self.until[game_id] = sent + self.ttl
        self._cmd_subs[game_id] = await self.nc.subscribe(f"{self.prefix}.cmd.{subject_token(game_id)}",
                                                          cb=self._on_command)
        if epoch > 1:
            self.metrics.leases_taken_over.inc()
        self.log.info("lease.taken", game=game_id, epoch=epoch)
        return epoch

    def finished(self, game_id: str) -> None:
        """The game is over: its lease is released for good (nobody takes it over)."""
        epoch = self.held.pop(game_id, None)
        self.until.pop(game_id, None)
        self.fences.pop(game_id, None)  # (nothing is appended to a game that is over)
        if epoch is not None:
            self._spawn(self._release_done(game_id, epoch))

    async def _release_done(self, game_id: str, epoch: int) -> None:
        await self._unsubscribe(game_id)
        try:
            await self.leases.release(game_id, epoch, handover=False)
        except Exception as exc:  # noqa: BLE001 - it expires, is taken, found over and released then
            self.log.warning("lease.release_failed", game=game_id, problem=str(exc))

    def fenced(self, game_id: str) -> None:
        """An append of this node was refused by the store: the lease is not its any more."""
        self.metrics.appends_fenced.inc()
        self.held.pop(game_id, None)
        self.until.pop(game_id, None)
        self.disowned(game_id)
        self._spawn(self._unsubscribe(game_id))

    def _lost(self, game_id: str) -> None:
        """The renewal failed: the game's actor becomes a replica, after the jobs queued before."""
        self.held.pop(game_id, None)
        self.until.pop(game_id, None)
        self.log.warning("lease.lost", game=game_id)
        self.disowned(game_id)
        self._spawn(self._unsubscribe(game_id))
        actor = self.lobby.actors.get(game_id) if self.lobby else None
        if actor is not None:
            actor._post(actor.demote)
        else:
            self.fences.pop(game_id, None)

    def owned(self, actor) -> None:
        """``actor`` runs as its game's owner here now (loaded so, or promoted): its hosted bot too."""
        if self.house is not None and self.held.get(actor.game_id) is not None:
            self.house.owned(actor)

    def disowned(self, game_id: str) -> None:
        """This node does not own the game any more: its hosted bot stops here."""
        if self.house is not None:
            self.house.disowned(game_id)

    async def _unsubscribe(self, game_id: str) -> None:
        sub = self._cmd_subs.pop(game_id, None)
        if sub is not None:
            try:
                await sub.unsubscribe()
            except Exception:  # noqa: BLE001 - the connection is gone: so is the subscription
                pass

    async def _renewer(self) -> None:
        while True:
            await asyncio.sleep(self.ttl / 3)
            held, fresh = dict(self.held), set()
            sent = asyncio.get_running_loop().time()
            try:
                still = await self.leases.renew(held, fresh=fresh)
            except Exception as exc:  # noqa: BLE001 - the store is away: the next tick tries again
                self.log.warning("lease.renew_failed", problem=str(exc))
                continue
            for game_id in fresh:
                if self.held.get(game_id) == held[game_id]:
                    self.until[game_id] = sent + self.ttl
            if self.house is not None:
                self.house.renewed(fresh)
            for game_id, epoch in held.items():
                if game_id not in still and self.held.get(game_id) == epoch:
                    self._lost(game_id)

    async def _deadlines(self) -> None:
        """A game whose lease this node could not renew in time stops its hosted bot a fifth of the
        TTL before the lease can have expired, so that another node taking the game never finds it
        still playing (``ClusterHouse.unrenewed``; the bot plays again once a renewal succeeds)."""
        while True:
            await asyncio.sleep(self.ttl / 10)
            if self.house is None:
                continue
            now = asyncio.get_running_loop().time()
            for game_id in [g for g in self.held if now > self.until.get(g, now) - self.ttl / 5]:
                self.house.unrenewed(game_id)

    async def _taker(self) -> None:
        """Take over the games whose owner's lease expired (it died, or was paused past its TTL)."""
        while True:
            await asyncio.sleep(self.ttl / 3 * random.uniform(0.8, 1.2))
            if self.leaving or self.lobby is None:
                continue
            try:
                expired = await self.leases.expired()
            except Exception as exc:  # noqa: BLE001
                self.log.warning("lease.scan_failed", problem=str(exc))
                continue
            random.shuffle(expired)
            for game_id in expired:
                if self.leaving:
                    break
                try:
                    await self.take_over(game_id)
                except Exception as exc:  # noqa: BLE001 - one game never stops the others
                    self.log.warning("lease.takeover_failed", game=game_id, problem=f"{type(exc).__name__}: {exc}")

    async def take_over(self, game_id: str) -> bool:
        """Take the game's lease if it is free and run its actor here as the owner."""
        actor = self.lobby.actors.get(game_id)
        if actor is not None and not actor.closing and actor.owner:
            return True
        if await self.claim(game_id) is None:  # (no replica for a game nobody here follows)
            return False
        if actor is None or actor.closing:
            actor = await self.lobby.get(game_id)  # loaded as the owner: the lease is held ...
            if actor.owner:
                return True
            # ... unless a load begun before the claim (a resume, its claim refused) made a replica:
            # promote it, or this node renews a lease nobody plays under and the game stalls
        started = time.perf_counter()
        await actor.call(actor.promote)
        self.log.info("lease.promoted", game=game_id, seq=actor.state.seq,
                      ms=round((time.perf_counter() - started) * 1000, 1))
        return True

    # -- messages ------------------------------------------------------------------------------

    def publish_events(self, game_id: str, first_seq: int, datas: list[bytes], head_hash: bytes) -> None:
        self._out.put_nowait((self._events_subject(game_id),
                              msgspec.msgpack.encode((game_id, first_seq, datas, head_hash))))

    def _events_subject(self, game_id: str) -> str:
        return f"{self.prefix}.ev.{subject_token(game_id)}"

    async def _publisher(self) -> None:
        """One task publishes, so the events of a game leave in the order they were stored."""
        while True:
            subject, data = await self._out.get()
            try:
                await self.nc.publish(subject, data)
            except Exception as exc:  # noqa: BLE001 - the replicas read the gap from the store
                self.log.warning("events.publish_failed", problem=str(exc))

    async def follow(self, game_id: str) -> None:
        """Hear the game's events from now on: subscribed, and the subscription known to the NATS
        server (a round trip) before this returns, so that a log read after it misses nothing
        that is not then published."""
        task = self._following.get(game_id)
        if task is None:
            task = self._following[game_id] = asyncio.create_task(self._subscribe_events(game_id))
        try:
            await asyncio.shield(task)
        except Exception as exc:  # noqa: BLE001 - not subscribed (NATS closed): the replica reads the store at each gap
            if self._following.get(game_id) is task:
                del self._following[game_id]
            self.log.warning("events.follow_failed", game=game_id, problem=f"{type(exc).__name__}: {exc}")

    async def _subscribe_events(self, game_id: str):
        sub = await self.nc.subscribe(self._events_subject(game_id), cb=self._on_events)
        try:
            await self.nc.flush(timeout=2)
        except Exception as exc:  # noqa: BLE001 - NATS away: subscribed again on reconnecting, gaps read
            self.log.warning("events.follow_unconfirmed", game=game_id, problem=f"{type(exc).__name__}: {exc}")
        return sub

    def unfollow(self, game_id: str) -> None:
        """No actor of the game here any more: its events are not heard."""
        task = self._following.pop(game_id, None)
        if task is not None:
            self._spawn(self._unsubscribe_events(task))

    async def _unsubscribe_events(self, task: asyncio.Task) -> None:
        try:
            await (await task).unsubscribe()
        except Exception:  # noqa: BLE001 - never made, or the connection is gone: so is the subscription
            pass

    async def _on_events(self, msg) -> None:
        self.metrics.events_heard.inc()
        game_id, first_seq, datas, head_hash = msgspec.msgpack.decode(msg.data)
        actor = self.lobby.actors.get(game_id) if self.lobby else None
        if actor is not None and not actor.owner:
            actor._post(actor.absorb, first_seq, datas, head_hash)

    def publish_seat(self, game_id: str, seat: str, conn_id: int, stamp: float) -> None:
        """A connection of this node resumed ``seat``: the other nodes' older ones let go of it."""
        data = msgspec.msgpack.encode((game_id, seat, self.name, conn_id, stamp))
        self._spawn(self._publish(f"{self.prefix}.seat", data))

    async def _publish(self, subject: str, data: bytes) -> None:
        try:
            await self.nc.publish(subject, data)
        except Exception as exc:  # noqa: BLE001 - the older connection keeps the seat until it closes
            self.log.warning("seat.publish_failed", problem=str(exc))

    async def _on_seat(self, msg) -> None:
        game_id, seat, node, _conn, stamp = msgspec.msgpack.decode(msg.data)
        if node != self.name and self.lobby is not None:
            self.lobby.seat_elsewhere(game_id, seat, node, stamp)

    async def forward(self, game_id: str, request: dict) -> dict | None:
        """Run ``request`` on the game's owner; its reply. None: nobody owned the game, and this node
        took the lease (run the request here); ``{"over": True}``: the game ended (nobody owns it).
        A dead owner's subscription is gone at once (no responders); a paused or cut off one is
        waited for (``2 * lease_ttl``, at least 5 s) before its lease is looked at."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 3 * self.ttl + 5
        subject = f"{self.prefix}.cmd.{subject_token(game_id)}"
        data = msgspec.msgpack.encode(request)
        while True:
            try:
                msg = await self.nc.request(subject, data, timeout=max(2 * self.ttl, 5.0))
                reply = msgspec.msgpack.decode(msg.data)
                if not reply.get("moved"):
                    return reply
            except (NoRespondersError, NatsTimeout):
                pass
            if await self.claim(game_id) is not None:
                return None
            lease = await self.leases.owner(game_id)
            if lease is not None and lease[0] == "":
                return {"over": True}  # the game ended meanwhile: the store has it all
            if loop.time() > deadline:
                raise ProtocolError("server.unavailable", f"the node running game {game_id} does not answer; "
                                                          "try again")
            await asyncio.sleep(0.05)

    async def _on_command(self, msg) -> None:
        request = msgspec.msgpack.decode(msg.data)
        try:
            reply = await self._run_forwarded(request)
        except (ProtocolError, GameError) as exc:
            reply = {"error": exc.code, "message": exc.message}
        except (LeaseLost, Retired):
            reply = {"moved": True}
        except StoreError as exc:
            reply = {"error": "server.internal", "message": f"the store failed: {exc}"}
        except Exception:  # noqa: BLE001
            self.log.exception("forwarded.failed", game=request.get("game"))
            reply = {"error": "server.internal", "message": "the server failed; the game is unchanged"}
        try:
            await msg.respond(msgspec.msgpack.encode(reply))
        except Exception:  # noqa: BLE001 - the asker is gone; it retries by its command id
            pass

    async def _run_forwarded(self, r: dict) -> dict:
        game_id = r["game"]
        actor = self.lobby.actors.get(game_id)
        if actor is None or not actor.owner or self.leaving:
            return {"moved": True}
        op, seat = r["op"], r.get("seat", "")
        if op == "house":
            if self.house is None:
                return {"error": "house", "message": "this node hosts no bots"}
            return self.house.run_forwarded(r)
        ghost = Ghost(game_id, seat if op != "join" else None, r.get("name", ""))
        if op == "join":
            try:
                seat = await actor.call(actor.seat, ghost, seat, r.get("name", ""), r.get("client_seed", ""), 0,
                                        r.get("request_id", ""))
            finally:
                actor.detach(ghost)
            return {"seq": actor.state.seq, "seat": seat}
        if op == "cancel":
            seq = await actor.call(actor.cancel, ghost, seat, 0)
        else:
            command = {"choose": lambda: Choose(r["decision_id"], tuple(r["option"]), seat),
                       "resign": lambda: Resign(seat), "draw": lambda: OfferDraw(seat)}[op]()
            seq = await actor.call(actor.command, ghost, seat, command, r.get("command_id", ""), 0,
                                   time.perf_counter())
        return {"seq": seq}  # (stored: durable, whoever owns the game next)

    def _spawn(self, coro) -> None:
        task = asyncio.create_task(coro)
        self._tasks.append(task)
        task.add_done_callback(lambda t: self._tasks.remove(t) if t in self._tasks else None)
