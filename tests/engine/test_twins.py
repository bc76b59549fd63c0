"""Twin games (issue 15, "Hidden information, end to end"): two games that differ only in a hidden
fact give every viewer it is hidden from byte-identical frames until it is revealed
(``tests/engine/twins.py``). Shown with the probe module (one unit of side b hidden from side a
and spectators under a handle) and the challenges module (hidden hands); the check is shown to
fail on leaky twins. A new module with hidden facts adds a ``Case`` to ``CASES`` below: its
mission, how to make the twins of a seed, and the event that reveals the fact."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import NamedTuple

import msgspec
import pytest

from skirmish.engine import events as ev
from skirmish.engine.board import terrain
from skirmish.engine.evolve import initial_state
from skirmish.engine.mission import game_created
from skirmish.engine.rules import registry
from skirmish.engine.rules.challenges import events as cev
from skirmish.engine.rules.challenges.cards import DRAW
from skirmish.engine.rules.skills.hd_parts import HiddenPlaced, HiddenRevealed, CamouflageDiscovered
from skirmish.engine.rules.skills import imp_events as iev
from skirmish.engine.rules.skills.events import LieutenantRevealed
from skirmish.engine.rules.skills.impersonation import is_marker
from skirmish.server import missions

from tests.engine.leaks import play
from tests.engine.twins import NonceDice, play_twins
from tests.engine.views_probe import LEAKY, PROBE, SHALLOW, hidden_unit, with_probe

MISSIONS = sorted(missions.bundled())


def never(state, event) -> bool:
    return False


def renamed(created: ev.GameCreated, uid: str, **fields) -> ev.GameCreated:
    """``created`` with unit ``uid``'s fields replaced."""
    units = tuple(msgspec.structs.replace(u, **fields) if u.id == uid else u for u in created.units)
    new = fields.get("id", uid)
    candidates = {side: tuple(new if c == uid else c for c in ids) for side, ids in created.lt_candidates.items()}
    return msgspec.structs.replace(created, units=units, lt_candidates=candidates)  # a candidate keeps its id's place


def probe_twins(mission_id: str, monkeypatch, module=PROBE):
    """A game of ``mission_id`` with ``module`` on, and its twin whose hidden unit has another id
    (still side b's first) and another name."""
    created = game_created(f"g-{mission_id}", with_probe(module, monkeypatch, mission_id), "local", "")
    uid = hidden_unit(initial_state(created))
    return created, renamed(created, uid, id=f"{uid[0]}0x", name="Someone Else"), uid


@pytest.mark.parametrize("mission_id", MISSIONS)
def test_twins_differing_in_which_unit_is_hidden_get_identical_frames_to_the_end(mission_id, monkeypatch):
    created, twin, uid = probe_twins(mission_id, monkeypatch)
    for seed in range(2):
        t = play_twins(created, twin, never, seed=seed)
        assert t.leak is None, (mission_id, seed, t.leak)
        assert t.ended and t.compared["a"] > 200 and t.compared["spectator"] == t.compared["a"]
        assert hidden_unit(t.games[1].state) != uid and any(e for e in t.games[0].log if getattr(e, "unit", "") == uid)


def test_the_twins_catch_a_redaction_that_hides_nothing(monkeypatch):
    created, twin, _ = probe_twins("ridge", monkeypatch, LEAKY)
    t = play_twins(created, twin, never, seed=0)
    assert t.leak is not None and t.leak[:2] == ("a", 0)  # the GameCreated frame already differs


@pytest.mark.parametrize("check", ["twins", "follow"])
def test_an_id_inside_a_composite_key_is_caught(check, monkeypatch):
    """A redaction renaming the unit only where its id is a whole value lets it through inside an
    order's key ("3:b1:lieutenant order") or a procedure's ("spotlight|b1"): both checks find it
    (the probe did this before issue 15; breach, seed 2, plays such an order)."""
    created, twin, uid = probe_twins("breach", monkeypatch, SHALLOW)
    if check == "twins":
        t = play_twins(created, twin, never, seed=2)
        assert t.leak is not None and t.leak[0] == "a"
        assert f":{uid}".encode() in t.leak[2] or f"|{uid}".encode() in t.leak[2], t.leak
    else:
        leaks = [x for seed in range(3) for x in play(created, seed).leaks]
        assert any(w == "which unit is hidden-1" and v == "a" for _, v, w, _ in leaks), leaks[:5]


