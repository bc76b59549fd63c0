"""One actor per game: a task and a queue that serialise everything that touches the game.

A command's way (DESIGN.md section 1)::

    connection --call--> actor queue --> decide (pure; a GameError leaves the game untouched)
        --> store.append (durable) --> per event: its views, then evolve --> fan out: each
        connection gets its viewer's view of each event
        --> the pending decision with the deciding seat's clock --> ack to the commander

Nothing else changes the game: seating, starting, watching (whose backlog must not interleave
with new events), clock time-outs and forfeits all run as jobs on the same queue. Fanning out
only *queues* frames on each connection (``skirmish.server.connection``), so a slow reader never holds
the actor up.

Every outbound event passes through ``skirmish.engine.view``, which sees the state before the
event: the live game shows each new event to every viewer as it applies it
(``Submitted.views``), and a backlog read from the store is folded as it is read (only for a
game whose modules hide something). A ``None`` view is not sent, and the pending decision is
shown to each viewer through the view of its ``DecisionRequested`` (``skirmish.engine.view.pending``).

**Batch connections** (``hello`` with ``batch``): what a job pushes to such a connection is
staged, not sent, and goes out as one ``updates`` message at the end of the job
(``skirmish.server.outbox``).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import Awaitable, Callable

from skirmish.engine.codec import decode_event
from skirmish.engine.commands import Cancel, Choose, OfferDraw, Resign, Start
from skirmish.engine.decide import default_option
from skirmish.engine.dice.fair import check_client_seed
from skirmish.engine.errors import GameError
from skirmish.engine.events import DrawAgreed, DrawOffered, Event, GameCancelled, OptionChosen, Resigned
from skirmish.engine.view import hides, pending, viewed
from skirmish.protocol.errors import ProtocolError
from skirmish.protocol.messages import Ack, DecisionMsg, EventItem, EventMsg, GameOverMsg, Seated
from skirmish.server.clock import GameClock
from skirmish.server.connection import Connection
from skirmish.server.game import LiveGame, Submitted
from skirmish.server.logreads import SEATS, forfeit_of, request_key, seat_of_request
from skirmish.server.outbox import Outbox

_HIDDEN = object()  # a cached "this viewer does not see this event"



def as_offered(state, command: Choose) -> Choose:
    """``command`` with its option as the engine offered it. A seat answers the options its own
    view showed it, and a module that hides a unit from that seat renames the unit there (a
    handle in place of its id, ``skirmish.engine.view.pending``): such an answer is the real option
    at the same place in the list. Any other option is left as it is, for the engine to refuse."""
    p = state.pending
    option = tuple(command.option)
    if p is None or command.decision_id != p.id or any(tuple(o) == option for o in p.options) or not hides(state):
        return command
    shown = pending(state, command.side)
    if shown is None or len(shown.options) != len(p.options):
        return command
    at = [i for i, o in enumerate(shown.options) if tuple(o) == option]
    if len(at) != 1:
        return command
    return Choose(command.decision_id, tuple(p.options[at[0]]), command.side, timeout=command.timeout)


class Retired(Exception):
    """The actor let its finished game go (nobody followed it); ask the lobby for it again."""


class GameActor:
    def __init__(self, game: LiveGame, *, clock: GameClock, log,
                 forfeit: str = "", on_retire: Callable[["GameActor"], None] | None = None):
        self.game = game
        self.game_id = game.game_id
        self.clock = clock
        self.log = log.bind(game=self.game_id)
        self.forfeit = forfeit
        self.watchers: dict[Connection, str] = {}
        self.on_retire = on_retire
        # the lobby's, told when what the game's listing shows changes (``listing_check``)
        self.on_listing: Callable[["GameActor"], None] | None = None
        self.on_rules: Callable[[float], None] | None = None  # told each command's seconds in the rules
        self.listed_key: tuple | None = None  # the listing_key last told (None: not yet, or its save failed)
        self.closing = False
        self.retired = False
        self.loop = asyncio.get_running_loop()
        # The jobs, in order (None: stop), and the future the actor's task waits on while there are
        # none: not an asyncio.Queue, whose three deques and event cost 3 KiB a game held
        # (docs/decisions.md, "Memory: 1,000 games").
        self._jobs: deque[tuple | None] = deque()
        self._job_ready: asyncio.Future | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._expiry: asyncio.TimerHandle | None = None  # a game nobody joined expires (``expire_at``)
        self._outbox = Outbox(self.game_id)  # what this job stages for batch connections
        self._over: tuple[tuple, GameOverMsg] | None = None
        self.task = asyncio.create_task(self._run(), name=f"actor-{self.game_id}")

    @property
    def state(self):
        return self.game.state

    # -- the queue ---------------------------------------------------------------------------

    async def call(self, job: Callable[..., Awaitable], *args):
        """Run ``job(*args)`` on the actor, after every job queued before it; its result or error."""
        if self.closing:
            if self.retired:
                raise Retired()
            raise ProtocolError("server.shutting_down", "the server is shutting down; resume later")
        fut = self.loop.create_future()
        self._put((job, args, fut))
        return await fut

    def _post(self, job: Callable[..., Awaitable], *args) -> None:
        if not self.closing:
            self._put((job, args, None))

    def _put(self, item: tuple | None) -> None:
        self._jobs.append(item)
        if self._job_ready is not None and not self._job_ready.done():
            self._job_ready.set_result(None)

    async def _run(self) -> None:
        while True:
            while not self._jobs:
                self._job_ready = self.loop.create_future()
                await self._job_ready
            self._job_ready = None
            item = self._jobs.popleft()
            if item is None:
                return
            job, args, fut = item
            if self.retired:
                if fut is not None and not fut.done():
                    fut.set_exception(Retired())
                continue
            try:
                try:
                    result = await job(*args)
                finally:
                    self._outbox.flush(self.state.seq)
            except (ProtocolError, GameError) as exc:
                if fut is not None and not fut.done():
                    fut.set_exception(exc)
            except Exception as exc:
                self.log.exception("actor.failed", job=job.__name__)
                await self._recover()
                if fut is not None and not fut.done():
                    fut.set_exception(exc)
            else:
                if fut is not None and not fut.done():
                    fut.set_result(result)

    async def _recover(self) -> None:
        """After an unexpected failure (the store, say): reload the game from the store, the truth."""
        try:
            self.game = await LiveGame.load(self.game.store, self.game_id)
        except Exception:
            self.log.exception("actor.reload_failed")

    async def close(self) -> None:
        """Finish the jobs already queued (in-flight commands commit), then stop."""
        if not self.closing:
            self.closing = True
            self._cancel_timer()
            if self._expiry is not None:
                self._expiry.cancel()
            self._put(None)
        await self.task

    # -- jobs ------------------------------------------------------------------------------------

    async def boot(self) -> None:
        """A game loaded from the store: start it if both seats were taken, run the clock."""
        s = self.state
        if s.outcome is None and len(s.seats) == 2 and not s.started:
            await self._submit(Start())
        else:
            self._after(())

    async def seat(self, conn: Connection, requested: str, name: str, client_seed: str, msg_id: int,
                   request_id: str = "") -> str:
        s = self.state
        held = conn.roles.get(self.game_id)
        if request_id:  # a retry whose first try took a seat gets that seat again (skirmish.server.lobby)
            events = await LiveGame.stored_request(self.game.store, self.game_id, request_key(request_id))
            if events is not None:
                seat = seat_of_request(events, request_id, requested, client_seed, self.game_id)
                if held in SEATS and held != seat:
                    raise ProtocolError("lobby.seat_taken",
                                        f"this connection already holds seat {held} of game {self.game_id}")
                self.log.info("seat.retried", seat=seat, conn=conn.id, seq=s.seq)
                await self.watch(conn, seat, 0, Seated(game_id=self.game_id, seat=seat,
                                                       token=self.game.token_for(seat), id=msg_id))
                return seat
        if held in SEATS:
            raise ProtocolError("lobby.seat_taken", f"this connection already holds seat {held} of game {self.game_id}")
        free = [seat for seat in SEATS if seat not in s.seats]
        if s.started or s.outcome is not None or not free:
            raise ProtocolError("lobby.game_full", f"both seats of game {self.game_id} are taken")
        mine = [x for x in free if self.game.reserved.get(x, name) == name]  # not reserved for another player
        if requested == "any":
            if not mine:
                raise self._reserved(free[0])
            seat = mine[0]
        elif requested in SEATS:
            if requested not in free:
                raise ProtocolError("lobby.seat_taken", f"seat {requested} of game {self.game_id} is taken")
            if requested not in mine:
                raise self._reserved(requested)
            seat = requested
        else:
            raise ProtocolError("protocol.invalid_field", f"seat is 'a', 'b' or 'any', not {requested!r}")
        token = self.game.token_for(seat)
        try:
            check_client_seed(seat, client_seed)
        except (TypeError, ValueError) as exc:
            raise ProtocolError("protocol.invalid_field", f"client_seed: {exc}") from None
        sub = await self.game.take_seat(seat, name, client_seed,
                                        command_id=request_key(request_id))
        self.log.info("seat.taken", seat=seat, name=name, conn=conn.id, seq=sub.last_seq)
        self._publish(sub, exclude=conn)
        self.detach(conn)
        conn.roles[self.game_id] = seat
        conn.send(Seated(game_id=self.game_id, seat=seat, token=token, id=msg_id))
        await self._backlog(conn, seat, 0)
        self.watchers[conn] = seat
        if len(s.seats) == 2 and not s.started:
            await self._submit(Start())
        else:
            self._show_pending(conn, seat)
        self._outbox.live(conn, self.state.seq)
        return seat

    def _reserved(self, seat: str) -> ProtocolError:
        return ProtocolError("lobby.seat_reserved", f"seat {seat} of game {self.game_id} is reserved for the player "
                                                    f"{self.game.reserved[seat]!r} (the name its hello gives)")

    async def watch(self, conn: Connection, viewer: str, after_seq: int, reply) -> None:
        """Follow the game as ``viewer``: ``reply``, every event after ``after_seq``, then what is pending,
        then ``live``. Once the game is over the whole log is open: the backlog is the full log."""
        s = self.state
        if after_seq > s.seq:
            field = "last_seq" if isinstance(reply, Seated) else "after_seq"
            raise ProtocolError("lobby.seq_out_of_range",
                                f"{field} {after_seq} is past the last event of game {self.game_id} ({s.seq})")
        self.detach(conn)
        if viewer in SEATS:  # a resumed seat: an older connection holding it lets go
            for other, v in list(self.watchers.items()):
                if v == viewer:
                    self.detach(other, idle_check=False)
                    other.error("auth.not_seated", f"seat {viewer} of game {self.game_id} was resumed on another connection")
        conn.roles[self.game_id] = viewer
        conn.send(reply)
        await self._backlog(conn, "all" if s.outcome is not None else viewer, max(0, after_seq))
        self.watchers[conn] = viewer
        self._show_pending(conn, viewer)
        self._outbox.live(conn, self.state.seq)
        self.log.info("watch", conn=conn.id, viewer=viewer, after_seq=after_seq, seq=self.state.seq)

    async def command(self, conn: Connection, seat: str, command: Choose | Resign | OfferDraw, command_id: str,
                      msg_id: int, received: float) -> int:
        if conn.roles.get(self.game_id) != seat:
            raise ProtocolError("auth.not_seated", f"this connection holds no seat in game {self.game_id}")
        s = self.state
        if not s.started and s.outcome is None:
            if not isinstance(command, Resign):
                raise ProtocolError("game.not_started", f"game {self.game_id} waits for its second player")
            command = Cancel(reason="cancelled", seat=seat)  # resigning a game nobody joined cancels it
        cid = f"{seat}:{command_id}" if command_id else None
        pending = s.pending
        if isinstance(command, Choose):
            command = as_offered(s, command)
        try:
            sub = await self.game.run(command, cid)
        except GameError:
            prior = await self._prior(cid) if cid else None
            if prior is None:
                raise
            first = decode_event((await self.game.store.read(self.game_id, prior.first_seq, prior.first_seq))[0].data)
            self._check_reuse(command, command_id, first)
            self.log.info("command.retried", seat=seat, command_id=command_id, seq=prior.last_seq)
            self._outbox.deliver(conn, Ack(game_id=self.game_id, seq=prior.last_seq, id=msg_id))
            return prior.last_seq
        if sub.duplicate:
            self._check_reuse(command, command_id, sub.events[0])
            self.log.info("command.retried", seat=seat, command_id=command_id, seq=sub.last_seq)
            self._outbox.deliver(conn, Ack(game_id=self.game_id, seq=sub.last_seq, id=msg_id))
            return sub.last_seq
        if isinstance(command, Choose):
            self.clock.stop(self.loop.time())
        self._publish(sub)
        self._outbox.deliver(conn, Ack(game_id=self.game_id, seq=sub.last_seq, id=msg_id))
        self._log_command(seat, pending, command, sub, received)
        return sub.last_seq

    @staticmethod
    def _check_reuse(command, command_id: str, first: Event) -> None:
        """A command id the seat used before: the same command again is a retry (answered with the
        first one's ack); another command under it is refused, so that a client never waits on it."""
        if isinstance(command, Choose):
            same = (isinstance(first, OptionChosen) and first.decision_id == command.decision_id
                    and tuple(first.option) == tuple(command.option))
        elif isinstance(command, OfferDraw):
            same = isinstance(first, (DrawOffered, DrawAgreed))
        else:  # a resignation, or the cancellation that resigning a game nobody joined is
            same = isinstance(first, (Resigned, GameCancelled))
        if same:
            return
        if isinstance(first, OptionChosen):
            was = f"decision {first.decision_id} ({list(first.option)!r})"
        else:
            was = ("its resignation" if isinstance(first, Resigned) else "a draw offer"
                   if isinstance(first, (DrawOffered, DrawAgreed)) else "cancelling the game")
        raise ProtocolError("game.command_id_reused",
                            f"command_id {command_id!r} was already used by this seat for {was}; "
                            f"give every command a fresh command_id")

    async def cancel(self, conn: Connection, seat: str, msg_id: int) -> int:
        """``cancel``: the holder of ``seat``'s token ends the game before anyone joined it."""
        sub = await self.game.run(Cancel(reason="cancelled", seat=seat))
        self.log.info("game.cancelled", seat=seat, conn=conn.id, seq=sub.last_seq)
        self._publish(sub)
        self._outbox.deliver(conn, Ack(game_id=self.game_id, seq=sub.last_seq, id=msg_id))
        return sub.last_seq

    def expire_at(self, when: float) -> None:
        """Expire the game at ``when`` (POSIX seconds; at once if past) unless it has started by then."""
        s = self.state
        if self._expiry is not None:
            self._expiry.cancel()
        if s.started or s.outcome is not None or self.closing:
            return
        self._expiry = self.loop.call_later(max(0.0, when - time.time()), self._post, self._expire)

    async def _expire(self) -> None:
        self._expiry = None
        s = self.state
        if s.started or s.outcome is not None or len(s.seats) == 2:
            return
        sub = await self.game.run(Cancel(reason="expired"))
        self.log.info("game.expired", seq=sub.last_seq, seats=sorted(s.seats))
        self._publish(sub)

    async def _time_out(self, decision_id: int) -> None:
        s = self.state
        p = s.pending
        running = self.clock.running
        if p is None or p.id != decision_id or s.outcome is not None or running is None or running[0] != p.id:
            return
        started = time.perf_counter()
        seat, count = self.clock.time_out()
        command = Choose(p.id, default_option(p), seat, timeout=True)
        forfeits = self.clock.forfeits(seat)
        sub = await self._submit(command, announce=not forfeits)  # no decision that is void at once
        self._log_command(seat, p, command, sub, started, timeouts=count)
        if self.state.outcome is None and forfeits:
            reason = f"forfeit: {count} time-outs"
            sub = await self._submit(Resign(seat, reason=reason))
            self.log.info("forfeit", seat=seat, timeouts=count, seq=sub.last_seq)

    # -- helpers -------------------------------------------------------------------------------

    async def _submit(self, command, announce: bool = True) -> Submitted:
        sub = await self.game.run(command)
        if isinstance(command, Start):
            self.log.info("game.started", seq=sub.last_seq)
        self._publish(sub, announce=announce)
        return sub

    async def _prior(self, cid: str):
        """What a command id stored earlier (its AppendResult), if it did (a retry after the command
        went through): the store's ``find_command``, a read that writes nothing."""
        return await self.game.store.find_command(self.game_id, cid)

    def _log_command(self, seat, pending, command, sub: Submitted, started: float, **extra) -> None:
        option = list(command.option) if isinstance(command, Choose) else (
            ["offer_draw"] if isinstance(command, OfferDraw) else ["resign"])
        self.log.info(
            "command", seat=seat, decision=pending.id if pending else None, kind=pending.kind if pending else None,
            option=option, timeout=getattr(command, "timeout", False),
            latency_ms=round((time.perf_counter() - started) * 1000, 3), seq=sub.last_seq,
            events=len(sub.events), **extra)

    def _publish(self, sub: Submitted, exclude: Connection | None = None, announce: bool = True) -> None:
        """Fan the stored events out to every watcher, each in its own view; then what is pending.
        (Every stored step passes here: its time in the rules is told to ``on_rules`` too.)"""
        if self.on_rules is not None and sub.rules_s:
            self.on_rules(sub.rules_s)
        frames: dict[tuple[str, str, int], object] = {}
        items: dict[str, list[EventItem]] = {}  # per viewer: shared by its connections (one encoding)
        shown = sub.views or (None,) * len(sub.events)  # each event's views; None: as it is
        for conn, viewer in list(self.watchers.items()):
            if conn is exclude:
                continue
            if conn.batch:
                seen_by = items.get(viewer)
                if seen_by is None:
                    seen_by = items[viewer] = [
                        EventItem(seq=sub.first_seq + i, event=seen)
                        for i, event in enumerate(sub.events)
                        if (seen := event if shown[i] is None else shown[i][viewer]) is not None]
                if seen_by:
                    self._outbox.stage_events(conn, seen_by)
                continue
            for i, event in enumerate(sub.events):
                key = (viewer, conn.codec.name, i)
                frame = frames.get(key)
                if frame is None:
                    seen = event if shown[i] is None else shown[i][viewer]
                    frame = _HIDDEN if seen is None else conn.codec.encode(
                        EventMsg(game_id=self.game_id, seq=sub.first_seq + i, event=seen))
                    frames[key] = frame
                if frame is not _HIDDEN:
                    conn.push(frame)
        self._after(sub.events, announce)
        self.listing_check()

    def listing_key(self) -> tuple:
        """What a listing of the game shows that commands change: its seats, started, over."""
        s = self.state
        return len(s.seats), s.started, s.outcome is not None

    def listing_check(self) -> None:
        """Tell ``on_listing`` if the listing key changed since it was last told."""
        if self.on_listing is not None:
            key = self.listing_key()
            if key != self.listed_key:
                self.listed_key = key
                self.on_listing(self)

    def _after(self, events, announce: bool = True) -> None:
        """After new events: the game is over (tell everyone) or a new decision's clock starts
        (unless not ``announce``: the seat forfeits next)."""
        s = self.state
        if self._expiry is not None and (s.started or s.outcome is not None):
            self._expiry.cancel()
            self._expiry = None
        if s.outcome is not None:
            self._cancel_timer()
            self.clock.running = None
            if events:
                self.forfeit = self.forfeit or forfeit_of(events)
                self.log.info("game.over", winner=s.outcome.winner, reason=s.outcome.reason,
                              forfeit=self.forfeit, seq=s.seq)
                for conn, viewer in list(self.watchers.items()):
                    self._show_pending(conn, viewer)
                self._maybe_idle()
            return
        p = s.pending
        if p is None or not announce or (self.clock.running is not None and self.clock.running[0] == p.id):
            return
        self._cancel_timer()
        deadline = self.clock.start(p.id, p.side, self.loop.time())
        self._timer = self.loop.call_at(deadline, self._post, self._time_out, p.id)
        frames: dict[tuple[str, str], object] = {}
        msgs: dict[str, DecisionMsg | None] = {}
        for conn, viewer in list(self.watchers.items()):
            if conn.batch:
                if viewer not in msgs:
                    msgs[viewer] = self._decision_msg(viewer)
                if msgs[viewer] is not None:
                    self._outbox.stage(conn, msgs[viewer])
                continue
            key = (viewer, conn.codec.name)
            if key not in frames:
                msg = self._decision_msg(viewer)
                frames[key] = _HIDDEN if msg is None else conn.codec.encode(msg)
            if frames[key] is not _HIDDEN:
                conn.push(frames[key])

    def _decision_msg(self, viewer: str) -> DecisionMsg | None:
        p = self.state.pending
        seen = pending(self.state, viewer)
        if seen is None:
            return None
        return DecisionMsg(game_id=self.game_id, seq=self.state.seq, decision=seen,
                           clock=self.clock.show(p.side, self.loop.time()))

    def _show_pending(self, conn: Connection, viewer: str) -> None:
        s = self.state
        if s.outcome is not None:
            key = (id(s.outcome), self.forfeit)
            if self._over is None or self._over[0] != key:  # one message, so that batches share its encoding
                self._over = (key, GameOverMsg(game_id=self.game_id, outcome=s.outcome, forfeit=self.forfeit,
                                               head_hash=self.game.head_hash.hex()))
            self._outbox.deliver(conn, self._over[1])
        elif s.pending is not None:
            msg = self._decision_msg(viewer)
            if msg is not None:
                self._outbox.deliver(conn, msg)

    async def _backlog(self, conn: Connection, viewer: str, after_seq: int) -> None:
        """The events after ``after_seq`` as ``viewer`` sees them. In a game whose modules hide
        something the log is read and folded from its start, so that each event's view sees the
        state before it (a resume's cost, not a live event's)."""
        last = self.state.seq
        if after_seq >= last:
            return
        start = 1 if viewer != "all" and hides(self.state) else after_seq + 1
        stored = await self.game.store.read(self.game_id, start, last)
        events = (decode_event(s.data) for s in stored)
        for s, seen in zip(stored, viewed(events, viewer) if start == 1 else events):
            if s.seq > after_seq and seen is not None:
                if conn.batch:
                    self._outbox.stage(conn, EventItem(seq=s.seq, event=seen))
                else:
                    conn.send(EventMsg(game_id=self.game_id, seq=s.seq, event=seen))

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def detach(self, conn: Connection, *, idle_check: bool = False) -> None:
        """``conn`` no longer follows this game (it closed, or follows it another way now)."""
        self.watchers.pop(conn, None)
        conn.roles.pop(self.game_id, None)
        if idle_check:
            self._maybe_idle()

    def _maybe_idle(self) -> None:
        """A finished game nobody follows leaves memory (the lobby loads it again if asked)."""
        if not self.watchers and self.state.outcome is not None and not self.closing:
            self._post(self._retire_if_idle)

    async def _retire_if_idle(self) -> None:
        # A job, so that a watcher queued before it is counted; jobs queued after it get Retired.
        if self.watchers or self.state.outcome is None or self.closing:
            return
        self.retired = self.closing = True
        self._cancel_timer()
        self._put(None)
        if self.on_retire:
            self.on_retire(self)
        self.log.debug("actor.retired")
