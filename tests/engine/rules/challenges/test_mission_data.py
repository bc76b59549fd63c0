"""The challenges module's mission data (docs/missions.md): bad input is a clear MissionError."""

from __future__ import annotations

import pytest

from skirmish.engine.errors import MissionError
from skirmish.engine.mission import parse_mission
from skirmish.server import missions

from tests.engine.rules.challenges.setting import CHALLENGES, FACILITIES, challenge_text
from tests.engine.rules.scenario import mission_text

UNITS = [("a1", "a", "assassin", 1, 1), ("b1", "b", "target", 2, 1)]


def bad(text: str, field: str, match: str):
    with pytest.raises(MissionError) as info:
        parse_mission(text, "t.toml")
    assert info.value.field == field, str(info.value)
    assert match in info.value.problem, str(info.value)


def test_the_bundled_mission_turns_the_module_on_with_facilities_decks_and_abilities():
    m = missions.load("knives")
    assert m.modules == ("challenges",)
    setup = m.challenges
    assert {f.id for f in setup.facilities} >= {"a-post", "a-intel", "b-post", "b-intel"}
    assert any(f.intel for f in setup.facilities)
    assert setup.decks["a"] == tuple(sorted(setup.decks["a"])) and len(setup.decks["b"]) == 8
    abilities = {k for u in m.units for k in u.abilities}
    assert {"assassin", "saboteur", "master_assassin", "master_saboteur", "slayer", "bodyguard",
            "tactician", "stealth", "detection"} <= abilities


def test_a_good_mission_parses():
    m = parse_mission(challenge_text(UNITS), "t.toml")
    assert m.challenges.cards["jam"].effect == "reroll" and m.challenges.costs["assassinate"] == 2
    assert [f.id for f in m.challenges.facilities] == ["depot", "radar"]
    assert m.units[0].fate == 2 and m.units[0].abilities == {"assassin": 4}


def test_module_data_needs_the_module():
    text = mission_text([("a1", "a", "hero", 1, 1), ("b1", "b", "hero", 2, 1)],
                        extra='\n[profiles.x]\nkind = "hero"\nfate = 2\n')
    bad(text, "profiles.x", "need the 'challenges' module")
    text = mission_text([("a1", "a", "hero", 1, 1), ("b1", "b", "hero", 2, 1)], extra="\n[challenges]\nhand = 1\n")
    bad(text, "challenges", "needs the 'challenges' module")


def test_abilities_are_known_and_in_range():
    bad(challenge_text(UNITS).replace("abilities = { assassin = 4 }", "abilities = { ninja = 4 }", 1),
        "profiles.assassin.abilities.ninja", "unknown ability")
    bad(challenge_text(UNITS).replace("master_assassin = 1", "master_assassin = 2", 1),
        "profiles.master.abilities.master_assassin", "0..1")
    bad(challenge_text(UNITS).replace("fate = 2", "fate = -1", 1), "profiles.assassin.fate", "0..20")


def test_cards_decks_and_creations_are_checked():
    bad(challenge_text(UNITS).replace('a = ["jam"', 'a = ["ace"', 1), "challenges.decks.a", "no card 'ace'")
    bad(challenge_text(UNITS).replace('effect = "reroll"', 'effect = "teleport"', 1),
        "challenges.cards.jam.effect", "teleport")
    bad(challenge_text(UNITS).replace('card = "plus2"', 'card = "ace"', 1),
        "challenges.creates.tactician.card", "no card 'ace'")
    bad(challenge_text(UNITS).replace("[challenges.creates.tactician]", "[challenges.creates.assassin]", 1),
        "challenges.creates.assassin", "only tactician")
    bad(challenge_text(UNITS).replace("create = 1,", "teleport = 1,", 1), "challenges.costs.teleport",
        "unknown operation")
    bad(challenge_text(UNITS).replace("hand = 0", "hand = 9", 1), "challenges.hand", "exceeds hand_limit")


def test_facilities_need_a_free_cell_on_the_board():
    bad(challenge_text(UNITS, challenges=CHALLENGES + FACILITIES.replace("at = [3, 4]", "at = [9, 4]")),
        "challenges.facilities[1].at", "off the 8x8 board")
    bad(challenge_text(UNITS, challenges=CHALLENGES + FACILITIES.replace("at = [3, 4]", "at = [3, 2]")),
        "challenges.facilities[1].at", "already holds")
    bad(challenge_text(UNITS, challenges=CHALLENGES + FACILITIES.replace('id = "radar"', 'id = "depot"')),
        "challenges.facilities[1].id", "unique id")
    bad(challenge_text(UNITS, challenges=CHALLENGES + FACILITIES.replace("structure = 3", "structure = 0")),
        "challenges.facilities[1].structure", "1..20")
    bad(challenge_text(UNITS, challenges=CHALLENGES + FACILITIES.replace('side = "b"', 'side = "c"', 1)),
        "challenges.facilities[0].side", "'a' or 'b'")
    walled = "\n".join(["........"] * 2 + ["...#...."] + ["........"] * 5)
    bad(challenge_text(UNITS, map=walled), "challenges.facilities[0].at", "blocking")
