"""Chess clocks for a game's two seats (DESIGN.md section 6), sans-I/O: times are passed in.

Each decision gives the deciding seat ``move_ms``; once that is spent its banked reserve runs
(``reserve_ms`` for the whole game, never refilled, like Kaggle's overage time). When both are
gone the decision has timed out: the server plays the documented default
(``skirmish.engine.decide.default_option``) for the seat and counts a time-out; at ``max_timeouts`` the
seat forfeits. The reserve and time-out count are not in the log: after a restart each seat's
time-outs are counted again from the log (``OptionChosen.timeout``) and its reserve is full.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from skirmish.protocol.messages import Clock


@dataclass
class SeatClock:
    reserve_ms: float
    timeouts: int = 0


@dataclass
class GameClock:
    move_ms: int
    reserve_ms: int
    max_timeouts: int
    seats: dict[str, SeatClock] = field(default_factory=dict)
    running: tuple[int, str, float] | None = None  # (decision id, seat, started at, in seconds)

    def __post_init__(self) -> None:
        for seat in ("a", "b"):
            self.seats.setdefault(seat, SeatClock(float(self.reserve_ms)))

    def start(self, decision_id: int, seat: str, now: float) -> float:
        """The decision's clock starts; returns its deadline (seconds, on the same clock as ``now``)."""
        self.running = (decision_id, seat, now)
        return now + (self.move_ms + self.seats[seat].reserve_ms) / 1000

    def stop(self, now: float) -> None:
        """The decision was answered: charge the time past ``move_ms`` to the seat's reserve."""
        if self.running is None:
            return
        _, seat, started = self.running
        over = (now - started) * 1000 - self.move_ms
        if over > 0:
            s = self.seats[seat]
            s.reserve_ms = max(0.0, s.reserve_ms - over)
        self.running = None

    def time_out(self) -> tuple[str, int]:
        """The running decision timed out: its seat's reserve is gone; returns (seat, time-outs)."""
        assert self.running is not None
        _, seat, _ = self.running
        s = self.seats[seat]
        s.reserve_ms = 0.0
        s.timeouts += 1
        self.running = None
        return seat, s.timeouts

    def forfeits(self, seat: str) -> bool:
        return 0 < self.max_timeouts <= self.seats[seat].timeouts

    def show(self, seat: str, now: float) -> Clock:
        """The seat's clock as a ``decision`` message carries it: what is left right now."""
        s = self.seats[seat]
        move, reserve = float(self.move_ms), s.reserve_ms
        if self.running is not None and self.running[1] == seat:
            spent = (now - self.running[2]) * 1000
            move_left = move - spent
            if move_left < 0:
                reserve = max(0.0, reserve + move_left)
                move_left = 0.0
            move = move_left
        return Clock(move_ms=int(move), reserve_ms=int(reserve), timeouts=s.timeouts)
