"""Structured logs: one JSON object per line on stderr (``structlog``).

What is logged: each command (game, seat, decision, kind, option, latency_ms, seq), each
connection opening and closing, each error sent to a client, the server starting and stopping,
and each full garbage collection of ``serve`` (``gc.full``: collected, ms, blocks; ``server/collector.py``).
What never is: seat tokens and server seeds. No code here sees them, and the places that handle
them (``skirmish.server.lobby``) log only the game and the seat.

``websockets``' own log records (stdlib ``logging``) are turned into the same JSON lines.

A line costs its command little (docs/decisions.md, "A command's CPU"): the timestamp's date and
time of day are formatted once a second, and the line is encoded by msgspec (C code) rather than
``json.dumps``; a value msgspec cannot encode makes the line fall back to ``json.dumps`` with
``repr`` for what JSON has no type for, as structlog's own renderer does.
"""

from __future__ import annotations

import json
import logging
import sys
import time

import msgspec
import structlog

LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}


class _StderrLogger:
    """Writes each rendered line to the *current* ``sys.stderr`` (tests swap it per test)."""

    def msg(self, message: str) -> None:
        stream = sys.stderr
        try:
            stream.write(message + "\n")
            stream.flush()
        except (ValueError, OSError):  # a closed stream: a log line is not worth a crash
            pass

    log = debug = info = warning = warn = error = critical = exception = fatal = msg


def _factory(*args) -> _StderrLogger:
    return _StderrLogger()


class _ToStructlog(logging.Handler):
    """Forwards stdlib records (websockets') as structlog JSON lines."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            log = structlog.get_logger(record.name)
            method = getattr(log, record.levelname.lower(), log.info)
            extra = {"exc": self.formatException(record.exc_info)} if record.exc_info else {}
            method(record.getMessage(), **extra)
        except Exception:  # pragma: no cover - logging must never raise
            pass

    @staticmethod
    def formatException(exc_info) -> str:
        return logging.Formatter().formatException(exc_info)


_JSON = msgspec.json.Encoder()
_second: list = [-1, ""]  # the last whole second stamped, and its "YYYY-MM-DDTHH:MM:SS" (UTC)


def stamp(_logger, _method: str, event_dict: dict) -> dict:
    """``timestamp``: ISO 8601 in UTC with microseconds, e.g. ``2026-11-27T07:36:36.640495Z``."""
    now = time.time()
    second = int(now)
    if second != _second[0]:
        _second[0], _second[1] = second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
    event_dict["timestamp"] = f"{_second[1]}.{int((now - second) * 1e6):06d}Z"
    return event_dict


def render(_logger, _method: str, event_dict: dict) -> str:
    """The event as one line of JSON."""
    try:
        return _JSON.encode(event_dict).decode()
    except (TypeError, ValueError, OverflowError):  # a value JSON has no type for: its repr
        return json.dumps(event_dict, default=repr)


def configure_logging(level: str = "info") -> None:
    """JSON lines on stderr at ``level`` (debug, info, warning, error), for structlog and websockets."""
    if level not in LEVELS:
        raise ValueError(f"log level must be one of {', '.join(LEVELS)}, not {level!r}")
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            stamp,
            structlog.processors.format_exc_info,
            render,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(LEVELS[level]),
        logger_factory=_factory,
        cache_logger_on_first_use=False,
    )
    ws_log = logging.getLogger("websockets")
    for h in list(ws_log.handlers):
        if isinstance(h, _ToStructlog):
            ws_log.removeHandler(h)
    ws_log.addHandler(_ToStructlog())
    ws_log.setLevel(max(LEVELS[level], logging.WARNING))  # its info lines repeat ours
    ws_log.propagate = False


def get_logger(**bound):
    return structlog.get_logger("skirmish").bind(**bound)
