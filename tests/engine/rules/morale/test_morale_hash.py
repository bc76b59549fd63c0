"""The fields the module registry and the modules add leave the state hash of a game without
them unchanged, so the checkpoints of logs recorded before they existed still verify
(skirmish.engine.codec.state_hash: every field added after the first release is hashed only away from its
default)."""

from __future__ import annotations

from skirmish.engine.codec import clone_state, state_hash

from tests.engine.rules.scenario import Scenario

# The hash of this position as the engine computed it before any module field existed (commit
# e760863 on main, the one before the module registry).
BEFORE_THE_MODULE = "78a27c7e23ff299a56fa5461dcc2051bd4a6b1767417664a72dda6c425aad077"


def position():
    s = Scenario([("a1", "a", "hero", 1, 1, True), ("b1", "b", "elite", 2, 1, True)]).play_to_turn("a1")
    s.task("attack", "b1", 0, 0, dice=(1, 1, 2, 3, 3, 3, 3))
    return s.state


def test_a_game_without_the_module_hashes_as_before_the_fields_existed():
    assert state_hash(position()) == BEFORE_THE_MODULE


def test_a_late_field_away_from_its_default_changes_the_hash():
    state = position()
    for change in (lambda s: s.tokens.update(a=1), lambda s: s.fear_due.append("a1"),
                   lambda s: setattr(s.units["a1"], "fear", True),
                   lambda s: setattr(s.units["b1"], "endurance_max", 3),
                   lambda s: setattr(s, "modules", ("capture",)), lambda s: setattr(s.units["a1"], "captured", True),
                   lambda s: s.hands.update(a=["jam"]), lambda s: setattr(s.units["a1"], "fate", 2)):
        changed = clone_state(state)
        change(changed)
        assert state_hash(changed) != BEFORE_THE_MODULE
