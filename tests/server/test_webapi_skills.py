"""What the web API says of the skills module's decisions (``skirmish.server.webapi.decorate`` and
``state_json``; issue 16 with issue 14): each option labelled as the text client labels it and
placed where the page draws it -- a deployment's cells on the board, the skills' options on the
unit they name, the rest as buttons -- without the page knowing any option's kind; and the units
not yet deployed marked off the table."""

from __future__ import annotations

from skirmish.engine.dice import ScriptedDice
from skirmish.engine.model import Decision
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.morale.events import TokensChanged
from skirmish.engine.rules.skills import rolls
from skirmish.server.webapi import decorate, state_json

from tests.engine.rules.skills.skills_scenario import SkillsScenario

# a1 and b1 deploy; a2 and b2 start where the map puts them
UNITS = [("a1", "a", "trooper", 5, 1), ("a2", "a", "hero", 1, 1), ("b1", "b", "hero", 4, 6), ("b2", "b", "hero", 0, 7)]


def test_a_deployment_decision_is_cells_to_click_and_the_unit_to_place_is_off_the_table():
    s = SkillsScenario(UNITS, deploy=("a1", "b1"))
    s.start()
    d = decorate(s.state, "a")
    assert (d["kind"], d["unit"], d["mine"], d["title"]) == ("deploy", "a1", True, "deployment: where does the unit go?")
    assert len(d["options"]) == len(s.pending.options) > 10
    for entry, option in zip(d["options"], s.pending.options):
        assert entry["cell"] == [option[1], option[2]] and "unit" not in entry
        assert entry["label"].startswith("deploy a1 (") and f"at ({option[1]},{option[2]})" in entry["label"]
    assert decorate(s.state, "b")["mine"] is False
    units = state_json(s.state)["units"]
    assert units["a1"].get("off_table") and units["b1"].get("off_table")
    assert "off_table" not in units["a2"] and "off_table" not in units["b2"]
    # the module's words on each unit, as in the terminal (its profile on the page shows them)
    assert units["a1"]["shown"][0] == "not deployed" and "infiltrate 1" in units["a1"]["shown"]
    assert any(f.startswith("WIP ") for f in units["a1"]["shown"]) and "not deployed" not in units["a2"].get("shown", [])
    s.when("deploy", 2, 0)
    units = state_json(s.state)["units"]
    assert "off_table" not in units["a1"] and units["b1"].get("off_table")


def test_the_skill_reroll_window_is_buttons_labelled_as_in_the_terminal():
    sc = SkillsScenario([("a1", "a", "trooper", 0, 1), ("b1", "b", "hero", 0, 6)], modules=("skills", "morale"))
    sc.given(TokensChanged(side="a", delta=1, reason="given"))
    ctx = Context(sc.state, ScriptedDice((15,)))
    rolls.normal_roll(ctx, "a1", "ph", "probe")
    rolls.step(ctx, ctx.state.stack[-1], {"probe": lambda c, f, r: None})
    d = decorate(ctx.state, "a")
    assert (d["kind"], d["title"]) == ("skill_reroll", "a d20 roll: spend a Command Token to re-roll?")
    assert [(e["option"], e["label"]) for e in d["options"]] == [
        (["keep"], "keep the dice"), (["reroll", 0], "spend a Command Token: re-roll a1 (a1)'s PH roll (rolled 15)")]
    assert all("cell" not in e and "unit" not in e for e in d["options"])  # buttons


def test_the_skills_options_are_drawn_on_the_unit_they_name_with_range_and_line_of_fire_to_an_enemy():
    s = SkillsScenario(UNITS)
    s.play_to_turn("a1")
    options = (("aimed_shot", "b1", 0, True), ("hack", "spotlight", "b1"), ("observe", "b1"), ("sat_lock", "b2"),
               ("medikit", "a2"), ("regenerate",), ("end",), ("create", "b1x", 2), ("someone_new", 99, 0))
    s.state.pending = Decision(id=s.state.pending.id, side="a", kind="act", options=options, unit="a1")
    d = decorate(s.state, "a")
    by = {tuple(e["option"]): e for e in d["options"]}
    for option, target in ((options[0], "b1"), (options[1], "b1"), (options[2], "b1"), (options[3], "b2")):
        entry = by[option]
        assert entry["unit"] == target and entry["band"] and isinstance(entry["line_of_fire"], bool), entry
    assert by[options[4]]["unit"] == "a2" and "band" not in by[options[4]]  # an ally: no line of fire to show
    for plain in options[5:]:
        assert "unit" not in by[plain] and "cell" not in by[plain], plain  # buttons (99 is off the board)
    labels = [by[o]["label"] for o in options[:6]]
    assert labels[0].startswith("aimed shot (Marksmanship LX") and "b1" in labels[0]
    assert labels[1].startswith("hack b1") and "Spotlight" in labels[1]
    assert labels[2].startswith("Forward Observer at b1") and labels[3].startswith("Sat-Lock b2")
    assert labels[4].startswith("MediKit on a2") and labels[5].startswith("regenerate a1")
