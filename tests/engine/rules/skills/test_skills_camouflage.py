"""Camouflage markers (seed 003's Sat-Lock, issue 15; skills/camouflage.py): a unit on the table as a
marker -- where it is public, who it is not -- that no Attack targets, which a passed Sat-Lock
Discovers, replacing the marker with the model."""

from __future__ import annotations

import random

import pytest
from skirmish.engine.base import Hidden
from skirmish.engine.commands import Choose
from skirmish.engine.decide import decide
from skirmish.engine.errors import IllegalOption
from skirmish.engine.mission import game_created
from skirmish.engine.rules.skills import camouflage
from skirmish.engine.rules.skills import events as sev
from skirmish.engine.rules.skills.hd_parts import CamouflageDiscovered
from skirmish.engine.view import view, viewed
from skirmish.server import missions

from tests.engine.rules.skills.test_skills_hidden import Game, folded, never_reveal
from tests.engine.test_twins import renamed
from tests.engine.twins import play_twins


def sat_lock_markers(state, p):
    locks = [o for o in p.options if o[0] == "sat_lock" and o[1] in state.markers]
    return locks[0] if locks else never_reveal(state, p)


def test_a_marker_is_on_the_table_under_its_handle_its_place_public_its_identity_not():
    g = Game(1)
    s = g.state
    assert s.markers == {"camo-a1": "a5", "camo-b1": "b5"} and "b5" not in s.units
    assert (s.units["camo-b1"].x, s.units["camo-b1"].y, s.units["camo-b1"].name) == (1, 9, "Scout Orsa")
    for v in ("a", "spectator"):
        seen = view(None, g.created, v)
        u = next(u for u in seen.units if u.id == "camo-b1")
        assert (u.x, u.y, u.name) == (1, 9, Hidden("name")) and u.skills == ("camouflage",)
        assert "b5" not in [x.id for x in seen.units]
        known = folded(g.events, v)
        assert known.markers["camo-b1"] == "camo-b1" and known.units["camo-b1"].name == Hidden("name")
    assert folded(g.events, "b").units["camo-b1"].name == "Scout Orsa"


def test_no_option_names_a_marker_but_sat_lock_and_a_forged_attack_gets_the_error_of_a_missing_unit():
    g = Game(2, choose=never_reveal).run(until=lambda g: g.state.round >= 1 and g.state.pending.kind == "act"
                                         and g.state.pending.side == "a")
    s, p = g.state, g.state.pending
    assert not s.units["camo-b1"].dead
    assert all(o[0] == "sat_lock" for o in p.options if "camo-b1" in o)
    errors = []
    for target in ("camo-b1", "zz9"):
        with pytest.raises(IllegalOption) as err:
            decide(s, Choose(p.id, ("attack", target, 0, 0), "a"), g.dice)
        errors.append(str(err.value).replace(target, "X"))
    assert errors[0] == errors[1]
    assert camouflage.can_target(s, s.units["a1"], s.units["camo-b1"]) is False
    assert "camo-b1" not in [o[1] for o in p.options if o[0] == "unit"]  # never activated


def test_a_passed_sat_lock_discovers_the_marker_and_tags_the_model():
    for seed in range(1, 40):
        g = Game(seed, choose=sat_lock_markers).run(until=lambda g: any(isinstance(e, CamouflageDiscovered) for e in g.events))
        i = next((i for i, e in enumerate(g.events) if isinstance(e, CamouflageDiscovered)), None)
        if i is None:
            continue
        d = g.events[i]
        assert d.why == "sat-lock" and d.unit == {"camo-a1": "a5", "camo-b1": "b5"}[d.handle]
        assert d.unit in g.state.units and d.handle not in g.state.units and d.handle not in g.state.markers
        after = g.events[i + 1]
        assert isinstance(after, sev.StateChanged) and (after.unit, after.state, after.on) == (d.unit, "targeted", True)
        rolled = [e for e in g.events[:i] if isinstance(e, sev.SkillRolled)][-1]
        assert rolled.purpose == "sat_lock" and rolled.result != "failure"
        for v in ("a", "b", "spectator"):
            assert d in list(viewed(g.events, v))  # public
            assert folded(g.events, v).units[d.unit].name == d.name
        return
    pytest.fail("no marker Discovered")


def test_twins_differing_in_which_unit_is_behind_the_marker_get_identical_frames_until_it_is_discovered():
    created = game_created("g-camo-twins", missions.load("ambush"), "local", "")
    twin = renamed(created, "b5", id="b0y", name="Someone Other")

    def discovered(state, e) -> bool:
        return isinstance(e, CamouflageDiscovered) and e.side == "b"

    for seed in range(3):
        t = play_twins(created, twin, discovered, seed=seed)
        assert t.leak is None, (seed, t.leak)
        assert min(t.compared.values()) > 40 and (t.revealed or t.ended)
        assert "b0y" in t.games[1].state.markers.values() or "b0y" in t.games[1].state.units


def test_random_games_with_sat_locks_discover_markers_and_leak_nothing():
    from tests.engine.test_views_hide_secrets import play as followed
    f = followed(game_created("g-camo-follow", missions.load("ambush"), "local", ""), 5)
    assert not f.leaks and f.checked > 0
    rng = random.Random(3)
    found = 0
    for seed in range(8):
        g = Game(seed, choose=lambda s, p: sat_lock_markers(s, p) if rng.random() < 0.5 else None).run()
        found += any(isinstance(e, CamouflageDiscovered) for e in g.events)
    assert found >= 2
