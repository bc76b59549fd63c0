"""Impersonation L1 / L2, the IMP-1 and IMP-2 markers and Discover (seed 003, "IMPERSONATION";
docs/rules.md, seed 003, "Impersonation"; skills/impersonation.py, discover.py). Given an
impersonator of side b that deploys (tests/engine/rules/skills/imp_scenario.py: an 8 x 8 board,
side a's zone rows 0-1, side b's rows 6-7), when it is placed, moves, is Discovered, attacks or
regains its marker, then the events are as the seed says."""

from __future__ import annotations

import msgspec
import pytest

from skirmish.engine import board as geo
from skirmish.engine.errors import IllegalOption
from skirmish.engine.commands import Choose
from skirmish.engine.decide import decide
from skirmish.engine.dice import ScriptedDice
from skirmish.engine.events import DiceRolled, TurnEnded, UnitMoved
from skirmish.engine.rules import registry
from skirmish.engine.rules.core import attack
from skirmish.engine.rules.skills import deploy, discover, impersonation
from skirmish.engine.rules.skills.events import FacingChanged, SkillRolled
from skirmish.engine.rules.skills.imp_events import (
    DiscoverFailed,
    ImpersonationLost,
    ImpersonationRevealed,
    ImpersonatorDispersed,
    ImpersonatorsAssigned,
    MarkerDiscovered,
    MarkerPlaced,
)

from tests.engine.rules.scenario import of_type
from tests.engine.rules.skills.imp_scenario import SALT, UNITS, imp_game, marker, placed

OTHER_SALT = (11,) * 8  # a salt that pairs _two_markers' markers the other way


def _options(s, kind=None):
    p = s.state.pending
    return [o for o in p.options if kind is None or o[0] == kind]


# -- deployment ---------------------------------------------------------------------------------------------


def test_an_impersonator_deploys_anywhere_open_as_a_figure_or_a_marker_never_in_base_contact():
    s = imp_game()
    p = s.state.pending
    assert p.kind == "deploy" and p.unit == "b1"
    cells = {(o[1], o[2]) for o in p.options if o[0] == "deploy"}
    assert cells == {(o[1], o[2]) for o in p.options if o[0] == "impersonate"}  # each cell both ways
    assert (4, 4) in cells and (5, 0) in cells  # the middle, and the enemy Deployment Zone (with a roll)
    things = [(2, 1), (7, 7)]  # a1 and b2 on the table: nothing within Reach (base contact) of them
    assert all(geo.distance(*c, *t) > 1 for c in cells for t in things)
    assert (3, 0) not in cells  # blocking


def test_the_markers_order_comes_from_the_salt_and_the_impersonators_deploy_last():
    s = imp_game(units=UNITS + [("b5", "b", "fusilier", 2, 7)], deploy=("b1", "b5"))
    assigned = of_type(s.log, ImpersonatorsAssigned)
    assert [(e.side, e.markers, e.units) for e in assigned] == [("b", ("b-imp1",), ("b1",))]
    assert s.state.pending.unit == "b5"  # b1 comes first in the roster, but places after b5


def test_a_marker_placed_outside_the_enemy_zone_rolls_nothing():
    s = imp_game()
    events = s.when("impersonate", 4, 4, dice=(10, 1))
    assert of_type(events, MarkerPlaced) == [MarkerPlaced(marker="b-imp1", side="b", unit="b1", x=4, y=4, silhouette=2)]
    assert not of_type(events, SkillRolled)
    assert s.state.imp_states == {"b-imp1": "imp1"} and s.state.units["b1"].deployed


def test_in_the_enemy_zone_the_wip_roll_follows_the_placement_and_a_pass_keeps_the_marker():
    s = imp_game()
    events = s.when("impersonate", 5, 0, dice=(13, 10, 1))  # WIP 13: a 13 is a critical, a pass
    rolled = of_type(events, SkillRolled)
    assert [(r.unit, r.purpose, r.attribute, r.target) for r in rolled] == [("b1", "impersonation", "wip", 13)]
    assert events.index(of_type(events, MarkerPlaced)[0]) < events.index(rolled[0])  # "after placing him"
    assert s.state.imp_states == {"b-imp1": "imp1"}


