"""The mission format's [capture] table: checked, with typed errors naming the field."""

from __future__ import annotations

import pytest

from skirmish.engine.errors import MissionError
from skirmish.engine.mission import parse_mission
from skirmish.engine.rules.capture.fields import CaptureRules

from tests.engine.rules.scenario import mission_text

UNITS = [("a1", "a", "hero", 1, 1), ("b1", "b", "grunt", 6, 6)]


def text(capture: str | None, module: bool = True) -> str:
    return mission_text(UNITS, extra=("\n[capture]\n" + capture + "\n") if capture is not None else "",
                        modules=("capture",) if module else ())


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


def test_the_bundled_snatch_mission_is_built_around_capture():
    # "But it's more fun to use the rules in missions designed for the purpose."
    from skirmish.server.missions import load

    m = load("snatch")
    assert m.modules == ("capture",)
    assert m.capture == CaptureRules("a", "north", 2, 2, 3)
    kinds = {u.kind for u in m.units if u.side == "b"}
    assert kinds == {"bogey", "hero"}  # bogeys to capture, and a character too


def test_snatch_games_full_of_captures_verify():
    """Bots that take every capture-module option they are offered (else play at random): every
    rule of the module runs, and each game's log verifies (the rules re-run, the dice recomputed)."""
    import asyncio

    from skirmish.bots.random_bot import RandomBot
    from skirmish.engine import events as ev
    from skirmish.engine.rules.capture import events as cev
    from skirmish.engine.codec import decode_event
    from skirmish.engine.verify import LoggedEvent, verify_log
    from skirmish.server.match import play_match
    from skirmish.server.missions import load
    from skirmish.server.store import MemoryStore

    async def run():
        store = MemoryStore()
        out = []
        for seed in (1, 2, 3):
            bots = {"a": Eager(seed), "b": Eager(seed + 10)}
            result = await play_match(store, load("snatch"), bots, seed=seed)
            stored = await store.read(result.game_id)
            report = verify_log(result.game_id, [LoggedEvent(s.seq, s.data, s.hash) for s in stored])
            out.append((report, [decode_event(s.data) for s in stored]))
        return out

    class Eager(RandomBot):
        def choose(self, view, decision):
            for o in decision.options:
                if o[0] in ("capture", "free", "escape", "drag", "exit", "bonus"):
                    return o
            return super().choose(view, decision)

    captures = 0
    for report, events in asyncio.run(run()):
        assert report.ok and report.finished and report.seed_verified, report.problem
        captures += sum(isinstance(e, cev.UnitCaptured) for e in events)
        for i, e in enumerate(events):  # every d12 test's grouping sits next to its roll
            if isinstance(e, cev.D12Tested):
                assert isinstance(events[i - 1], ev.DiceRolled) and events[i - 1].nonce == e.nonce
    assert captures >= 1
