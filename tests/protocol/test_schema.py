"""The JSON Schema of the protocol (issue 18 item 4): ``docs/schema/skirmish.schema.json`` is exactly
what ``skirmish schema`` generates from the types today, names every message and event, and says
what the codecs accept and refuse. Real frames of real games validate: ``test_schema_frames.py``."""

from __future__ import annotations

import json
import subprocess
import sys

import jsonschema
import msgspec
import pytest

from skirmish.engine.base import Hidden
from skirmish.engine.events import AnyEvent
from skirmish.engine.model import FrameT
from skirmish.engine.rules.bundled import parts
from skirmish.protocol import messages as m
from skirmish.protocol.codec import JsonCodec
from skirmish.protocol.errors import ProtocolError
from skirmish.protocol.schema import COMMAND, DOC_PATH, build_schema, ecma_pattern, json_model, render_schema

from tests.protocol.schema_helpers import ROOT, validator



def test_the_published_schema_is_what_the_types_generate_byte_for_byte():
    path = ROOT / DOC_PATH
    assert path.is_file(), f"{DOC_PATH} is missing: generate it with `{COMMAND}`"
    assert path.read_text(encoding="utf-8") == render_schema(), (
        f"{DOC_PATH} is out of date with the protocol's types: regenerate it with `{COMMAND}` and commit it")


def test_the_command_writes_and_checks_the_file(tmp_path):
    out = tmp_path / "deep" / "s.json"
    run = lambda *a: subprocess.run([sys.executable, "-m", "skirmish.server.cli", "schema", *a],
                                    capture_output=True, text=True, timeout=120)
    assert run("--check", str(out)).returncode == 1  # missing
    written = run("--out", str(out))
    assert written.returncode == 0, written.stderr
    assert out.read_text(encoding="utf-8") == render_schema()
    assert run("--check", str(out)).returncode == 0
    out.write_text(render_schema().replace('"Hidden"', '"Hiden"', 1), encoding="utf-8")
    stale = run("--check", str(out))
    assert stale.returncode == 1 and f"skirmish schema --out {out}" in stale.stderr, stale.stderr
    printed = run()
    assert printed.returncode == 0 and printed.stdout == render_schema()


def test_the_document_is_a_valid_2020_12_schema():
    doc = build_schema()
    jsonschema.Draft202012Validator.check_schema(doc)
    assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def _tags(union) -> set[str]:
    return {cls.__struct_config__.tag for cls in union.__args__}


def _branch_tags(defs: dict, name: str, field: str) -> set[str]:
    """The tag each branch of the union ``name`` fixes (its ``field``'s one allowed value)."""
    tags = set()
    for branch in defs[name]["anyOf"]:
        (only,) = defs[branch["$ref"].rsplit("/", 1)[1]]["properties"][field]["enum"]
        tags.add(only)
    return tags


def test_every_message_event_and_frame_type_is_a_branch_of_its_union():
    defs = build_schema()["$defs"]
    assert _branch_tags(defs, "ClientMessage", "type") == _tags(m.ClientMessage) == set(m.CLIENT_TYPES)
    assert _branch_tags(defs, "ServerMessage", "type") == _tags(m.ServerMessage)
    assert _branch_tags(defs, "Event", "type") == _tags(AnyEvent)
    assert _branch_tags(defs, "Frame", "frame") == _tags(FrameT)
    module_events = {e.__struct_config__.tag for part in parts("events") for e in part.EVENTS}
    assert module_events and module_events <= _branch_tags(defs, "Event", "type")  # every rules module's events


def test_each_union_is_defined_once_and_referred_to_elsewhere():
    text = render_schema()
    assert text.count('"GameCreated": "#/$defs/GameCreated"') == 1  # the Event union's discriminator, once
    defs = build_schema()["$defs"]
    assert defs["EventMsg"]["properties"]["event"] == {"$ref": "#/$defs/Event"}
    assert defs["EventItem"]["properties"]["event"] == {"$ref": "#/$defs/Event"}
    assert defs["ProcedureStarted"]["properties"]["frame"] == {"$ref": "#/$defs/Frame"}


