"""Property tests: random games from random seeds, checked after every command.

Each example plays a whole game with ``LocalDice(seed)`` and random (Hypothesis-drawn) choices,
now and then resigning, and checks after every command:

- the rules' invariants (stress, pools, one living unit per cell, units on the board and off
  blocking terrain, dead units lethally injured, a pending decision exactly while the game is
  not over, well-formed and distinct options);
- that ``decide`` left the state it was given untouched (same state hash before and after);
- that every event and the state survive a MessagePack round trip, and that the bytes are
  standard MessagePack (the plain ``msgpack`` library reads them as maps);

and at the end that the game is over within a bound of commands and that replaying the log
reproduces the live state. A second property throws ill-formed and illegal commands at random
points of random games: each is refused with the right ``GameError`` class, rolls no die and
leaves the state unchanged.
"""

from __future__ import annotations

import random

import msgpack
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from skirmish.engine import board as geo
from skirmish.engine.codec import decode_event, decode_state, encode_event, encode_state, state_hash
from skirmish.engine.commands import Choose, Resign, Start
from skirmish.engine.decide import decide
from skirmish.engine.dice import LocalDice
from skirmish.engine.errors import GameError, GameOver, IllegalOption, MalformedCommand, NotYourDecision, StaleDecision
from skirmish.engine.events import Event
from skirmish.engine.evolve import evolve, initial_state, replay
from skirmish.engine.mission import Mission, game_created, parse_mission
from skirmish.engine.model import MOMENTUM_MAX, SIDES, State, other
from skirmish.server import missions

# A small, crowded board: melee from the first turn, cover, difficult terrain, every kind of
# unit (heroes, a grunt on the heroes' side, an elite, a boss), so that fending off, avoiding
# Injuries with Momentum, Complications and Threat all come up.
BRAWL = """
[mission]
id = "brawl"
name = "Brawl"
rounds = 4

[board]
map = '''
..+#..
.~....
..#.+.
......
'''

[sides.a]
name = "Heroes"

[sides.b]
name = "Bogeys"

[weapons.knife]
kind = "melee"
damage = 2

[weapons.batleth]
kind = "melee"
damage = 4

[weapons.phaser]
kind = "ranged"
damage = 3

[profiles.hero]
kind = "hero"
security = 3
command = 2
weapons = ["phaser", "knife"]

[profiles.boss]
kind = "bogey"
tier = "boss"
security = 4
weapons = ["batleth"]
resistance = 1
points = 3

[profiles.elite]
kind = "bogey"
tier = "elite"
weapons = ["phaser"]

[profiles.grunt]
kind = "bogey"
tier = "grunt"
stress = 3

[[units]]
id = "a1"
side = "a"
profile = "hero"
at = [0, 0]
commander = true

[[units]]
id = "a2"
side = "a"
profile = "hero"
at = [1, 1]

[[units]]
id = "a3"
side = "a"
profile = "grunt"
at = [2, 0]

[[units]]
id = "b1"
side = "b"
profile = "boss"
at = [1, 2]
commander = true

[[units]]
id = "b2"
side = "b"
profile = "elite"
at = [4, 2]

[[units]]
id = "b3"
side = "b"
profile = "grunt"
at = [3, 3]
"""

MISSIONS: dict[str, Mission] = {"ridge": missions.load("ridge"), "brawl": parse_mission(BRAWL, "brawl")}


def command_bound(mission: Mission) -> int:
    """More commands than any game can take: per round, each unit has one turn of at most a
    handful of decisions (move, prone/stand, attack, end, melee outcome, Injuries to avoid)."""
    return mission.rounds * (2 + 12 * len(mission.units))


class CountingDice:
    """``LocalDice`` that counts the rolls made, so that a test can see no roll happened."""

    def __init__(self, seed: int):
        self.inner = LocalDice(seed)
        self.rolls = 0

    def roll(self, nonce: int, sides: int, count: int) -> tuple[int, ...]:
        self.rolls += 1
        return self.inner.roll(nonce, sides, count)


# ---------------------------------------------------------------------------- checks


