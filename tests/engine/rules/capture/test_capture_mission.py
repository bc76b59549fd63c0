"""The mission format's [capture] table: checked, with typed errors naming the field."""

from __future__ import annotations

import pytest

from engine.errors import MissionError
from engine.mission import parse_mission
from engine.model import CaptureRules

from tests.engine.rules.scenario import mission_text

UNITS = [("a1", "a", "hero", 1, 1), ("b1", "b", "grunt", 6, 6)]


def text(capture: str | None, module: bool = True) -> str:
    t = mission_text(UNITS, extra=("\n[capture]\n" + capture + "\n") if capture is not None else "")
    return t.replace("rounds = 3", 'rounds = 3\nmodules = ["capture"]', 1) if module else t


def test_the_capture_table_is_read_into_the_game():
    m = parse_mission(text('captor = "a"\nexit = "north"\ncaptive_points = 2\nexit_points = 3\ncharacter_points = 1'))
    assert m.capture == CaptureRules("a", "north", 2, 3, 1)
    assert parse_mission(text(None)).capture == CaptureRules()  # the module on, the table left out
    assert parse_mission(text(None, module=False)).capture is None


@pytest.mark.parametrize("capture, field, words", [
    ('captor = "c"', "capture.captor", '"a", "b" or "both"'),
    ('exit = "up"', "capture.exit", "board edge"),
    ("captive_points = 11", "capture.captive_points", "0..10"),
    ("exit_points = -1", "capture.exit_points", "0..10"),
    ("exit_points = 2", "capture.exit_points", "need an exit edge"),
    ("character_points = 99", "capture.character_points", "0..10"),
    ("kidnap = 1", "capture", "kidnap"),
])
def test_bad_capture_tables_are_refused_naming_the_field(capture, field, words):
    with pytest.raises(MissionError) as info:
        parse_mission(text(capture), "bad.toml")
    assert info.value.field == field and words in str(info.value)


def test_a_capture_table_without_the_module_is_refused():
    with pytest.raises(MissionError, match="needs the capture module"):
        parse_mission(text('captor = "a"', module=False), "bad.toml")
