"""Structured logs: one JSON object per line on stderr (``structlog``).

What is logged: each command (game, seat, decision, kind, option, latency_ms, seq), each
connection opening and closing, each error sent to a client, the server starting and stopping.
What never is: seat tokens and server seeds. No code here sees them, and the places that handle
them (``skirmish.server.lobby``) log only the game and the seat.

``websockets``' own log records (stdlib ``logging``) are turned into the same JSON lines.
"""

from __future__ import annotations

import logging
import sys

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


def configure_logging(level: str = "info") -> None:
    """JSON lines on stderr at ``level`` (debug, info, warning, error), for structlog and websockets."""
    if level not in LEVELS:
        raise ValueError(f"log level must be one of {', '.join(LEVELS)}, not {level!r}")
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(),
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
