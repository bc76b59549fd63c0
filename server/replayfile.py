"""One self-contained replay file per game: a versioned header, then the events as stored.

The format, precisely enough to write a verifier from it: ``docs/replay-format.md``. In short,
the file is one MessagePack array ``[header, events, hashes]``: ``header`` is a map
(``format``: ``"skirmish-replay"``, ``version``, ``engine_version``, ``game_id``, ``mission``,
``events`` (the count), ``head_hash`` (hex chain hash of the last event), ``finished``);
``events`` is an array of the exact stored bytes of each event, in order; ``hashes`` the raw
32-byte chain hash stored with each event. Version 1 files, ``[header, events]``, had no
``hashes``; they are still read.

``read_file`` refuses only what cannot be read as a replay file at all (``ReplayFileError``);
``verify_file`` checks everything else and names the first bad event, as for a store;
``import_game`` imports a file only if it verifies.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from skirmish.engine.log import chain_hashes
from skirmish.engine.mission import ENGINE_VERSION
from skirmish.engine.verify import LoggedEvent, Report, verify_log
from skirmish.server.store import EventStore

FORMAT = "skirmish-replay"
VERSION = 2


class ReplayFileError(Exception):
    """The data is not a replay file this skirmish can read (nothing in it can be checked)."""


class ImportRefused(Exception):
    """The replay file reads, but its game does not verify: nothing was imported."""

    def __init__(self, report: Report):
        super().__init__(report.summary())
        self.report = report


class Header(msgspec.Struct, frozen=True):
    format: str
    version: int
    engine_version: str
    game_id: str
    mission: str
    events: int
    head_hash: str
    finished: bool


@dataclass(frozen=True)
class ReplayFile:
    header: Header
    events: list[bytes]  # the exact stored bytes of each event, in order
    hashes: list[bytes] | None  # the chain hash stored with each event (None in version 1 files)


async def export_game(store: EventStore, game_id: str) -> bytes:
    """The game's events and their chain hashes exactly as stored, with a header. A game whose
    events do not decode is exported all the same (as it is: the file is evidence)."""
    from skirmish.engine.codec import DecodeError, decode_event
    from skirmish.engine.events import GameCreated, GameEnded

    def decoded(data: bytes):
        try:
            return decode_event(data)
        except DecodeError:
            return None

    stored = await store.read(game_id)
    first = decoded(stored[0].data)
    mission = first.mission if isinstance(first, GameCreated) else ""
    finished = any(isinstance(decoded(s.data), GameEnded) for s in stored[-3:])
    header = Header(FORMAT, VERSION, ENGINE_VERSION, game_id, mission, len(stored), stored[-1].hash.hex(), finished)
    return msgspec.msgpack.encode([header, [s.data for s in stored], [s.hash for s in stored]])


def read_file(data: bytes) -> ReplayFile:
    """The file's parts; ``ReplayFileError`` if it is not a replay file at all."""
    try:
        raw = msgspec.msgpack.decode(data)
        if not (isinstance(raw, list) and len(raw) in (2, 3)):
            raise ValueError("not a [header, events, hashes] array")
        header = msgspec.convert(raw[0], Header)
        events = msgspec.convert(raw[1], list[bytes])
        hashes = msgspec.convert(raw[2], list[bytes]) if len(raw) == 3 else None
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError, RecursionError) as exc:
        # ValueError includes UnicodeDecodeError: a header string that is not UTF-8
        raise ReplayFileError(f"not a skirmish replay file: {exc}") from None
    if header.format != FORMAT:
        raise ReplayFileError(f"not a skirmish replay file (format {header.format!r})")
    if header.version > VERSION:
        raise ReplayFileError(f"replay file version {header.version} is newer than this skirmish reads ({VERSION})")
    if header.version >= 2 and hashes is None:
        raise ReplayFileError(f"not a skirmish replay file: a version {header.version} file has a list of hashes")
    return ReplayFile(header, events, hashes)


def logged_events(rf: ReplayFile) -> list[LoggedEvent]:
    """The events as the verifier takes them. A version 1 file has no hashes of its own: its
    chain is computed, and only the header's head hash can then say it was altered."""
    hashes = rf.hashes if rf.hashes is not None else chain_hashes(rf.header.game_id, rf.events)
    return [LoggedEvent(i + 1, d, h) for i, (d, h) in enumerate(zip(rf.events, hashes))]


def verify_file(rf: ReplayFile) -> Report:
    """Verify the file's game as ``skirmish verify`` does a store's, then the file's own
    bookkeeping: one hash per event, the header's event count and head hash."""
    header, events, hashes = rf.header, rf.events, rf.hashes
    report = verify_log(header.game_id, logged_events(rf))  # only the events that have a hash
    if not report.ok:
        return report
    n = len(events)
    if hashes is not None and len(hashes) != n:
        first = min(len(hashes), n) + 1
        return report.fail(first, f"the file holds {n} events and {len(hashes)} hashes: event {first} has no pair")
    if header.events != n:
        if header.events > n:
            return report.fail(n + 1, f"event {n + 1} is missing: the header says {header.events} events, the file holds {n}")
        return report.fail(header.events + 1, f"the header says {header.events} events, the file holds {n}")
    if header.head_hash.lower() != report.head_hash:
        why = ("" if hashes is not None else
               " (a version 1 file holds no hash per event, so the changed event cannot be named)")
        return report.fail(n, f"the header's head hash {header.head_hash} is not the chain's, {report.head_hash}{why}")
    return report


async def import_game(store: EventStore, data: bytes) -> Header:
    """Import the file's game, if it verifies in full (chain, decoding, rules, dice): otherwise
    ``ImportRefused`` with the report naming the first bad event, and nothing is written.
    ``ReplayFileError`` for data that is not a replay file."""
    rf = read_file(data)
    report = verify_file(rf)
    if not report.ok:
        raise ImportRefused(report)
    header = rf.header
    # the game and all its events in one transaction: an import cut short leaves nothing
    await store.create_game(header.game_id, msgspec.json.encode({"mission": header.mission, "imported": True}),
                            events=list(rf.events))
    return header
