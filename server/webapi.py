"""The web client's JSON API (``GET /api/...`` on the server's port; ``skirmish.server.web``).

| path | what |
|---|---|
| ``missions`` | the bundled missions, each with its map (cells), objectives and the terrain legend |
| ``games?status=&offset=&limit=`` | a page of games (as ``list_games``: open, live, finished), newest first |
| ``games/ID`` | one game's summary (+ its outcome and players once known) |
| ``games/ID/replay.skr`` | a finished game's replay file (``docs/replay-format.md``) |
| ``games/ID/view?as=VIEWER&after=SEQ`` | the game's state now in VIEWER's view, its narrated log after SEQ, and the pending decision with each option's label, cell or target |
| ``games/ID/frames?as=VIEWER`` | a finished game, step by step in VIEWER's view: the first state, then per event its narration and what it changed (the replay viewer's slider) |
| ``bots`` | the bots this server hosts (``skirmish serve --house-bots``) |
| ``games/ID/house-bot?bot=NAME`` | a hosted bot takes the free seat of a game (the caller shows a seat token of that game) |

Views: ``a`` and ``b`` need the seat's token (header ``X-Skirmish-Token``) while the game runs;
``spectator`` is anyone's; ``all`` (the whole log) opens when the game is over, as everywhere.
Every state is the engine's own: the events in the viewer's view (``skirmish.engine.view``)
folded with ``skirmish.engine.evolve``, so the page never sees what the viewer may not.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from skirmish.client.narrate import describe
from skirmish.client.render import DECISION_TITLES, cell_option, label, procedure
from skirmish.engine import board as boards
from skirmish.engine.codec import decode_event
from skirmish.engine.events import GameCreated, GameEnded, SeatTaken
from skirmish.engine.evolve import evolve, initial_state
from skirmish.engine.rules import registry
from skirmish.engine.view import VIEWERS, view
from skirmish.protocol import messages as m
from skirmish.protocol.errors import ProtocolError
from skirmish.server.listings import status_of
from skirmish.server.replayfile import export_game
from skirmish.server.store import UnknownGame
from skirmish.server.web import HttpError, json_response, response

MAX_LOG = 2000  # narrated lines one view answer carries at most


def tournament_folders(text: str) -> dict[str, Path]:
    """``"out1,out2"`` -> {name: folder}, named by the folder's name (made unique)."""
    found: dict[str, Path] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        folder = Path(part).expanduser().resolve()
        name, k = folder.name or "tournament", 2
        while name in found:
            name, k = f"{folder.name}-{k}", k + 1
        found[name] = folder
    return found


def tournament_summary(name: str, folder: Path) -> dict:
    try:
        doc = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"name": name, "ready": False}
    top = doc["standings"][0] if doc.get("standings") else {}
    return {"name": name, "ready": (folder / "report.html").is_file(), "format": doc["config"].get("format", ""),
            "games": doc.get("games_total", 0), "entrants": [s["entrant"] for s in doc.get("standings", [])],
            "leader": top.get("entrant", ""), "report": f"/tournaments/{name}/report.html"}


def plain(value):
    return msgspec.to_builtins(value)


def event_json(event) -> dict:
    return msgspec.json.decode(msgspec.json.encode(event))


def state_json(state) -> dict:
    """The state's plain form; a unit not on the table (the registry's ``on_table``: e.g. not yet
    deployed) carries ``off_table``, so that the page draws it beside the board, not on its cell,
    and a unit the modules say something of carries it in ``shown`` (``unit_flags``)."""
    data = plain(state)
    data.pop("salt", None)  # (redacted in a side's view anyway; a replay needs none of it)
    flags = registry.rules_of(state).render.unit_flags
    for uid, unit in state.units.items():
        if not registry.allows(state, "on_table", unit):
            data["units"][uid]["off_table"] = True
        told = unit_flags(unit, flags)
        if told:
            data["units"][uid]["shown"] = told
    return data


