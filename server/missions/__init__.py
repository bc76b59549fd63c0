"""The bundled missions (TOML files beside this module) and loading a mission file by path."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from skirmish.engine.errors import MissionError
from skirmish.engine.mission import Mission, parse_mission


def bundled() -> dict[str, Mission]:
    """Every bundled mission by id, in file-name order."""
    out: dict[str, Mission] = {}
    for entry in sorted(resources.files(__name__).iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml"):
            m = parse_mission(entry.read_text(encoding="utf-8"), f"missions/{entry.name}")
            out[m.id] = m
    return out


def load(name_or_path: str) -> Mission:
    """A bundled mission by id, or a mission file by path."""
    missions = bundled()
    if name_or_path in missions:
        return missions[name_or_path]
    path = Path(name_or_path)
    if path.suffix == ".toml" or path.exists():
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise MissionError(str(path), "(file)", exc.strerror or str(exc)) from None
        return parse_mission(text, str(path))
    raise MissionError(name_or_path, "(name)", f"no such mission; bundled: {', '.join(missions)}")