def check_invariants(state: State) -> None:
    board = state.board
    living: dict[tuple[int, int], str] = {}
    for uid, u in state.units.items():
        assert u.id == uid
        assert 0 <= u.stress <= u.stress_max, f"{uid}: stress {u.stress} outside 0..{u.stress_max}"
        assert geo.on_board(board, u.x, u.y), f"{uid} at ({u.x}, {u.y}) is off the board"
        assert geo.terrain(board, u.x, u.y) not in geo.BLOCKING, f"{uid} stands on blocking terrain"
        assert u.injury in ("", "nonlethal", "lethal"), u.injury
        if u.dead:
            assert u.injury == "lethal", f"{uid} is dead without a lethal injury ({u.injury!r})"
        else:
            assert (u.x, u.y) not in living, f"{uid} and {living.get((u.x, u.y))} share a cell"
            living[(u.x, u.y)] = uid
    for side in SIDES:
        assert 0 <= state.momentum[side] <= MOMENTUM_MAX, f"momentum of {side}: {state.momentum[side]}"
        assert state.threat[side] >= 0, f"threat of {side}: {state.threat[side]}"
    assert (state.pending is None) == (state.outcome is not None), (state.pending, state.outcome)
    if state.outcome is not None:
        assert state.phase == "over" and state.turn is None and state.stack == []
    else:
        d = state.pending
        assert d.side in SIDES and d.id == state.next_decision - 1
        assert d.options, "a decision without options"
        for o in d.options:
            assert type(o) is tuple and o, f"option {o!r} is not a non-empty tuple"
            assert all(type(x) in (str, int) for x in o), f"option {o!r} holds more than str and int"
            assert type(o[0]) is str, f"option {o!r} is not named by its first item"
        assert len(set(d.options)) == len(d.options), f"repeated options in {d.kind}: {d.options}"


def check_round_trip_event(e: Event) -> None:
    data = encode_event(e)
    back = decode_event(data)
    assert back == e and type(back) is type(e)
    assert encode_event(back) == data  # one canonical form
    plain = msgpack.unpackb(data, raw=False)
    assert isinstance(plain, dict) and plain["type"] == type(e).__name__, plain


def check_round_trip_state(state: State) -> None:
    data = encode_state(state)
    back = decode_state(data)
    assert back == state
    assert state_hash(back) == state_hash(state)
    plain = msgpack.unpackb(data, raw=False)
    assert isinstance(plain, dict) and plain["game_id"] == state.game_id and plain["seq"] == state.seq


def new_game(mission: Mission, seed: int) -> tuple[State, list[Event]]:
    created = game_created(f"g-prop-{seed}", mission, "local", "")
    check_round_trip_event(created)
    return initial_state(created), [created]


def run(state: State, log: list[Event], command, dice) -> list[Event]:
    """``decide`` then ``evolve``, checking that ``decide`` did not touch the state."""
    before = state_hash(state)
    before_seq = state.seq
    events = decide(state, command, dice)
    assert state_hash(state) == before, f"decide mutated the state it was given ({command!r})"
    assert state.seq == before_seq
    assert events, f"{command!r} produced no event"
    for e in events:
        check_round_trip_event(e)
        evolve(state, e)
        log.append(e)
    assert state.seq == len(log)
    return events


# ---------------------------------------------------------------------------- properties


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mission_id=st.sampled_from(sorted(MISSIONS)), seed=st.integers(0, 2**63 - 1),
       rng=st.randoms(use_true_random=False), resign_rate=st.sampled_from([0.0, 0.0, 0.01]))
def test_random_games_keep_the_invariants_and_replay(mission_id: str, seed: int, rng: random.Random,
                                                      resign_rate: float) -> None:
    mission = MISSIONS[mission_id]
    state, log = new_game(mission, seed)
    dice = LocalDice(seed)
    check_invariants_before_start(state)
    run(state, log, Start(), dice)
    commands = 1
    bound = command_bound(mission)
    while True:
        check_invariants(state)
        check_round_trip_state(state)
        if state.outcome is not None:
            break
        assert commands < bound, f"the game is not over after {commands} commands"
        p = state.pending
        if resign_rate and rng.random() < resign_rate:
            command = Resign(rng.choice(SIDES))
        else:
            command = Choose(p.id, rng.choice(p.options), p.side)
        run(state, log, command, dice)
        commands += 1
    assert state.outcome.winner in (None, "a", "b")
    assert state.phase == "over"
    event(f"{mission_id}: {'resigned' if 'resigned' in state.outcome.reason else 'played out'}")
    event(f"{mission_id}: commands {commands // 50 * 50}+")
    # the log alone gives the live state, directly and through its stored bytes
    assert state_hash(replay(log)) == state_hash(state)
    assert state_hash(replay(decode_event(encode_event(e)) for e in log)) == state_hash(state)


def check_invariants_before_start(state: State) -> None:
    assert not state.started and state.pending is None and state.outcome is None
    assert state.seq == 1


# -- rejections


BAD_KINDS = ["stale", "other-side", "not-offered", "malformed-option", "malformed-id", "bad-resign",
             "not-a-command", "start-again"]

MALFORMED_OPTIONS = [[], (), [1.5], [True], "x", None, 3, [None], [["end"]], ("end", 1.0), ("end", False),
                     [b"end"], {"end": 1}, (False,)]