def unit_flags(unit, flags) -> list[str]:
    """What the game's modules say of a unit in the text client (``Module.render.unit_flags``: e.g.
    the skills module's Troop Type, skills and seed 003 attributes), for its profile on the page."""
    out = []
    for module_flags in flags:
        try:
            out += [str(f) for f in module_flags(unit)]
        except Exception:  # noqa: BLE001 - a courtesy: the unit is drawn all the same
            continue
    return out


def mission_json(mission) -> dict:
    return {"id": mission.id, "name": mission.name, "description": mission.description,
            "width": mission.board.width, "height": mission.board.height, "cells": mission.board.cells,
            "units": len(mission.units), "rounds": mission.rounds, "modules": list(mission.modules),
            "sides": dict(mission.sides),
            "objectives": [{"id": o.id, "name": o.name, "x": o.x, "y": o.y} for o in mission.objectives],
            "deploy": [{"id": u.id, "side": u.side, "x": u.x, "y": u.y} for u in mission.units]}


def board_cell(option, state) -> tuple[int, int] | None:
    """The cell an option is drawn on: a move's (``cell_option``), or any option ``(kind, x, y)``
    whose two arguments are whole numbers on the board -- the skills module's ``("deploy", x, y)``
    and any module's option placing a unit on a cell, without the page knowing its kind."""
    cell = cell_option(tuple(option))
    if cell is not None:
        return cell
    b = state.board
    if (len(option) == 3 and all(type(v) is int for v in option[1:]) and b is not None
            and 0 <= option[1] < b.width and 0 <= option[2] < b.height):
        return option[1], option[2]
    return None


def named_unit(option, state) -> str | None:
    """The unit an option acts on: the first of its arguments naming a unit (``("attack", t, w, l)``,
    ``("hack", program, t)``, ``("medikit", ally)``), or None."""
    return next((v for v in option[1:] if isinstance(v, str) and v in state.units), None)


def decorate(state, viewer: str) -> dict | None:
    """The pending decision with, for each option, its label (the text client's, so that every
    module's options read as in the terminal) and where it is drawn: a cell to click (moves,
    placements: ``board_cell``), a unit to click (options naming a unit: ``named_unit``; with the
    range band and line of fire from the deciding unit when it is an enemy), or a button (the rest).
    ``title`` says what the decision asks (``DECISION_TITLES``, the modules' too)."""
    d = state.pending
    if d is None:
        return None
    actor = state.units.get(d.unit)
    options = []
    for i, option in enumerate(d.options):
        try:
            text = label(option, state, d)
        except Exception:  # noqa: BLE001 - a label is a courtesy; the option stands
            text = " ".join(str(v) for v in option)
        entry = {"i": i, "option": list(option), "label": text}
        cell = board_cell(option, state)
        uid = named_unit(option, state) if cell is None else None
        if cell is not None:
            entry["cell"] = list(cell)
        elif uid is not None:
            target = state.units[uid]
            entry["unit"] = target.id
            if actor is not None and target.side != actor.side and _placed(state, actor) and _placed(state, target):
                b = state.board  # (fire: option[1] shoots at d.unit: the same line)
                entry["band"] = boards.range_band(b, actor.x, actor.y, target.x, target.y)
                entry["line_of_fire"] = boards.line_of_fire(b, actor.x, actor.y, target.x, target.y)
        options.append(entry)
    return {"id": d.id, "side": d.side, "kind": d.kind, "unit": d.unit, "mine": d.side == viewer,
            "title": DECISION_TITLES.get(d.kind, d.kind.replace("_", " ")), "options": options}


def _placed(state, unit) -> bool:
    return type(unit.x) is int and type(unit.y) is int and registry.allows(state, "on_table", unit)


def procedure_text(state, viewer: str) -> str:
    """The procedure under way as the text client says it (a roll's dice, a challenge's pools)."""
    try:
        return procedure(state, viewer if viewer in ("a", "b") else "")
    except Exception:  # noqa: BLE001 - a courtesy: the state is drawn all the same
        return ""