def test_a_failed_roll_reveals_the_figure_and_disperses_it_on_the_grid_circular_template():
    s = imp_game()
    events = s.when("impersonate", 5, 1, dice=(14, 9, 10, 1))  # 14 fails WIP 13; d16 9: two rows down
    assert of_type(events, ImpersonationRevealed)[0].why == "failed deployment roll"
    assert impersonation.RING[8] == (0, 2)
    assert of_type(events, ImpersonatorDispersed) == [ImpersonatorDispersed(unit="b1", direction=9, x=5, y=3)]
    assert [d.sides for d in of_type(events, DiceRolled)][:2] == [20, 16]
    assert s.state.imp_states == {} and (s.state.units["b1"].x, s.state.units["b1"].y) == (5, 3)
    assert "b-imp1" in s.state.imp_known


def test_a_dispersion_off_the_table_falls_back_to_the_own_zone_at_an_edge():
    s = imp_game()
    s.when("impersonate", 5, 0, dice=(14, 1))  # d16 1: two rows towards row 0, off the table
    p = s.state.pending
    assert p.kind == "imp_redeploy" and p.side == "b"
    cells = {(o[2], o[3]) for o in p.options}
    assert cells and all(c in deploy.zone(s.state, "b") for c in cells)
    assert all(c[0] in (0, 7) or c[1] in (6, 7) for c in cells)
    events = s.when(*p.options[0], dice=(10, 1))
    assert of_type(events, ImpersonatorDispersed)[0].direction == 0


def test_level_1_adopts_no_imp1_against_an_alien_army_and_level_2_does():
    basic = imp_game(units=[("a1", "a", "fusilier", 2, 1), ("b1", "b", "basic", 4, 7)], alien="a")
    assert not _options(basic, "impersonate") and _options(basic, "deploy")
    plus = imp_game(alien="a")
    assert _options(plus, "impersonate")
    human = imp_game(units=[("a1", "a", "fusilier", 2, 1), ("b1", "b", "basic", 4, 7)])
    assert _options(human, "impersonate")


def test_any_level_grants_surprise_attack_surprise_shot_and_stealth():
    s = imp_game()
    u = s.state.units["b1"]
    assert all(impersonation.has(u, k) for k in impersonation.GRANTED)
    assert not impersonation.has(s.state.units["a1"], "stealth")


# -- the markers --------------------------------------------------------------------------------------------


def _marker_turn(x=4, y=4, first="b"):
    s = placed(imp_game(), x, y, first=first)
    s.state.momentum = {"a": 0, "b": 3}  # a second Minor Action costs Momentum
    if first == "b":
        s.when("unit", "b1")
    return s


def test_enemies_cannot_attack_a_marker_nor_enter_base_contact_with_it():
    s = placed(imp_game(), 2, 3, first="a")
    s.when("unit", "a1")
    opts = _options(s)
    assert not [o for o in opts if "b1" in o]  # no Attack, no Create Advantage: nothing names it
    moves = [(o[1], o[2]) for o in opts if o[0] == "move"]
    assert moves and all(geo.distance(x, y, 2, 3) > 1 for x, y in moves)
    assert not attack.attack_options(s.state, s.state.units["a1"], only=s.state.units["b1"])
    assert ("discover", "b-imp1") in opts


def test_no_way_of_moving_ends_in_base_contact_with_a_marker_sprint_and_dodge_included():
    """Troopers cannot enter base to base contact with a marker: ``registry.reachable`` (every way
    of moving: Movement, Sprint, a Dodge's move, Engage) leaves out the cells within Reach of it."""
    s = placed(imp_game(), 2, 3, first="a")
    a1 = s.state.units["a1"]
    occupied = {(u.x, u.y) for u in s.state.units.values() if u.id != "a1"}
    cells = registry.reachable(s.state, a1, 6, occupied)
    near = {(x, y) for x in range(1, 4) for y in range(2, 5)}
    assert cells and not near & set(cells)
    assert impersonation.no_stop(s.state, a1) >= near - {(2, 3)}
    # the marker's own moves are not barred by itself; before it is placed, nothing is barred
    assert not impersonation.no_stop(s.state, s.state.units["b1"])
    plain = imp_game()
    assert not impersonation.no_stop(plain.state, plain.state.units["a1"])


