"""``skirmish.engine.clone``: the planned deep copy ``decide`` runs on, against the MessagePack round trip.

Over random playouts of every bundled mission, at every decision:
- the copy equals the round trip's, byte for byte in an encoding that keeps dict order;
- changing everything mutable in the copy leaves the original as it was;
- ``decide`` leaves the state it is given as it was (byte for byte, not only its hash).
"""

from __future__ import annotations

import random

import msgspec
import pytest

from skirmish.engine.clone import planner
from skirmish.engine.codec import clone_state, roundtrip_state
from skirmish.engine.commands import Choose, Start
from skirmish.engine.decide import decide
from skirmish.engine.dice import LocalDice
from skirmish.engine.events import SeatTaken
from skirmish.engine.evolve import evolve, initial_state
from skirmish.engine.mission import game_created
from skirmish.server import missions

# Keeps dict insertion order (the engine's own encoder sorts keys, and would hide an order change).
ordered = msgspec.msgpack.Encoder().encode


def playout_states(mission_id: str, seed: int, limit: int = 400):
    """Every state a random game of ``mission_id`` passes through, with the dice it uses."""
    mission = missions.load(mission_id)
    dice = LocalDice(seed)
    state = initial_state(game_created(f"g-{seed}", mission, "local", ""))
    for seat in "ab":
        evolve(state, SeatTaken(seat=seat, name=seat))
    for e in decide(state, Start(), dice):
        evolve(state, e)
    rng = random.Random(seed)
    while state.outcome is None and limit:
        yield state, dice
        p = state.pending
        for e in decide(state, Choose(p.id, rng.choice(p.options), p.side), dice):
            evolve(state, e)
        limit -= 1
    yield state, dice


def scribble(value) -> None:
    """Change every mutable thing reachable from ``value`` in place."""
    if isinstance(value, dict):
        for v in list(value.values()):
            scribble(v)
        value["scribbled"] = 1
    elif isinstance(value, list):
        for v in value:
            scribble(v)
        value.append("scribbled")
    elif isinstance(value, tuple):
        for v in value:
            scribble(v)
    elif isinstance(value, msgspec.Struct):
        frozen = type(value).__struct_config__.frozen
        for f in msgspec.structs.fields(value):
            v = getattr(value, f.name)
            scribble(v)
            if not frozen and type(v) is int:
                setattr(value, f.name, v + 1)
            elif not frozen and type(v) is str:
                setattr(value, f.name, v + "!")


@pytest.mark.parametrize("mission_id", sorted(missions.bundled()))
def test_the_copy_equals_the_round_trip_and_owns_everything_it_holds(mission_id):
    checked = 0
    for seed in range(2):
        for state, _ in playout_states(mission_id, seed):
            copy = clone_state(state)
            assert ordered(copy) == ordered(roundtrip_state(state))
            before = ordered(state)
            scribble(copy)
            assert ordered(state) == before
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("mission_id", sorted(missions.bundled()))
def test_decide_leaves_the_state_it_is_given_untouched(mission_id):
    rng = random.Random(7)
    for state, dice in playout_states(mission_id, 11):
        if state.outcome is not None:
            break
        p = state.pending
        before = ordered(state)
        decide(state, Choose(p.id, rng.choice(p.options), p.side), dice)
        assert ordered(state) == before


def test_a_field_of_an_unknown_kind_is_refused_when_the_plan_is_made():
    class Odd(msgspec.Struct):
        tags: set[str] = set()

    with pytest.raises(TypeError, match="no copy rule"):
        planner(Odd)


class Base(msgspec.Struct, tag=True):
    pass


class Leaf(Base):
    items: list[int] = []


class Holder(msgspec.Struct, frozen=True):
    child: Base | None = None
    table: dict[str, list[int]] = {}


def test_subclasses_and_frozen_holders_of_mutable_values_are_copied_too():
    original = Holder(child=Leaf(items=[1]), table={"b": [2], "a": [3]})
    copy = planner(Holder)(original)
    assert copy == original and list(copy.table) == ["a", "b"]  # sorted, as the round trip
    copy.child.items.append(9)
    copy.table["a"].append(9)
    assert original.child.items == [1] and original.table["a"] == [3]
