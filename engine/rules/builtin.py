"""Imports every bundled rules module so that each registers itself (see ``engine.rules.registry``)."""

from __future__ import annotations

# import engine.rules.<module>  -- one line per bundled module, added with the module
import engine.rules.capture  # noqa: F401,E402  (seed 000)
import engine.rules.challenges  # noqa: E402,F401  seed 002
import engine.rules.morale  # noqa: F401,E402  (seed 004)