def test_a_forged_attack_on_a_marker_gets_the_error_of_a_unit_that_does_not_exist():
    s = placed(imp_game(), 2, 3, first="a")
    s.when("unit", "a1")
    p = s.state.pending
    errors = []
    for name in ("b1", "b-imp1", "zz9"):
        with pytest.raises(IllegalOption) as err:
            decide(s.state, Choose(p.id, ("attack", name, 0, 0), "a"), ScriptedDice(()))
        errors.append(str(err.value).replace(repr(name), "NAME"))
    assert errors[0] == errors[1] == errors[2]


def test_a_marker_offers_its_covert_actions_and_the_others_as_reveals():
    s = _marker_turn()
    opts = _options(s)
    assert ("end",) in opts and ("move", 4, 3) in opts and ("prone",) in opts
    assert ("reveal", "aim") in opts and ("reveal", "recover") in opts
    assert ("reveal", "attack", "a1", 0, 0) in opts  # a ranged attack: a Surprise Shot
    assert ("reveal", "move", 3, 2) in opts  # into base contact with a1: it cancels the marker


def test_cancellation_applies_to_the_whole_declared_order_a_covert_order_stays_covert():
    s = _marker_turn()
    s.when("move", 4, 3)
    if s.state.pending.kind == "react":
        s.when("none")
    assert s.state.pending.kind == "act"
    assert not [o for o in _options(s) if o[0] == "reveal"]


def test_a_surprise_shot_reveals_the_marker_first_and_is_one_step_easier():
    s = _marker_turn()
    events = s.when("reveal", "attack", "a1", 0, 0)
    r = of_type(events, ImpersonationRevealed)
    assert r and r[0].why == "surprise shot" and events.index(r[0]) == 1  # before anything of the attack
    state = s.state
    assert impersonation.attack_difficulty(state, state.units["b1"], state.units["a1"]) == impersonation.SURPRISE


def test_surprise_is_for_the_active_turn_only_not_a_later_order():
    s = _marker_turn()
    s.when("reveal", "attack", "a1", 0, 0)
    s.state.round += 1  # another Order of the same unit
    assert impersonation.attack_difficulty(s.state, s.state.units["b1"], s.state.units["a1"]) == 0


def test_the_only_reactions_to_a_moving_marker_are_discover_change_facing_and_dodge():
    s = _marker_turn()
    s.when("move", 2, 4)  # a1 at (2,1), a Fusilier with Dodge and Change Facing, facing the enemy half
    p = s.state.pending
    assert p.kind == "react" and p.side == "a"
    assert {o[0] for o in p.options} <= {"none", "discover", "change_facing", "dodge"}
    assert ("discover", "a1", "b-imp1") in p.options


def test_declining_a_window_keeps_the_reaction_for_the_rest_of_the_order():
    """"Enemies ... may delay their ARO declarations until the impersonator declares the second
    Short Skill": declining ("none") uses nothing up (docs/rules.md: in this game a covert Order
    has one move, and a cancelling action reveals the figure first, so no delay is needed)."""
    s = _marker_turn()
    s.when("move", 2, 4)
    s.when("none")
    assert "a1" not in s.state.reacted and s.state.pending.kind == "act"


def test_discover_is_at_minus_6_against_imp1_and_turns_it_into_imp2():
    s = _marker_turn()
    s.when("move", 2, 4)
    events = s.when("discover", "a1", "b-imp1", dice=(5,))  # WIP 12 - 6 = 6: a 5 passes
    roll = of_type(events, SkillRolled)[0]
    assert (roll.unit, roll.purpose, roll.mods, roll.target) == ("a1", "discover", (("IMP-1", -6),), 6)
    assert of_type(events, MarkerDiscovered) == [MarkerDiscovered(marker="b-imp1", by="a1")]
    assert s.state.imp_states == {"b-imp1": "imp2"}  # still a marker, still hidden who


