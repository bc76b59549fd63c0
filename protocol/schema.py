"""The protocol as JSON Schema (2020-12), generated from its own types (issue 18 item 4).

``build_schema()`` asks msgspec (``msgspec.json.schema_components``) for the schema of every client
message (``ClientMessage``), server message (``ServerMessage``) and event (``AnyEvent``: the core's
and every bundled rules module's), and gathers them into one document, ``render_schema()`` its
text, byte for byte stable: ``docs/schema/skirmish.schema.json`` is that text, written by
``skirmish schema --out docs/schema/skirmish.schema.json`` and kept in step by
``tests/protocol/test_schema.py``.

The document validates JSON values (the ``skirmish.v1.json`` codec's frames as they are); a
MessagePack frame validates once decoded and put in JSON's terms (``json_model``): docs/protocol.md,
"The JSON Schema". What msgspec gives is kept but for three things:

- the unions get names of their own in ``$defs`` (``ClientMessage``, ``ServerMessage``, ``Event``,
  ``Frame`` for a procedure's frame) and every place that held a copy of one refers to it instead;
- descriptions (the types' docstrings) are dedented (``inspect.cleandoc``), so that the text does not
  depend on the Python version (3.13 dedents docstrings when it compiles them; 3.11 does not);
- string patterns are written for ECMA-262, as JSON Schema says they are: Python's end-of-string
  ``\\Z`` becomes ``$`` (the patterns hold no other construct the two dialects read differently).
"""

from __future__ import annotations

import base64
import inspect
import json
import re
from typing import Any

import msgspec

from skirmish.engine.events import AnyEvent
from skirmish.engine.model import FrameT
from skirmish.protocol.codec import JSON, MSGPACK
from skirmish.protocol.messages import PROTOCOL_VERSION, ClientMessage, ServerMessage

DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID = f"urn:skirmish:protocol:v{PROTOCOL_VERSION}"
DOC_PATH = "docs/schema/skirmish.schema.json"  # in the repository
COMMAND = f"skirmish schema --out {DOC_PATH}"  # what regenerates it
REF = "#/$defs/{name}"

# the unions that get a name in ``$defs``, in the document's order
UNIONS = {"ClientMessage": ClientMessage, "ServerMessage": ServerMessage, "Event": AnyEvent, "Frame": FrameT}

_DESCRIPTION = (
    f"The skirmish wire protocol, version {PROTOCOL_VERSION}, generated from its types "
    "(protocol/messages.py, engine/events.py, engine/rules/*/events.py) by `skirmish schema`: do not edit, "
    "regenerate. A client frame is a ClientMessage, a server frame a ServerMessage; the log's events, "
    "and the `event` inside `event` and `updates` messages, are an Event. The values are JSON's, as the "
    f"{JSON} codec sends them; a {MSGPACK} frame validates once decoded and put in JSON's terms "
    "(docs/protocol.md, \"The JSON Schema\").")


def build_schema() -> dict[str, Any]:
    """The whole document: a frame of either direction validates against it (the root is
    ``ClientMessage`` or ``ServerMessage``); ``#/$defs/NAME`` for one kind."""
    tops, components = msgspec.json.schema_components(list(UNIONS.values()), ref_template=REF)
    clash = set(UNIONS) & set(components)
    if clash:
        raise ValueError(f"a type is named as a union of the schema: {sorted(clash)}")
    named = {name: top for name, top in zip(UNIONS, tops)}
    defs = {name: _refer(top, named, skip=name) for name, top in named.items()}
    for name in sorted(components):
        defs[name] = _refer(components[name], named)
    return {
        "$schema": DIALECT,
        "$id": SCHEMA_ID,
        "title": f"skirmish wire protocol v{PROTOCOL_VERSION}",
        "description": _DESCRIPTION,
        "anyOf": [{"$ref": REF.format(name="ClientMessage")}, {"$ref": REF.format(name="ServerMessage")}],
        "$defs": _tidy(defs),
    }


def render_schema() -> str:
    """``build_schema()`` as text: two-space indents, keys in msgspec's order, a final newline."""
    return json.dumps(build_schema(), indent=2, ensure_ascii=False) + "\n"


def _refer(node: Any, named: dict[str, Any], skip: str = "") -> Any:
    """``node`` with every copy of a named union (but ``skip``, the one being defined) replaced by a reference."""
    for name, union in named.items():
        if name != skip and node == union:
            return {"$ref": REF.format(name=name)}
    if isinstance(node, dict):
        return {key: _refer(value, named) for key, value in node.items()}
    if isinstance(node, list):
        return [_refer(value, named) for value in node]
    return node


def _tidy(node: Any) -> Any:
    """Descriptions dedented, patterns in ECMA-262's terms (the module's docstring says why)."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "description" and isinstance(value, str):
                value = inspect.cleandoc(value)
            elif key == "pattern" and isinstance(value, str):
                value = ecma_pattern(value)
            else:
                value = _tidy(value)
            out[key] = value
        return out
    if isinstance(node, list):
        return [_tidy(value) for value in node]
    return node


_PYTHON_ONLY = re.compile(r"\\[AZz]|\(\?P|\(\?[aiLmsux]")


def ecma_pattern(pattern: str) -> str:
    """A Python pattern of the protocol's (``^[class]*\\Z``) for ECMA-262: ``\\Z`` -> ``$`` (which,
    without the multiline flag, matches only at the end of the input there). Anything else Python
    reads differently is refused, so that a new pattern is looked at rather than mistranslated."""
    if pattern.endswith("\\Z"):
        pattern = pattern[:-2] + "$"
    if _PYTHON_ONLY.search(pattern):
        raise ValueError(f"pattern {pattern!r} holds a Python-only construct: write it for both dialects")
    return pattern


def json_model(value: Any) -> Any:
    """A decoded MessagePack value in JSON's terms, which the schema describes: bin (``bytes``) becomes
    its base64 text (the schema's ``contentEncoding: base64``), arrays stay arrays (tuples included),
    maps must have string keys (every map of the protocol has; another key is a ``ValueError``), and
    integers, floats, strings, booleans and nil are the same values."""
    if isinstance(value, dict):
        bad = [key for key in value if not isinstance(key, str)]
        if bad:
            raise ValueError(f"a map key that is not a string: {bad[0]!r}")
        return {key: json_model(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_model(item) for item in value]
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode()
    return value
