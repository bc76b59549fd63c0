"""``skirmish serve``'s event loop (``--loop``) and the JSON log line's cheaper rendering (issue 19)."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest

from skirmish.server.cli import CliError, _loop_factory
from skirmish.server.config import ServerConfig, loop_factory
from skirmish.server.logs import render, stamp


def test_the_loop_setting_is_checked():
    assert ServerConfig(loop="asyncio").loop == "asyncio"
    with pytest.raises(ValueError, match="loop is one of uvloop, asyncio"):
        ServerConfig(loop="trio")


def test_loop_factories():
    assert loop_factory("asyncio") is None
    try:
        import uvloop
    except ImportError:
        assert loop_factory("") is None
        with pytest.raises(ValueError, match="uvloop is not installed"):
            loop_factory("uvloop")
    else:
        assert loop_factory("uvloop") is uvloop.new_event_loop
        assert loop_factory("") is uvloop.new_event_loop  # the default where it is installed


def test_only_serve_chooses_its_loop(monkeypatch):
    monkeypatch.setenv("SKIRMISH_LOOP", "asyncio")
    assert _loop_factory(SimpleNamespace(command="serve", loop=None)) is None
    assert _loop_factory(SimpleNamespace(command="replay", loop=None)) is None
    monkeypatch.setenv("SKIRMISH_LOOP", "nonsense")
    with pytest.raises(CliError):
        _loop_factory(SimpleNamespace(command="serve", loop=None))


def test_the_line_is_json_with_every_key_and_a_utc_timestamp():
    event = stamp(None, "info", {"game": "g-1", "option": ["move", 3], "latency_ms": 1.25, "event": "command"})
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", event["timestamp"])
    line = render(None, "info", event)
    assert "\n" not in line
    assert json.loads(line) == event


def test_a_value_json_cannot_hold_falls_back_to_its_repr():
    class Odd:
        def __repr__(self):
            return "<odd>"

    assert json.loads(render(None, "info", {"event": "x", "what": Odd(), "raw": b"\x00"})) == {
        "event": "x", "what": "<odd>", "raw": repr(b"\x00")}
