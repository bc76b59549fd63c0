"""docs/rules.md's references are true, in every section (issue 12 #27): every code reference
(`path.py: name, name`) names a file that exists and functions, classes or constants defined in
it; every test reference (`short::test_name`) names a test that exists in the file its short
name stands for; every file it names (`.py`, `.toml`) exists."""

from __future__ import annotations

import ast
import re
import sys
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "rules.md"
RULES_TESTS = "tests/engine/rules"

# The short names the doc gives test files (each section's introduction says which).
SHORT = {
    "turn": f"{RULES_TESTS}/test_turn.py", "actions": f"{RULES_TESTS}/test_actions.py",
    "attacks": f"{RULES_TESTS}/test_attacks.py", "movement": f"{RULES_TESTS}/test_movement_paths.py",
    "salt": f"{RULES_TESTS}/test_salt.py", "board": "tests/engine/test_board.py",
    "rerolls": f"{RULES_TESTS}/test_token_rerolls.py",
    "assassination": f"{RULES_TESTS}/challenges/test_assassination.py",
    "sabotage": f"{RULES_TESTS}/challenges/test_sabotage.py",
    "threshold": f"{RULES_TESTS}/challenges/test_threshold_and_cards.py",
    "stealth": f"{RULES_TESTS}/challenges/test_stealth.py",
    "state": f"{RULES_TESTS}/challenges/test_procedure_state.py",
    "dice": f"{RULES_TESTS}/challenges/test_dice.py", "hidden": f"{RULES_TESTS}/challenges/test_hidden.py",
    "m_pilots": f"{RULES_TESTS}/morale/test_morale_pilots.py", "m_tokens": f"{RULES_TESTS}/morale/test_morale_tokens.py",
    "m_courage": f"{RULES_TESTS}/morale/test_morale_courage.py", "m_fear": f"{RULES_TESTS}/morale/test_morale_fear.py",
    "m_mission": f"{RULES_TESTS}/morale/test_morale_mission.py",
    "d12": f"{RULES_TESTS}/capture/test_d12.py", "action": f"{RULES_TESTS}/capture/test_capture_action.py",
    "bogey": f"{RULES_TESTS}/capture/test_captured_bogey.py",
    "character": f"{RULES_TESTS}/capture/test_captured_character.py",
    "drag": f"{RULES_TESTS}/capture/test_drag_exit.py", "odds": f"{RULES_TESTS}/capture/test_escape_odds.py",
    "s_mission": f"{RULES_TESTS}/skills/test_skills_mission.py", "s_rolls": f"{RULES_TESTS}/skills/test_skills_rolls.py",
    "s_deploy": f"{RULES_TESTS}/skills/test_skills_deploy.py", "s_playouts": f"{RULES_TESTS}/skills/test_skills_playouts.py",
    "s_marks": f"{RULES_TESTS}/skills/test_skills_marksmanship.py",
    "s_regen": f"{RULES_TESTS}/skills/test_skills_regeneration.py",
    "s_medic": f"{RULES_TESTS}/skills/test_skills_paramedic.py", "s_comms": f"{RULES_TESTS}/skills/test_skills_comms.py",
    "s_uplink": f"{RULES_TESTS}/skills/test_skills_uplink.py",
    "s_inf": f"{RULES_TESTS}/skills/test_skills_infiltrate.py",
    "s_meta": f"{RULES_TESTS}/skills/test_skills_metachemistry.py",
    "s_dog": f"{RULES_TESTS}/skills/test_skills_dogged.py",
    "s_landing": f"{RULES_TESTS}/skills/test_skills_landing.py",
    "s_command": f"{RULES_TESTS}/skills/test_skills_command.py",
    "s_holdout": f"{RULES_TESTS}/skills/test_skills_holdout.py",
    "s_versions": f"{RULES_TESTS}/skills/test_skills_versions.py",
    "s_react": f"{RULES_TESTS}/skills/test_skills_reactions.py",
    "s_terrain": f"{RULES_TESTS}/skills/test_skills_terrain.py",
    "s_breach": f"{RULES_TESTS}/skills/test_skills_breach.py",
    "s_manned": f"{RULES_TESTS}/skills/test_skills_manned.py",
    "s_special": f"{RULES_TESTS}/skills/test_skills_specialists.py",
    "s_hangar": f"{RULES_TESTS}/skills/test_skills_hangar.py",
    "s_private": f"{RULES_TESTS}/skills/test_skills_private_lt.py",
    "s_hidden": f"{RULES_TESTS}/skills/test_skills_hidden.py",
    "s_camo": f"{RULES_TESTS}/skills/test_skills_camouflage.py",
    "s_imp": f"{RULES_TESTS}/skills/test_skills_impersonation.py",
    "s_ex_regain": f"{RULES_TESTS}/skills/test_skills_example_regain.py",
    "s_masq": f"{RULES_TESTS}/skills/test_skills_masquerade.py",
    "twins": "tests/engine/test_twins.py",
}
# `mission::` means the module's own mission tests in its section, the core's elsewhere.
MISSION = {"Seed 002": f"{RULES_TESTS}/challenges/test_mission_data.py",
           "Seed 000": f"{RULES_TESTS}/capture/test_capture_mission.py"}
