"""V: Dogged and V: No Wound Incapacitation (docs/rules.md, seed 003, "The Deployment Skills"): given
a unit with the skill, when a lethal hit would leave it Unconscious (scripted dice), then it stays in
play; the Dogged die in the End Phase; a further Injury kills; Regeneration and a MediKit heal it."""

from __future__ import annotations

from skirmish.client.narrate import describe
from skirmish.engine.dice import ScriptedDice
from skirmish.engine.events import InjurySuffered, RoundEnded
from skirmish.engine.rules.challenges import procedure
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.skills.events import DoggedEnded, WoundIgnored, WoundRegained

from tests.engine.rules.scenario import of_type
from tests.engine.rules.skills.skills_scenario import SkillsScenario

EXTRA = """
[profiles.gunner]
kind = "hero"
control = 10
fitness = 9
security = 2
weapons = ["phaser"]

[profiles.plain]
kind = "bogey"
tier = "grunt"
control = 9
fitness = 8
security = 1
weapons = ["phaser"]

[profiles.dog]
kind = "bogey"
tier = "grunt"
control = 9
fitness = 8
security = 1
weapons = ["phaser"]
skills = ["v: dogged"]

[profiles.doghero]
kind = "hero"
control = 9
fitness = 8
security = 1
weapons = ["phaser"]
skills = ["v: dogged"]

[profiles.nwi]
kind = "bogey"
tier = "grunt"
control = 9
fitness = 8
security = 1
weapons = ["phaser"]
skills = ["v: no wound incapacitation"]

[profiles.regendog]
kind = "bogey"
tier = "grunt"
control = 9
fitness = 9
security = 2
weapons = ["phaser"]
skills = ["v: dogged", "regeneration"]

[profiles.dogmedic]
kind = "bogey"
tier = "grunt"
daring = 10
control = 9
fitness = 8
security = 1
medicine = 3
weapons = ["phaser"]
skills = ["paramedic"]
"""
OPEN = "\n".join(["........"] * 8)
HIT = (1, 1)  # the attack's 2d20: four successes
FIVE = (1, 1, 1, 1, 1)  # phaser damage 3 + Security 2: 5 damage, an Injury (step 7A)


def shot(target: str = "dog", lethal: int = 1, medic: bool = False) -> tuple[SkillsScenario, list]:
    """a1 shoots b1 (``target``) in round 1, side a first; a2 waits; b2, a Paramedic, beside b1 if ``medic``."""
    units = [("a1", "a", "gunner", 0, 0), ("a2", "a", "gunner", 1, 0), ("b1", "b", target, 0, 2)]
    if medic:
        units.append(("b2", "b", "dogmedic", 1, 2))
    sc = SkillsScenario(units, map=OPEN, extra=EXTRA)
    sc.play_to_turn("a1")
    standing = lethal and target != "plain"  # hit and still standing: its Guts Roll (WIP), passed: it holds
    return sc, sc.task("attack", "b1", 0, lethal, dice=HIT + FIVE + ((1,) if standing else ()))


def over(sc: SkillsScenario) -> None:
    """The acting unit ends its turn and its side passes the initiative on."""
    sc.when("end")
    if sc.pending.kind == "keep_initiative":
        sc.when("pass")


def end_round(sc: SkillsScenario) -> list:
    """Every unit left ends its turn, to the End Phase."""
    events = []
    while not of_type(events, RoundEnded):
        kind = sc.pending.kind
        option = ("end",) if kind == "act" else ("pass",) if kind == "keep_initiative" else sc.pending.options[0]
        events += sc.when(*option, dice=(10, 1))
    return events


def test_without_the_skill_the_lethal_injury_leaves_the_unit_unconscious():
    sc, ev = shot("plain")
    assert [e.result for e in of_type(ev, InjurySuffered)] == ["lethal"] and sc.unit("b1").incapacitated


def test_v_dogged_a_lethal_injury_leaves_the_unit_in_play_in_the_dogged_state():
    sc, ev = shot()
    assert of_type(ev, WoundIgnored) == [WoundIgnored(unit="b1", skill="v: dogged")]
    assert not of_type(ev, InjurySuffered) and not sc.unit("b1").incapacitated and sc.state.dogged == ("b1",)
    over(sc)
    assert ("unit", "b1") in sc.pending.options  # it still acts


