"""Helpers for the research API's tests (skirmish.bots.research)."""

from __future__ import annotations

import importlib
import os

import pytest


def need(module: str, extra: str):
    """Import ``module``, or skip the test file saying how to install it; under ``CI=true`` fail
    instead (``make test`` installs the extras)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        why = f"{module} is not installed ({exc}): pip install -e '.[{extra}]' (make test installs it)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{why}; CI=true: the research tests must run", pytrace=False)
        pytest.skip(why, allow_module_level=True)
