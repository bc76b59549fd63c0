"""The base types that the core and every rules module extend: ``Event`` (the log's events) and
``Frame`` (procedures in progress on ``State.stack``), and ``unit_of`` for evolve handlers.

A module's events (``engine/rules/<module>/events.py``), frames (``frames.py``) and evolve
handlers (``evolve.py``) import only these and the model, so that the shared files can gather
them into the log's closed union (``skirmish.engine.events.AnyEvent``), the frame union
(``skirmish.engine.model.FrameT``) and the evolve table (``skirmish.engine.evolve``) when they are imported.
"""

from __future__ import annotations

import msgspec

from skirmish.engine.errors import InvalidEvent


class Event(msgspec.Struct, frozen=True, tag_field="type", tag=True):
    pass


# Procedures in progress live on ``State.stack`` as frames: plain data, no closures, so a server
# restarted mid-procedure resumes from the log alone (DESIGN.md section 2).


class Frame(msgspec.Struct, tag_field="frame"):
    pass


def unit_of(state, uid: str):
    """``state``'s unit ``uid``; ``InvalidEvent`` when the game has none."""
    try:
        return state.units[uid]
    except KeyError:
        raise InvalidEvent(f"no unit {uid!r} in game {state.game_id}") from None
