"""A game is played, and re-run, with the rules of the engine version that recorded it
(skirmish.engine.versions, issue 13 item 4): each of issue 12's rules changes keeps engine 0.1.0's rule for
0.1.0 games, while the rules tests hold 0.2.0 games (and every new game) to the new one. The
corpus (tests/corpus/) holds whole recorded games of each version to the same."""

from __future__ import annotations

import msgspec
import pytest

from skirmish.engine import events as ev
from skirmish.engine.codec import state_hash
from skirmish.engine.evolve import initial_state
from skirmish.engine.mission import ENGINE_VERSION
from skirmish.engine.rules import registry
from skirmish.engine.rules.capture import conditions as cond
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.core import attack
from skirmish.engine.rules.salt import draw_salt
from skirmish.engine.versions import CURRENT, V0_1, V0_2, V0_4, VERSIONS, UnknownVersion, level

import tests.engine.rules.scenario as scenario_module
from tests.engine.rules.capture.test_drag_exit import dragging_scene
from tests.engine.rules.morale.conftest import MoraleScenario
from tests.engine.rules.morale.test_morale_pilots import _unconscious_b1_attacked_in_melee
from tests.engine.rules.scenario import Scenario, of_type
from tests.engine.rules.test_attacks import melee


DUO = [("a1", "a", "hero", 1, 1), ("b1", "b", "elite", 5, 5)]


@pytest.fixture
def old_rules(monkeypatch):
    """Scenarios are games recorded by engine 0.1.0 (their GameCreated says so)."""
    made = scenario_module.game_created
    monkeypatch.setattr(scenario_module, "game_created",
                        lambda *a, **k: msgspec.structs.replace(made(*a, **k), engine_version="0.1.0"))


def test_the_version_comes_from_game_created_and_new_games_get_the_current_one():
    assert VERSIONS[-1] == ENGINE_VERSION and level(ENGINE_VERSION) == CURRENT == V0_4 and level("0.1.0") == V0_1
    s = Scenario(DUO)
    assert s.first.engine_version == ENGINE_VERSION and s.state.rules_version == CURRENT
    old = initial_state(msgspec.structs.replace(s.first, engine_version="0.1.0"))
    assert old.rules_version == V0_1
    with pytest.raises(UnknownVersion, match="'9.9.9'.*does not know"):
        level("9.9.9")


def test_the_version_is_not_part_of_the_state_hash():
    s = Scenario(DUO)
    old = initial_state(msgspec.structs.replace(s.first, engine_version="0.1.0"))
    assert state_hash(old) == state_hash(s.state)


def test_0_1_0_a_target_that_wins_a_melee_strikes_with_the_attackers_declaration(old_rules):
    s = melee()
    s.task("attack", "b1", 1, 1, dice=(19, 18, 1, 4))  # a1 attacks lethally, b1 wins
    assert [o for o in s.pending.options if o[0] == "damage"] == [("damage",)]  # 0.2.0: b decides
    events = s.when("damage", dice=(1, 1, 3, 4))
    assert not [e for e in of_type(events, ev.PoolChanged) if e.reason == "lethal attack"]  # b pays nothing
    assert of_type(events, ev.ProcedureUpdated)[-1].frame.lethal  # a1's Lethal declaration stands


def test_0_1_0_an_unconscious_pilots_unit_that_wins_a_melee_strikes_back(old_rules):
    s = _unconscious_b1_attacked_in_melee()
    s.task("attack", "b1", 1, 0, dice=(19, 18, 1, 4))
    assert s.pending.kind == "melee_won" and s.pending.side == "b"  # 0.2.0: the attack simply fails


def test_0_1_0_a_captive_is_an_enemy_in_reach(old_rules):
    s = dragging_scene().play_to_turn("a1")
    assert attack.enemy_in_reach(s.state, s.unit("a1"))  # 0.2.0: not
    events = s.task("attack", "b2", 0, 0, dice=(10, 10, 3, 3, 3, 3, 3))  # two successes against 3
    assert [r.purpose for r in of_type(events, ev.DiceRolled)] == ["task:attack"]


def test_0_1_0_wounded_n_rounds_up_and_wounded_plus_one_is_a_quarter_of_the_track():
    s = Scenario(DUO)
    u = msgspec.structs.replace(s.unit("a1"), stress_max=11, stress=9)  # 2 of 11 lost
    assert cond.wounded(u, V0_1) == 1 and cond.wounded(u, V0_2) == 0
    assert cond.wound_step(u, V0_1) == 3 and cond.wound_step(u, V0_2) == 1
    spent = msgspec.structs.replace(u, stress=0)
    assert cond.wound_step(spent, V0_1) == 3 and cond.wound_step(spent, V0_2) == 0


class _Ones:
    def roll(self, nonce, sides, count):
        return (1,) * count


@pytest.mark.parametrize("version, dice", [("0.1.0", 4), (ENGINE_VERSION, 8)])
def test_a_salt_is_4_d65536_in_0_1_0_and_8_since(version, dice):
    s = Scenario(DUO)
    state = initial_state(msgspec.structs.replace(s.first, engine_version=version))
    assert len(draw_salt(Context(state, _Ones()), "challenges:salt")) == dice


def test_0_1_0_has_no_vetoes_and_offers_no_reroll_of_another_modules_roll(old_rules):
    s = MoraleScenario([("a1", "a", "chief", 1, 1, True), ("b1", "b", "mech", 6, 6, True)]).tokens(2, 2)
    s.state.units["a1"].fear = True
    s.state.units["a1"].unconscious = True
    assert s.state.rules_version == V0_1
    assert registry.allows(s.state, "can_move", s.unit("a1")) and registry.allows(s.state, "can_act", s.unit("a1"))
    assert not registry.offers(s.state, "can_reroll", "a")
    s.state.rules_version = V0_2  # the same position under the rules of 0.2.0
    assert not registry.allows(s.state, "can_move", s.unit("a1")) and not registry.allows(s.state, "can_act", s.unit("a1"))
    assert registry.offers(s.state, "can_reroll", "a")
