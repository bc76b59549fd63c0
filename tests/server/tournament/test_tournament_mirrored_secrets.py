"""Mirrored pairs keep each game's secrets (issue 12, item 36).

Games 2k and 2k+1 of a pairing are one mirrored pair (same mission, sides swapped). In
``knives`` each side holds a hidden hand of tactic cards drawn by provably fair dice, and a
secret salt keeps the checkpoints from giving the hands away. Were the two games to share their
dice seed, a bot that remembers would know its opponent's opening hand in game 2k+1 (the one its
seat had in game 2k), and the seed game 2k reveals at its end would give away every hidden draw
and the salt of game 2k+1. Two attackers try here:

- ``Rememberer`` bots (``tournament_testbots``), both entrants, in one worker process (so the
  memory carries from game to game): each predicts its opponent's opening hand in every mirror
  game from what it saw in the game before;
- the test itself, holding game 2k's whole log and revealed seed, recomputes game 2k+1's hidden
  rolls (its card draws and its salt) from that seed.

Both must fail but for chance.
"""

from __future__ import annotations

import json

import pytest

from skirmish.engine.codec import decode_event
from skirmish.engine.dice.fair import ProvablyFairDice
from skirmish.engine.events import ClientSeedAdded, DiceRolled, OptionChosen, SeedRevealed
from skirmish.engine.rules.challenges.cards import DRAW
from skirmish.engine.rules.challenges.events import CardDrawn
from skirmish.engine.rules.challenges.hidden import SALT

GAMES = 12  # 6 mirrored pairs


@pytest.fixture(scope="module")
def tourney(tmp_path_factory):
    from skirmish.server import cli as skirmish

    base = tmp_path_factory.mktemp("mirror")
    predictions = base / "predictions.jsonl"
    mp = pytest.MonkeyPatch()
    mp.setenv("SKIRMISH_REMEMBER_FILE", str(predictions))  # the worker process inherits it
    mp.setenv("SKIRMISH_DB", str(base / "default" / "must-not-be-used.sqlite"))
    try:
        code = skirmish.main(["tournament", "--bots", "r1=tournament_testbots:Rememberer,r2=tournament_testbots:Rememberer",
                              "--mission", "knives", "--games", str(GAMES), "--seed", "9", "--workers", "1",
                              "--out", str(base / "out"), "--quiet"])
    finally:
        mp.undo()
    assert code == 0
    lines = predictions.read_text().splitlines() if predictions.exists() else []
    return base / "out", [json.loads(line) for line in lines]


def events(tt, db, game_id):
    return [decode_event(d) for _, d, _ in tt.event_rows(db, game_id)]


def opening_hands(log) -> dict[str, list[str]]:
    """Each side's cards drawn before the first decision was answered: its opening hand."""
    hands: dict[str, list[str]] = {"a": [], "b": []}
    for e in log:
        if isinstance(e, OptionChosen):
            break
        if isinstance(e, CardDrawn):
            hands[e.side].append(e.card)
    return {side: sorted(cards) for side, cards in hands.items()}


def pairs(tt, out):
    games = sorted(tt.results(out)["games"], key=lambda g: g["index"])
    assert len(games) == GAMES
    for first, second in zip(games[0::2], games[1::2]):
        assert (first["mirrored"], second["mirrored"]) == (False, True)
        assert first["sides"] == {"a": second["sides"]["b"], "b": second["sides"]["a"]}
        yield first, second


def test_a_bot_that_remembers_cannot_tell_the_opponents_hand_in_the_mirror(tourney, tt):
    out, predictions = tourney
    db = out / "games.sqlite"
    assert len(predictions) == GAMES  # both bots, in every mirror game, made their guess
    right = 0
    for p in predictions:
        truth = opening_hands(events(tt, db, p["game"]))[p["opponent"]]
        assert len(truth) == 2
        right += p["predicted"] == truth
    # two cards of eight (four kinds, two each): two independent opening hands are the same about
    # 13% of the time; with a pair's dice shared they are the same every time
    assert right <= len(predictions) // 3, f"{right} of {len(predictions)} opening hands predicted"


def test_a_revealed_seed_tells_nothing_about_the_mirror_games_hidden_rolls(tourney, tt):
    out, _ = tourney
    db = out / "games.sqlite"
    draws = draws_right = salts = 0
    for first, second in pairs(tt, out):
        earlier, mirror = events(tt, db, first["id"]), events(tt, db, second["id"])
        revealed = [e for e in earlier if isinstance(e, SeedRevealed)]
        assert len(revealed) == 1  # game 2k is over and its seed is public
        clients = {e.seat: e.seed for e in mirror if isinstance(e, ClientSeedAdded)}
        guess = ProvablyFairDice(bytes.fromhex(revealed[0].server_seed), clients)
        for e in mirror:
            if isinstance(e, DiceRolled) and e.purpose in (DRAW, SALT):
                predicted = guess.roll(e.nonce, e.sides, len(e.results))
                if e.purpose == SALT:
                    salts += 1
                    assert tuple(predicted) != tuple(e.results), f"the salt of {second['id']} was predicted"
                else:
                    draws += 1
                    draws_right += tuple(predicted) == tuple(e.results)
    assert salts == GAMES // 2 and draws >= GAMES
    print(f"{draws_right} of {draws} hidden draws predicted by chance")
    # a draw is one die over the cards left (2..8 of them): chance alone gets some right
    assert draws_right <= draws // 2, f"{draws_right} of {draws} hidden draws predicted from the other game's seed"


def test_each_game_of_a_pair_records_its_own_dice_seed(tourney, tt):
    out, _ = tourney
    for first, second in pairs(tt, out):
        assert first["seed"] == second["seed"]  # the pair's: the bots' own seeds follow it
        assert first["bot_seeds"]["a"] == second["bot_seeds"]["b"]
        assert first["dice_seed"] != second["dice_seed"]
        seeds = [[e.server_seed for e in events(tt, out / "games.sqlite", g["id"]) if isinstance(e, SeedRevealed)]
                 for g in (first, second)]
        assert seeds[0] != seeds[1]
