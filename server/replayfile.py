"""One self-contained replay file per game: a versioned header, then the events as stored.

The file is one MessagePack array ``[header, events]``: ``header`` is a map (``format``:
``"skirmish-replay"``, ``version``, ``engine_version``, ``game_id``, ``mission``, ``events``
(the count), ``head_hash`` (hex chain hash of the last event), ``finished``); ``events`` is an
array of the exact stored bytes of each event, in order. Importing recomputes the chain and
refuses a file whose head hash does not match.
"""

from __future__ import annotations

import msgspec

from engine.mission import ENGINE_VERSION
from engine.verify import LoggedEvent
from server.store import EventStore
from engine.log import chain_hashes

FORMAT = "skirmish-replay"
VERSION = 1


class ReplayFileError(Exception):
    pass


class Header(msgspec.Struct, frozen=True):
    format: str
    version: int
    engine_version: str
    game_id: str
    mission: str
    events: int
    head_hash: str
    finished: bool


async def export_game(store: EventStore, game_id: str) -> bytes:
    from engine.codec import decode_event
    from engine.events import GameCreated, GameEnded

    stored = await store.read(game_id)
    first = decode_event(stored[0].data)
    mission = first.mission if isinstance(first, GameCreated) else ""
    finished = any(isinstance(decode_event(s.data), GameEnded) for s in stored[-3:])
    header = Header(FORMAT, VERSION, ENGINE_VERSION, game_id, mission, len(stored), stored[-1].hash.hex(), finished)
    return msgspec.msgpack.encode([header, [s.data for s in stored]])


def read_file(data: bytes) -> tuple[Header, list[LoggedEvent]]:
    try:
        raw = msgspec.msgpack.decode(data)
        if not (isinstance(raw, list) and len(raw) == 2):
            raise ValueError("not a [header, events] array")
        header = msgspec.convert(raw[0], Header)
        events = msgspec.convert(raw[1], list[bytes])
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError) as exc:
        raise ReplayFileError(f"not a skirmish replay file: {exc}") from None
    if header.format != FORMAT:
        raise ReplayFileError(f"not a skirmish replay file (format {header.format!r})")
    if header.version > VERSION:
        raise ReplayFileError(f"replay file version {header.version} is newer than this skirmish reads ({VERSION})")
    if header.events != len(events):
        raise ReplayFileError(f"the header says {header.events} events, the file holds {len(events)}")
    hashes = chain_hashes(header.game_id, events)
    if not hashes or hashes[-1].hex() != header.head_hash:
        raise ReplayFileError("the events do not hash to the header's head hash: the file was altered")
    logged = [LoggedEvent(i + 1, d, h) for i, (d, h) in enumerate(zip(events, hashes))]
    return header, logged


async def import_game(store: EventStore, data: bytes) -> Header:
    header, logged = read_file(data)
    # the game and all its events in one transaction: an import cut short leaves nothing
    await store.create_game(header.game_id, msgspec.json.encode({"mission": header.mission, "imported": True}),
                            events=[e.data for e in logged])
    return header
