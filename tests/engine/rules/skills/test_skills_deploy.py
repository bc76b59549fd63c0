"""The deployment phase (docs/rules.md, seed 003, "The deployment phase"): before round 1 the sides
place the units that deploy one at a time, alternating, side a first, each placement a ``deploy``
decision whose options are the legal cells of the side's deployment zone."""

from __future__ import annotations

import pytest

from skirmish.bots import make_bot
from skirmish.bots.mcts import MctsBot
from skirmish.bots.simulate import clone
from skirmish.client import render
from skirmish.client.narrate import describe
from skirmish.engine.decide import default_option
from skirmish.engine.errors import IllegalOption
from skirmish.engine.events import DecisionRequested, DiceRolled, GameStarted, InitiativeWon, RoundStarted
from skirmish.engine.rules.core import attack, flow
from skirmish.engine.rules.skills import deploy, module
from skirmish.engine.rules.skills.events import DeploymentEnded, DeploymentStarted, SkillRolled, UnitDeployed

from tests.engine.rules.scenario import of_type
from tests.engine.rules.skills.skills_scenario import SkillsScenario

# a1, a2, a3 and b1 deploy (none with a Deployment Skill: test_skills_infiltrate.py has those); a4 and b2
# start where the map puts them. Side a's zone: rows 0-1 but
# the blocking (3,0); side b's: rows 6-7.
UNITS = [("a1", "a", "hero", 5, 1), ("a2", "a", "hero", 1, 1), ("a3", "a", "hero", 2, 1),
         ("a4", "a", "hero", 0, 0), ("b1", "b", "hero", 4, 6), ("b2", "b", "hero", 0, 7)]
DEPLOY = ("a1", "a2", "a3", "b1")
ZONE_A = {(x, y) for y in (0, 1) for x in range(8)} - {(3, 0)}


def started(units=UNITS, deploy_ids=DEPLOY) -> SkillsScenario:
    s = SkillsScenario(units, deploy=deploy_ids)
    s.start()
    return s


def cells(options) -> set[tuple[int, int]]:
    return {(o[1], o[2]) for o in options}


def test_the_game_starts_with_a_deployment_phase_before_round_1():
    s = SkillsScenario(UNITS, deploy=DEPLOY)
    events = s.start()
    assert [type(e) for e in events] == [GameStarted, DeploymentStarted, DecisionRequested]
    assert s.state.phase == "deployment" and s.state.round == 0
    assert (s.pending.side, s.pending.kind, s.pending.unit) == ("a", "deploy", "a1")
    assert not of_type(events, DiceRolled)  # no initiative yet


def test_the_sides_alternate_side_a_first_and_a_side_with_none_left_lets_the_other_finish():
    s = started()
    order = []
    while s.pending.kind == "deploy":
        order.append((s.pending.side, s.pending.unit))
        events = s.when(*s.pending.options[0], dice=(10, 1))
        assert of_type(events, UnitDeployed)[0].unit == order[-1][1]
    assert order == [("a", "a1"), ("b", "b1"), ("a", "a2"), ("a", "a3")]
    assert [type(e) for e in events if type(e) in (DeploymentEnded, RoundStarted, InitiativeWon)] == \
        [DeploymentEnded, RoundStarted, InitiativeWon]
    assert s.state.round == 1 and all(u.deployed for u in s.state.units.values())


def test_the_options_are_the_free_cells_of_the_zone_the_missions_cell_first():
    s = started()
    assert s.pending.options[0] == ("deploy", 5, 1)  # a1's cell in the mission
    assert cells(s.pending.options) == ZONE_A - {(0, 0)}  # not blocking, not a4's cell
    assert len(s.pending.options) == len(set(s.pending.options)) == 14
    s.when("deploy", 6, 0)
    assert cells(s.pending.options) == {(x, y) for y in (6, 7) for x in range(8)} - {(0, 7)}  # b1: b's zone
    s.when("deploy", 4, 6)
    assert s.pending.unit == "a2" and cells(s.pending.options) == ZONE_A - {(0, 0), (6, 0)}
    assert s.pending.options[0] == ("deploy", 1, 1)