def test_discover_against_imp2_has_no_mod_and_reveals_the_figure():
    s = _marker_turn()
    s.when("move", 2, 4)
    s.when("discover", "a1", "b-imp1", dice=(5,))
    s.state.imp_states = {"b-imp1": "imp2"}
    _to_a1(s)
    events = s.when("discover", "b-imp1", dice=(12,))  # WIP 12, no MOD: a 12 is a critical
    assert of_type(events, SkillRolled)[0].mods == ()
    assert of_type(events, ImpersonationRevealed)[0].why == "discovered"
    assert s.state.imp_states == {}


def test_a_failed_discover_bars_that_enemy_against_that_marker_until_the_turn_ends():
    s = _marker_turn()
    s.when("move", 2, 4)
    events = s.when("discover", "a1", "b-imp1", dice=(7,))  # 7 > 6: failed
    assert of_type(events, DiscoverFailed) == [DiscoverFailed(unit="a1", marker="b-imp1", order="1:b1")]
    assert discover.barred(s.state, "a1", "b-imp1")
    s.state.imp_states = {"b-imp1": "imp2"}  # IMP-1 became IMP-2: the bar still holds (same marker)
    assert discover.barred(s.state, "a1", "b-imp1")
    assert not discover.barred(s.state, "a2", "b-imp1") and not discover.barred(s.state, "a1", "b-imp2")
    events = s.when("end")
    assert of_type(events, TurnEnded)
    _to_a1(s)  # a1's own Turn: the next one, the bar has lapsed
    assert not discover.barred(s.state, "a1", "b-imp1")
    assert ("discover", "b-imp1") in _options(s)


def _to_a1(s):
    if s.state.pending.kind == "act":
        s.when("end")
    if s.state.pending.kind == "keep_initiative":
        s.when("pass")
    s.when("unit", "a1")


def test_a_marker_has_a_360_degree_line_of_fire_for_its_reactions():
    from skirmish.engine.rules.skills import reactions
    s = placed(imp_game(), 4, 4, first="a")
    b1 = s.state.units["b1"]
    assert reactions.in_front(s.state, b1, 4, 7)  # behind it (b faces row 0), still in front
    s.state.imp_states = {}
    assert not reactions.in_front(s.state, b1, 4, 7)


def test_regaining_imp1_takes_an_entire_order_out_of_enemy_line_of_fire():
    blocked = "aaa#aaaa\naaaaaaaa\n........\n........\n########\n........\nbbbbbbbb\nbbbbbbbb"
    s = imp_game(map=blocked)
    s.when("deploy", 4, 6, dice=(10, 1))
    s.when("first", "b")
    s.when("unit", "b1")
    assert ("impersonate",) in _options(s)  # the wall hides it from a1
    events = s.when("impersonate")
    assert of_type(events, MarkerPlaced)[0].why == "regained" and of_type(events, TurnEnded)
    assert s.state.imp_states == {"b-imp1": "imp1"}


def test_no_regaining_in_an_enemys_line_of_fire_or_after_another_action():
    s = imp_game()
    s.when("deploy", 4, 4, dice=(10, 1))
    s.when("first", "b")
    s.when("unit", "b1")
    assert ("impersonate",) not in _options(s)  # a1 sees it across the open board


def test_fire_ammunition_burns_the_skill_and_it_does_not_come_back():
    s = imp_game()
    s.when("deploy", 4, 4, dice=(10, 1))
    s.state.units["a1"].weapons = (s.state.units["a1"].weapons[0].__class__(
        name="flamer", kind="ranged", damage=3, ammo=("fire",)),)
    from skirmish.engine.model import TaskFrame
    from skirmish.engine.rules.context import Context
    ctx = Context(s.state, ScriptedDice(()), __import__("skirmish.engine.rules.registry", fromlist=["x"]).rules_of(s.state))
    s.state.stack = [TaskFrame(unit="a1", task="attack", target="b1", weapon=0)]
    impersonation.on_hit(ctx, s.state.units["b1"], 0)  # no damage got through: burnt all the same
    assert of_type(ctx.events, ImpersonationLost) == [ImpersonationLost(unit="b1", why="burnt")]