def test_descriptions_are_dedented_and_patterns_are_ecma_262():
    text = render_schema()
    assert "\\n    " not in text  # no docstring indentation (Python 3.13 strips it; the file must not differ)
    assert "\\\\Z" not in text
    assert ecma_pattern(r"^[!-~]*\Z") == "^[!-~]*$"
    with pytest.raises(ValueError):
        ecma_pattern(r"(?P<x>a)\Z")


# -- what the schema accepts and refuses, next to what the codec does ---------------------------------

CLIENT_FRAMES = [
    {"type": "hello", "protocol": 1, "client": "js bot"},
    {"type": "join", "game_id": "g-1", "seat": "any", "client_seed": "abc-123", "id": 2},
    {"type": "command", "game_id": "g-1", "decision_id": 3, "option": ["move", 3, 4], "command_id": "c-1", "id": 4},
    {"type": "create_game", "mission": "ridge", "seat": "a", "request_id": "r" * 16},
    {"type": "replay_frames", "file": "AAAA", "as": "spectator"},
    {"type": "hello", "protocol": 1, "extra": "unknown fields are ignored"},
    # refused:
    {"type": "hello"},  # protocol is required
    {"type": "join", "game_id": "g-1", "seat": "c"},
    {"type": "join", "game_id": "g-1", "client_seed": "a:b"},
    {"type": "hello", "protocol": 1, "client": "bell\u0007"},
    {"type": "hello", "protocol": 1, "client": "x" * 65},
    {"type": "spectate", "game_id": "g-1", "after_seq": -1},
    {"type": "command", "game_id": "g-1", "decision_id": 3, "option": ["move", 1.5]},
    {"type": "command", "game_id": "g-1", "decision_id": 3, "option": ["card", {"type": "Hidden", "what": "card"}]},
    {"type": "command", "game_id": "g-1", "decision_id": 3, "option": [1] * 33},
    {"type": "list_games", "status": "closed"},
    {"type": "replay_frames", "file": "AAAA", "as": "c"},
    {"type": "teleport"},
    {"protocol": 1},
]


@pytest.mark.parametrize("frame", CLIENT_FRAMES, ids=lambda f: json.dumps(f)[:60])
def test_the_schema_accepts_exactly_the_client_frames_the_codec_accepts(frame):
    try:
        JsonCodec().decode_client(json.dumps(frame))
        codec_ok = True
    except ProtocolError:
        codec_ok = False
    assert validator("ClientMessage").is_valid(frame) == codec_ok


def test_hidden_values_validate_where_the_types_admit_them_and_nowhere_else():
    events = validator("Event")
    hidden = {"type": "Hidden", "what": "roll"}
    rolled = {"type": "DiceRolled", "nonce": 1, "sides": 20, "results": [3, 17], "purpose": "task:attack"}
    assert events.is_valid(rolled) and events.is_valid({**rolled, "results": hidden})
    assert not events.is_valid({**rolled, "results": [hidden]})
    moved = {"type": "UnitMoved", "unit": "b1", "x": 3, "y": 4}
    assert events.is_valid({**moved, "x": {"type": "Hidden", "what": "position"}})
    assert not events.is_valid({**moved, "unit": hidden})
    decision = {"id": 7, "side": "b", "kind": "card", "options": [["card", hidden], ["pass"]], "unit": ""}
    assert events.is_valid({"type": "DecisionRequested", "decision": decision})
    assert not events.is_valid({"type": "DecisionRequested", "decision": {**decision, "options": [hidden]}})


def test_json_model_puts_messagepack_values_in_json_terms():
    packed = msgspec.msgpack.encode({"a": (1, "x", Hidden("card")), "b": b"\x00\xff", "c": None})
    assert json_model(msgspec.msgpack.decode(packed)) == {
        "a": [1, "x", {"type": "Hidden", "what": "card"}], "b": "AP8=", "c": None}
    with pytest.raises(ValueError):
        json_model(msgspec.msgpack.decode(msgspec.msgpack.encode({1: "x"})))
