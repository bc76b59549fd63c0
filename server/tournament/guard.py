"""The guard around a bot: a crash, an illegal answer or a time-out becomes a :class:`Forfeit`.

:class:`GuardedBot` wraps any :class:`skirmish.bots.base.Bot` and is one itself. Around each
``choose`` it

- measures the wall time; an answer that took longer than the per-decision limit is a
  **time-out**, however good. Where it can (the main thread of a process with ``SIGALRM``:
  every worker process) it also interrupts ``choose`` when the limit passes, so a bot that
  never answers cannot hang the tournament;
- turns any exception (``SystemExit`` included) into a **crash**, keeping the error and the
  end of its traceback;
- checks that the answer is one of the options offered (a list is taken as the tuple it
  spells, as on the wire); anything else is an **illegal answer**;
- keeps the last few KB the bot printed (stdout and stderr), the bot's log for the record.

Constructing the bot and its ``new_game`` are guarded too: a failure there is a crash,
reported at the bot's first decision. The guard raises :class:`Forfeit`; the worker ends
the game with a ``Resign`` for that side, so the log stays complete and verifiable.
"""

from __future__ import annotations

import contextlib
import io
import signal
import threading
import time
import traceback
from collections import deque

from skirmish.bots.base import Bot
from skirmish.engine.model import Decision, Option, State

LOG_TAIL_CHARS = 4000
TRACEBACK_CHARS = 2000


class Forfeit(Exception):
    """Side ``side`` forfeits: ``kind`` is ``crash``, ``illegal`` or ``timeout``."""

    def __init__(self, side: str, kind: str, error: str, tb: str = "", log: str = ""):
        super().__init__(f"side {side} forfeits ({kind}): {error}")
        self.side, self.kind, self.error, self.traceback, self.log = side, kind, error, tb, log

    def as_dict(self) -> dict[str, str]:
        return {"side": self.side, "kind": self.kind, "error": self.error, "traceback": self.traceback,
                "log": self.log}


class _TimeUp(BaseException):
    """Raised into a bot's ``choose`` when its time is up (a BaseException: ``except Exception`` misses it)."""


def _short_traceback(exc: BaseException) -> str:
    tb = exc.__traceback__
    if tb is not None and tb.tb_next is not None:  # drop the guard's own frame
        tb = tb.tb_next
    text = "".join(traceback.format_exception(type(exc), exc, tb))
    return text if len(text) <= TRACEBACK_CHARS else "…" + text[-TRACEBACK_CHARS:]


class _Tail(io.TextIOBase):
    """A text stream keeping only the last ``LOG_TAIL_CHARS`` characters written to it."""

    def __init__(self) -> None:
        self.parts: deque[str] = deque()
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        self.parts.append(s)
        self.size += len(s)
        while self.size - len(self.parts[0]) >= LOG_TAIL_CHARS and len(self.parts) > 1:
            self.size -= len(self.parts.popleft())
        return len(s)

    def text(self) -> str:
        out = "".join(self.parts)
        return out if len(out) <= LOG_TAIL_CHARS else "…" + out[-LOG_TAIL_CHARS:]


class GuardedBot(Bot):
    """Plays as the bot ``make()`` returns, within the rules of the tournament (module docstring)."""

    def __init__(self, make, timeout_ms: int, label: str = "", *, capture: bool = True):
        """``capture``: keep what the bot prints for the record (a tournament) rather than let it
        through to this process's stdout and stderr (``skirmish match``, where a user debugs it)."""
        super().__init__(None)
        self.capture = capture
        self.timeout_s = timeout_ms / 1000 if timeout_ms else 0.0
        self.label = label
        self.log = _Tail()
        self.bot: Bot | None = None
        self.pending: tuple[str, str, str] | None = None  # (kind, error, traceback) to raise at the first decision
        self.side = "?"
        self.decisions = 0
        self.think_time = 0.0  # seconds spent in choose
        try:
            with self._capture():
                self.bot = make()
                self.name = getattr(self.bot, "name", "bot")
        except Exception as exc:  # noqa: BLE001 - any failure of bot code is the bot's
            self.pending = ("crash", f"creating the bot failed: {type(exc).__name__}: {exc}", _short_traceback(exc))

    @contextlib.contextmanager
    def _capture(self):
        if not self.capture:
            yield
            return
        with contextlib.redirect_stdout(self.log), contextlib.redirect_stderr(self.log):
            yield

    def new_game(self, side: str) -> None:
        self.side = side
        if self.bot is None:
            return
        try:
            with self._capture():
                self.bot.new_game(side)
        except (Exception, SystemExit) as exc:
            self.pending = ("crash", f"new_game failed: {type(exc).__name__}: {exc}", _short_traceback(exc))

    def _forfeit(self, kind: str, error: str, tb: str = "") -> Forfeit:
        return Forfeit(self.side, kind, error, tb, self.log.text())

    def choose(self, view: State, decision: Decision) -> Option:
        if self.pending is not None:
            raise self._forfeit(*self.pending)
        assert self.bot is not None
        limit = self.timeout_s
        start = time.perf_counter()
        try:
            with self._capture(), _alarm(limit):
                option = self.bot.choose(view, decision)
        except _TimeUp:
            elapsed = time.perf_counter() - start
            raise self._forfeit("timeout", f"no answer within the decision time limit of {limit * 1000:.0f} ms "
                                           f"(decision {decision.id}, {decision.kind}; stopped after "
                                           f"{elapsed * 1000:.0f} ms)") from None
        except (Exception, SystemExit) as exc:
            elapsed = time.perf_counter() - start
            if limit and elapsed > limit:
                raise self._forfeit("timeout", f"took {elapsed * 1000:.0f} ms over decision {decision.id} "
                                               f"({decision.kind}), then raised {type(exc).__name__}; the limit "
                                               f"is {limit * 1000:.0f} ms") from None
            raise self._forfeit("crash", f"{type(exc).__name__}: {exc}", _short_traceback(exc)) from None
        elapsed = time.perf_counter() - start
        self.think_time += elapsed
        self.decisions += 1
        if limit and elapsed > limit:
            raise self._forfeit("timeout", f"took {elapsed * 1000:.0f} ms to answer decision {decision.id} "
                                           f"({decision.kind}); the limit is {limit * 1000:.0f} ms")
        if isinstance(option, list):
            option = tuple(option)
        if not isinstance(option, tuple) or option not in decision.options:
            shown = repr(option)
            if len(shown) > 200:
                shown = shown[:200] + "…"
            raise self._forfeit("illegal", f"answered {shown}, which is not one of the {len(decision.options)} "
                                           f"options of decision {decision.id} ({decision.kind})")
        return option


@contextlib.contextmanager
def _alarm(seconds: float):
    """Raise :class:`_TimeUp` in this thread after ``seconds`` (0: never), where SIGALRM is usable."""
    usable = (seconds > 0 and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def on_alarm(signum, frame):
        raise _TimeUp()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
