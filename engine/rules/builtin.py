"""Imports every bundled rules module so that each registers itself (see ``engine.rules.registry``)."""

from __future__ import annotations

# import engine.rules.<module>  -- one line per bundled module, added with the module
import engine.rules.morale  # noqa: F401,E402  (seed 004)
