"""RULES-BRIEF "Dice, by module", challenges: d6 pools, three faces of six succeed."""

from __future__ import annotations

from skirmish.engine.rules.challenges import dice


def test_three_faces_of_six_are_successes():
    assert [dice.successes((face,)) for face in range(1, 7)] == [0, 0, 0, 1, 1, 1]
    assert dice.SUCCESS_FACES == (4, 5, 6)


def test_opposed_is_attacker_successes_minus_defender_successes():
    assert dice.opposed((6, 5, 4, 1), (6, 2)) == 2
    assert dice.opposed((1,), (6, 6)) == -2
    assert dice.opposed((), ()) == 0


def test_threshold_is_met_by_equal_or_more_successes():
    assert dice.threshold_met((6, 5, 1), 2) and dice.threshold_met((6, 5, 4), 2)
    assert not dice.threshold_met((6, 3, 1), 2)


def test_failed_and_succeeded_dice_are_found_and_replaced_in_place():
    pool = (1, 6, 3, 4)
    assert dice.failed(pool) == [0, 2] and dice.succeeded(pool) == [1, 3]
    assert dice.replace_at(pool, [0, 2], (5, 2)) == (5, 6, 2, 4)