def test_a_marker_of_a_side_in_retreat_is_revealed():
    s = placed(imp_game(), 4, 4, first="a")
    s.state.retreat = ("b",)
    from skirmish.engine.rules.context import Context
    from skirmish.engine.rules.registry import rules_of
    ctx = Context(s.state, ScriptedDice(()), rules_of(s.state))
    assert impersonation.on_idle(ctx)
    assert of_type(ctx.events, ImpersonationRevealed)[0].why == "retreat!"
    assert not impersonation.can_adopt(s.state, s.state.units["b1"])


def test_the_revealed_figure_faces_a_direction_of_its_owners_choice():
    s = _marker_turn()
    s.when("reveal", "recover", dice=(1, 1))
    while s.state.pending.kind != "imp_facing":
        s.when(*s.state.pending.options[0], dice=(1, 1, 1, 1))
    p = s.state.pending
    assert p.side == "b" and len(p.options) == 8
    events = s.when("face", "b1", -1, 0)
    assert of_type(events, FacingChanged) == [FacingChanged(unit="b1", dx=-1, dy=0)]
    assert s.state.imp_facing == ()


def test_enemies_perceive_the_marker_as_an_ally_no_threat_in_reach():
    s = placed(imp_game(), 2, 3, first="a")
    assert not impersonation.can_threaten(s.state, s.state.units["b1"])
    assert impersonation.can_threaten(s.state, s.state.units["b2"])


# -- the seed's worked example ------------------------------------------------------------------------------


def test_example_fiday_moving_into_base_contact_with_a_fusilier():
    """seed 003, "EXAMPLE OF IMPERSONATION AND BASE TO BASE CONTACT": the Fiday (b1, IMP-1) moves
    into base contact with the Fusilier (a1): revealed the moment he declares the Movement, he
    moves as a figure, the enemies react to the figure (without delaying: the Fusilier may Dodge),
    then he declares his second Short Skill, a CC Attack against the Fusilier."""
    s = _marker_turn(2, 4)
    assert ("reveal", "move", 2, 2) in _options(s)
    events = s.when("reveal", "move", 2, 2)
    revealed = of_type(events, ImpersonationRevealed)[0]
    moved = of_type(events, UnitMoved)[0]
    assert revealed.why == "base contact" and events.index(revealed) < events.index(moved)  # a figure all along
    assert (revealed.x, revealed.y) == (2, 4) and (moved.x, moved.y) == (2, 2)
    assert s.state.imp_states == {} and s.state.units["b1"].deployed
    # the Fusilier reacts to a figure: Change Facing / no Discover (nothing to Discover any more)
    p = s.state.pending
    if p.kind == "react":
        assert not [o for o in p.options if o[0] == "discover"]
        s.when("none")
    while s.state.pending.kind != "act":
        s.when(*s.state.pending.options[0])
    opts = _options(s)
    assert ("attack", "a1", 1, 0) in opts  # his second Short Skill: the CC Attack (the knife) on the Fusilier
    assert not [o for o in opts if o[0] == "reveal"]  # a figure now: nothing left to reveal
    s.when("attack", "a1", 1, 0)
    p = s.state.pending
    assert p is not None and (p.kind != "react" or ("dodge", "a1") in p.options)  # the Fusilier may Dodge


# -- the views and the bots ---------------------------------------------------------------------------------


def _view(log, viewer):
    from skirmish.engine.evolve import evolve, initial_state
    from skirmish.engine.view import viewed
    state = None
    for e in viewed(log, viewer):
        if e is None:
            continue
        state = initial_state(e) if state is None else (evolve(state, e) or state)
    return state


def _two_markers(salt=SALT):
    units = [("a1", "a", "fusilier", 2, 1), ("b1", "b", "fiday", 4, 7), ("b2", "b", "basic", 1, 7)]
    s = imp_game(units=units, deploy=("b1", "b2"), salt=salt)
    first = s.state.pending.unit
    s.when("impersonate", 4, 4)
    s.when("impersonate", 6, 3, dice=(10, 1))
    s.when("first", "a")
    return s, first


