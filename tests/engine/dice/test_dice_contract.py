"""The one contract every ``Dice`` implementation meets, run against each of them, plus the
behaviour specific to ``LocalDice`` and ``ScriptedDice``.

The provably fair algorithm itself (known answers, uniformity, verification) is tested in
``test_dice_fair.py``.
"""

from __future__ import annotations

import hashlib
import itertools

import pytest

from skirmish.engine.dice import Dice, LocalDice, ProvablyFairDice, ScriptedDice

SIDES = (2, 3, 6, 12, 20, 100, 255, 256, 257, 1000, 65535, 65536)
COUNTS = (1, 2, 7, 33, 100)
BAD_VALUES = [
    # (nonce, sides, count): each is out of range
    (-1, 6, 1),
    (0, 1, 1),
    (0, 0, 1),
    (0, -6, 1),
    (0, 65537, 1),
    (0, 6, 0),
    (0, 6, -1),
    (0, 6, 1001),
]
BAD_TYPES = [(0, 6.0, 1), (0, True, 1), (0, "6", 1), (0, 6, 2.0), (0.0, 6, 1), (None, 6, 1)]


class DiceContract:
    """The shared suite. Subclasses say how to build an instance from an integer seed."""

    def make(self, seed: int) -> Dice:
        raise NotImplementedError

    def test_is_a_dice(self) -> None:
        assert isinstance(self.make(1), Dice)

    @pytest.mark.parametrize("sides", SIDES)
    def test_results_in_range_and_count_respected(self, sides: int) -> None:
        dice = self.make(1)
        for nonce, count in enumerate(COUNTS):
            result = dice.roll(nonce, sides, count)
            assert type(result) is tuple
            assert len(result) == count
            assert all(type(x) is int and 1 <= x <= sides for x in result), result

    def test_extremes_are_accepted(self) -> None:
        dice = self.make(1)
        assert len(dice.roll(0, 65536, 1000)) == 1000
        assert len(dice.roll(1, 2, 1)) == 1
        assert len(dice.roll(10**30, 6, 1)) == 1  # nonces are unbounded

    def test_deterministic_for_the_same_seed(self) -> None:
        calls = [(nonce, sides, count) for nonce, (sides, count) in enumerate(itertools.product(SIDES, (1, 3, 40)))]
        first, second = self.make(42), self.make(42)
        assert [first.roll(*c) for c in calls] == [second.roll(*c) for c in calls]

    @pytest.mark.parametrize("args", BAD_VALUES)
    def test_out_of_range_arguments_raise_value_error(self, args: tuple[int, int, int]) -> None:
        with pytest.raises(ValueError) as excinfo:
            self.make(1).roll(*args)
        bad_name = ("nonce", "sides", "count")[next(i for i, v in enumerate(args) if v != (0, 6, 1)[i])]
        assert bad_name in str(excinfo.value)

    @pytest.mark.parametrize("args", BAD_TYPES)
    def test_wrongly_typed_arguments_raise_type_error(self, args: tuple) -> None:
        with pytest.raises(TypeError):
            self.make(1).roll(*args)

    def test_a_refused_roll_changes_nothing(self) -> None:
        clean, disturbed = self.make(7), self.make(7)
        with pytest.raises(ValueError):
            disturbed.roll(0, 1, 5)
        with pytest.raises(TypeError):
            disturbed.roll(0, 6.0, 5)
        assert [clean.roll(n, 6, 5) for n in range(5)] == [disturbed.roll(n, 6, 5) for n in range(5)]


class RandomDiceContract(DiceContract):
    """The shared suite, plus what dice whose results come from a seed must also do."""

    def test_different_seeds_give_different_results(self) -> None:
        assert self.make(1).roll(0, 20, 50) != self.make(2).roll(0, 20, 50)

    def test_two_faced_and_many_faced_dice_show_every_face(self) -> None:
        dice = self.make(3)
        assert set(dice.roll(0, 2, 200)) == {1, 2}
        assert set(dice.roll(1, 6, 300)) == set(range(1, 7))
        assert max(dice.roll(2, 65536, 1000)) > 60000  # the high byte is used too


class TestProvablyFairDiceContract(RandomDiceContract):
    def make(self, seed: int) -> Dice:
        return ProvablyFairDice(hashlib.sha256(str(seed).encode()).digest(), {"a": "alice", "b": "bob"})


class TestLocalDiceContract(RandomDiceContract):
    def make(self, seed: int) -> Dice:
        return LocalDice(seed)


class TestScriptedDiceContract(DiceContract):
    def make(self, seed: int) -> Dice:
        # 1 and 2 fit every die; enough for every test above, however many dice it rolls.
        return ScriptedDice(1 + (i + seed) % 2 for i in range(20_000))


# --- LocalDice ----------------------------------------------------------------------------------


def test_local_dice_ignore_the_nonce() -> None:
    assert LocalDice(5).roll(0, 20, 10) == LocalDice(5).roll(999, 20, 10)


def test_local_dice_depend_on_call_order() -> None:
    dice = LocalDice(5)
    assert dice.roll(0, 20, 10) != dice.roll(0, 20, 10)


def test_local_dice_without_a_seed_draw_and_keep_one() -> None:
    first, second = LocalDice(), LocalDice()
    assert isinstance(first.seed, int) and first.seed != second.seed
    assert LocalDice(first.seed).roll(0, 20, 30) == first.roll(0, 20, 30)


def test_local_dice_reject_a_non_integer_seed() -> None:
    with pytest.raises(TypeError, match="seed"):
        LocalDice("7")  # type: ignore[arg-type]


# --- ScriptedDice -------------------------------------------------------------------------------


def test_scripted_dice_return_the_script_in_order() -> None:
    dice = ScriptedDice([6, 1, 3, 20, 4])
    assert dice.roll(0, 6, 2) == (6, 1)
    assert dice.roll(1, 6, 1) == (3,)
    assert dice.roll(2, 20, 2) == (20, 4)
    assert dice.remaining == 0


def test_scripted_dice_running_out_names_the_roll_and_consumes_nothing() -> None:
    dice = ScriptedDice([2, 3])
    with pytest.raises(RuntimeError, match=r"nonce=9 wants 3d6 but only 2 of 2"):
        dice.roll(9, 6, 3)
    assert dice.remaining == 2
    assert dice.roll(10, 6, 2) == (2, 3)
    with pytest.raises(RuntimeError, match=r"nonce=11"):
        dice.roll(11, 6, 1)


def test_scripted_result_too_big_for_the_die_is_a_value_error() -> None:
    dice = ScriptedDice([4, 7])
    with pytest.raises(ValueError, match=r"#1 is 7, outside 1\.\.6 for roll nonce=3"):
        dice.roll(3, 6, 2)
    assert dice.remaining == 2
    assert dice.roll(4, 8, 2) == (4, 7)


@pytest.mark.parametrize("script, error", [([1, 0], ValueError), ([-3], ValueError), ([2.0], TypeError), ([True], TypeError)])
def test_scripted_dice_refuse_impossible_results_up_front(script: list, error: type[Exception]) -> None:
    with pytest.raises(error, match=r"scripted result #"):
        ScriptedDice(script)