def test_the_twins_find_a_hidden_position_in_the_options_of_the_units_that_cannot_enter_its_cell(monkeypatch):
    """The probe hides where its unit stands, but not from the other units' options: the cells they
    may move to leave its cell out, and an enemy in reach may Create Advantage against its
    handle. Twins differing only in where it starts show it before the unit itself does anything
    (a lesson for Hidden Deployment: occupancy and reach are channels too)."""
    created = game_created("g-where", with_probe(PROBE, monkeypatch, "ridge"), "local", "")
    uid = hidden_unit(initial_state(created))
    taken = {(u.x, u.y) for u in created.units}
    b = created.board
    free = [(x, y) for y in range(b.height) for x in range(b.width) if terrain(b, x, y) == "b" and (x, y) not in taken]

    def acts(state, e) -> bool:  # the hidden unit's first action
        return getattr(e, "unit", "") == uid and not isinstance(e, ev.DecisionRequested)

    found = 0
    for x, y in free[:2]:
        for seed in range(3):
            t = play_twins(created, renamed(created, uid, x=x, y=y), acts, seed=seed)
            if t.leak is not None:
                assert b"DecisionRequested" in t.leak[2] and b"options" in t.leak[2]
                found += 1
    assert found >= 4


def knives_twins(seed: int, created: ev.GameCreated | None = None):
    """A game of knives and its twin in which side b's draws (and so its hand) fell otherwise: the
    rolls of b's draws, hidden from a and spectators, come from other dice (``NonceDice``)."""
    created = created or game_created("g-knives", missions.load("knives"), "local", "")
    first = play_twins(created, created, never, seed=seed)  # where b's draws fall, in step
    draws = {e.nonce for e in first.games[0].log if isinstance(e, ev.DiceRolled) and e.purpose == DRAW and e.unit == "b"}
    return created, (NonceDice(seed), NonceDice(seed, 10_000 + seed, draws))


def b_plays_a_card(state, e) -> bool:
    return isinstance(e, cev.CardPlayed) and e.side == "b"


@pytest.mark.parametrize("seed", range(6))
def test_twins_differing_in_side_bs_hidden_hand_get_identical_frames_until_it_plays_a_card(seed):
    created, dice = knives_twins(seed)
    t = play_twins(created, created, b_plays_a_card, seed=seed, dice=dice)
    assert t.leak is None, (seed, t.leak)
    one, two = (g.state for g in t.games)
    assert one.hands["b"] != two.hands["b"] and one.hands["a"] == two.hands["a"]
    assert t.compared["a"] > 300 and (t.revealed or t.ended)
    hashes = [[e.state_hash for e in g.log if isinstance(e, ev.Checkpoint)] for g in t.games]
    assert hashes[0] != hashes[1]  # the salted commitments differ: their masking is what lets the frames agree
    assert one.salt == two.salt and one.salt


def test_the_twins_catch_the_challenges_module_without_its_redactions(monkeypatch):
    bare = dataclasses.replace(registry.CATALOG.module("challenges"), redactions={})
    monkeypatch.setattr(registry, "CATALOG", registry.CATALOG.with_modules(bare))
    created, dice = knives_twins(0)
    t = play_twins(created, created, b_plays_a_card, seed=0, dice=dice)
    assert t.leak is not None and (b"CardDrawn" in t.leak[2] or DRAW.encode() in t.leak[2]), t.leak


class Case(NamedTuple):
    """Twins to hold to identical frames: ``prepare(monkeypatch)`` sets the case up (a test
    module in the catalog) and returns ``make(seed)``, which gives the two ``GameCreated`` and the
    two dice (None: ``LocalDice(seed)`` each); ``reveal(state, event)``
    is the event that reveals the fact; ``blind``: the viewers it is hidden from; ``frames``: the
    fewest frames each blind viewer must have compared (a fact revealed early compares fewer);
    ``seeds``: the seeds played (each the twins' dice and choices)."""

    name: str
    prepare: Callable
    reveal: Callable = never
    blind: tuple = ("a", "spectator")
    frames: int = 100
    seeds: tuple = (10, 11, 12, 13)


