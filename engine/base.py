"""The base types that the core and every rules module extend: ``Event`` (the log's events) and
``Frame`` (procedures in progress on ``State.stack``), ``Hidden`` (what a viewer may not see) and
``unit_of`` for evolve handlers.

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


class Hidden(msgspec.Struct, frozen=True, tag_field="type", tag=True):
    """A value this viewer may not see (``skirmish.engine.view``): the explicit redacted form that a
    field's type admits where a rules module may hide what it holds (``str | Hidden``,
    ``tuple[int, ...] | Hidden``, an option's items). On the wire ``{"type": "Hidden", "what": ...}``.

    ``what`` says what kind of thing is hidden ("card", "roll", "salt", "position", "name"), which
    is public. The full log never holds one: only a view of an event does, and the state a viewer
    folds from its views (``evolve`` takes them as they are: a card it cannot name, a position it
    does not know). Two are equal when they hide the same kind of thing, so a decision's hidden
    options collapse into one and the ``OptionChosen`` that answers it matches it."""

    what: str = ""


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