def notes(state, viewer: str) -> list[str]:
    """What the game's modules say of the state for this viewer (``Module.render.status``: e.g. your
    hand of cards with what each does, the other side's hand size), as the text client shows it."""
    out = []
    for module_status in registry.rules_of(state).render.status:
        try:
            out += [line.strip() for line in module_status(state, viewer)]
        except Exception:  # noqa: BLE001 - a courtesy: the state is drawn all the same
            continue
    return out


class Fold:
    """A game's log folded in one viewer's view, as far as it has been read."""

    def __init__(self, viewer: str):
        self.viewer = viewer
        self.state = None  # the viewer's state
        self.full = None  # the whole state, which the views are made from (skirmish.engine.view)
        self.seq = 0  # the log's seq read so far
        self.over = False

    def step(self, seq: int, event) -> dict:
        """Apply the log's event ``seq``; what the viewer learnt from it."""
        self.seq = seq
        if isinstance(event, GameEnded):
            self.over = True
        if self.state is None:
            self.full = initial_state(event)
            seen = view(None, event, self.viewer)
            self.state = initial_state(seen)
            return {"seq": seq, "type": type(seen).__name__, "text": describe(seen, self.state) or ""}
        seen = view(self.full, event, self.viewer)
        evolve(self.full, event)
        if seen is None:
            return {"seq": seq, "hidden": True}
        text = describe(seen, self.state) or ""
        evolve(self.state, seen)
        step = {"seq": seq, "type": type(seen).__name__, "text": text}
        if type(seen).__name__ == "DiceRolled":
            step["ev"] = event_json(seen)
        return step


def diff(before: dict, after: dict) -> dict:
    """What changed between two states' plain forms: ``set`` whole values, ``sub`` entries of a
    map (units, objectives, ...) that changed."""
    out_set, out_sub = {}, {}
    for key, value in after.items():
        if key == "seq":
            continue
        old = before.get(key)
        if old == value:
            continue
        if isinstance(value, dict) and isinstance(old, dict) and set(old) <= set(value):
            out_sub[key] = {k: v for k, v in value.items() if old.get(k) != v}
        else:
            out_set[key] = value
    change = {}
    if out_set:
        change["set"] = out_set
    if out_sub:
        change["sub"] = out_sub
    return change


def frames_of(game_id: str, viewer: str, events: list, head_hash: str) -> dict:
    """A finished game's decoded ``events`` step by step in ``viewer``'s view, for the replay
    viewer: the first state, then per event its narration and what it changed (``diff``). The
    HTTP ``games/ID/frames`` answer, and the ``frames`` reply to ``replay_frames`` (a dropped file)."""
    fold = Fold(viewer)
    steps, before, first = [], None, None
    for seq, event in enumerate(events, start=1):
        step = fold.step(seq, event)
        now = state_json(fold.state)
        if before is None:
            first = now
        elif not step.get("hidden"):
            change = diff(before, now)
            if change:
                step["change"] = change
        before = now
        steps.append(step)
    return {"game_id": game_id, "viewer": viewer, "head_hash": head_hash,
            "first": first, "steps": steps, "legend": boards.TERRAIN_NAMES}


