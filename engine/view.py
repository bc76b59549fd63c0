"""``view(event, viewer)``: the one place where per-viewer redaction lives (DESIGN.md section 5).

Every outbound event passes through here: live play, resumes, replays, exports for a side.
A viewer is ``"a"``, ``"b"``, ``"spectator"`` or ``"all"`` (the full log, open to everyone once
the game is over). ``view`` returns the event as that viewer may see it, or ``None``.

What is hidden, and from whom:

- ``SeedRevealed`` is only ever emitted after the game ends, so it needs no redaction; the
  server seed never exists in any event before then (``GameCreated`` carries its hash).
- The core rules (seed 001) have no hidden information: every other event is public.
  Modules with hidden units or hands of cards name their redactions in their ``Module``
  (``redactions``): event type -> (event, viewer) -> event or None. An event type's redactions
  are those of every module of the catalog (``skirmish.engine.rules.registry``), chained.
"""

from __future__ import annotations

from skirmish.engine.events import Event
from skirmish.engine.rules import registry

VIEWERS = ("a", "b", "spectator", "all")


def view(event: Event, viewer: str) -> Event | None:
    if viewer not in VIEWERS:
        raise ValueError(f"unknown viewer {viewer!r}; one of {', '.join(VIEWERS)}")
    if viewer == "all":
        return event
    redact = registry.CATALOG.all().redactions.get(type(event))
    return redact(event, viewer) if redact else event
