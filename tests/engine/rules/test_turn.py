"""seed 001 "Combat!" turn structure, as RULES-BRIEF "Core" lays it out: given -> when -> then."""

from __future__ import annotations

from skirmish.engine import events as ev
from skirmish.engine.commands import Resign
from skirmish.engine.decide import decide
from skirmish.engine.dice import ScriptedDice
from skirmish.engine.rules import registry

from tests.engine.rules.scenario import Scenario, of_type

UNITS = [("a1", "a", "hero", 1, 1), ("b1", "b", "elite", 2, 1), ("b2", "b", "grunt", 6, 6)]
TWO_A = [("a1", "a", "hero", 1, 1), ("a2", "a", "hero", 1, 4), ("b1", "b", "elite", 6, 1), ("b2", "b", "grunt", 6, 6)]


def test_initiative_d10_plus_team_command_value_and_the_winner_picks_who_acts_first():
    s = Scenario(UNITS)
    events = s.start(3, 9)  # a: 3 + Command 2 = 5; b: 9 + Command 1 = 10
    rolls = of_type(events, ev.DiceRolled)
    assert [(r.sides, r.results, r.target) for r in rolls] == [(10, (3,), 2), (10, (9,), 1)]
    assert of_type(events, ev.InitiativeWon) == [ev.InitiativeWon(side="b")]
    assert s.pending.side == "b" and s.pending.options == (("first", "b"), ("first", "a"))


def test_team_command_value_is_the_commanders_command():
    s = Scenario([("a1", "a", "hero", 1, 1), ("a2", "a", "grunt", 2, 2, True), ("b1", "b", "elite", 6, 6)])
    rolls = of_type(s.start(5, 5, 9, 1), ev.DiceRolled)
    assert rolls[0].target == 1  # a2 commands (Command 1), though a1 has Command 2


def test_initiative_ties_are_rolled_again():
    s = Scenario(UNITS)
    events = s.start(4, 5, 6, 1)  # 4+2 = 5+1: tie; then 6+2 > 1+1
    assert len(of_type(events, ev.DiceRolled)) == 4
    assert of_type(events, ev.InitiativeWon) == [ev.InitiativeWon(side="a")]


def test_after_a_turn_the_action_passes_to_the_opposing_side():
    s = Scenario(UNITS).play_to_turn("a1")
    events = s.when("end")
    assert events[1:3] == [ev.TurnEnded(unit="a1"), ev.ActivationPassed(side="b")]
    assert s.pending.side == "b" and s.pending.kind == "activate"
    assert s.pending.options == (("unit", "b1"), ("unit", "b2"))


def test_keep_the_initiative_costs_two_momentum_and_not_twice_in_a_row():
    s = Scenario(TWO_A).play_to_turn("a1")
    s.given(ev.PoolChanged(side="a", pool="momentum", delta=4, reason="test"))
    s.when("end")
    assert s.pending.kind == "keep_initiative" and s.pending.options == (("pass",), ("keep",))
    events = s.when("keep")
    assert ev.PoolChanged(side="a", pool="momentum", delta=-2, reason="keep the initiative") in events
    assert ev.ActivationPassed(side="a", kept=True) in events
    s.when("unit", "a2")
    events = s.when("end")  # Momentum 2 left, but the initiative was just kept
    assert s.pending.kind == "activate" and s.pending.side == "b"
    assert ev.ActivationPassed(side="b") in events


def test_keep_the_initiative_is_not_offered_without_two_momentum():
    s = Scenario(TWO_A).play_to_turn("a1")
    s.given(ev.PoolChanged(side="a", pool="momentum", delta=1, reason="test"))
    s.when("end")
    assert s.pending.kind == "activate" and s.pending.side == "b"


def test_a_side_with_no_ready_units_passes_and_the_other_finishes():
    s = Scenario(UNITS).play_to_turn("a1")
    s.when("end")
    s.when("unit", "b1")
    events = s.when("end")  # side a has no ready unit: b2 acts next, still side b
    assert not of_type(events, ev.ActivationPassed)
    assert s.pending.side == "b" and s.pending.options == (("unit", "b2"),)


def test_the_end_phase_runs_its_hooks_clears_action_counters_and_checkpoints(monkeypatch):
    calls = []
    monkeypatch.setattr(registry, "CATALOG", registry.CATALOG.with_modules(registry.Module(
        name="probe", seed="test", summary="counts End Phases", on_end_phase=lambda ctx: calls.append(ctx.state.round))))
    s = Scenario(UNITS, modules=("probe",)).play_to_turn("a1")
    s.when("end")
    s.when("unit", "b1")
    s.when("end")
    s.when("unit", "b2")
    events = s.when("end", dice=(10, 1))
    kinds = [type(e) for e in events]
    assert calls == [1]
    assert kinds.index(ev.Checkpoint) < kinds.index(ev.RoundEnded) < kinds.index(ev.RoundStarted)
    assert of_type(events, ev.RoundStarted) == [ev.RoundStarted(round=2)]
    assert not any(u.acted for u in s.state.units.values())


def test_the_scene_ends_after_the_last_round_on_victory_points_and_momentum_drops_by_one():
    s = Scenario(UNITS, rounds=1).play_to_turn("a1")
    s.given(ev.PoolChanged(side="a", pool="momentum", delta=3, reason="test"),
            ev.InjurySuffered(unit="b2", lethal=False, result="nonlethal"))
    s.when("end")
    events = s.when("unit", "b1") + s.when("end")
    ended = of_type(events, ev.GameEnded)[0].outcome
    assert ended.winner == "a" and ended.points == {"a": 1, "b": 0}
    assert ev.PoolChanged(side="a", pool="momentum", delta=-1, reason="end of the scene") in events


def test_the_untreated_lethally_injured_die_at_scene_end_and_the_stabilised_live():
    s = Scenario(TWO_A, rounds=1).play_to_turn("a1")
    s.given(ev.InjurySuffered(unit="b2", lethal=True, result="lethal"),
            ev.InjurySuffered(unit="a2", lethal=True, result="lethal"), ev.Stabilised(unit="a2"))
    s.when("end")
    events = s.when("unit", "b1") + s.when("end")
    assert ev.UnitDied(unit="b2", reason="untreated lethal injury at the end of the scene") in events
    assert not [e for e in of_type(events, ev.UnitDied) if e.unit == "a2"]


def test_the_game_ends_at_once_when_a_side_has_no_unit_able_to_fight():
    s = Scenario([("a1", "a", "hero", 1, 1), ("b2", "b", "grunt", 6, 6)]).play_to_turn("a1")
    events = s.task("attack", "b2", 0, 1, dice=(1, 1, 1, 1, 1, 1, 1))  # 5 damage of 9: one Injury
    ended = of_type(events, ev.GameEnded)
    assert ended and ended[0].outcome.winner == "a"
    assert s.state.pending is None


def test_resigning_ends_the_game_for_the_other_side():
    s = Scenario(UNITS).play_to_turn("a1")
    events = decide(s.state, Resign(side="a"), ScriptedDice(()))
    assert events[0] == ev.Resigned(side="a")
    assert events[-1].outcome.winner == "b"
