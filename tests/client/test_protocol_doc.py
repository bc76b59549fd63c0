"""docs/protocol.md against the code: its complete JSON client plays a whole game against a real
server; its tables hold every message, structure and event the server sends or accepts, each with
every field, and nothing the code does not have (both generated from protocol/messages.py and
engine/events.py); every error code and decision kind has its row; it says exactly which fields can
be null; its missions example is what the server lists. A failure names what is missing where."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path

import msgspec

from skirmish.protocol.errors import CODES

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "protocol.md"


def minimal_client() -> str:
    text = DOC.read_text()
    block = re.search(r"<!-- minimal-client:begin -->\s*```python\n(.*?)```\s*<!-- minimal-client:end -->", text, re.S)
    assert block, "docs/protocol.md has no minimal-client code block"
    return block.group(1)


def test_the_minimal_client_uses_only_websockets_and_json():
    code = minimal_client()
    imported = set(re.findall(r"^(?:from|import) ([\w.]+)", code, re.M))
    assert imported <= {"asyncio", "itertools", "json", "random", "sys", "uuid", "websockets.asyncio.client"}, imported
    assert len(code.splitlines()) < 70


async def test_the_minimal_client_plays_a_game_to_the_end(server, tmp_path):
    script = tmp_path / "minimal_client.py"
    script.write_text(minimal_client())
    first = await asyncio.create_subprocess_exec(sys.executable, str(script), server.url,
                                                 stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    line = (await asyncio.wait_for(first.stdout.readline(), 15)).decode()
    m = re.match(r"game (\S+) seat ([ab])", line)
    assert m, line
    game_id, seat = m.groups()
    second = await asyncio.create_subprocess_exec(sys.executable, str(script), server.url, game_id,
                                                  stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    (out1, err1), (out2, err2) = await asyncio.wait_for(asyncio.gather(first.communicate(), second.communicate()), 60)
    assert first.returncode == 0, err1.decode()
    assert second.returncode == 0, err2.decode()
    over1 = out1.decode().strip().splitlines()[-1]
    lines2 = out2.decode().strip().splitlines()
    assert lines2[0] == f"game {game_id} seat {'b' if seat == 'a' else 'a'}"
    assert over1.startswith("game over: ") and over1 == lines2[-1]
    outcome = json.loads(over1.removeprefix("game over: "))
    assert outcome["winner"] in ("a", "b", None) and outcome["reason"]


# -- the doc's tables against the code, both ways ---------------------------------------------------
# A table is a run of lines starting with "|": a header row, a separator row, then one row per
# line. A fields cell lists "`name` type (note)" items separated by commas outside brackets; an
# item may start with "xxx module: "; "—" means no fields.

CLIENT_TABLE = ("type", "fields", "reply")
SERVER_TABLE = ("type", "fields", "when")
STRUCT_TABLE = ("structure", "fields")
EVENT_TABLE = ("event", "fields")
ERROR_TABLE = ("code", "when", "example")
DECISION_TABLE = ("kind", "asks", "options", "played on time-out")
TABLE_NAMES = {CLIENT_TABLE: "Client → server", SERVER_TABLE: "Server → client", STRUCT_TABLE: "the structures",
               EVENT_TABLE: "Events", ERROR_TABLE: "Errors", DECISION_TABLE: "Decisions and options"}


def _cells(line: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def doc_tables(text: str) -> dict[tuple[str, ...], list[list[str]]]:
    """Every table of the doc by its header (tables with the same header are joined)."""
    out: dict[tuple[str, ...], list[list[str]]] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", lines[i + 1].strip()):
            header = tuple(_cells(lines[i]))
            rows = out.setdefault(header, [])
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(_cells(lines[i]))
                i += 1
        else:
            i += 1
    return out


def _segments(cell: str) -> list[str]:
    """``cell`` split at the commas outside (), [] and {}."""
    parts, depth, cur = [], 0, ""
    for ch in cell:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return [p for p in parts if p]


def documented_fields(cell: str, where: str) -> list[str]:
    names = []
    for seg in _segments(cell):
        seg = re.sub(r"^[\w ]+ module:\s*", "", seg)
        if seg.startswith("—"):
            continue
        m = re.match(r"`(\w+)`", seg)
        assert m, f"docs/protocol.md, {where}: cannot read a field in {seg!r} (write `name` type (note))"
        names.append(m.group(1))
    return names


def rows_by_name(rows: list[list[str]], table: tuple[str, ...]) -> dict[str, list[str]]:
    """The rows whose first cell is a name (`x` or a bare Name), by that name."""
    out = {}
    for row in rows:
        m = re.fullmatch(r"`?([\w.]+)`?", row[0])
        if m:
            assert m.group(1) not in out, f"docs/protocol.md, table {TABLE_NAMES[table]!r}: `{m.group(1)}` twice"
            out[m.group(1)] = row
    return out


def _struct_fields(cls, wire: bool = False) -> list[str]:
    """The fields' names in Python, or ``wire``: as on the wire (replay_frames' ``as`` is ``as_``)."""
    import msgspec

    return [f.encode_name if wire else f.name for f in msgspec.structs.fields(cls)]


def _wire_structs() -> list[type]:
    """The structs the messages carry, other than messages and events (MissionInfo, Clock, Decision...)."""
    import types
    import typing

    import msgspec

    from skirmish.engine.events import Event
    from skirmish.protocol import messages as m

    found: list[type] = []

    def walk(t) -> None:
        if typing.get_origin(t) is not None or isinstance(t, types.UnionType):
            for arg in typing.get_args(t):
                walk(arg)
            return
        if not (isinstance(t, type) and issubclass(t, msgspec.Struct)) or issubclass(t, Event):
            return
        if not issubclass(t, m.Msg):
            if t in found:
                return
            found.append(t)
        hints = typing.get_type_hints(t, include_extras=True)
        for name in _struct_fields(t):
            walk(hints[name])

    for cls in (*m.ClientMessage.__args__, *m.ServerMessage.__args__):
        walk(cls)
    return found


def _expected():
    """(table, kind, name, cls, fields) for everything on the wire: client and server messages,
    the structs they carry, every event."""
    import typing

    from skirmish.engine.events import AnyEvent
    from skirmish.protocol import messages as m

    out = []
    for cls in m.ClientMessage.__args__:
        out.append((CLIENT_TABLE, "client message", cls.__struct_config__.tag, cls, _struct_fields(cls, wire=True)))
    for cls in m.ServerMessage.__args__:
        out.append((SERVER_TABLE, "server message", cls.__struct_config__.tag, cls, _struct_fields(cls, wire=True)))
    for cls in _wire_structs():
        out.append((STRUCT_TABLE, "structure", cls.__name__, cls, _struct_fields(cls, wire=True)))
    for cls in typing.get_args(AnyEvent):
        out.append((EVENT_TABLE, "event", cls.__name__, cls, _struct_fields(cls, wire=True)))
    return out


def test_every_message_struct_and_event_and_each_of_their_fields_is_documented():
    """What the server sends or accepts (protocol/messages.py, engine/events.py) is in the doc's tables."""
    tables = doc_tables(DOC.read_text())
    missing = []
    for table, kind, name, cls, fields in _expected():
        rows = rows_by_name(tables.get(table, []), table)
        where = f"the table {TABLE_NAMES[table]!r}"
        if name not in rows:
            missing.append(f"{kind} `{name}` ({cls.__module__}.{cls.__name__}) has no row in {where}")
            continue
        documented = documented_fields(rows[name][1], f"row `{name}` of {where}")
        missing += [f"field `{f}` of {kind} `{name}` ({cls.__module__}.{cls.__name__}) is missing from its row "
                    f"in {where}" for f in fields if f not in documented]
    assert not missing, "docs/protocol.md does not document:\n  " + "\n  ".join(missing)


