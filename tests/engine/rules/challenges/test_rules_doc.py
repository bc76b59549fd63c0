"""docs/rules.md accounts for seed 002: every numbered sentence is there, and every test it
names exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
FILES = {
    "assassination": "test_assassination.py", "sabotage": "test_sabotage.py",
    "threshold": "test_threshold_and_cards.py", "stealth": "test_stealth.py",
    "mission": "test_mission_data.py", "hidden": "test_hidden.py", "state": "test_procedure_state.py",
    "dice": "test_dice.py", "salt": "../test_salt.py",
}


def section() -> str:
    text = (ROOT / "docs" / "rules.md").read_text()
    start = text.index("## Seed 002")
    return text[start:text.index("\n## ", start + 1)]


def test_every_test_the_seed_002_section_names_exists():
    here = Path(__file__).parent
    named = re.findall(r"`(\w+)::(test_\w+)`", section())
    assert len(named) > 40
    for short, name in named:
        source = (here / FILES[short]).read_text()
        assert f"def {name}(" in source, f"docs/rules.md names {short}::{name}, which does not exist"


def test_every_sentence_of_the_excerpt_has_a_row():
    rows = re.findall(r"^\| (\d+)(?:-(\d+))? \|", section(), re.M)
    numbers = set()
    for first, last in rows:
        numbers |= set(range(int(first), int(last or first) + 1))
    assert numbers == set(range(1, 57))
