"""``view(state, event, viewer)``: the one place where per-viewer redaction lives (DESIGN.md section 5).

Every outbound event passes through here: live play, resumes, replays, exports for a side.
A viewer is ``"a"``, ``"b"``, ``"spectator"`` or ``"all"`` (the full log, open to everyone once
the game is over). ``view`` returns the event as that viewer may see it, or ``None``.

A redaction sees the state: ``state`` is the full state *before* the event, and the rule set is
the game's own (``rules_of(state)``: the modules it has on, not every module of the catalog).
``GameCreated`` has no state before it: its redactions see the state it creates
(``initial_state(event)``, made here when a caller passes ``None``), so a module can hide a
unit's name or position from the start. Who holds the state:

- the server's live game keeps the full state and shows each event before applying it
  (``views``: every live viewer at once; ``skirmish.server.game.LiveGame``);
- whoever reads a log from its start folds it as it reads (``viewed``): a resume from the store,
  ``skirmish replay --as``; for a game whose rules hide nothing (``hides`` is false) no fold is needed.

What is hidden, and from whom:

- ``SeedRevealed`` is only ever emitted after the game ends, so it needs no redaction; the
  server seed never exists in any event before then (``GameCreated`` carries its hash).
- The core rules (seed 001) have no hidden information: every other event is public.
  Modules with hidden units or hands of cards name their redactions in their ``Module``
  (``redactions``: event type -> (state, event, viewer) -> event or None; chained over the
  game's modules) and what they hide in ``secrets`` (checked against the views by
  ``tests/engine/test_views_hide_secrets.py``). A hidden value takes an explicit redacted form,
  ``skirmish.engine.base.Hidden``, in a field whose type admits it.
"""

from __future__ import annotations

from typing import Iterable, Iterator, Mapping

import msgspec

from skirmish.engine.events import DecisionRequested, Event, GameCreated
from skirmish.engine.evolve import evolve, initial_state
from skirmish.engine.model import Decision, State
from skirmish.engine.rules.registry import rules_for, rules_of

VIEWERS = ("a", "b", "spectator", "all")
LIVE = ("a", "b", "spectator")  # the viewers of a game in progress


def view(state: State | None, event: Event, viewer: str) -> Event | None:
    """``event`` as ``viewer`` may see it, or None; ``state`` is the full state before it (for
    ``GameCreated``: None, or the state it creates)."""
    if viewer not in VIEWERS:
        raise ValueError(f"unknown viewer {viewer!r}; one of {', '.join(VIEWERS)}")
    if viewer == "all":
        return event
    redact, state = _redaction(state, event)
    return event if redact is None else redact(state, event, viewer)


def views(state: State | None, event: Event) -> Mapping[str, Event | None] | None:
    """``event`` as each live viewer (``LIVE``) may see it, given the state before it; None when
    no redaction applies to it, so that every viewer sees it as it is (one look-up)."""
    redact, state = _redaction(state, event)
    if redact is None:
        return None
    return {v: redact(state, event, v) for v in LIVE}


def hides(state: State) -> bool:
    """Whether any of the game's modules hides anything in this game (it has redactions and its
    ``Module.hides`` says so, or has none): if not, a viewer sees every event as
    it is and nobody needs the state to show one."""
    return any(m.redactions and (m.hides is None or m.hides(state)) for m in rules_of(state).modules)


def viewed(events: Iterable[Event], viewer: str) -> Iterator[Event | None]:
    """Each event of a log, from its ``GameCreated``, as ``viewer`` sees it (None: not at all),
    folding the full state as it goes so that each redaction sees the state before its event.
    ``InvalidEvent`` (from ``evolve``) for a log that does not follow."""
    it = iter(events)
    first = next(it, None)
    if first is None:
        return
    if not isinstance(first, GameCreated) or viewer == "all" or not rules_for(first.modules).redactions:
        if viewer not in VIEWERS:
            raise ValueError(f"unknown viewer {viewer!r}; one of {', '.join(VIEWERS)}")
        yield first
        yield from it
        return
    state = initial_state(first)
    yield view(state, first, viewer)
    for event in it:
        yield view(state, event, viewer)
        evolve(state, event)


def pending(state: State, viewer: str) -> Decision | None:
    """The decision pending in ``state`` as ``viewer`` sees it (None: not at all): the view of the
    ``DecisionRequested`` that asked it, in the state before that event."""
    p = state.pending
    if p is None:
        return None
    redact = rules_of(state).redactions.get(DecisionRequested) if viewer != "all" else None
    if redact is None:
        if viewer not in VIEWERS:
            raise ValueError(f"unknown viewer {viewer!r}; one of {', '.join(VIEWERS)}")
        return p
    seen = view(msgspec.structs.replace(state, pending=None, next_decision=p.id), DecisionRequested(decision=p), viewer)
    return None if seen is None else seen.decision


def _redaction(state: State | None, event: Event):
    """The game's redaction of ``event``'s type (None: none) and the state it sees."""
    if isinstance(event, GameCreated):
        redact = rules_for(event.modules).redactions.get(GameCreated)
        if redact is not None and state is None:
            state = initial_state(event)
        return redact, state
    if state is None:
        raise ValueError(f"the view of a {type(event).__name__} needs the state before it")
    return rules_of(state).redactions.get(type(event)), state
