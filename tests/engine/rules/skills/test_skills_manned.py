"""Manned and Pilot (seed 003, "MANNED", "PILOT"; docs/rules.md, seed 003, "Manned and Pilot").
Given a Manned TAG with its Pilot aboard, when it dismounts (or is hacked, Injured, destroyed),
then the Pilot is on the table as its own unit and the TAG and the Pilot count as the seed says."""

from __future__ import annotations

import re

import pytest

from skirmish.client.narrate import describe
from skirmish.client.render import label as option_label
from skirmish.engine.clone import planner
from skirmish.engine.events import GameEnded, InjurySuffered, MinorActionTaken, TurnEnded, UnitDied
from skirmish.engine.evolve import initial_state
from skirmish.engine.mission import MissionError, game_created, parse_mission
from skirmish.engine.model import State
from skirmish.engine.rules import registry
from skirmish.engine.rules.core import attack, flow
from skirmish.engine.rules.morale import courage
from skirmish.engine.rules.skills.events import PilotDismounted, StateChanged

from tests.engine.rules.scenario import of_type
from tests.engine.rules.skills.skills_scenario import SkillsScenario, skills_text

EXTRA = """
[profiles.tag]
kind = "hero"
control = 10
fitness = 10
security = 3
resistance = 3
weapons = ["phaser"]
points = 3
troop_type = "TAG"
silhouette = 7
skills = ["manned"]
pilot = "driver"

[profiles.driver]
kind = "hero"
control = 9
fitness = 9
security = 2
weapons = ["phaser", "knife"]
points = 1
skills = ["pilot"]

[profiles.hacker]
kind = "hero"
control = 10
presence = 9
command = 2
security = 2
weapons = ["phaser"]
skills = ["hacker"]
"""

# the TAG a1 at (4,1) with its Pilot p1 aboard (its ``at``, (7,0), unused); a2 a trooper; b1 an enemy
UNITS = [("a1", "a", "tag", 4, 1), ("p1", "a", "driver", 7, 0), ("a2", "a", "hero", 0, 0),
         ("b1", "b", "hero", 4, 6)]


def text(units=UNITS, modules=("skills",), extra: str = EXTRA, pilots=(("p1", "a1"),)) -> str:
    t = skills_text(units, extra=extra, modules=modules)
    for pid, vid in pilots:
        t, n = re.subn(rf'(\nid = "{pid}"\n)', rf'\1aboard = "{vid}"\n', t)
        assert n == 1
    return t


def game(units=UNITS, modules=("skills",), pilots=(("p1", "a1"),)) -> SkillsScenario:
    sc = SkillsScenario.__new__(SkillsScenario)
    sc.mission = parse_mission(text(units, modules, pilots=pilots), "test")
    sc.first = game_created("t", sc.mission, "local", "")
    sc.state = initial_state(sc.first)
    sc.log = [sc.first]
    return sc


def to_turn(sc, uid: str) -> SkillsScenario:
    """From the start, through the morale module's windows (keeping every roll): ``uid``'s turn."""
    sc.start()
    while not (sc.pending.kind == "activate" and sc.pending.side == sc.unit(uid).side):
        p = sc.pending
        sc.when(*(("first", sc.unit(uid).side) if p.kind == "first" else
                  ("keep",) if ("keep",) in p.options else p.options[0]))
    sc.when("unit", uid)
    return sc


def dismounts(sc) -> list:
    return [o for o in sc.pending.options if o[0] == "dismount"]


def dismounted(sc, at=(4, 2)) -> SkillsScenario:
    """a1 dismounts p1 at ``at`` in round 1; p1's turn is pending."""
    to_turn(sc, "a1")
    sc.when("dismount", *at)
    return sc


# -- aboard ---------------------------------------------------------------------------------------------------