# Where a bare file name is looked for first, by section; then the core, the engine, the rules.
PACKAGE = {"Seed 001": "engine/rules/core", "Seed 002": "engine/rules/challenges",
           "Seed 004": "engine/rules/morale", "Seed 000": "engine/rules/capture", "Seed 003": "engine/rules/skills"}
FALLBACK = ("engine/rules/core", "engine", "engine/rules", "", "server/missions", RULES_TESTS, "tests/engine", "tests")

CODE = re.compile(r"`([\w./]+\.py): ([^`]+)`")
FILE = re.compile(r"`([\w./]+\.(?:py|toml))`")
TEST = re.compile(r"`(\w+)::(test_\w+|\*)?`")


def sections() -> list[tuple[str, str]]:
    """(heading, text) of each "## " section, the preamble first ("")."""
    parts = re.split(r"^## (.+)$", DOC.read_text(), flags=re.M)
    out = [("", parts[0])]
    out += [(parts[i], parts[i + 1]) for i in range(1, len(parts), 2)]
    return out


def key(heading: str) -> str:
    m = re.match(r"(Seed \d{3})", heading)
    return m.group(1) if m else heading


def resolve(path: str, heading: str) -> Path | None:
    package = PACKAGE.get(key(heading))
    bases = ([package, f"{RULES_TESTS}/{package.rsplit('/', 1)[1]}"] if package else []) + list(FALLBACK)
    for base in bases:
        p = ROOT / base / path
        if p.is_file():
            return p
    return None


@lru_cache(maxsize=None)
def defined(path: Path) -> frozenset[str]:
    """Names a module defines at top level (functions, classes, assignments) and ``Class.member``
    for the members of its classes."""
    names: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names.add(node.name)
            for member in node.body:
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names.add(f"{node.name}.{member.name}")
                elif isinstance(member, ast.AnnAssign) and isinstance(member.target, ast.Name):
                    names.add(f"{node.name}.{member.target.id}")
                elif isinstance(member, ast.Assign):
                    names |= {f"{node.name}.{t.id}" for t in member.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return frozenset(names)


def problems() -> list[str]:
    out = []
    for heading, text in sections():
        where = f"docs/rules.md, section {heading or '(preamble)'!r}"
        for path, names in CODE.findall(text):
            found = resolve(path, heading)
            if found is None:
                out.append(f"{where}: `{path}` does not exist")
                continue
            for name in (n.strip() for n in names.split(",")):
                if name not in defined(found):
                    out.append(f"{where}: `{path}: {name}`: {found.relative_to(ROOT)} defines no {name}")
        for path in FILE.findall(text):
            if resolve(path, heading) is None:
                out.append(f"{where}: `{path}` does not exist")
        for short, name in TEST.findall(text):
            file = MISSION.get(key(heading), "tests/engine/test_mission.py") if short == "mission" else SHORT.get(short)
            if file is None:
                out.append(f"{where}: `{short}::` names no known test file")
                continue
            source = (ROOT / file).read_text() if (ROOT / file).is_file() else None
            if source is None:
                out.append(f"{where}: `{short}::` stands for {file}, which does not exist")
            elif name and name != "*" and not re.search(rf"^def {name}\(", source, re.M):
                out.append(f"{where}: `{short}::{name}` does not exist in {file}")
    return out


def test_every_code_file_function_and_test_the_rules_reference_names_exists():
    assert problems() == []


def test_the_checks_see_references_in_every_section():
    seen = {key(h) for h, text in sections() if CODE.search(text) or TEST.search(text)}
    assert {"Seed 001", "Seed 002", "Seed 004", "Seed 000", "Seed 003"} <= seen
    assert sum(len(TEST.findall(t)) for _, t in sections()) > 300
    assert sum(len(CODE.findall(t)) for _, t in sections()) > 150


def test_a_stale_reference_is_caught(monkeypatch, tmp_path):
    doc = tmp_path / "rules.md"
    doc.write_text("## Seed 000 — capture\n| x | `actions.py: act_exit, score` | `drag::test_nothing_here` |\n"
                   "## Seed 001 — core\n`flow.py: no_such_function` `gone.py` `nosuch::test_x`\n")
    monkeypatch.setattr(sys.modules[__name__], "DOC", doc)
    found = problems()
    assert any("defines no score" in p for p in found)
    assert any("drag::test_nothing_here" in p for p in found)
    assert any("defines no no_such_function" in p for p in found)
    assert any("`gone.py` does not exist" in p for p in found)
    assert any("`nosuch::`" in p for p in found)
    assert not any("act_exit" in p for p in found)
