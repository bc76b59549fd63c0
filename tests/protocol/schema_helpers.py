"""Validators of the published schema, for the protocol's tests and the JS bot's."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from skirmish.protocol.schema import DOC_PATH

ROOT = Path(__file__).resolve().parents[2]


def published() -> dict:
    return json.loads((ROOT / DOC_PATH).read_text(encoding="utf-8"))


def validator(kind: str) -> jsonschema.Draft202012Validator:
    """A validator of ``#/$defs/<kind>`` of the published document."""
    doc = published()
    return jsonschema.Draft202012Validator({"$schema": doc["$schema"], "$defs": doc["$defs"],
                                            "$ref": f"#/$defs/{kind}"})