@pytest.mark.parametrize("cell", [(3, 0), (0, 0), (4, 6), (4, 3), (9, 0)])
def test_a_placement_outside_the_legal_cells_is_refused_and_changes_nothing(cell):
    """Blocking, taken by a unit on the table, the enemy's zone, outside any zone, off the board."""
    s = started()
    before = s.state.seq
    with pytest.raises(IllegalOption, match=r"is not an option of decision \d+ \(deploy\)"):
        s.when("deploy", *cell)
    assert s.state.seq == before and s.pending.kind == "deploy"


def test_a_unit_not_yet_deployed_is_not_activated_attacked_or_drawn():
    s = started()
    state = s.state
    a1, b2 = state.units["a1"], state.units["b2"]
    assert not a1.deployed
    assert [u.id for u in flow.ready_units(state, "a")] == ["a4"]
    # b2's phaser reaches both a1's cell and a4's, with line of fire: only a4 is a target
    assert {o[1] for o in attack.attack_options(state, b2) if o[0] == "attack"} == {"a4"}
    board = render.board(state, "a")
    assert "A1" not in board and "A4" in board and "B2" in board
    lines = {line.split()[0].lstrip("*"): line for line in render.units(state, "a").split("\n")}
    assert "not deployed" in lines["a1"] and "not deployed" not in lines["a4"]
    assert "  off  " in lines["a1"] and "( 5, 1)" not in lines["a1"] and "( 0, 0)" in lines["a4"]


def test_the_time_out_places_the_unit_on_its_missions_cell():
    s = started()
    assert default_option(s.pending) == ("deploy", 5, 1)


def test_without_units_to_deploy_there_is_no_deployment_phase():
    s = SkillsScenario(UNITS)
    events = s.start()
    assert not of_type(events, DeploymentStarted) and s.pending.kind == "first"


def test_the_skills_widen_the_cells_and_act_after_a_placement(monkeypatch):
    """The extension points the skills use (``module.DEPLOYMENT``, ``module.OUTCOMES``): a1 may also
    stand on (4, 3), and each placement is followed by a PH-3 Normal Roll whose outcome the module
    reads; the next placement waits for it."""
    seen = []

    def widen(state, unit, legal):
        return legal | {(4, 3)} if unit.id == "a1" else legal

    def roll_after(ctx, uid):
        deploy_roll = ctx.state.units[uid]
        module.rolls.normal_roll(ctx, uid, "ph", "probe", mods=(("PH-3", -3),), about=f"{deploy_roll.x},{deploy_roll.y}")

    monkeypatch.setattr(module, "DEPLOYMENT", deploy.Extensions(cells=(widen,), after=(roll_after,)))
    monkeypatch.setattr(module, "OUTCOMES", {"probe": lambda ctx, f, r: seen.append((f.rollers[0].unit, f.about, r.passed))})
    s = started()
    assert ("deploy", 4, 3) in s.pending.options
    events = s.when("deploy", 4, 3, dice=(9,))  # a1: PH 11 - 3 = 8: a 9 fails
    assert [type(e).__name__ for e in events][:6] == ["OptionChosen", "UnitDeployed", "DiceRolled", "SkillRolled",
                                                      "ProcedureStarted", "ProcedureEnded"]
    assert of_type(events, SkillRolled)[0].mods == (("PH-3", -3),)
    assert seen == [("a1", "4,3", False)]
    assert (s.pending.kind, s.pending.unit) == ("deploy", "b1")


@pytest.mark.parametrize("bot", ["random", "greedy", "mcts"])
def test_the_bots_play_the_placements(bot):
    s = started()
    player = MctsBot(7, iterations=40) if bot == "mcts" else make_bot(bot, 7)
    player.new_game("a")
    option = player.choose(clone(s.state), s.pending)
    assert option in s.pending.options
    s.when(*option, dice=())
    assert s.state.units["a1"].deployed and (s.state.units["a1"].x, s.state.units["a1"].y) == option[1:]


def test_the_placements_are_narrated_and_labelled():
    s = started()
    label = render.label(s.pending.options[0], s.state, s.pending)
    assert label == "deploy a1 (a1) at (5,1)"
    before = clone(s.state)
    events = s.when("deploy", 5, 1)
    assert describe(of_type(events, UnitDeployed)[0], before) == "  a1 [a1] deploys at (5,1)"
    assert describe(DeploymentStarted(), before).startswith("── deployment")