def test_the_other_side_sees_markers_never_which_unit_is_behind_them():
    from skirmish.engine.base import Hidden
    s, _ = _two_markers()
    for viewer in ("a", "spectator"):
        v = _view(s.log, viewer)
        assert set(v.imp_markers) == {"b-imp1", "b-imp2"} and all(isinstance(u, Hidden) for u in v.imp_markers.values())
        assert {"b-imp1", "b-imp2"} <= set(v.units)  # the markers, as shadows
        assert not v.units["b1"].deployed and isinstance(v.units["b1"].x, Hidden)
        assert v.units["b-imp1"].name == Hidden("name")
    own = _view(s.log, "b")
    assert set(own.imp_markers.values()) == {"b1", "b2"} and "b-imp1" not in own.units


def test_the_sampler_pairs_the_markers_from_the_view_never_the_truth():
    from collections import Counter
    import random
    from skirmish.bots import determinize as det
    s, _ = _two_markers()
    view = _view(s.log, "a")
    assert det.hidden(view)
    drawn = Counter()
    for k in range(200):
        d = det.determinize(view, "a", random.Random(k))
        pair = (d.imp_markers["b-imp1"], d.imp_markers["b-imp2"])
        assert sorted(pair) == ["b1", "b2"] and "b-imp1" not in d.units
        at = {m: (d.units[u].x, d.units[u].y) for m, u in zip(("b-imp1", "b-imp2"), pair)}
        assert at == {"b-imp1": (view.units["b-imp1"].x, view.units["b-imp1"].y),
                      "b-imp2": (view.units["b-imp2"].x, view.units["b-imp2"].y)}
        drawn[pair] += 1
    assert len(drawn) == 2  # both pairings: the truth is one of them, the view does not say which
    # another truth (the salt paired them otherwise) gives the same view, and so the same samples
    s2, _ = _two_markers(salt=OTHER_SALT)
    assert s2.state.imp_markers != s.state.imp_markers  # the other pairing
    s2_view = _view(s2.log, "a")
    assert [det.determinize(s2_view, "a", random.Random(k)).imp_markers for k in range(20)] == \
           [det.determinize(view, "a", random.Random(k)).imp_markers for k in range(20)]


def test_a_sample_names_a_marker_in_the_pending_options_as_its_unit_where_the_option_names_a_unit():
    """An option of a side's own decision may name an enemy marker: a Discover names the marker
    itself (kept), any other (an attack's bystander) names the unit behind it, which the sample
    renames as the unit it put there, so a bot that scores and simulates the options on the sample
    finds every unit they name (greedy raised KeyError on a bystander naming a marker)."""
    import random
    from skirmish.bots import determinize as det
    from skirmish.bots.greedy import GreedyBot
    from skirmish.bots.mcts import MctsBot
    from skirmish.bots.policy import option_scores
    s, _ = _two_markers()
    s.when("unit", "a1")
    view = _view(s.log, "a")
    assert [o for o in view.pending.options if o[0] == "discover"]  # a1 may Discover the markers in reach
    bystand = msgspec.structs.replace(view.pending, kind="bystander", options=[("threat",), ("bystander", "b-imp1")])
    view_b = msgspec.structs.replace(view, pending=bystand)
    for k in range(10):
        d = det.determinize(view, "a", random.Random(k))
        assert list(d.pending.options) == list(view.pending.options)  # Discover names the markers themselves
        d_b = det.determinize(view_b, "a", random.Random(k))
        unit = d_b.imp_markers["b-imp1"]
        assert d_b.pending.options[1] == ("bystander", unit) and unit in d_b.units and "b-imp1" not in d_b.units
        assert det.same_decision(d_b.pending.options, bystand.options)
    assert not det.same_decision([("threat",), ("bystander", "b2")], [("threat",), ("attack", "b-imp1")])
    # what greedy and mcts score the options with finds the unit (it raised KeyError on the marker's name)
    d_b = det.determinize(view_b, "a", random.Random(0))
    assert len(option_scores(d_b, d_b.pending)) == 2
    for seed in range(3):  # and both play the real decision of a view with markers
        assert GreedyBot(seed).choose(view, view.pending) in view.pending.options
        assert MctsBot(seed, iterations=30).choose(view, view.pending) in view.pending.options
