"""A game's rule set (``skirmish.engine.rules.registry.RuleSet``): built once from the core and the modules a
mission names, checked for clashes, frozen, and carried in the rules' ``Context`` (issue 13)."""

from __future__ import annotations

import pytest

from skirmish.engine import events as ev
from skirmish.engine.rules.morale import events as mev
from skirmish.engine.errors import RulesClash
from skirmish.engine.model import ReadyFrame
from skirmish.engine.rules import registry
from skirmish.engine.rules.registry import BotHooks, Module, RuleSet, Shown

from tests.engine.rules.scenario import Scenario

UNITS = [("a1", "a", "hero", 1, 1), ("b1", "b", "elite", 6, 6)]


def _catalog(*modules: Module) -> registry.Catalog:
    return registry.CATALOG.with_modules(*modules)


def test_the_rule_set_of_a_game_is_built_once_and_frozen():
    rules = registry.rules_for(("morale",))
    assert registry.rules_for(("morale",)) is rules  # built once, then kept
    assert rules.names == ("morale",) and [m.name for m in rules.modules] == ["morale"]
    with pytest.raises(AttributeError, match="frozen"):
        rules.answers = {}
    with pytest.raises(TypeError):
        rules.answers["roll_again"] = print  # the tables are read-only
    assert "test_reroll" in rules.answers and "act" in rules.answers  # the core's and the module's
    assert "test_reroll" not in registry.rules_for(()).answers  # a core-only game has no morale


def test_hooks_run_in_the_missions_order_of_the_modules():
    calls = []
    one = Module(name="one", seed="t", summary="", on_end_phase=lambda ctx: calls.append("one"))
    two = Module(name="two", seed="t", summary="", on_end_phase=lambda ctx: calls.append("two"))
    rules = _catalog(one, two).rules(("two", "one"))
    rules.call(None, "on_end_phase")
    assert calls == ["two", "one"]


@pytest.mark.parametrize("what, first, second", [
    ("decision kind", {"answers": {"shout": print}}, {"answers": {"shout": print}}),
    ("decision kind", {}, {"answers": {"act": print}}),  # the core's
    ("option kind", {"acts": {"shout": print}}, {"acts": {"shout": print}}),
    ("option kind", {}, {"acts": {"move": print}}),  # the core's Minor Action
    ("procedure frame", {"frame_steps": {ReadyFrame: print}}, {}),  # the core's
    ("event", {"events": (mev.FearDue,)}, {"events": (mev.FearDue,)}),
    ("narration of the roll", {"roll_lines": {"x:secret": print}}, {"roll_lines": {"x:secret": print}}),
])
def test_two_modules_claiming_one_name_fail_when_the_rule_set_is_built(what, first, second):
    one = Module(name="one", seed="t", summary="", **first)
    two = Module(name="two", seed="t", summary="", **second)
    catalog = _catalog(one, two)
    with pytest.raises(RulesClash, match=f"both claim the {what}"):
        catalog.rules(("one", "two"))


def test_the_bundled_modules_do_not_clash():
    rules = registry.CATALOG.all()
    assert rules.names == ("capture", "challenges", "morale", "skills")
    assert {"d12_reroll", "prerogative", "courage_failed", "deploy", "act"} <= set(rules.answers)
    assert {"D12Tested", "CardDrawn", "FearDue", "UnitDeployed"} <= rules.events


def test_a_module_without_core_services_cannot_be_the_core_and_a_module_cannot_offer_them():
    with pytest.raises(RulesClash, match="no core services"):
        RuleSet(Module(name="core", seed="001", summary=""), ())
    core = registry.rules_for(()).core
    rogue = Module(name="rogue", seed="t", summary="", core=core)
    with pytest.raises(RulesClash, match="only the core"):
        _catalog(rogue).rules(("rogue",))


def test_an_unknown_module_is_named_with_those_known():
    with pytest.raises(KeyError, match="unknown rules module 'nope'.*capture, challenges, morale"):
        registry.rules_for(("nope",))


def test_the_rules_reach_the_cores_services_through_the_context(monkeypatch):
    """A module ends the turn through ``ctx.rules.core``: no import of the core's flow."""
    seen = []

    def shout(ctx, unit, option):
        seen.append(ctx.rules)
        ctx.rules.core.end_turn(ctx)

    probe = Module(name="probe", seed="t", summary="", acts={"shout": shout},
                   turn_options=lambda state, unit, opts: opts + [("shout",)])
    monkeypatch.setattr(registry, "CATALOG", _catalog(probe))
    s = Scenario(UNITS, modules=("probe",)).play_to_turn("a1")
    events = s.when("shout")
    assert seen == [registry.rules_for(("probe",))]
    assert ev.TurnEnded(unit="a1") in events


def test_the_modules_bot_hooks_and_text_views_join_into_one_of_each():
    """``BotHooks`` and ``Shown`` over a game's modules: tables merged, functions joined (issue 13,
    the capture module's move): any module holding a unit out of the fight holds it, the first
    module to price an activation prices it, every module's cell extras count, and each module's
    carried options are labelled with its words."""
    one = Module(name="one", seed="t", summary="", render=Shown(carriers={"twice": "twice: "}), bots=BotHooks(
        sidelined=lambda u: u == "held", activation=lambda s, u, kit: 1.0 if u == "held" else None,
        positions=lambda s, u, left, kit: [lambda x, y: 1.0], minor_actions=frozenset({"shout"}),
        free_moves={"hop": lambda o: (o[1], o[2])}))
    two = Module(name="two", seed="t", summary="", render=Shown(carriers={"thrice": "thrice: "}), bots=BotHooks(
        sidelined=lambda u: u == "asleep", activation=lambda s, u, kit: 2.0,
        positions=lambda s, u, left, kit: [lambda x, y: 2.0, lambda x, y: 3.0]))
    bots = _catalog(one, two).rules(("one", "two")).bots
    assert bots.sidelined("held") and bots.sidelined("asleep") and not bots.sidelined("free")
    assert bots.activation(None, "held", None) == 1.0 and bots.activation(None, "free", None) == 2.0
    assert [f(0, 0) for f in bots.positions(None, None, True, None)] == [1.0, 2.0, 3.0]
    assert bots.minor_actions == {"shout"} and bots.free_moves["hop"](("hop", 3, 4)) == (3, 4)
    assert dict(_catalog(one, two).rules(("two", "one")).render.carriers) == {"twice": "twice: ", "thrice": "thrice: "}
    alone = _catalog(one, two).rules(("one",)).bots
    assert alone.sidelined is one.bots.sidelined and alone.activation is one.bots.activation  # no wrapper for one
    nothing = registry.rules_for(()).bots
    assert nothing.sidelined is None and nothing.activation is None and nothing.positions is None
