"""``skirmish copy``: move games between two stores (SQLite <-> PostgreSQL, or two of a kind).

Each game is verified before it is written (a game that does not verify is not copied) and again
on arrival, from what the target store returns (engine/verify: the hash chain, the decoding, the
rules and the dice), and its head hash must be the source's. A game already in the target with the
same events, meta and secret is left alone (copying again is harmless); one with other content is
refused, naming the first difference, and nothing of it is written. The game's log, meta and
secret are copied; its snapshot (a cache) and its command ids (retries of live commands) are not,
and ``created_at`` is the time of the copy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from skirmish.engine.verify import LoggedEvent, Report, verify_log
from skirmish.server.store import EventStore, StoredEvent, UnknownGame

__all__ = ["CopySummary", "copy_games"]


@dataclass
class CopySummary:
    copied: list[str] = field(default_factory=list)
    identical: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)  # in the target with other content: not written
    unverified: list[str] = field(default_factory=list)  # did not verify (in the source, or on arrival)
    missing: list[str] = field(default_factory=list)  # named, but not in the source

    @property
    def ok(self) -> bool:
        return not (self.conflicts or self.unverified or self.missing)


def _verify(game_id: str, events: list[StoredEvent]) -> Report:
    return verify_log(game_id, [LoggedEvent(e.seq, e.data, e.hash) for e in events])


def _difference(mine: list[StoredEvent], theirs: list[StoredEvent]) -> str:
    for a, b in zip(mine, theirs):
        if a.data != b.data:
            return f"event {a.seq} differs"
    return f"the source has {len(mine)} events, the target {len(theirs)}"


async def _copy_one(source: EventStore, target: EventStore, game_id: str, summary: CopySummary) -> str:
    """Copy one game; the progress line's text."""
    try:
        info, events, secret = (await source.game_info(game_id), await source.read(game_id),
                                await source.load_secret(game_id))
    except UnknownGame:
        summary.missing.append(game_id)
        return "not in the source store"
    before = _verify(game_id, events)
    if not before.ok:
        summary.unverified.append(game_id)
        return f"NOT COPIED: it does not verify in the source: {before.summary()}"
    try:
        there = await target.game_info(game_id)
    except UnknownGame:
        there = None
    if there is not None:
        theirs = await target.read(game_id)
        same = ([(e.seq, e.data, e.hash) for e in theirs] == [(e.seq, e.data, e.hash) for e in events]
                and there.meta == info.meta and await target.load_secret(game_id) == secret)
        if same:
            summary.identical.append(game_id)
            return f"already in the target, identical ({len(events)} events)"
        summary.conflicts.append(game_id)
        what = _difference(events, theirs) if theirs != events else "its meta or secret differs"
        return f"REFUSED: the target already has a game {game_id!r} with other content ({what}); nothing written"
    await target.create_game(game_id, info.meta, secret, [e.data for e in events])
    arrived = await target.read(game_id)
    after = _verify(game_id, arrived)
    if not after.ok or after.head_hash != before.head_hash:
        summary.unverified.append(game_id)
        return f"COPIED BUT DOES NOT VERIFY in the target: {after.summary()}"
    summary.copied.append(game_id)
    return f"copied {len(arrived)} events, verified on arrival (head {after.head_hash[:16]}…)"


async def copy_games(source: EventStore, target: EventStore, game_ids: list[str] | None = None,
                     progress: Callable[[str], None] = print) -> CopySummary:
    """Copy ``game_ids`` (None: every game of ``source``, oldest first) into ``target``, one line each."""
    ids = [g.game_id for g in await source.list_games()] if game_ids is None else list(dict.fromkeys(game_ids))
    summary = CopySummary()
    width = len(str(len(ids)))
    for n, game_id in enumerate(ids, start=1):
        line = await _copy_one(source, target, game_id, summary)
        progress(f"[{n:{width}d}/{len(ids)}] {game_id}: {line}")
    return summary
