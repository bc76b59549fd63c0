"""nightfall (issue 15): every hidden thing of the skills module in one game, where they meet for the
first time: private Lieutenants on both sides, side b's Impersonation markers, a unit in Hidden
Deployment and a Camouflage marker on each side, Sat-Lock spotters. The bots play it to the end and
it verifies; the joins are held here: a Comms Attack (Sat-Lock, Forward Observer) names a Camouflage
marker but never an Impersonation marker (no Attacks against it); the search's three samplers
(private.sample, markers.sample, hidden_deployment.sample) fill in one view together, never from
the truth; a Lieutenant Order given from behind a marker folds after its reveal (a join bug fixed)."""

from __future__ import annotations

import random

import pytest

from skirmish.bots import determinize as det
from skirmish.engine.base import Hidden
from skirmish.engine.mission import game_created
from skirmish.engine.rules.skills import imp_events as iev
from skirmish.engine.rules.skills.hd_parts import CamouflageDiscovered, HiddenPlaced
from skirmish.server import missions

from tests.engine.rules.skills.missions import play as play_match
from tests.engine.rules.skills.test_skills_hidden import Game, folded

MISSION = "nightfall"
COMMS = ("sat_lock", "observe", "hack")


def _game(seed: int) -> Game:
    return Game(seed, created=game_created(f"g-nf-{seed}", missions.load(MISSION), "local", ""))


@pytest.mark.parametrize("names", [("greedy", "random"), ("random", "greedy"), ("mcts:30", "greedy"),
                                   ("greedy", "mcts:30")])
def test_bots_play_nightfall_to_the_end_and_verify(names):
    for result, events, report in play_match(missions.load(MISSION), names, [1]):
        assert report.ok, report.problem
        assert result.outcome is not None
        assert {e.side for e in events if isinstance(e, HiddenPlaced)} == {"a", "b"}
        assert any(isinstance(e, iev.ImpersonatorsAssigned) for e in events)


def test_no_attack_names_an_impersonation_marker_a_comms_attack_or_a_hidden_units_reveal():
    """Sat-Lock at a Camouflage marker is how it is Discovered; an Impersonation marker allows no
    Attack (seed 003): no Comms Attack names it, and a hidden unit's reveal window on its Order
    offers no reveal-and-shoot at it (only Discover names it)."""
    from skirmish.engine.rules.skills.impersonation import is_marker

    at_camo = at_imp = standing = windows = shots = 0
    for seed in range(25):
        g = _game(seed)
        for _ in range(3000):
            p = g.state.pending
            if p is None:
                break
            markers = {u for m, u in g.state.imp_markers.items() if m in g.state.imp_states}  # the truth names them by id
            standing += bool(markers)
            for o in p.options:
                if o[0] in COMMS:
                    at_imp += any(x in markers for x in o[1:])
                    at_camo += any(x in g.state.markers for x in o[1:])
            if p.kind == "reveal" and p.side == "a" and is_marker(g.state, p.unit):
                windows += 1
                shots += sum(len(o) > 2 for o in p.options)
            g.step()
        assert g.state.pending is None, seed
    assert standing > 100 and at_camo > 0 and at_imp == 0, (standing, at_camo, at_imp)
    assert windows > 0 and shots == 0, (windows, shots)


def test_the_three_samplers_fill_in_one_view_together():
    """From each side's view after deployment, a determinized world has the other side's Lieutenant
    among its candidates, each of its IMP markers paired with a distinct impersonator, its hidden unit
    on a cell of its zone, and no two units of the table on one cell."""
    checked = 0
    for seed in (2, 32):
        g = _game(seed).run(until=lambda g: g.state.round >= 1 and g.state.pending.kind == "act")
        for side in ("a", "b"):
            other = "b" if side == "a" else "a"
            seen = folded(g.events, side)
            assert isinstance(seen.lieutenants.get(other), Hidden)
            for k in range(30):
                w = det.determinize(seen, side, random.Random(k))
                assert w.lieutenants[other] in w.lt_candidates[other]
                paired = [u for m, u in w.imp_markers.items() if m.startswith(other + "-")]
                assert all(isinstance(u, str) for u in paired) and len(set(paired)) == len(paired)
                # a hidden unit holds no cell (an enemy may move into it: hidden_deployment.py), so only the
                # table's units are held to one unit a cell
                cells = [(u.x, u.y) for u in w.units.values() if not u.dead and u.deployed and isinstance(u.x, int)]
                assert len(cells) == len(set(cells)), (seed, side, k)
                for u in (u for u in w.hidden.values() if u.side == other):
                    assert isinstance(u.x, int) and w.board.cells[u.y * w.board.width + u.x] == other
                checked += 1
            assert isinstance(seen.lieutenants.get(other), Hidden)  # the view is left as it was
    assert checked == 120


def test_a_random_game_of_nightfall_uses_every_hidden_thing():
    kinds = set()
    for seed in range(6):
        g = _game(seed).run()
        for e in g.events:
            if isinstance(e, (HiddenPlaced, CamouflageDiscovered, iev.MarkerPlaced, iev.ImpersonationRevealed)):
                kinds.add(type(e).__name__)
            if type(e).__name__ == "LieutenantChosen":
                kinds.add("LieutenantChosen")
    assert kinds >= {"HiddenPlaced", "MarkerPlaced", "ImpersonationRevealed", "LieutenantChosen"}, kinds


def test_a_lieutenant_order_from_behind_a_marker_folds_after_the_reveal_and_in_a_sampled_world():
    """Join (issue 15): b3, a Lieutenant candidate, may give a Lieutenant Order behind its marker; side
    a's view names it by the marker (a shadow). The view's reveal once left the shadow's name in
    ``coordinated`` (and other unit fields), and the side's next Lieutenant Order failed to fold
    (KeyError: 'b-imp1'); the search's sampler likewise. Now both rename it (imp_evolve.rename_shadow)."""
    from skirmish.engine.evolve import evolve, initial_state
    from skirmish.engine.rules.skills.events import LieutenantOrder
    from skirmish.engine.view import viewed

    behind = 0
    for seed in (40, 51):  # random games in which b3 gives a Lieutenant Order behind its marker
        g = _game(seed).run()
        for viewer in ("a", "spectator"):
            state, k = None, 0
            for e in viewed(g.events, viewer):
                if e is None:
                    continue
                state = initial_state(e) if state is None else (evolve(state, e) or state)
                k += 1
                assert all(u in state.units for u in state.coordinated), (seed, viewer, k, state.coordinated)
                if isinstance(e, LieutenantOrder) and e.unit in state.imp_states and viewer == "a":
                    behind += 1
                    for r in range(5):  # a world sampled right after it names the unit, not the shadow
                        w = det.determinize(state, "a", random.Random(r))
                        assert all(u in w.units for u in w.coordinated), (seed, w.coordinated)
    assert behind == 2