def test_the_pilot_starts_aboard_off_the_table_not_activated_and_not_a_target():
    sc = game()
    assert "p1" not in sc.state.units and sc.state.aboard["a1"].id == "p1"
    sc.start()
    sc.when("first", "a")
    assert ("unit", "p1") not in sc.pending.options and ("unit", "a1") in sc.pending.options
    assert all(o[1] != "p1" for o in attack.attack_options(sc.state, sc.unit("b1")))


def test_a_manned_unit_may_dismount_its_pilot_next_to_it_before_any_other_action():
    sc = game()
    sc.play_to_turn("a1")
    # "declares a Move Short Skill and specifies he will use it to Dismount": the cells around (4,1)
    # but the blocking (3,0)
    assert sorted(dismounts(sc)) == sorted(("dismount", 4 + dx, 1 + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                                           if (dx or dy) and (4 + dx, 1 + dy) != (3, 0))
    sc.when("prone")
    assert dismounts(sc) == []


def test_dismounting_is_the_vehicles_move_and_the_order_goes_on_as_the_pilots():
    sc = game()
    sc.play_to_turn("a1")
    ev = sc.when("dismount", 4, 2)
    assert of_type(ev, MinorActionTaken) == [MinorActionTaken(unit="a1", action="move", cost=0)]
    assert of_type(ev, PilotDismounted) == [PilotDismounted(unit="a1", pilot="p1", x=4, y=2)]
    p1 = sc.unit("p1")
    assert (p1.x, p1.y, p1.acted, p1.vehicle) == (4, 2, True, "a1") and "a1" not in sc.state.aboard
    # "use the Pilot's Troop Profile": the Order goes on as p1's, which has moved and has its Task
    assert sc.pending.kind == "act" and sc.pending.unit == "p1" and sc.state.turn.unit == "p1"
    kinds = {o[0] for o in sc.pending.options}
    assert "move" not in kinds and "sprint" not in kinds and "attack" in kinds and "dismount" not in kinds
    ev = sc.when("end")
    assert of_type(ev, TurnEnded) == [TurnEnded(unit="p1")]


def test_an_unconscious_manned_unit_receives_orders_only_to_dismount():
    sc = game()
    sc.given(InjurySuffered(unit="a1", lethal=False, result="nonlethal"))
    sc.play_to_turn("a1")
    assert {o[0] for o in sc.pending.options} == {"end", "dismount"} and len(dismounts(sc)) == 7
    sc.when("dismount", 3, 2)
    assert sc.state.turn.unit == "p1" and "attack" in {o[0] for o in sc.pending.options}


def test_an_unconscious_manned_unit_without_its_pilot_is_not_activated():
    sc = game()
    sc.given(InjurySuffered(unit="a1", lethal=False, result="nonlethal"))
    assert sc.state.aboard
    sc.state.aboard.clear()  # a TAG whose Pilot is gone: nothing to dismount
    sc.start()
    sc.when("first", "a")
    assert ("unit", "a1") not in sc.pending.options


# -- dismounted ------------------------------------------------------------------------------------------------


def test_a_vehicle_whose_pilot_dismounted_declares_no_orders_or_aros_and_is_still_a_target():
    sc = dismounted(game())
    s = sc.state
    assert not registry.allows(s, "can_act", sc.unit("a1")) and registry.allows(s, "can_act", sc.unit("p1"))
    assert "a1" not in [u.id for u in flow.ready_units(s, "a")]
    targets = {o[1] for o in attack.attack_options(s, sc.unit("b1"))}
    assert {"a1", "p1"} <= targets
    assert sc.unit("a1").readied is False


def test_when_the_empty_vehicle_enters_the_dead_state_both_are_removed():
    sc = dismounted(game())
    sc.given(UnitDied(unit="a1", reason="test"))
    ev = sc.when("end")
    assert [e.unit for e in of_type(ev, UnitDied)] == ["p1"] and sc.unit("p1").dead


def test_a_vehicle_dead_with_its_pilot_aboard_takes_the_pilot_out_of_play_with_it():
    sc = game()
    sc.given(UnitDied(unit="a1", reason="test"))
    sc.play_to_turn("a2")
    assert "p1" not in sc.state.units and flow.points(sc.state)["b"] == 3


# -- survivors and casualties -------------------------------------------------------------------------------------


def test_the_pilot_of_an_unconscious_vehicle_is_neither_survivor_nor_casualty():
    sc = game(units=[("a1", "a", "tag", 4, 1), ("p1", "a", "driver", 7, 0), ("b1", "b", "hero", 4, 6)])
    sc.given(InjurySuffered(unit="a1", lethal=False, result="nonlethal"))
    assert flow.points(sc.state)["b"] == 3  # the TAG's points, none for p1
    ev = sc.start()  # no survivor on side a: p1 aboard is not one
    end = of_type(ev, GameEnded)[0].outcome
    assert end.winner == "b" and "side a has no unit able to fight" in end.reason


def test_a_dismounted_pilot_counts_as_a_survivor_and_as_a_casualty():
    sc = dismounted(game(units=[("a1", "a", "tag", 4, 1), ("p1", "a", "driver", 7, 0), ("b1", "b", "hero", 4, 6)]))
    sc.given(InjurySuffered(unit="a1", lethal=False, result="nonlethal"))
    assert sc.state.outcome is None and flow.points(sc.state)["b"] == 3
    sc.given(InjurySuffered(unit="p1", lethal=True, result="lethal"))
    assert flow.points(sc.state)["b"] == 4


# -- Total Control ---------------------------------------------------------------------------------------------


def test_a_passed_total_control_possesses_the_manned_unit_and_ejects_its_pilot():
    units = [("a1", "a", "hacker", 4, 1), ("b1", "b", "tag", 4, 6), ("p9", "b", "driver", 0, 7)]
    sc = game(units=units, pilots=(("p9", "b1"),))
    sc.state.units["b1"].readied = True
    sc.play_to_turn("a1")
    assert ("hack", "total control", "b1") in sc.pending.options
    ev = sc.when("hack", "total control", "b1", dice=(3,))
    assert not sc.unit("b1").readied  # "cannot use its TAG or Vehicle Troop Profile to declare ... AROs"
    assert of_type(ev, StateChanged)[0] == StateChanged(unit="b1", state="possessed", on=True)
    assert of_type(ev, PilotDismounted) == [PilotDismounted(unit="b1", pilot="p9", x=3, y=5, ejected=True)]
    assert sc.state.turn.unit == "a1" and not sc.unit("p9").acted  # b1 has not acted this round
    sc.when("end")
    assert ("unit", "p9") in sc.pending.options and ("unit", "b1") not in sc.pending.options


def test_a_failed_total_control_ejects_nobody():
    units = [("a1", "a", "hacker", 4, 1), ("b1", "b", "tag", 4, 6), ("p9", "b", "driver", 0, 7)]
    sc = game(units=units, pilots=(("p9", "b1"),))
    sc.play_to_turn("a1")
    ev = sc.when("hack", "total control", "b1", dice=(19,))
    assert not of_type(ev, PilotDismounted) and "b1" in sc.state.aboard


# -- with the morale module (seed 004's pilots) -----------------------------------------------------------------


def test_with_morale_the_vehicles_pilot_is_the_pilot_its_endurance_and_fear_go_with_it():
    sc = game(modules=("skills", "morale"))
    sc.state.units["a1"].endurance = 2
    sc.state.units["a1"].fear = False
    dismounted(sc)
    a1, p1 = sc.unit("a1"), sc.unit("p1")
    assert (p1.endurance, p1.endurance_max, p1.unconscious) == (2, 3, False)
    assert (a1.endurance, a1.endurance_max) == (0, 0)  # the empty vehicle has no pilot to test


def test_with_morale_a_fear_token_keeps_the_pilot_from_dismounting():
    sc = game(modules=("skills", "morale"))
    sc.state.units["a1"].fear = True
    to_turn(sc, "a1")
    assert dismounts(sc) == []


def test_with_morale_an_unconscious_seed_004_pilot_cannot_dismount_an_unconscious_tag():
    sc = game(modules=("skills", "morale"))
    sc.given(InjurySuffered(unit="a1", lethal=False, result="nonlethal"))
    sc.state.units["a1"].unconscious = True
    sc.state.units["a1"].endurance = 0
    sc.start(10, 1, 1)  # initiative, then the wake-up roll of a1's pilot: a 1, still out
    while sc.pending.kind != "activate":
        sc.when(*sc.pending.options[0], dice=(1, 1))
    assert ("unit", "a1") not in sc.pending.options


def test_with_morale_the_courage_test_counts_the_dismounted_pilot_not_the_empty_vehicle():
    sc = dismounted(game(modules=("skills", "morale")))
    assert not courage.automatic_failure(sc.state, "a")
    sc.given(InjurySuffered(unit="p1", lethal=True, result="lethal"), InjurySuffered(unit="a2", lethal=True, result="lethal"))
    assert courage.automatic_failure(sc.state, "a")  # the sound but empty a1 is no pilot


# -- the mission --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("change, field", [
    (("skills = [\"manned\"]\npilot = \"driver\"", "skills = [\"manned\"]\npilot = \"hero\""), "profiles.tag.pilot"),
    (("skills = [\"manned\"]\npilot = \"driver\"", "pilot = \"driver\""), "profiles.tag.pilot"),
    (('aboard = "a1"', 'aboard = "a2"'), "units[1].aboard"),
    (('aboard = "a1"\n', ''), "units[1].aboard"),
    (('aboard = "a1"\n', 'aboard = "a1"\ndeploy = true\n'), "units[1].deploy"),
])
def test_a_bad_manned_or_pilot_entry_is_a_mission_error_naming_the_field(change, field):
    bad = text().replace(*change)
    with pytest.raises(MissionError) as err:
        parse_mission(bad, "m.toml")
    assert err.value.field == field