def test_everything_the_doc_tables_name_exists():
    """No documented message, structure, event or field that the code does not have."""
    tables = doc_tables(DOC.read_text())
    known: dict[tuple, dict[str, list[str]]] = {}
    for table, _, name, _, fields in _expected():
        known.setdefault(table, {})[name] = fields
    stale = []
    for table in (CLIENT_TABLE, SERVER_TABLE, STRUCT_TABLE, EVENT_TABLE):
        assert tables.get(table), f"docs/protocol.md has no table {' | '.join(table)} ({TABLE_NAMES[table]})"
        where = f"the table {TABLE_NAMES[table]!r}"
        for name, row in rows_by_name(tables[table], table).items():
            if name not in known[table]:
                stale.append(f"`{name}` in {where} is not in the code")
                continue
            stale += [f"field `{f}` of `{name}` in {where} is not in the code"
                      for f in documented_fields(row[1], f"row `{name}` of {where}") if f not in known[table][name]]
    assert not stale, "docs/protocol.md documents what does not exist:\n  " + "\n  ".join(stale)


def test_every_error_code_is_documented():
    rows = rows_by_name(doc_tables(DOC.read_text()).get(ERROR_TABLE, []), ERROR_TABLE)
    missing = [code for code in CODES if code not in rows]
    assert not missing, f"docs/protocol.md's table of errors has no row for {missing} (protocol/errors.py CODES)"
    stale = [code for code in rows if code not in CODES]
    assert not stale, f"docs/protocol.md's table of errors has codes that protocol/errors.py does not: {stale}"


