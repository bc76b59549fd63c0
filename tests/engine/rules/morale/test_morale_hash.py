"""The fields the morale module adds leave the state hash of a game without them unchanged, so
the checkpoints of logs recorded before the module still verify (engine.codec.state_hash)."""

from __future__ import annotations

from engine.codec import clone_state, state_hash

from tests.engine.rules.scenario import Scenario

# The hash of this position as the engine computed it before the module's fields existed
# (commit 50f97b0, the registry's, on main).
BEFORE_THE_MODULE = "37e943d3ab376a8df860a339fb995dd874187c7f98dd87b24c1c90de6d4d6d87"


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
                   lambda s: setattr(s.units["b1"], "endurance_max", 3)):
        changed = clone_state(state)
        change(changed)
        assert state_hash(changed) != BEFORE_THE_MODULE
