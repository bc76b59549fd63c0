"""Golden option counts, like python-chess's perft: fixed positions, the options they offer.

A position is a bundled mission played from the start with ``LocalDice(seed)``, answering
decision ``i`` with option ``(i * 7 + seed) % len(options)``, for ``steps`` decisions. The
pending decision there must offer exactly the recorded number of options of each kind. An
accidental change in what is legal fails here; a deliberate one updates the table (regenerate
with ``python tests/engine/rules/test_golden.py``) and says why in its commit.
"""

from __future__ import annotations

from collections import Counter

import pytest

from skirmish.engine.commands import Choose, Start
from skirmish.engine.decide import decide
from skirmish.engine.dice import LocalDice
from skirmish.engine.evolve import evolve, initial_state
from skirmish.engine.mission import game_created
from skirmish.server.missions import bundled

# (mission, seed, steps, (pending kind, number of options, options by kind))
GOLDEN = [
    ("ridge", 1, 2, ("act", 34, {"aim": 1, "assist": 3, "direct": 3, "end": 1, "guard": 1, "move": 20, "prepare": 1, "prone": 1, "ready": 1, "recover": 1, "sprint": 1})),
    ("ridge", 2, 5, ("act", 50, {"aim": 1, "assist": 3, "attack": 4, "create_advantage": 2, "end": 1, "guard": 1, "move": 33, "prepare": 1, "prone": 1, "ready": 1, "recover": 1, "sprint": 1})),
    ("ridge", 3, 12, ("act", 33, {"aim": 1, "assist": 2, "end": 1, "guard": 1, "move": 23, "prepare": 1, "prone": 1, "ready": 1, "recover": 1, "sprint": 1})),
    ("ridge", 4, 30, ("first", 2, {"first": 2})),
    ("ridge", 5, 60, ("act", 11, {"assist": 1, "attack": 4, "create_advantage": 2, "end": 1, "guard": 1, "ready": 1, "recover": 1})),
    ("outpost", 1, 2, ("act", 33, {"aim": 1, "assist": 4, "end": 1, "guard": 1, "move": 21, "prepare": 1, "prone": 1, "ready": 1, "recover": 1, "sprint": 1})),
    ("outpost", 2, 5, ("act", 32, {"aim": 1, "assist": 4, "direct": 4, "end": 1, "guard": 1, "move": 16, "prepare": 1, "prone": 1, "ready": 1, "recover": 1, "sprint": 1})),
    ("outpost", 3, 12, ("act", 18, {"draw": 1, "end": 1, "move": 15, "prone": 1})),
    ("outpost", 4, 30, ("act", 26, {"draw": 1, "end": 1, "move": 23, "prone": 1})),
    ("outpost", 5, 60, ("act", 29, {"draw": 1, "end": 1, "move": 26, "prone": 1})),
    # one position for each other kind of decision
    ("ridge", 1, 1, ("activate", 4, {"unit": 4})),
    ("ridge", 2, 110, ("aim", 3, {"keep": 1, "reroll": 2})),
    ("ridge", 1, 65, ("avoid_injury", 2, {"accept": 1, "avoid": 1})),
    ("ridge", 1, 14, ("buy_dice", 4, {"buy": 4})),
    ("ridge", 1, 100, ("bystander", 3, {"bystander": 2, "threat": 1})),
    ("ridge", 2, 21, ("directed", 8, {"attack": 2, "create_advantage": 1, "guard": 1, "none": 1, "ready": 1, "recover": 1, "sprint": 1})),
    ("ridge", 1, 8, ("keep_initiative", 2, {"keep": 1, "pass": 1})),
    ("ridge", 4, 168, ("melee_won", 4, {"damage": 1, "fend": 3})),
    ("ridge", 1, 62, ("ready", 5, {"fire": 4, "hold": 1})),
    ("ridge", 9, 187, ("recover_stress", 2, {"spend": 2})),
    ("ridge", 1, 6, ("sprint", 59, {"sprint": 58, "stay": 1})),
    # the capture module (seed 000) on the snatch mission: a capture, a drag and bonus actions offered
    ("snatch", 1, 2, ("act", 52, {"aim": 1, "assist": 3, "attack": 2, "create_advantage": 1, "direct": 3, "end": 1, "guard": 1, "move": 35, "prepare": 1, "prone": 1, "ready": 1, "recover": 1, "sprint": 1})),
    ("snatch", 2, 30, ("buy_dice", 3, {"buy": 3})),
    ("snatch", 6, 173, ("act", 15, {"assist": 1, "attack": 8, "capture": 1, "create_advantage": 1, "end": 1, "guard": 1, "ready": 1, "recover": 1})),
    # (issue 12 #24: wounded(n) and wounded(+1) changed; the old position, seed 33 at 213, no longer
    # reaches a drag with bonus actions, so this one replaces it)
    ("snatch", 156, 117, ("act", 73, {"bonus": 35, "drag": 1, "end": 1, "move": 35, "prone": 1})),
    # the morale module (seed 004): its options in "act", and its re-roll windows
    ("foundry", 1, 0, ("initiative_reroll", 3, {"keep": 1, "reroll": 2})),
    ("foundry", 1, 3, ("act", 39, {"aim": 1, "assist": 3, "attack": 1, "boost": 1, "create_advantage": 1, "end": 1, "guard": 1, "move": 24, "prepare": 1, "prone": 1, "ready": 1, "recover": 1, "rest": 1, "sprint": 1})),
    ("foundry", 1, 11, ("act", 51, {"aim": 1, "assist": 3, "attack": 2, "boost": 1, "counter": 1, "create_advantage": 1, "end": 1, "guard": 1, "move": 34, "prepare": 1, "prone": 1, "ready": 1, "recover": 1, "rest": 1, "sprint": 1})),
    ("foundry", 1, 5, ("reroll", 2, {"keep": 1, "reroll": 1})),
    # the skills module's reactions and movement skills on breach: the placement, Multiterrain's
    # choice (water or jungle), a Heavyweight TAG's turn (no narrow gate; it stops beyond the wide
    # one), a Multiterrain unit's turn, a Dodge window, the won Dodge's move, an Engage window
    ("breach", 1, 0, ("deploy", 19, {"deploy": 19})),
    ("breach", 1, 3, ("terrain", 2, {"terrain": 2})),
    ("breach", 1, 9, ("act", 45, {"aim": 1, "assist": 2, "attack": 2, "create_advantage": 1, "end": 1, "guard": 1, "move": 32, "prepare": 1, "prone": 1, "ready": 1, "recover": 1, "sprint": 1})),
    # (the last four moved with the command skills' Guts Rolls, which change the games: 22 -> 40, 98 -> 32,
    # 99 -> 185, 131 -> 172)
    ("breach", 1, 40, ("act", 47, {"aim": 1, "assist": 2, "end": 1, "guard": 1, "move": 37, "prepare": 1, "prone": 1, "ready": 1, "recover": 1, "sprint": 1})),
    ("breach", 1, 32, ("react", 2, {"dodge": 1, "none": 1})),
    ("breach", 1, 185, ("dodge_move", 10, {"dodge_move": 9, "stay": 1})),
    ("breach", 1, 172, ("react", 5, {"engage": 4, "none": 1})),
    ("foundry", 1, 21, ("test_reroll", 2, {"keep": 1, "reroll": 1})),
    # the skills module (seed 003) on dropzone: the deployment phase (side a's zone: 20 cells, one
    # held by a4; side b's likewise), then round 1
    ("dropzone", 1, 0, ("deploy", 19, {"deploy": 19})),
    ("dropzone", 2, 3, ("deploy", 18, {"deploy": 18})),
    ("dropzone", 3, 5, ("deploy", 17, {"deploy": 17})),
    ("dropzone", 1, 8, ("act", 57, {"aim": 1, "assist": 3, "attack": 2, "create_advantage": 1, "end": 1, "guard": 1, "move": 43, "prepare": 1, "prone": 1, "ready": 1, "recover": 1, "sprint": 1})),
    # (3, 30) since the command skills (Guts Rolls, the Lieutenant Order): a Prone unit after a failed Guts Roll
    ("dropzone", 3, 30, ("act", 13, {"assist": 3, "attack": 2, "create_advantage": 1, "direct": 3, "end": 1, "guard": 1, "ready": 1, "recover": 1})),
    # the skills module's combat skills on uplink: Forward Observer and Sat-Lock, hacking, Marksmanship
    # LX's aimed shots, and an Unconscious unit's Regeneration (its only options)
    ("uplink", 1, 22, ("act", 67, {"aim": 1, "assist": 3, "attack": 2, "create_advantage": 1, "direct": 3, "end": 1, "guard": 1, "move": 45, "observe": 1, "prepare": 1, "prone": 1, "ready": 1, "recover": 1, "sat_lock": 4, "sprint": 1})),
    ("uplink", 1, 37, ("act", 47, {"aim": 1, "assist": 3, "attack": 2, "create_advantage": 1, "direct": 3, "end": 1, "guard": 1, "hack": 2, "move": 28, "prepare": 1, "prone": 1, "ready": 1, "recover": 1, "sprint": 1})),
    # the skills module's Deployment Skills on landing: a1 in its zone (24 cells); a2's Infiltrate L2
    # (its zone, its own half, the enemy half outside b's zone and away from the beacons); b2's
    # Infiltrate L0 (the enemy half only); a3's Mechanized Deployment (its zone and own half); b2's
    # failed Infiltration Roll (b's zone at a table edge); b3's MetaChemistry roll; round 1
    ("landing", 1, 0, ("deploy", 24, {"deploy": 24})),
    ("landing", 1, 2, ("deploy", 98, {"deploy": 98})),
    ("landing", 1, 3, ("deploy", 36, {"deploy": 36})),
    ("landing", 1, 4, ("deploy", 50, {"deploy": 50})),
    ("landing", 5, 4, ("redeploy", 13, {"deploy": 13})),
    ("landing", 1, 6, ("metachemistry", 2, {"decline": 1, "roll": 1})),
    ("landing", 1, 8, ("deploy", 82, {"deploy": 82})),
    ("landing", 4, 12, ("act", 80, {"aim": 1, "attack": 2, "create_advantage": 2, "end": 1, "guard": 1, "move": 68, "prepare": 1, "prone": 1, "ready": 1, "recover": 1, "sprint": 1})),
    # (the aimed shot and the Regeneration positions moved with the command skills' Guts Rolls, which
    # change the games: (1, 52) -> (3, 17), (5, 48) -> (8, 23))
    ("uplink", 3, 17, ("act", 45, {"aim": 1, "aimed_shot": 4, "assist": 2, "attack": 4, "create_advantage": 2, "end": 1, "guard": 1, "move": 25, "prepare": 1, "prone": 1, "ready": 1, "recover": 1, "sprint": 1})),
    ("uplink", 8, 23, ("act", 2, {"end": 1, "regenerate": 1})),
    # the skills module's command and courage skills on holdout: the deployment phase, a V: Courage
    # unit's Guts Roll (its side chooses), a Religious Troop's (hold, or the voluntary roll), a round-1 act
    ("holdout", 1, 0, ("deploy", 33, {"deploy": 33})),
    ("holdout", 1, 44, ("guts", 2, {"cover": 1, "hold": 1})),
    # (the Religious Troop's position moved with engine 0.4.0's Keep the Initiative: (5, 159) -> (21, 111))
    ("holdout", 21, 111, ("guts", 2, {"hold": 1, "roll": 1})),
    ("holdout", 1, 12, ("act", 13, {"assist": 3, "attack": 4, "create_advantage": 2, "end": 1, "guard": 1, "ready": 1, "recover": 1})),
    # the skills module's Manned and Pilot on hangar: the TAG b3 with its Pilot aboard may dismount it
    # (7 free cells around it); placed on the table, the Pilot b4 meets a Ready reaction; its Order
    # after dismounting (the Movement taken, no Momentum for another Minor Action); after a Total
    # Control ejected b4, side b activates b1 and b4, not the Possessed and empty TAG; a Paramedic
    # next to a specialist console
    ("hangar", 8, 10, ("act", 80, {"aim": 1, "assist": 2, "attack": 8, "create_advantage": 4, "direct": 2, "dismount": 7, "end": 1, "guard": 1, "move": 49, "prepare": 1, "prone": 1, "ready": 1, "recover": 1, "sprint": 1})),
    ("hangar", 8, 11, ("ready", 3, {"fire": 2, "hold": 1})),
    ("hangar", 8, 13, ("act", 19, {"assist": 3, "attack": 8, "create_advantage": 4, "end": 1, "guard": 1, "ready": 1, "recover": 1})),
    ("hangar", 1, 12, ("activate", 2, {"unit": 2})),
    # (the Paramedic's position moved with the command skills' Guts Rolls: (2, 117) -> (1, 97))
    ("hangar", 1, 97, ("act", 68, {"aim": 1, "attack": 8, "create_advantage": 2, "end": 1, "guard": 1, "interact": 1, "move": 49, "prepare": 1, "prone": 1, "ready": 1, "recover": 1, "sprint": 1})),
]


def position(mission_id: str, seed: int, steps: int):
    state = initial_state(game_created("golden", bundled()[mission_id], "local", ""))
    dice = LocalDice(seed)
    for e in decide(state, Start(), dice):
        evolve(state, e)
    for i in range(steps):
        p = state.pending
        option = p.options[(i * 7 + seed) % len(p.options)]
        for e in decide(state, Choose(p.id, option, p.side), dice):
            evolve(state, e)
    p = state.pending
    return p.kind, len(p.options), dict(sorted(Counter(o[0] for o in p.options).items()))


@pytest.mark.parametrize("mission, seed, steps, expected", GOLDEN, ids=lambda v: str(v) if not isinstance(v, tuple) else v[0])
def test_golden_option_counts(mission, seed, steps, expected):
    assert position(mission, seed, steps) == expected


def test_the_same_position_always_offers_the_same_options():
    for mission, seed, steps, _ in GOLDEN[:5]:
        first = position(mission, seed, steps)
        assert first == position(mission, seed, steps)


if __name__ == "__main__":
    for mission, seed, steps, _ in GOLDEN:
        print(f"    ({mission!r}, {seed}, {steps}, {position(mission, seed, steps)!r}),")