def test_every_decision_kind_is_a_row_of_the_decisions_table():
    from skirmish.engine.rules import registry
    from skirmish.engine.rules.core import ANSWERS

    assert set(registry.CATALOG.all().answers) - set(ANSWERS), "the rules modules' decision kinds are registered"
    rows = rows_by_name(doc_tables(DOC.read_text()).get(DECISION_TABLE, []), DECISION_TABLE)
    kinds = [*registry.CATALOG.all().answers]
    missing = [k for k in kinds if k not in rows]
    assert not missing, f"decision kinds without a row in docs/protocol.md's decisions table: {missing}"
    stale = [k for k in rows if k not in kinds]
    assert not stale, f"docs/protocol.md's decisions table has kinds the engine does not: {stale}"


def _nullable_fields() -> set[str]:
    """``Struct.field`` for every field on the wire that can hold null (None)."""
    import types
    import typing

    import msgspec

    from skirmish.engine.events import AnyEvent
    from skirmish.protocol import messages as m

    seen, out = set(), set()

    def walk(t, owner=None, name=None) -> None:
        args = typing.get_args(t)
        if typing.get_origin(t) in (typing.Union, types.UnionType) or isinstance(t, types.UnionType):
            if type(None) in args and owner is not None and not owner.__struct_config__.omit_defaults:
                out.add(f"{owner.__name__}.{name}")  # (an omit_defaults struct leaves a None out)
        if args:
            for arg in args:
                walk(arg, owner, name)
            return
        if isinstance(t, type) and issubclass(t, msgspec.Struct) and t not in seen:
            seen.add(t)
            hints = typing.get_type_hints(t, include_extras=True)
            for f in _struct_fields(t):
                walk(hints[f], t, f)

    for cls in (*m.ClientMessage.__args__, *m.ServerMessage.__args__, *typing.get_args(AnyEvent)):
        walk(cls)
    return out


def test_the_doc_says_exactly_where_null_appears():
    text = DOC.read_text()
    m = re.search(r"`null` appears in exactly these fields(.*?)\n\n|`null` appears in exactly these fields(.*?)(?=\n- )",
                  text, re.S)
    assert m, "docs/protocol.md (Transport) says where `null` appears"
    said = set(re.findall(r"`(\w+\.\w+)`", m.group(1) or m.group(2)))
    actual = _nullable_fields()
    assert not actual - said, f"docs/protocol.md does not say that `null` appears in {sorted(actual - said)}"
    assert not said - actual, f"docs/protocol.md says `null` appears in {sorted(said - actual)}, which cannot be null"


def test_the_missions_example_is_what_the_server_lists():
    import msgspec
    import structlog

    from skirmish.server.config import ServerConfig
    from skirmish.server.lobby import Lobby
    from skirmish.server.store import MemoryStore

    text = DOC.read_text()
    section = text[text.index("### list_missions → missions"):]
    section = section[:section.index("\n### ")]
    blocks = re.findall(r"```json\n(.*?)```", section, re.S)
    reply = json.loads(blocks[-1])
    listed = msgspec.to_builtins(Lobby(MemoryStore(), ServerConfig(), structlog.get_logger()).mission_infos())
    assert reply["type"] == "missions" and reply["missions"] == listed, \
        "docs/protocol.md's missions example is not what list_missions answers: paste it again"


def test_hidden_cards_and_card_draws_are_documented():
    from skirmish.engine.rules.challenges.cards import DRAW
    from skirmish.engine.rules.challenges.hidden import HIDDEN_CARD, SALT

    text = DOC.read_text()
    rows = rows_by_name(doc_tables(text)[EVENT_TABLE], EVENT_TABLE)
    unit = next(seg for seg in _segments(rows["DiceRolled"][1]) if seg.startswith("`unit`"))
    assert f'"{DRAW}"' in unit and "side" in unit, "DiceRolled.unit holds the drawing side for a card draw"
    assert f'"{SALT}"' in rows["DiceRolled"][1]
    assert "**Hidden cards**" in text and f"`{msgspec.json.encode(HIDDEN_CARD).decode()}`" in text  # as on the wire