class WebApi:
    def __init__(self, lobby_of, house=None, tournaments: str = ""):
        self.lobby_of = lobby_of  # () -> the server's Lobby
        self.house = house  # skirmish.server.housebots.HouseBots, or None
        self.tournaments = tournament_folders(tournaments)  # name -> folder
        self._folds: dict[tuple[str, str], Fold] = {}
        self._frames: dict[tuple[str, str], bytes] = {}

    @property
    def lobby(self):
        return self.lobby_of()

    async def handle(self, parts: list[str], query: dict[str, str], token: str):
        match parts:
            case ["missions"]:
                return json_response([mission_json(x) for x in self.lobby.missions.values()],
                                     cache="public, max-age=60")
            case ["bots"]:
                return json_response({"bots": self.house.names if self.house else []})
            case ["tournaments"]:
                return json_response({"tournaments": [tournament_summary(n, d) for n, d in self.tournaments.items()]})
            case ["games"]:
                return await self.games(query)
            case ["games", game_id]:
                return await self.summary(game_id)
            case ["games", game_id, "replay.skr"]:
                return await self.replay_file(game_id)
            case ["games", game_id, "view"]:
                return await self.view(game_id, query, token)
            case ["games", game_id, "frames"]:
                return await self.frames(game_id, query)
            case ["games", game_id, "house-bot"]:
                return await self.house_bot(game_id, query, token)
        raise HttpError(404, "no such API path")

    # -- listings --------------------------------------------------------------------------------

    async def games(self, query: dict[str, str]):
        status = query.get("status", "")
        if status not in ("", "open", "live", "finished"):
            raise HttpError(400, "status is open, live, finished or empty")
        try:
            offset, limit = int(query.get("offset") or 0), int(query.get("limit") or 20)
        except ValueError:
            raise HttpError(400, "offset and limit are whole numbers") from None
        if offset < 0 or not 0 < limit <= 200:
            raise HttpError(400, "offset >= 0, limit 1 to 200")
        page, total = await self.lobby.list_games(m.ListGames(status=status, offset=offset, limit=limit))
        games = [dict(plain(g), status=status_of(g)) for g in reversed(page)]  # newest first
        return json_response({"games": games, "total": total, "offset": offset, "limit": limit})

    async def _stored(self, game_id: str):
        try:
            stored = await self.lobby.store.read(game_id)
        except UnknownGame:
            raise HttpError(404, f"no game {game_id!r}") from None
        except ValueError:
            raise HttpError(404, "no such game") from None
        if not stored:
            raise HttpError(404, f"game {game_id!r} has no events yet")
        return stored

    async def summary(self, game_id: str):
        stored = await self._stored(game_id)
        events = [decode_event(s.data) for s in stored]
        first = events[0]
        if not isinstance(first, GameCreated):
            raise HttpError(404, "not a game")
        ended = next((e for e in reversed(events) if isinstance(e, GameEnded)), None)
        seats = {e.seat: e.name for e in events if isinstance(e, SeatTaken)}
        mission = self.lobby.missions.get(first.mission)
        return json_response({
            "game_id": game_id, "mission": first.mission, "mission_name": mission.name if mission else first.mission,
            "seats": seats, "seq": len(stored), "over": ended is not None,
            "status": "finished" if ended else ("live" if len(seats) == 2 else "open"),
            "outcome": plain(ended.outcome) if ended else None,
            "head_hash": stored[-1].hash.hex() if ended else "", "engine_version": first.engine_version,
            "dice": first.dice, "commitment": first.commitment})

    async def replay_file(self, game_id: str):
        stored = await self._stored(game_id)
        if not any(isinstance(decode_event(s.data), GameEnded) for s in stored[-3:]):
            raise HttpError(409, "the game is not over: its replay file is served once it has ended")
        body = await export_game(self.lobby.store, game_id)
        safe_name = "".join(c if c.isalnum() or c in "-_." else "_" for c in game_id)
        return response(200, body, "application/octet-stream", "public, max-age=3600",
                        {"Content-Disposition": f'attachment; filename="{safe_name}.skr"'})

    # -- views -----------------------------------------------------------------------------------

    async def _authorise(self, game_id: str, viewer: str, over: bool, token: str) -> None:
        if viewer not in VIEWERS:
            raise HttpError(400, f"as is one of {', '.join(VIEWERS)}")
        if over or viewer == "spectator":
            return
        if viewer == "all":
            raise HttpError(403, "the full log opens when the game is over")
        try:
            actor = await self.lobby.get(game_id)
        except ProtocolError:
            raise HttpError(404, f"no game {game_id!r}") from None
        if not token or self.lobby.seat_of_token(actor, token) != viewer:
            raise HttpError(403, f"seat {viewer}'s view needs that seat's token (X-Skirmish-Token)")

    async def view(self, game_id: str, query: dict[str, str], token: str):
        viewer = query.get("as", "spectator")
        try:
            after = int(query.get("after") or 0)
        except ValueError:
            raise HttpError(400, "after is a whole number") from None
        key = (game_id, viewer)
        fold = self._folds.pop(key, None) or Fold(viewer)
        try:
            stored = await self.lobby.store.read(game_id, fold.seq + 1) if fold.seq else await self._stored(game_id)
        except UnknownGame:
            raise HttpError(404, f"no game {game_id!r}") from None
        events = [(s.seq, decode_event(s.data)) for s in stored]
        over = fold.over or any(isinstance(e, GameEnded) for _, e in events)
        await self._authorise(game_id, viewer, over, token)
        log = []
        for seq, event in events:
            step = fold.step(seq, event)
            if seq > after and step.get("text"):
                log.append(step)
        if after < fold.seq - len(events):  # lines before what this fold had read: narrate again
            log = await self._log_between(game_id, viewer, after, fold.seq - len(events)) + log
        if len(self._folds) > 256:
            self._folds.pop(next(iter(self._folds)))
        self._folds[key] = fold
        state = fold.state
        return json_response({"game_id": game_id, "viewer": viewer, "seq": fold.seq, "over": fold.over,
                              "state": state_json(state), "pending": decorate(state, viewer),
                              "log": log[-MAX_LOG:], "legend": boards.TERRAIN_NAMES, "notes": notes(state, viewer),
                              "procedure": procedure_text(state, viewer)})

    async def _log_between(self, game_id: str, viewer: str, after: int, upto: int) -> list[dict]:
        fold, log = Fold(viewer), []
        for s in await self.lobby.store.read(game_id, 1, upto):
            step = fold.step(s.seq, decode_event(s.data))
            if s.seq > after and step.get("text"):
                log.append(step)
        return log

    async def frames(self, game_id: str, query: dict[str, str]):
        viewer = query.get("as", "all")
        if viewer not in VIEWERS:
            raise HttpError(400, f"as is one of {', '.join(VIEWERS)}")
        cached = self._frames.get((game_id, viewer))
        if cached is not None:
            return response(200, cached, "application/json; charset=utf-8", "public, max-age=3600")
        stored = await self._stored(game_id)
        events = [decode_event(s.data) for s in stored]
        if not any(isinstance(e, GameEnded) for e in events[-3:]):
            raise HttpError(409, "the replay viewer opens a game once it has ended; watch it live meanwhile")
        body = msgspec.json.encode(frames_of(game_id, viewer, events, stored[-1].hash.hex()))
        if len(self._frames) > 32:
            self._frames.pop(next(iter(self._frames)))
        self._frames[(game_id, viewer)] = body
        return response(200, body, "application/json; charset=utf-8", "public, max-age=3600")

    # -- house bots ------------------------------------------------------------------------------

    async def house_bot(self, game_id: str, query: dict[str, str], token: str):
        if self.house is None or not self.house.names:
            raise HttpError(404, "this server hosts no bots (skirmish serve --house-bots random,greedy,mcts)")
        name = query.get("bot", "")
        if name not in self.house.names:
            raise HttpError(400, f"bot is one of {', '.join(self.house.names)}")
        try:
            actor = await self.lobby.get(game_id)
        except ProtocolError:
            raise HttpError(404, f"no game {game_id!r}") from None
        if not token or self.lobby.seat_of_token(actor, token) is None:
            raise HttpError(403, "only a player seated in the game may invite a bot to it (X-Skirmish-Token)")
        if actor.state.started or len(actor.state.seats) >= 2:
            raise HttpError(409, "the game has no free seat")
        try:
            await self.house.invite(game_id, name)  # (several nodes: on the game's owner)
        except (RuntimeError, ProtocolError) as exc:
            raise HttpError(503, getattr(exc, "message", None) or str(exc)) from None
        return json_response({"game_id": game_id, "bot": name, "joining": True})