def test_the_dogged_unit_is_dead_in_the_end_phase():
    sc, _ = shot()
    ev = end_round(sc)
    assert of_type(ev, DoggedEnded) == [DoggedEnded(unit="b1")]
    assert sc.unit("b1").dead and sc.state.dogged == ()
    assert sc.state.outcome is not None and sc.state.outcome.winner == "a"  # side b has none left


def test_a_further_injury_kills_a_unit_that_lost_its_wound_a_non_lethal_one_too():
    for profile in ("dog", "nwi"):
        sc, _ = shot(profile)
        over(sc)
        sc.when("unit", "b1")
        over(sc)
        sc.when("unit", "a2")
        ev = sc.task("attack", "b1", 0, 0, dice=HIT + FIVE)  # a Non-lethal attack
        assert [e.result for e in of_type(ev, InjurySuffered)] == ["dead"] and sc.unit("b1").dead


def test_no_wound_incapacitation_goes_on_and_does_not_die_in_the_end_phase():
    sc, ev = shot("nwi")
    assert of_type(ev, WoundIgnored)[0].skill == "v: no wound incapacitation" and sc.state.unfazed == ("b1",)
    ev = end_round(sc)
    assert not of_type(ev, DoggedEnded) and not sc.unit("b1").dead and not sc.unit("b1").incapacitated


def test_a_non_lethal_injury_stuns_as_usual():
    sc, ev = shot(lethal=0)
    assert [e.result for e in of_type(ev, InjurySuffered)] == ["nonlethal"] and not of_type(ev, WoundIgnored)
    assert sc.state.dogged == ()


def test_regeneration_heals_the_lost_wound_and_the_dogged_unit_lives():
    sc, _ = shot("regendog")
    over(sc)
    sc.when("unit", "b1")
    assert ("regenerate",) in sc.pending.options  # not incapacitated, and it has lost a Wound
    ev = sc.when("regenerate", dice=(2,))  # PH 11: passed (a2 still to act)
    assert of_type(ev, WoundRegained) and sc.state.dogged == ()
    assert not of_type(end_round(sc), DoggedEnded) and not sc.unit("b1").dead


def test_failing_the_regeneration_roll_loses_one_more_wound_dead():
    sc, _ = shot("regendog")
    over(sc)
    sc.when("unit", "b1")
    ev = sc.when("regenerate", dice=(19,))
    assert [e.result for e in of_type(ev, InjurySuffered)] == ["dead"] and sc.unit("b1").dead


def test_a_paramedics_medikit_heals_a_dogged_ally():
    sc, _ = shot(medic=True)
    over(sc)
    sc.when("unit", "b2")
    assert ("medikit", "b1") in sc.pending.options
    ev = sc.task("medikit", "b1", dice=(1, 1))
    assert of_type(ev, WoundRegained) and sc.state.dogged == ()


def test_the_states_are_narrated():
    sc, ev = shot()
    before = SkillsScenario([("a1", "a", "gunner", 0, 0), ("b1", "b", "dog", 0, 2)], map=OPEN, extra=EXTRA).state
    assert "Dogged" in describe(of_type(ev, WoundIgnored)[0], before)
    assert describe(DoggedEnded(unit="b1"), sc.state) == "  b1 [b1], Dogged, falls dead (V: Dogged)"


def test_with_the_challenges_module_a_challenges_wound_meets_v_dogged_too():
    """seed 002's wounds are lethal Injuries (its ``wound``), through the same ``on_injury`` hook."""
    sc = SkillsScenario([("a1", "a", "gunner", 0, 0), ("b1", "b", "doghero", 0, 2)], map=OPEN, extra=EXTRA,
                        modules=("skills", "challenges"))  # a hero: two wound points
    ctx = Context(sc.state, ScriptedDice(()))
    procedure.wound(ctx, "b1", 1)
    assert of_type(ctx.events, WoundIgnored) and not sc.unit("b1").incapacitated
    procedure.wound(ctx, "b1", 1)
    assert [e.result for e in of_type(ctx.events, InjurySuffered)] == ["dead"] and sc.unit("b1").dead
