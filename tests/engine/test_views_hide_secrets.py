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

import random

import msgspec
import pytest

from skirmish.engine import events as ev
from skirmish.engine.base import Hidden
from skirmish.engine.commands import Choose, Start
from skirmish.engine.decide import decide
from skirmish.engine.dice import LocalDice
from skirmish.engine.evolve import initial_state
from skirmish.engine.mission import game_created
from skirmish.engine.rules import registry
from skirmish.engine.rules.registry import Module, Secret
from skirmish.engine.view import view
from skirmish.server import missions

from tests.engine.views_check import Follow

MISSIONS = sorted(missions.bundled())
GAMES = 12
HANDLE = "hidden-1"  # the probe's handle for the hidden unit


def play(created: ev.GameCreated, seed: int, limit: int = 4000) -> Follow:
    """A random playout, followed (options drawn from the full state's decisions: this is not a
    test of the bots)."""
    f = Follow(created)
    dice, rng = LocalDice(seed), random.Random(seed)
    events = decide(f.truth.state, Start(), dice)
    for _ in range(limit):
        f.apply(events)
        p = f.truth.state.pending
        if p is None:
            break
        events = decide(f.truth.state, Choose(p.id, rng.choice(p.options), p.side), dice)
    assert f.truth.state.outcome is not None, "the game did not end"
    return f


@pytest.mark.parametrize("mission_id", MISSIONS)
def test_no_viewer_learns_a_secret_before_the_end(mission_id):
    mission = missions.load(mission_id)
    checked = 0
    for seed in range(GAMES):
        f = play(game_created(f"g-{mission_id}-{seed}", mission, "local", ""), seed)
        assert not f.leaks, (mission_id, seed, f.leaks[:5])
        checked += f.checked
    declares = registry.rules_for(tuple(mission.modules)).secrets
    assert checked > 0 if declares else checked == 0  # a module with secrets was held to them


# -- the probe: one unit of side b that side a and spectators may not see ----------------------------


def _hidden_unit(state) -> str:
    return sorted(u.id for u in state.units.values() if u.side == "b")[0]


def _blind(viewer: str) -> bool:
    return viewer != "b"


def _rename(plain, uid: str):
    if isinstance(plain, dict):
        return {k: _rename(v, uid) for k, v in plain.items()}
    if isinstance(plain, (list, tuple)):
        return [_rename(v, uid) for v in plain]
    return HANDLE if plain == uid else plain


def _hide_ints(option):
    return tuple(Hidden("position") if isinstance(x, int) else x for x in option)


def probe_game_created(state, e: ev.GameCreated, viewer: str):
    if not _blind(viewer):
        return e
    uid = _hidden_unit(state)
    masked = [msgspec.structs.replace(u, id=HANDLE, name=Hidden("name"), x=Hidden("position"), y=Hidden("position"))
              for u in e.units if u.id == uid]
    return msgspec.structs.replace(e, units=(*(u for u in e.units if u.id != uid), *masked))  # its place in the list tells too


def probe_event(state, e, viewer: str):
    """Any later event: the unit is named by its handle; its moves and the options of its
    decisions (cells) hide their numbers; the state hashes, which would let its place be
    searched for, are withheld (a real module salts the state instead)."""
    if not _blind(viewer):
        return e
    if isinstance(e, ev.Checkpoint):
        return None
    uid = _hidden_unit(state)
    if isinstance(e, ev.UnitMoved) and e.unit == uid:
        return ev.UnitMoved(unit=HANDLE, x=Hidden("position"), y=Hidden("position"))
    about = (e.decision.unit if isinstance(e, ev.DecisionRequested)
             else state.pending.unit if isinstance(e, ev.OptionChosen) and state.pending is not None else "")
    if about == uid:
        if isinstance(e, ev.DecisionRequested):
            options = tuple(dict.fromkeys(_hide_ints(o) for o in e.decision.options))
            e = msgspec.structs.replace(e, decision=msgspec.structs.replace(e.decision, options=options))
        else:
            e = msgspec.structs.replace(e, option=_hide_ints(e.option))
    return msgspec.convert(_rename(msgspec.to_builtins(e), uid), type(e))


