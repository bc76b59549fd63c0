"""The skills module's rules since engine 0.3.0 (skirmish.engine.rules.skills.since; docs/decisions.md
"Engine 0.3.0"): given the same skills position under the rules of 0.2.0 (the game's GameCreated
names engine 0.2.0) and of 0.3.0, when the scripted dice play it, then 0.2.0 plays it as the module's
first release did (no Guts Roll, no reaction window, no V: Dogged, no veto, no gait) and 0.3.0 with
the new rules. The corpus (tests/corpus/0.2.0/dropzone*, uplink*) holds whole games to the same."""

from __future__ import annotations

import pytest

from skirmish.engine.dice import ScriptedDice
from skirmish.engine.events import InjurySuffered, PoolChanged
from skirmish.engine.rules import registry
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.skills import since
from skirmish.engine.rules.skills.events import GutsTaken, SkillRolled, WoundIgnored
from skirmish.engine.rules.skills.module import MODULE
from skirmish.engine.versions import CURRENT, V0_2, V0_3, V0_4, level

from tests.engine.rules.scenario import of_type
from tests.engine.rules.skills import test_skills_command as command_tests
from tests.engine.rules.skills import test_skills_dogged as dogged_tests
from tests.engine.rules.skills import test_skills_reactions as reactions_tests
from tests.engine.rules.skills.skills_scenario import SkillsScenario

VERSIONS = [pytest.param(V0_2, id="0.2.0"), pytest.param(V0_3, id="0.3.0")]


def at(sc: SkillsScenario, version: int) -> SkillsScenario:
    """The scenario's game as one recorded by the engine of ``version``."""
    sc.state.rules_version = version
    return sc


def test_0_3_0_follows_0_2_0_and_a_new_game_gets_the_current_rules():
    assert level("0.3.0") == V0_3 == V0_2 + 1 and level("0.4.0") == V0_4 == V0_3 + 1
    sc = command_tests.game([("a1", "a", "plain", 0, 0), ("b1", "b", "plain", 0, 3)])
    assert sc.state.rules_version == CURRENT == V0_4


@pytest.mark.parametrize("version", VERSIONS)
def test_a_hit_unit_left_standing_rolls_guts_only_under_0_3_0(version):
    sc = command_tests.game([("a1", "a", "plain", 0, 0), ("b1", "b", "plain", 0, 3), ("b2", "b", "plain", 7, 7)])
    at(sc.play_to_turn("a1"), version)
    guts_die = (12,) if version >= V0_3 else ()
    ev = sc.task("attack", "b1", 0, 1, dice=command_tests.HIT + command_tests.NONE + guts_die)
    rolled = [e for e in of_type(ev, SkillRolled) if e.purpose == "guts"]
    if version >= V0_3:
        assert of_type(ev, GutsTaken) == [GutsTaken(unit="b1", how="roll")] and len(rolled) == 1
    else:
        assert not of_type(ev, GutsTaken) and not rolled and sc.pending.kind == "act"


@pytest.mark.parametrize("version", VERSIONS)
def test_an_attack_at_a_dodger_opens_a_reaction_window_only_under_0_3_0(version):
    sc = at(reactions_tests.game(), version)
    sc.when("attack", "b1", 0, 0)
    assert (sc.pending.kind == "react") == (version >= V0_3)


@pytest.mark.parametrize("version", VERSIONS)
def test_v_dogged_keeps_a_lethally_injured_unit_in_play_only_under_0_3_0(version):
    units = [("a1", "a", "gunner", 0, 0), ("a2", "a", "gunner", 1, 0), ("b1", "b", "dog", 0, 2)]
    sc = SkillsScenario(units, map=dogged_tests.OPEN, extra=dogged_tests.EXTRA)
    at(sc.play_to_turn("a1"), version)
    guts_die = (1,) if version >= V0_3 else ()
    ev = sc.task("attack", "b1", 0, 1, dice=dogged_tests.HIT + dogged_tests.FIVE + guts_die)
    if version >= V0_3:
        assert of_type(ev, WoundIgnored) and not sc.unit("b1").incapacitated
    else:
        assert [e.result for e in of_type(ev, InjurySuffered)] == ["lethal"] and sc.unit("b1").incapacitated
        assert not of_type(ev, WoundIgnored) and sc.state.dogged == ()


def test_every_hook_added_since_0_2_0_gives_its_neutral_answer_to_a_0_2_0_game():
    sc = at(command_tests.game([("a1", "a", "leader", 0, 0), ("b1", "b", "zealot", 0, 3), ("b2", "b", "lt", 7, 7)]), V0_2)
    s, a1, b1 = sc.state, sc.unit("a1"), sc.unit("b1")
    assert MODULE.can_retreat(s, "a") is True and MODULE.breaks_away(s, b1) is True
    assert MODULE.gait(s, a1) is None and MODULE.movement_bonus(s, a1) == 0 and MODULE.attack_difficulty(s, a1, b1) == 0
    assert registry.allows(s, "can_retreat", "a") and registry.allows(s, "breaks_away", b1)
    sc.state.rules_version = V0_3  # the same position under 0.3.0: Inspiring Leadership and Religious Troop
    assert MODULE.can_retreat(s, "a") is False and MODULE.breaks_away(s, b1) is False


def test_the_wrappers_pass_the_value_on_and_keep_the_rules_name():
    sc = at(command_tests.game([("a1", "a", "plain", 0, 0), ("b1", "b", "plain", 0, 3)]), V0_2)
    options = [("end",)]
    gated = since.passing(lambda state, unit, value: value + [("new",)])
    assert gated(sc.state, sc.unit("a1"), options) is options
    sc.state.rules_version = V0_3
    assert gated(sc.state, sc.unit("a1"), options) == [("end",), ("new",)]
    assert since.on_state(registry.reachable).__name__ == "reachable"


def test_either_runs_the_new_rule_under_0_3_0_and_the_old_one_before():
    sc = at(command_tests.game([("a1", "a", "plain", 0, 0), ("b1", "b", "plain", 0, 3)]), V0_2)
    ctx = Context(sc.state, ScriptedDice([]), registry.rules_of(sc.state))
    gated = since.either(lambda ctx, x: ("new", x), lambda ctx, x: ("old", x))
    assert gated(ctx, 1) == ("old", 1)
    sc.state.rules_version = V0_3
    assert gated(ctx, 2) == ("new", 2)


@pytest.mark.parametrize("version", [pytest.param(V0_3, id="0.3.0"), pytest.param(V0_4, id="0.4.0")])
def test_keep_the_initiative_with_only_an_irregular_unit_ready_is_offered_only_under_0_3_0(version):
    """0.3.0 offered it, took the two Momentum and passed the action all the same (the unit could
    not take it); 0.4.0 does not offer it: the action passes and the Momentum stays."""
    sc = command_tests.game([("a1", "a", "plain", 0, 0), ("a2", "a", "irr", 1, 0),
                             ("b1", "b", "plain", 0, 7), ("b2", "b", "plain", 1, 7)])
    at(sc.play_to_turn("a1"), version)
    sc.given(PoolChanged(side="a", pool="momentum", delta=2, reason="test"))
    sc.when("end")
    if version >= V0_4:
        assert sc.pending.kind == "activate" and sc.pending.side == "b" and sc.state.momentum["a"] == 2
    else:
        assert sc.pending.kind == "keep_initiative"
        sc.when("keep")
        assert sc.pending.kind == "activate" and sc.pending.side == "b" and sc.state.momentum["a"] == 0
