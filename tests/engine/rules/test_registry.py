"""Rules modules plug into the core through ``skirmish.engine.rules.registry`` and only where a mission
switches them on (RULES-BRIEF "Modules")."""

from __future__ import annotations

import pytest

from skirmish.engine import events as ev
from skirmish.engine.errors import MissionError, RulesClash
from skirmish.engine.rules import registry
from skirmish.engine.rules.registry import Module

from tests.engine.rules.scenario import Scenario, of_type

UNITS = [("a1", "a", "hero", 1, 1), ("a2", "a", "hero", 1, 3), ("b1", "b", "elite", 6, 6)]


@pytest.fixture
def probe(monkeypatch):
    """A module 'probe' that records its hooks and adds a 'shout' action (ends the turn)."""
    calls: list = []

    def shout(ctx, unit, option):
        calls.append(("shout", unit.id))
        ctx.rules.core.end_turn(ctx)

    module = Module(
        name="probe", seed="test", summary="records its hooks",
        acts={"shout": shout},
        turn_options=lambda state, unit, opts: [o for o in opts if o[0] != "prone"] + [("shout",)],
        can_activate=lambda state, unit: unit.id != "a2",
        on_game_start=lambda ctx: calls.append("game_start"),
        on_round_start=lambda ctx: calls.append(("round_start", ctx.state.round)),
        on_turn_start=lambda ctx, unit: calls.append(("turn_start", unit.id)),
        on_end_phase=lambda ctx: calls.append(("end_phase", ctx.state.round)),
    )
    monkeypatch.setattr(registry, "CATALOG", registry.CATALOG.with_modules(module))
    return calls


def test_a_mission_naming_a_module_runs_its_hooks_in_order(probe):
    s = Scenario(UNITS, rounds=2)
    s.state.modules = ("probe",)  # as GameCreated.modules would set it
    s.start()
    assert probe == ["game_start", ("round_start", 1)]
    s.when("first", "a")
    assert s.pending.options == (("unit", "a1"),)  # can_activate keeps a2 back
    s.when("unit", "a1")
    assert probe[-1] == ("turn_start", "a1")
    assert ("shout",) in s.pending.options and ("prone",) not in s.pending.options
    s.when("shout")
    assert probe[-1] == ("shout", "a1")
    s.when("unit", "b1")
    s.when("end", dice=(10, 1))
    assert ("end_phase", 1) in probe and ("round_start", 2) in probe


def test_a_mission_without_the_module_plays_as_if_it_did_not_exist(probe):
    s = Scenario(UNITS).play_to_turn("a1")
    assert probe == [] and ("shout",) not in s.pending.options and ("prone",) in s.pending.options
    assert of_type(s.log, ev.GameCreated)[0].modules == ()


def test_missions_name_only_known_modules_and_each_once(probe):
    s = Scenario(UNITS)
    from skirmish.engine.mission import parse_mission
    from tests.engine.rules.scenario import mission_text

    with_probe = mission_text(UNITS, modules=("probe",))
    mission = parse_mission(with_probe, "probe.toml")
    assert mission.modules == ("probe",)
    with pytest.raises(MissionError, match="unknown module 'nope'.*probe"):
        parse_mission(mission_text(UNITS, modules=("nope",)), "x.toml")
    with pytest.raises(MissionError, match="named twice"):
        parse_mission(mission_text(UNITS, modules=("probe", "probe")), "x.toml")
    assert s.mission.modules == ()


def test_a_module_cannot_reuse_a_name_another_registered(probe):
    catalog = registry.CATALOG.with_modules(Module(name="other", seed="x", summary="clash", acts={"shout": print}))
    with pytest.raises(RulesClash, match="both claim the option kind 'shout'"):
        catalog.rules(("probe", "other"))
    assert catalog.rules(("other",)).acts["shout"] is print  # alone, it is fine