def probe_secrets(state, viewer: str):
    if not _blind(viewer):
        return
    uid = _hidden_unit(state)
    yield Secret(f"which unit is {HANDLE}", ("units", uid, "id"), token=True)
    yield Secret(f"{uid}'s name", ("units", uid, "name"), seen_as=("units", HANDLE, "name"))
    for axis in ("x", "y"):
        yield Secret(f"{uid}'s position ({axis})", ("units", uid, axis), seen_as=("units", HANDLE, axis))


def probe_can_target(state, unit, target) -> bool:
    return not (target.id == _hidden_unit(state) and unit.side != target.side)  # nobody attacks what it cannot see


_EVENTS = [t for t in ev.AnyEvent.__args__ if t is not ev.GameCreated]
PROBE = Module(name="probe", seed="test", summary="one unit of side b hidden from side a and spectators",
               redactions={ev.GameCreated: probe_game_created, **{t: probe_event for t in _EVENTS}},
               secrets=probe_secrets, can_target=probe_can_target)
LEAKY = Module(name="probe", seed="test", summary="the probe's secrets, with nothing hidden",
               secrets=probe_secrets, can_target=probe_can_target)


def _with(module, monkeypatch, mission_id: str):
    monkeypatch.setattr(registry, "CATALOG", registry.CATALOG.with_modules(module))
    mission = missions.load(mission_id)
    return msgspec.structs.replace(mission, modules=(*mission.modules, "probe"))


@pytest.mark.parametrize("mission_id", MISSIONS)
def test_a_module_can_hide_a_units_identity_and_position_from_the_start(mission_id, monkeypatch):
    mission = _with(PROBE, monkeypatch, mission_id)
    moved = 0
    for seed in range(4):
        created = game_created(f"g-probe-{seed}", mission, "local", "")
        f = play(created, seed)
        assert not f.leaks, (mission_id, seed, f.leaks[:5])
        assert f.checked > 0
        a, b = f.known["a"].state, f.known["b"].state
        uid = _hidden_unit(f.truth.state)
        assert uid not in a.units and isinstance(a.units[HANDLE].x, Hidden)
        assert uid in b.units and HANDLE not in b.units  # its own side sees it as it is
        moved += f.truth.state.units[uid].x != created.units[[u.id for u in created.units].index(uid)].x
    assert moved, "the hidden unit never moved: its later events were not put to the test"


def test_the_check_finds_what_a_redaction_lets_through(monkeypatch):
    """The same secrets with no redaction: the harness names the leaks (it does not trust the
    redactions, it looks at what each viewer holds)."""
    mission = _with(LEAKY, monkeypatch, "ridge")
    f = play(game_created("g-leaky", mission, "local", ""), 1)
    what = {(v, w.split(" ")[-1].strip("()")) for _, v, w, _ in f.leaks}
    uid = _hidden_unit(f.truth.state)
    assert {(v, w) for v in ("a", "spectator") for w in (HANDLE, "x", "y")} <= what, sorted(what)
    assert (f"{uid}'s name" in {w for _, _, w, _ in f.leaks})
    assert not [x for x in f.leaks if x[1] == "b"]  # side b may see its own unit


def test_a_redaction_sees_the_state_before_its_event_and_gamecreated_the_state_it_creates(monkeypatch):
    seen_states = []

    def spy(state, e, viewer):
        seen_states.append((type(e).__name__, state.seq, state.units[_hidden_unit(state)].x))
        return e

    spy_module = Module(name="probe", seed="test", summary="records what its redactions see",
                        redactions={ev.GameCreated: spy, ev.UnitMoved: spy})
    mission = _with(spy_module, monkeypatch, "ridge")
    created = game_created("g-spy", mission, "local", "")
    state = initial_state(created)
    assert view(None, created, "a") == created and seen_states[-1][:2] == ("GameCreated", 1)
    moved = ev.UnitMoved(unit=_hidden_unit(state), x=5, y=5)
    view(state, moved, "a")
    assert seen_states[-1] == ("UnitMoved", 1, state.units[_hidden_unit(state)].x)  # before the move
