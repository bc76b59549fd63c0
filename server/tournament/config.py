"""A tournament's settings: from a TOML file, from flags, or both (flags win), checked.

The TOML keys are the flags' names (``decision-timeout-ms`` may also be spelled
``decision_timeout_ms``)::

    bots = ["random", "greedy", "cautious=mybots:Cautious"]  # or one comma-separated string
    mission = ["ridge", "outpost"]                            # or one name / path
    games = 10                 # games per pairing, played as mirrored pairs
    format = "swiss"           # round-robin | swiss | gauntlet
    rounds = 3                 # swiss only (default: ceil(log2(entrants)))
    champion = "greedy"        # gauntlet only
    workers = 4                # default: one per core
    seed = 7
    out = "var/tourney"        # relative paths in the file are relative to the file
    decision-timeout-ms = 2000 # 0: no limit
    server = "ws://127.0.0.1:8765"  # play through a running server instead of in process
    ray = true                 # play the games as Ray tasks on a local Ray; or "ray://HOST:10001"

An entrant is a strategy name (``random``), an import path (``package.module:Class``), or
either preceded by a display name (``name=spec``). The same strategy listed twice becomes two
entrants (``random``, ``random-2``), with different bot seeds.

The *fingerprint* (:meth:`TournamentConfig.fingerprint`) is what makes the games: entrants,
missions (with a digest of their content), games, format, rounds, champion, seed, time-out and
mode (in process or through a server). Resuming an output directory made with another
fingerprint is refused. Workers, the output directory, the server's address and Ray (whether
and where) are not part of it: a tournament started on worker processes may be resumed on Ray.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FORMATS = ("round-robin", "swiss", "gauntlet")
DEFAULT_GAMES = 2
DEFAULT_TIMEOUT_MS = 5000
DEFAULT_OUT = "tournament"
KEYS = ("bots", "mission", "games", "format", "rounds", "champion", "workers", "seed", "out",
        "decision-timeout-ms", "server", "ray")
_ALIASES = {"decision_timeout_ms": "decision-timeout-ms", "missions": "mission"}


class TournamentError(ValueError):
    """A problem with the tournament's settings or its output directory, told in one line."""


@dataclass(frozen=True)
class Entrant:
    name: str  # unique within the tournament; shown in every table
    bot: str  # what skirmish.bots.make_bot takes: a strategy name or "package.module:Class"


