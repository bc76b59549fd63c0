"""Nothing a rules module marks secret reaches a viewer before the game ends (issue 13 item 3).

Random playouts of every bundled mission, each with its modules, are followed event by event
with the full state and with what each live viewer (seat a, seat b, a spectator) folds from the
events as ``skirmish.engine.view`` shows them; after every event each module's ``secrets`` for
each viewer are looked up in both (``tests/engine/views_check.py``). A probe module, added for
the test with ``Catalog.with_modules``, hides one unit of side b from side a and spectators --
its id, its name and its position, in ``GameCreated`` and in every later event -- to show that
the views can hide what seed 003's markers need (issue 15); a leaky twin of it shows that the
check finds what a redaction lets through.
"""

from __future__ import annotations

import dataclasses

import pytest

from skirmish.engine import events as ev
from skirmish.engine.base import Hidden
from skirmish.engine.codec import encode_event
from skirmish.engine.evolve import initial_state
from skirmish.engine.log import chain_hashes
from skirmish.engine.mission import game_created
from skirmish.engine.rules import registry
from skirmish.engine.rules.registry import Module
from skirmish.engine.verify import LoggedEvent, verify_log
from skirmish.engine.view import hides, view
from skirmish.server import missions

from tests.engine.leaks import play
from tests.engine.views_probe import HANDLE, LEAKY, PROBE, hidden_unit, with_probe

MISSIONS = sorted(missions.bundled())
GAMES = 12


@pytest.mark.parametrize("mission_id", MISSIONS)
def test_no_viewer_learns_a_secret_before_the_end(mission_id):
    mission = missions.load(mission_id)
    checked = 0
    for seed in range(GAMES):
        created = game_created(f"g-{mission_id}-{seed}", mission, "local", "")
        f = play(created, seed)
        assert not f.leaks, (mission_id, seed, f.leaks[:5])
        checked += f.checked
    # a module with secrets was held to them, in a game that hides something (``view.hides``: the
    # skills module hides only where its mission asks, e.g. for private Lieutenants)
    declares = registry.rules_for(tuple(mission.modules)).secrets and hides(initial_state(created))
    assert checked > 0 if declares else checked == 0


@pytest.mark.parametrize("mission_id", MISSIONS)
def test_a_module_can_hide_a_units_identity_and_position_from_the_start(mission_id, monkeypatch):
    mission = with_probe(PROBE, monkeypatch, mission_id)
    moved = 0
    for seed in range(4):
        created = game_created(f"g-probe-{seed}", mission, "local", "")
        f = play(created, seed)
        assert not f.leaks, (mission_id, seed, f.leaks[:5])
        assert f.checked > 0
        a, b = f.known["a"].state, f.known["b"].state
        uid = hidden_unit(f.truth.state)
        assert uid not in a.units and isinstance(a.units[HANDLE].x, Hidden)
        assert uid in b.units and HANDLE not in b.units  # its own side sees it as it is
        moved += f.truth.state.units[uid].x != created.units[[u.id for u in created.units].index(uid)].x
    assert moved, "the hidden unit never moved: its later events were not put to the test"


def test_the_check_finds_what_a_redaction_lets_through(monkeypatch):
    """The same secrets with no redaction: the harness names the leaks (it does not trust the
    redactions, it looks at what each viewer holds)."""
    mission = with_probe(LEAKY, monkeypatch, "ridge")
    f = play(game_created("g-leaky", mission, "local", ""), 1)
    what = {(v, w.split(" ")[-1].strip("()")) for _, v, w, _ in f.leaks}
    uid = hidden_unit(f.truth.state)
    assert {(v, w) for v in ("a", "spectator") for w in (HANDLE, "x", "y")} <= what, sorted(what)
    assert (f"{uid}'s name" in {w for _, _, w, _ in f.leaks})
    assert not [x for x in f.leaks if x[1] == "b"]  # side b may see its own unit


def test_without_its_redactions_the_challenges_module_is_caught_leaking_what_it_declares(monkeypatch):
    bare = dataclasses.replace(registry.CATALOG.module("challenges"), redactions={})
    monkeypatch.setattr(registry, "CATALOG", registry.CATALOG.with_modules(bare))
    f = play(game_created("g-bare", missions.load("knives"), "local", ""), 1)
    what = {w for _, _, w, _ in f.leaks}
    assert {"side a's hand", "side b's hand", "side a's deck", "the draws of side b", "the salt",
            "the salt's dice"} <= what, sorted(what)


def test_the_redactions_of_gamecreated_see_the_state_it_creates(monkeypatch):
    seen = []

    def spy(state, e, viewer):
        seen.append((state.seq, sorted(state.units), viewer))
        return e

    mission = with_probe(Module(name="probe", seed="test", summary="records what its redactions see",
                                redactions={ev.GameCreated: spy}), monkeypatch, "ridge")
    created = game_created("g-spy", mission, "local", "")
    assert view(None, created, "a") == created
    assert seen == [(1, sorted(u.id for u in created.units), "a")]
    assert view(initial_state(created), created, "b") == created and seen[-1][2] == "b"


def test_a_log_whose_gamecreated_is_a_view_does_not_verify(monkeypatch):
    """The stored log is the full log: a GameCreated as side a saw it (the unit's name and
    position hidden) is not one, and verify says so at event 1."""
    mission = with_probe(PROBE, monkeypatch, "ridge")
    created = game_created("g-view", mission, "local", "")
    seen = view(None, created, "a")
    data = [encode_event(seen)]
    report = verify_log("g-view", [LoggedEvent(1, data[0], chain_hashes("g-view", data)[0])])
    assert not report.ok and report.bad_seq == 1 and "view" in report.problem