def test_a_manned_unit_with_a_pilot_profile_needs_its_pilot_aboard():
    bad = text(units=[("a1", "a", "tag", 4, 1), ("b1", "b", "hero", 4, 6)], pilots=())
    with pytest.raises(MissionError) as err:
        parse_mission(bad, "m.toml")
    assert err.value.field == "units[0]"


def test_the_pilot_fields_without_the_module_are_refused():
    bad = text().replace('modules = ["skills"]', "modules = []")
    with pytest.raises(MissionError):
        parse_mission(bad, "m.toml")


# -- narration and labels -------------------------------------------------------------------------------------


def test_the_dismount_is_labelled_and_narrated():
    sc = game()
    sc.play_to_turn("a1")
    before = sc.state
    label = option_label(("dismount", 4, 2), before, sc.pending)
    assert "dismount the Pilot" in label and "(4,2)" in label
    copy = planner(State)(before)
    ev = sc.when("dismount", 4, 2)
    line = describe(of_type(ev, PilotDismounted)[0], copy)
    assert "p1" in line and "Pilot of" in line and "(4,2)" in line


def test_with_morale_the_pilot_of_an_unconscious_tag_is_not_counted_for_the_courage_test():
    # "not considered either as a survivor or a casualty for Victory Points, Retreat! or any other
    # purposes": Retreat! is seed 004's Courage Test with the morale module; its VP leave p1 out
    sc = game(modules=("skills", "morale"))
    sc.given(InjurySuffered(unit="a1", lethal=False, result="nonlethal"))
    assert courage.vp(sc.state, "a") == (3 + 1, 3)  # a1 and a2; p1 (1 point) aboard is neither
    assert courage.lost_units(sc.state, "a") == 1
