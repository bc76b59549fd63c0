"""``skirmish.server.tournament.captures`` counts the capture module's events of a game by side."""

from __future__ import annotations

from skirmish.engine.rules.capture import events as cev
from skirmish.server.missions import load
from skirmish.engine.mission import game_created
from skirmish.server.tournament.captures import game_counts


def test_captures_exits_escapes_and_rescues_are_counted_for_the_side_that_made_them():
    first = game_created("g", load("snatch"), "local", "")
    events = [first,
              cev.UnitCaptured(unit="b4", by="a2"), cev.UnitCaptured(unit="b5", by="a3"),
              cev.CaptiveEscaped(unit="b5"), cev.CaptiveRemoved(unit="a2", captive="b4", xp=1),
              cev.UnitCaptured(unit="a1", by="b2"), cev.CaptiveFreed(unit="a1", by="a4")]
    c = game_counts(events)
    assert c["captures"] == {"a": 2, "b": 1}
    assert c["exits"] == {"a": 1, "b": 0}
    assert c["escapes"] == {"a": 0, "b": 1}  # by the side of the captive
    assert c["freed"] == {"a": 1, "b": 0}
