"""``replay_frames``: a replay file the page was given (dropped, chosen), verified and folded into
the replay viewer's frames, without the server holding or storing its game (issue 16 point 4).

The file is the ``.skr`` of ``docs/replay-format.md`` in base64. It is replayed only if it verifies
in full (``skirmish.server.replayfile.verify_file``: chain, decoding, rules, dice) and its game has
ended; the frames are those of ``/api/games/ID/frames`` (``skirmish.server.webapi.frames_of``).
"""

from __future__ import annotations

import asyncio
import base64
import binascii

from skirmish.engine.codec import decode_event
from skirmish.engine.events import GameEnded
from skirmish.protocol import messages as m
from skirmish.protocol.errors import ProtocolError
from skirmish.server.replayfile import ReplayFileError, read_file, verify_file

MAX_FILE = 2 * 1024 * 1024  # bytes of replay file (decoded) the server replays at most


def frame_limit(max_file: int) -> int:
    """The largest ``replay_frames`` frame that can carry a file of ``max_file`` bytes (base64 and
    the message around it)."""
    return 0 if max_file <= 0 else (max_file + 2) // 3 * 4 + 1024


def decode_file(text: str, max_file: int) -> bytes:
    if max_file <= 0:
        raise ProtocolError("replay.too_large", "this server replays no files sent to it")
    if (len(text) // 4) * 3 > max_file + 2:
        raise ProtocolError("replay.too_large", f"a replay file of about {len(text) * 3 // 4} bytes; "
                                                f"this server replays files of at most {max_file} bytes")
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ProtocolError("protocol.invalid_field", "file: not base64") from None
    if len(data) > max_file:
        raise ProtocolError("replay.too_large", f"a replay file of {len(data)} bytes; "
                                                f"this server replays files of at most {max_file} bytes")
    return data


def frames_of_file(data: bytes, viewer: str) -> dict:
    """The file's game as the replay viewer's frames; ``replay.bad_file`` if it is not a replay file,
    does not verify (naming the first bad event), or its game has not ended."""
    from skirmish.server.webapi import frames_of  # (webapi is the web layer above the lobby)

    try:
        rf = read_file(data)
    except ReplayFileError as exc:
        raise ProtocolError("replay.bad_file", str(exc)) from None
    report = verify_file(rf)
    if not report.ok:
        raise ProtocolError("replay.bad_file", f"the file does not verify: {report.summary()}")
    events = [decode_event(d) for d in rf.events]
    if not any(isinstance(e, GameEnded) for e in events[-3:]):
        raise ProtocolError("replay.bad_file", "the file's game has not ended: the replay viewer opens a finished game")
    return frames_of(rf.header.game_id, viewer, events, report.head_hash)


async def replay_frames(conn, request: m.ReplayFrames, max_file: int = MAX_FILE) -> None:
    """Answer ``replay_frames`` with ``frames`` (or raise the ``ProtocolError`` to send). The work
    (verifying and folding a whole game) runs in a thread, so that the games go on meanwhile."""
    data = decode_file(request.file, max_file)
    doc = await asyncio.to_thread(frames_of_file, data, request.as_)
    conn.send(m.Frames(id=request.id, **doc))