def bad_command(data: st.DataObject, state: State):
    """A command the game must refuse, and the error class it must refuse it with."""
    p = state.pending
    over = state.outcome is not None
    kind = data.draw(st.sampled_from(BAD_KINDS), label="kind")
    if kind == "not-a-command":
        return data.draw(st.sampled_from(["start", None, 42, ("choose", 1)])), MalformedCommand
    if kind == "start-again":
        return Start(), GameError
    if kind == "bad-resign":
        return Resign(data.draw(st.sampled_from(["", "c", "A", "spectator", "all"]))), MalformedCommand
    if over:  # every well-formed answer to a finished game is GameOver
        decision_id = data.draw(st.integers(-5, state.next_decision + 5), label="id")
        option = data.draw(st.lists(st.one_of(st.text(max_size=4), st.integers()), min_size=1, max_size=3)
                           .map(tuple), label="option")
        if kind == "malformed-option":
            return Choose(decision_id, data.draw(st.sampled_from(MALFORMED_OPTIONS)), "a"), MalformedCommand
        if kind == "malformed-id":
            return Choose(data.draw(st.sampled_from([True, 1.0, "1", None])), option, "a"), MalformedCommand
        if kind == "other-side" or kind == "stale":
            return Choose(decision_id, option, data.draw(st.sampled_from(SIDES))), GameOver
        return Resign(data.draw(st.sampled_from(SIDES))), GameOver
    good = data.draw(st.sampled_from(p.options), label="good option")
    if kind == "stale":
        stale = data.draw(st.one_of(st.sampled_from([p.id - 1, p.id + 1, 0, -1]), st.integers())
                          .filter(lambda i: i != p.id), label="stale id")
        return Choose(stale, good, p.side), StaleDecision
    if kind == "other-side":
        side = data.draw(st.sampled_from([other(p.side), "", "c", "spectator"]), label="side")
        return Choose(p.id, good, side), NotYourDecision
    if kind == "not-offered":
        near_misses = [o for o in (good + (0,), good[:1] + tuple(x + 1000 if type(x) is int else x + "?" for x in good[1:]),
                                   ("end",), ("move", -1, -1), ("attack", "nobody", 0, 0), ("first", "c"))
                       if o not in p.options]
        option = data.draw(st.one_of(
            st.lists(st.one_of(st.sampled_from(["end", "move", "attack", "first", "unit", "accept"]),
                               st.text(max_size=4), st.integers(-3, 20)), min_size=1, max_size=4)
            .map(tuple).map(lambda o: o if o not in p.options else o + ("?",)),  # "?" is in no option
            st.sampled_from(near_misses),
        ), label="illegal option")
        assert option not in p.options
        # the wire form (a list) is refused just like the tuple
        return Choose(p.id, list(option) if data.draw(st.booleans()) else option, p.side), IllegalOption
    if kind == "malformed-option":
        return Choose(p.id, data.draw(st.sampled_from(MALFORMED_OPTIONS), label="malformed"), p.side), MalformedCommand
    assert kind == "malformed-id"
    bad_id = data.draw(st.sampled_from([True, False, float(p.id), str(p.id), None]), label="bad id")
    return Choose(bad_id, good, p.side), MalformedCommand


def assert_refused(state: State, command, expected: type[GameError], dice: CountingDice) -> None:
    before_hash, before_bytes, rolls = state_hash(state), encode_state(state), dice.rolls
    with pytest.raises(GameError) as info:
        decide(state, command, dice)
    assert type(info.value) is expected, f"{command!r}: {type(info.value).__name__} ({info.value}), not {expected.__name__}"
    assert info.value.code.startswith("game.")
    assert state_hash(state) == before_hash and encode_state(state) == before_bytes
    assert dice.rolls == rolls, f"{command!r} rolled dice before it was refused"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mission_id=st.sampled_from(sorted(MISSIONS)), seed=st.integers(0, 2**63 - 1),
       rng=st.randoms(use_true_random=False), data=st.data())
def test_refused_commands_change_nothing(mission_id: str, seed: int, rng: random.Random, data: st.DataObject) -> None:
    mission = MISSIONS[mission_id]
    state, log = new_game(mission, seed)
    dice = CountingDice(seed)
    # before the start: no decision is pending
    assert_refused(state, Choose(1, ("end",), "a"), StaleDecision, dice)
    run(state, log, Start(), dice)
    refusals = 0
    for _ in range(command_bound(mission)):
        if rng.random() < 0.15:
            command, expected = bad_command(data, state)
            assert_refused(state, command, expected, dice)
            refusals += 1
        if state.outcome is not None:
            break
        p = state.pending
        run(state, log, Choose(p.id, rng.choice(p.options), p.side), dice)
    assert state.outcome is not None
    event(f"refusals {refusals // 10 * 10}+")
    for _ in range(3):  # a finished game refuses everything
        command, expected = bad_command(data, state)
        assert_refused(state, command, expected, dice)
    # the refusals left no trace: the log alone still gives the live state
    assert state_hash(replay(log)) == state_hash(state)
