"""What one job of a game's actor pushes to its **batch connections** (``hello`` with ``batch``).

A job's pushes to such a connection (its events, the decision, the game's end, the ack of its own
command) are staged in the connection's session (``ServerSession.stage``, per game), not sent,
and at the end of the job (:meth:`Outbox.flush`) go out as one ``updates`` message (more only if
the order of the parts calls for it). Identical updates (same viewer, no ack) are encoded once per
codec, so a step costs one encode per distinct view and one frame per connection. Connections
without ``batch`` get each push at once.
"""

from __future__ import annotations

from skirmish.protocol.messages import Ack, EventItem, Live, Updates
from skirmish.server.connection import Connection

__all__ = ["Outbox"]


class Outbox:
    """The batch connections one game's current job staged updates for (used by ``GameActor`` only)."""

    __slots__ = ("game_id", "_staged", "_lives")

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self._staged: dict[Connection, None] = {}  # batch connections with updates staged in their session
        self._lives: list[Connection] = []  # batch connections owed a ``live`` after their staged updates

    def deliver(self, conn: Connection, msg) -> None:
        """A push, or the ack of ``conn``'s command: sent at once (v1), or staged for ``updates``.

        An ack with nothing staged for ``conn`` (a retried command id) goes out as a plain ``ack``."""
        if not conn.batch or (isinstance(msg, Ack) and conn not in self._staged):
            conn.send(msg)
        else:
            self.stage(conn, msg)

    def stage(self, conn: Connection, part) -> None:
        """Stage ``part`` in ``conn``'s session for this job's ``updates`` (``ServerSession.stage``)."""
        conn.session.stage(self.game_id, part)
        self._staged[conn] = None

    def stage_events(self, conn: Connection, items: list[EventItem]) -> None:
        conn.session.stage_events(self.game_id, items)
        self._staged[conn] = None

    def live(self, conn: Connection, seq: int) -> None:
        """The end of ``conn``'s backlog: ``live`` at ``seq`` now, or (batch) at the game's last seq
        when the job ends, after the ``updates`` staged for it."""
        if conn.batch:
            self._lives.append(conn)
        else:
            conn.send(Live(game_id=self.game_id, seq=seq))

    def flush(self, seq: int) -> None:
        """Send the staged updates: one frame per ``updates``, each distinct one encoded once per codec;
        then the ``live`` owed, at ``seq`` (the game's last seq)."""
        if not self._staged and not self._lives:
            return
        staged, self._staged = self._staged, {}
        lives, self._lives = self._lives, []
        frames: dict[tuple, bytes | str] = {}
        for conn in staged:
            for events, decision, over, ack in conn.session.take_staged(self.game_id):
                key = (conn.codec.name, tuple(map(id, events)), id(decision), id(over), id(ack))
                frame = frames.get(key)
                if frame is None:
                    frame = frames[key] = conn.codec.encode(Updates(
                        game_id=self.game_id, events=events, decision=decision, game_over=over, ack=ack))
                conn.push(frame)
        for conn in lives:
            conn.send(Live(game_id=self.game_id, seq=seq))