def _probe_case(mission_id: str) -> Case:
    def prepare(monkeypatch):
        created, twin, _ = probe_twins(mission_id, monkeypatch)
        return lambda seed: (created, twin, None)

    return Case(f"{mission_id}+probe", prepare)


def _knives(monkeypatch):
    def make(seed):
        created, dice = knives_twins(seed)
        return created, created, dice

    return make


def b_reveals_a_hidden_unit(state, e) -> bool:
    """Hidden Deployment (skills/hidden_deployment.py): side b's answer that reveals its hidden unit, or
    the reveal itself."""
    p = state.pending
    return (isinstance(e, HiddenRevealed) and e.side == "b") or (
        isinstance(e, ev.OptionChosen) and p is not None and p.kind == "reveal" and p.side == "b" and e.option[0] == "reveal")


def _ambush(uid: str = "b4", **fields):
    """ambush and its twin whose side b's unit ``uid`` (b4: in Hidden Deployment, b5: a Camouflage
    marker) has ``fields`` otherwise."""
    def prepare(monkeypatch):
        created = game_created("g-ambush", missions.load("ambush"), "local", "")
        twin = renamed(created, uid, **fields)
        return lambda seed: (created, twin, None)

    return prepare


def masquerade_twins(seed: int):
    """A game of masquerade and its twin in which side b's secrecy salt (the first roll, nonce 0)
    fell otherwise, and so the pairing of its two markers with its two impersonators
    (skills/impersonation.py): which unit is behind each marker is all that differs."""
    created = game_created("g-masquerade", missions.load("masquerade"), "local", "")
    return created, (NonceDice(seed), NonceDice(seed, seed + 1, frozenset({0})))


def a_marker_is_revealed(state, e) -> bool:
    return isinstance(e, iev.ImpersonationRevealed)


# seeds whose random play deploys both impersonators as markers and keeps them so for hundreds of
# frames, with twins pairing them otherwise (in most seeds one deploys as a figure: revealed at once)
MASQUERADE_SEEDS = (0, 7, 27, 32, 37)


def _masquerade(monkeypatch):
    def make(seed):
        created, dice = masquerade_twins(seed)
        return created, created, dice

    return make


def a_reveals_a_hidden_unit(state, e) -> bool:
    """Side a's answer that reveals its hidden unit, or the reveal itself (side b's impersonators
    deploy while it is hidden: their options must not step around its cell)."""
    p = state.pending
    return (isinstance(e, HiddenRevealed) and e.side == "a") or (
        isinstance(e, ev.OptionChosen) and p is not None and p.kind == "reveal" and p.side == "a" and e.option[0] == "reveal")


def _nightfall(uid: str, **fields):
    """nightfall (every hidden thing at once) and its twin whose unit ``uid`` has ``fields`` otherwise."""
    def prepare(monkeypatch):
        created = game_created("g-nightfall", missions.load("nightfall"), "local", "")
        twin = renamed(created, uid, **fields)
        return lambda seed: (created, twin, None)

    return prepare


def nightfall_salt_twins(seed: int):
    """nightfall and its twin in which side b's secrecy salt (nonce 0) fell otherwise: its
    impersonators are paired with their markers otherwise."""
    created = game_created("g-nightfall", missions.load("nightfall"), "local", "")
    return created, (NonceDice(seed), NonceDice(seed, seed + 1, frozenset({0})))


# seeds whose random play deploys both impersonators as markers, with twins pairing them otherwise
NIGHTFALL_SEEDS = (2, 32, 57, 61)


def a_marker_or_the_lieutenant_behind_it_is_revealed(state, e) -> bool:
    """nightfall's b3 is a Lieutenant candidate: a Lieutenant Order from behind its marker reveals
    which marker the Lieutenant is behind (the rules reveal the Lieutenant, by the name side a knows
    it by), and so, with b3 chosen, which marker b3 is behind: the fact the salt twins differ in."""
    return a_marker_is_revealed(state, e) or (
        isinstance(e, LieutenantRevealed) and e.side == "b" and is_marker(state, e.unit))