@dataclass
class TournamentConfig:
    entrants: list[Entrant]
    missions: list[str]  # bundled mission ids or paths, as given
    games: int = DEFAULT_GAMES  # per pairing; always even (see games_requested)
    format: str = "round-robin"
    rounds: int | None = None  # swiss
    champion: str | None = None  # gauntlet: an entrant's name
    workers: int = field(default_factory=lambda: os.cpu_count() or 1)
    seed: int | None = None  # None: the stored one when resuming, else a fresh random one
    out: Path = Path(DEFAULT_OUT)
    decision_timeout_ms: int = DEFAULT_TIMEOUT_MS  # 0: no limit
    server: str | None = None
    ray: str | None = None  # play the games as Ray tasks: "" on a local Ray, else at this address
    workers_auto: bool = False  # workers not given: one per core here, with Ray one per CPU of the cluster
    games_requested: int | None = None  # what was asked for, when it was odd
    mission_digests: dict[str, str] = field(default_factory=dict)

    @property
    def pairs(self) -> int:
        """Mirrored pairs per pairing."""
        return self.games // 2

    def fingerprint(self) -> dict[str, Any]:
        """Everything that decides which games are played (see the module docstring)."""
        return {
            "entrants": [[e.name, e.bot] for e in self.entrants],
            "missions": [[m, self.mission_digests.get(m, "")] for m in self.missions],
            "games": self.games,
            "format": self.format,
            "rounds": self.rounds if self.format == "swiss" else None,
            "champion": self.champion if self.format == "gauntlet" else None,
            "seed": self.seed,
            "decision_timeout_ms": self.decision_timeout_ms,
            "mode": "server" if self.server else "local",
            "dice": "per-game",  # each game its own dice seed (schedule.py); older tournaments shared a pair's
        }

    def fingerprint_hash(self) -> str:
        text = json.dumps(self.fingerprint(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def as_dict(self) -> dict[str, Any]:
        """The settings as shown in results.json and report.md."""
        return {
            "bots": [f"{e.name}={e.bot}" for e in self.entrants],
            "mission": list(self.missions),
            "games": self.games,
            "games_requested": self.games_requested or self.games,
            "format": self.format,
            "rounds": self.rounds,
            "champion": self.champion,
            "workers": self.workers,
            "seed": self.seed,
            "out": str(self.out),
            "decision_timeout_ms": self.decision_timeout_ms,
            "server": self.server,
            "ray": self.ray,
        }


# -- reading ---------------------------------------------------------------------------------


def read_toml(path: Path) -> dict[str, Any]:
    """The settings in a TOML file, keys normalised; relative paths made relative to the file."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise TournamentError(f"cannot read config {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise TournamentError(f"config {path} is not valid TOML: {exc}") from None
    out: dict[str, Any] = {}
    for key, value in raw.items():
        name = _ALIASES.get(key, key)
        if name not in KEYS:
            raise TournamentError(f"config {path}: unknown key {key!r}; the keys are: {', '.join(KEYS)}")
        out[name] = value
    base = path.parent
    if isinstance(out.get("out"), str) and not Path(out["out"]).is_absolute():
        out["out"] = str(base / out["out"])
    if "mission" in out:
        out["mission"] = [_relative_mission(m, base) for m in _as_list(out["mission"], "mission", str(path))]
    if "bots" in out:
        out["bots"] = [_relative_bot(b, base) for b in _as_list(out["bots"], "bots", str(path))]
    return out


def _relative_bot(item: Any, base: Path) -> Any:
    """A bot of the file's own folder (``mybots:Cautious`` with ``mybots.py`` beside the file, or
    ``sub/mybots.py:Cautious``) as an absolute file path, keeping the name as written."""
    if isinstance(item, dict):
        if isinstance(item.get("bot"), str):
            return {**item, "name": item.get("name") or item["bot"], "bot": _bot_path(item["bot"].strip(), base)}
        return item
    if not isinstance(item, str):
        return item
    text = item.strip()
    name, eq, spec = (s.strip() for s in text.partition("=")) if "=" in text else (text, "", text)
    resolved = _bot_path(spec, base)
    return item if resolved == spec else f"{name}={resolved}"


def _bot_path(spec: str, base: Path) -> str:
    from skirmish.bots import is_file_spec

    module, _, attr = spec.rpartition(":")
    if not module or not attr:
        return spec
    if is_file_spec(module):
        if Path(module).expanduser().is_absolute():
            return spec
        candidate = base / module
        if not candidate.suffix and not candidate.exists():
            candidate = candidate.with_name(candidate.name + ".py")
    else:
        candidate = base / (module.replace(".", "/") + ".py")
    return f"{candidate.resolve()}:{attr}" if candidate.is_file() else spec


def _relative_mission(name: Any, base: Path) -> Any:
    if isinstance(name, str) and (name.endswith(".toml") or "/" in name) and not Path(name).is_absolute():
        candidate = base / name
        if candidate.exists():
            return str(candidate)
    return name


def _as_list(value: Any, key: str, where: str) -> list[Any]:
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, list):
        return value
    raise TournamentError(f"{where}: {key} must be a list or a comma-separated string, not {value!r}")


def _int(settings: dict[str, Any], key: str, *, minimum: int, default: int | None) -> int | None:
    value = settings.get(key)
    if value is None:
        return default
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            raise TournamentError(f"{key} must be a whole number, not {settings[key]!r}") from None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TournamentError(f"{key} must be a whole number, not {value!r}")
    if value < minimum:
        raise TournamentError(f"{key} must be at least {minimum}, not {value}")
    return value


def parse_entrants(items: list[Any]) -> list[Entrant]:
    entrants: list[Entrant] = []
    taken: set[str] = set()
    for item in items:
        if isinstance(item, dict):
            unknown = set(item) - {"name", "bot"}
            if unknown or "bot" not in item:
                raise TournamentError(f"an entrant table takes 'bot' and optionally 'name', not {item!r}")
            name, spec = str(item.get("name") or item["bot"]).strip(), str(item["bot"]).strip()
            explicit = "name" in item
        elif isinstance(item, str):
            text = item.strip()
            if "=" in text:
                name, _, spec = (s.strip() for s in text.partition("="))
                explicit = True
            else:
                name = spec = text
                explicit = False
        else:
            raise TournamentError(f"an entrant is a string like 'random' or 'name=module:Class', not {item!r}")
        if not spec:
            raise TournamentError(f"entrant {item!r} names no bot")
        if not name or any(c in name for c in ",\n\t"):
            raise TournamentError(f"entrant name {name!r} must be non-empty, without commas or tabs")
        if name in taken:
            if explicit:
                raise TournamentError(f"two entrants are named {name!r}; give each a different name (name=spec)")
            n = 2
            while f"{name}-{n}" in taken:
                n += 1
            name = f"{name}-{n}"
        taken.add(name)
        entrants.append(Entrant(name, spec))
    return entrants


def load_config(config_file: Path | None = None, flags: dict[str, Any] | None = None) -> TournamentConfig:
    """The settings of a TOML file (if any) with the flags given (not None) on top, all checked.

    Raises :class:`TournamentError` naming the first problem (unknown bot or mission, no
    entrants, a bad number, a key that does not apply to the format).
    """
    settings = _merged(config_file, flags)
    where = f"config {config_file}" if config_file else "flags"

    items = _as_list(settings.get("bots", []), "bots", where)
    entrants = parse_entrants(items)
    if not entrants:
        raise TournamentError("no entrants: give --bots (e.g. --bots random,greedy) or 'bots' in the config")
    _check_bots(entrants)

    fmt = _format(settings)
    server = _server(settings)
    missions, digests = _missions(settings, where, server)

    games = _int(settings, "games", minimum=1, default=DEFAULT_GAMES)
    requested = None
    if games % 2:
        requested, games = games, games + 1
    workers = _int(settings, "workers", minimum=1, default=None)
    workers_auto = workers is None
    workers = workers or os.cpu_count() or 1
    timeout = _int(settings, "decision-timeout-ms", minimum=0, default=DEFAULT_TIMEOUT_MS)
    seed = _int(settings, "seed", minimum=0, default=None)

    rounds = _int(settings, "rounds", minimum=1, default=None)
    if rounds is not None and fmt != "swiss":
        raise TournamentError(f"rounds applies to the swiss format only (format is {fmt})")
    if len(entrants) < 2:
        raise TournamentError(f"a tournament needs at least two entrants, got {len(entrants)}: {entrants[0].name}")
    if fmt == "swiss" and rounds is None:
        rounds = max(1, math.ceil(math.log2(len(entrants))))

    champion = _champion(settings, fmt, items, entrants)

    return TournamentConfig(
        entrants=entrants, missions=missions, games=games, format=fmt, rounds=rounds, champion=champion,
        workers=workers, seed=seed, out=Path(settings.get("out") or DEFAULT_OUT), decision_timeout_ms=timeout,
        server=server or None, games_requested=requested, mission_digests=digests,
        ray=_ray(settings), workers_auto=workers_auto,
    )


def _merged(config_file: Path | None, flags: dict[str, Any] | None) -> dict[str, Any]:
    """The file's settings (if any) with the flags given (not None) on top; unknown flags refused."""
    settings: dict[str, Any] = read_toml(config_file) if config_file else {}
    for key, value in (flags or {}).items():
        key = _ALIASES.get(key.replace("_", "-"), key.replace("_", "-"))
        if key not in KEYS:
            raise TournamentError(f"unknown setting {key!r}")
        if value is not None:
            settings[key] = value
    return settings


def _format(settings: dict[str, Any]) -> str:
    fmt = str(settings.get("format", "round-robin")).strip().lower().replace("_", "-")
    if fmt == "roundrobin":
        fmt = "round-robin"
    if fmt not in FORMATS:
        raise TournamentError(f"unknown format {settings.get('format')!r}; use one of: {', '.join(FORMATS)}")
    return fmt


def _server(settings: dict[str, Any]) -> str | None:
    server = settings.get("server")
    if server is not None:
        server = str(server).strip()
        if not server.startswith(("ws://", "wss://")):
            raise TournamentError(f"server must be a ws:// or wss:// URL, not {server!r}")
    return server


def _ray(settings: dict[str, Any]) -> str | None:
    """None (worker processes), "" (a local Ray: ``--ray``, ``ray = true``) or a Ray address."""
    value = settings.get("ray")
    if value is None or value is False:
        return None
    if value is True:
        return ""
    if not isinstance(value, str):
        raise TournamentError(f"ray must be true, false or a Ray address (ray://HOST:10001, HOST:PORT, auto), "
                              f"not {value!r}")
    value = value.strip()
    return "" if value in ("", "local") else value


def _missions(settings: dict[str, Any], where: str, server: str | None) -> tuple[list[str], dict[str, Any]]:
    """The missions named, and each one's digest (as the server knows it, with ``server``)."""
    missions = _as_list(settings.get("mission", ["ridge"]), "mission", where) or ["ridge"]
    if not all(isinstance(m, str) and m for m in missions):
        raise TournamentError(f"mission takes names or paths, not {missions!r}")
    if len(set(missions)) != len(missions):
        raise TournamentError(f"a mission is listed twice: {missions}")
    if server:
        paths = [m for m in missions if m.endswith(".toml") or "/" in m]
        if paths:
            raise TournamentError(f"with --server, name missions by the server's mission ids, not files: {paths}")
        digests = {m: mission_digest(m, required=False) for m in missions}
    else:
        digests = {m: mission_digest(m) for m in missions}
    return missions, digests


def _champion(settings: dict[str, Any], fmt: str, items: list[Any], entrants: list[Entrant]) -> str | None:
    """The gauntlet's champion (added to ``entrants`` if it is not one of them)."""
    champion = settings.get("champion")
    if champion is not None and fmt != "gauntlet":
        raise TournamentError(f"champion applies to the gauntlet format only (format is {fmt})")
    if fmt == "gauntlet":
        if not champion or not isinstance(champion, str):
            raise TournamentError("the gauntlet format needs a champion (--champion NAME): an entrant, or a bot to add")
        champion = champion.strip()
        if champion not in {e.name for e in entrants}:
            added = parse_entrants([*items, champion])[-1]
            _check_bots([added])
            entrants.append(added)
            champion = added.name
    return champion

def _check_bots(entrants: list[Entrant]) -> None:
    from skirmish.bots import make_bot

    for e in entrants:
        try:
            make_bot(e.bot, 0)
        except ValueError as exc:
            raise TournamentError(f"entrant {e.name!r}: {exc}") from None
        except Exception as exc:  # a bot whose constructor fails cannot play at all
            raise TournamentError(f"entrant {e.name!r}: creating bot {e.bot!r} failed: "
                                  f"{type(exc).__name__}: {exc}") from None


def mission_digest(name: str, required: bool = True) -> str:
    """A digest of the mission's content (so that an edited mission file is a different config).

    Not ``required`` (missions a server offers): "" for a mission unknown here."""
    import msgspec

    from skirmish.engine.errors import MissionError
    from skirmish.server import missions

    try:
        mission = missions.load(name)
    except MissionError as exc:
        if not required:
            return ""
        raise TournamentError(f"mission {exc}") from None
    return hashlib.sha256(msgspec.msgpack.encode(mission)).hexdigest()[:16]
