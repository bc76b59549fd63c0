"""The hangar mission (Manned and Pilot, Paramedics as specialists; issue 14): random, greedy and
mcts play it to the end, alone and with each other module on, every game replays and verifies, a
Pilot dismounts in play, and the bots dismount the Pilot of an Unconscious TAG."""

from __future__ import annotations

import pytest

from skirmish.bots.greedy import GreedyBot
from skirmish.bots.mcts import MctsBot
from skirmish.bots.random_bot import RandomBot
from skirmish.engine.commands import Choose, Start
from skirmish.engine.decide import decide
from skirmish.engine.dice import LocalDice
from skirmish.engine.events import InjurySuffered, ObjectiveSecured
from skirmish.engine.evolve import evolve, initial_state
from skirmish.engine.mission import game_created
from skirmish.engine.rules.skills.events import PilotDismounted

from tests.engine.rules.skills.missions import bundled_with, play


def hangar_with(*others: str):
    return bundled_with("hangar", *others)


@pytest.mark.parametrize("others", [(), ("capture",), ("challenges",), ("morale",), ("capture", "challenges", "morale")],
                         ids=lambda o: "+".join(o) or "alone")
def test_hangar_random_playouts_end_and_verify(others):
    for result, events, report in play(hangar_with(*others), ("random", "random"), range(3)):
        assert result.outcome is not None and result.outcome.reason
        assert report.ok and report.finished and report.seed_verified, report.problem


def test_in_random_play_pilots_dismount_and_paramedics_secure_the_consoles():
    dismounts, consoles = [], []
    for result, events, report in play(hangar_with(), ("random", "random"), range(6)):
        assert report.ok, report.problem
        dismounts += [e for e in events if isinstance(e, PilotDismounted)]
        consoles += [e for e in events if isinstance(e, ObjectiveSecured) and e.objective in ("west", "east")]
    assert dismounts and {e.pilot for e in dismounts} == {"b4"}
    assert consoles and {e.unit for e in consoles} <= {"a2", "a3", "b1"}  # the Paramedics only


def test_greedy_and_mcts_play_hangar_to_the_end():
    for names in (("greedy", "random"), ("mcts:20", "greedy")):
        for result, events, report in play(hangar_with(), names, range(2)):
            assert result.outcome is not None and report.ok, report.problem


def _unconscious_tag_turn():
    """hangar played from the start with the bots' own defaults until side b activates, with its
    TAG b3 Unconscious: b3's turn, whose options are ending it or dismounting."""
    m = hangar_with()
    state = initial_state(game_created("g", m, "local", ""))
    evolve(state, InjurySuffered(unit="b3", lethal=False, result="nonlethal"))
    dice = LocalDice(5)
    for e in decide(state, Start(), dice):
        evolve(state, e)
    while not (state.pending.kind == "activate" and state.pending.side == "b"):
        p = state.pending
        option = ("first", "b") if p.kind == "first" else p.options[0]
        for e in decide(state, Choose(p.id, option, p.side), dice):
            evolve(state, e)
    p = state.pending
    for e in decide(state, Choose(p.id, ("unit", "b3"), "b"), dice):
        evolve(state, e)
    return state


def test_the_bots_dismount_the_pilot_of_an_unconscious_tag():
    state = _unconscious_tag_turn()
    d = state.pending
    assert d.kind == "act" and d.unit == "b3" and {o[0] for o in d.options} == {"end", "dismount"}
    for bot in (GreedyBot(1), MctsBot(2, iterations=30)):
        bot.new_game("b")
        assert bot.choose(state, d)[0] == "dismount", type(bot).__name__
    bot = RandomBot(3)
    bot.new_game("b")
    assert bot.choose(state, d) in d.options