def _nightfall_markers(monkeypatch):
    def make(seed):
        created, dice = nightfall_salt_twins(seed)
        return created, created, dice

    return make


NIGHTFALL = [Case("nightfall: which unit is in Hidden Deployment", _nightfall("b5", id="b0x", name="Someone Else"),
                  b_reveals_a_hidden_unit, frames=40),
             Case("nightfall: where side a's hidden unit stands", _nightfall("a4", x=0, y=1), a_reveals_a_hidden_unit,
                  blind=("b", "spectator"), frames=40),
             Case("nightfall: which unit is behind side b's Camouflage marker", _nightfall("b6", id="b0y", name="Someone Other"),
                  lambda state, e: isinstance(e, CamouflageDiscovered) and e.side == "b", frames=40),
             Case("nightfall: which unit is behind each Impersonation marker", _nightfall_markers,
                  a_marker_or_the_lieutenant_behind_it_is_revealed,
                  frames=200, seeds=NIGHTFALL_SEEDS)]


CASES = [Case("knives: side b's hand", _knives, b_plays_a_card),
         _probe_case("breach"), _probe_case("hangar"),
         Case("ambush: which unit is in Hidden Deployment", _ambush(id="b0x", name="Someone Else"), b_reveals_a_hidden_unit,
              frames=40),
         Case("ambush: where the hidden unit stands", _ambush(x=0, y=11), b_reveals_a_hidden_unit, frames=40),
         Case("ambush: which unit is behind a Camouflage marker", _ambush("b5", id="b0y", name="Someone Other"),
              lambda state, e: isinstance(e, CamouflageDiscovered) and e.side == "b", frames=40),
         Case("masquerade: which unit is behind each marker", _masquerade, a_marker_is_revealed,
              seeds=MASQUERADE_SEEDS[:4])] + NIGHTFALL


@pytest.mark.parametrize("seed", MASQUERADE_SEEDS)
def test_masquerade_twins_pair_the_markers_otherwise_and_give_identical_frames_until_a_reveal(seed):
    created, dice = masquerade_twins(seed)
    t = play_twins(created, created, a_marker_is_revealed, seed=seed, dice=dice)
    assert t.leak is None, (seed, t.leak)
    pairs = [[e.units for e in g.log if isinstance(e, iev.ImpersonatorsAssigned)] for g in t.games]
    assert pairs[0] != pairs[1] and sorted(pairs[0][0]) == sorted(pairs[1][0]) == ["b3", "b4"]
    placed = [e for e in t.games[0].log if isinstance(e, iev.MarkerPlaced)]
    assert len(placed) == 2 and t.compared["a"] > 500 and t.compared["spectator"] == t.compared["a"]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_each_case_of_twins_gets_identical_frames_until_the_reveal(case, monkeypatch):
    make = case.prepare(monkeypatch)
    for seed in case.seeds:
        one, two, dice = make(seed)
        t = play_twins(one, two, case.reveal, seed=seed, dice=dice, blind=case.blind)
        assert t.leak is None, (case.name, seed, t.leak)
        assert min(t.compared.values()) > case.frames and (t.revealed or t.ended)


@pytest.mark.parametrize("seed", NIGHTFALL_SEEDS[:2])
def test_nightfall_salt_twins_pair_the_markers_otherwise_beside_hidden_and_camouflaged_units(seed):
    created, dice = nightfall_salt_twins(seed)
    t = play_twins(created, created, a_marker_or_the_lieutenant_behind_it_is_revealed, seed=seed, dice=dice)
    assert t.leak is None, (seed, t.leak)
    pairs = [[e.units for e in g.log if isinstance(e, iev.ImpersonatorsAssigned)] for g in t.games]
    assert pairs[0] != pairs[1] and sorted(pairs[0][0]) == sorted(pairs[1][0]) == ["b3", "b4"]
    log, state = t.games[0].log, t.games[0].state
    assert len([e for e in log if isinstance(e, iev.MarkerPlaced)]) == 2
    # the other hidden things are in play beside them: both hidden snipers placed, both Camouflage markers on the table
    assert {e.side for e in log if isinstance(e, HiddenPlaced)} == {"a", "b"} and len(state.markers) == 2
