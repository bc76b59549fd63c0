"""Every secret salt holds at least 128 bits (issue 12 #35): measured on the rolls a game really
makes at its start, for every bundled mission, and every salt roll in the engine goes through
``skirmish.engine.rules.salt.draw_salt``, so a later module's salt is held to the same rule."""

from __future__ import annotations

import ast
from pathlib import Path

import msgspec
import pytest

from skirmish.engine import events as ev
from skirmish.engine.commands import Start
from skirmish.engine.decide import decide
from skirmish.engine.dice import LocalDice
from skirmish.engine.evolve import evolve, initial_state
from skirmish.engine.mission import game_created
from skirmish.engine.rules.salt import MIN_SALT_BITS, SALT_SIDES, entropy_bits
from skirmish.server.missions import bundled

ROOT = Path(__file__).resolve().parents[3]


def start_events(mission_id: str) -> list:
    state = initial_state(game_created("salt", bundled()[mission_id], "local", ""))
    events = decide(state, Start(), LocalDice(7))
    for e in events:
        evolve(state, e)
    return events


def salts(events) -> list:
    """The salt rolls and the events carrying a salt (any event with a ``salt`` field)."""
    rolls = [e for e in events if isinstance(e, ev.DiceRolled) and "salt" in e.purpose]
    held = [e for e in events if "salt" in msgspec.structs.asdict(e) and not isinstance(e, ev.DiceRolled)]
    return rolls, held


def test_the_challenges_salt_holds_at_least_128_secret_bits():
    rolls, held = salts(start_events("knives"))
    [roll] = rolls
    assert entropy_bits(roll.sides, len(roll.results)) >= MIN_SALT_BITS == 128
    [drawn] = held
    assert drawn.salt == roll.results  # the state's salt is all of the roll


@pytest.mark.parametrize("mission_id", sorted(bundled()))
def test_every_salt_a_bundled_mission_draws_holds_at_least_128_bits(mission_id):
    rolls, held = salts(start_events(mission_id))
    for roll in rolls:
        assert entropy_bits(roll.sides, len(roll.results)) >= MIN_SALT_BITS, (mission_id, roll)
    for e in held:
        assert entropy_bits(SALT_SIDES, len(e.salt)) >= MIN_SALT_BITS, (mission_id, e)


def _purpose_is_a_salt(node: ast.AST) -> bool:
    text = ast.unparse(node)
    return "salt" in text.lower()


def test_every_salt_roll_in_the_engine_goes_through_draw_salt():
    # A roll whose purpose names a salt anywhere but engine/rules/salt.py would escape the rule.
    offenders = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "roll":
                args = list(node.args[2:3]) + [k.value for k in node.keywords if k.arg == "purpose"]
                if any(_purpose_is_a_salt(a) for a in args) and rel != "engine/rules/salt.py":
                    offenders.append(f"{rel}:{node.lineno}")
    assert offenders == []
