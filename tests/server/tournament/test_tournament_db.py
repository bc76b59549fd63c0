"""A game is stored with one statement (db.py's INSERT_EVENTS), by the parent or by the worker that
played it: the rows are the exact bytes and hashes cut at the ends given, and a game whose flat
values do not add up is refused with nothing of it stored. A game its worker stored gets its
result only once all its events are found in the file."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import pytest

from skirmish.server.tournament.config import TournamentError
from skirmish.server.tournament.db import TournamentDB, open_for_worker, store_game
from skirmish.server.tournament.worker import Played


def played(events: list[bytes], ends: list[int] | None = None, hashes: bytes | None = None) -> Played:
    hs = [hashlib.sha256(e).digest() for e in events]
    ends = ends if ends is not None else [sum(len(e) for e in events[:i + 1]) for i in range(len(events))]
    return Played(index=0, game_id="g-00000", winner_side="a", reason="test", points={"a": 1, "b": 0},
                  decisions=1, duration=0.0, events=b"".join(events), ends=ends,
                  hashes=hashes if hashes is not None else b"".join(hs), created_at=1.0, meta=b"{}", secret=b"s")


def rows(db: TournamentDB) -> list[tuple]:
    return [(gid, seq, bytes(d), bytes(h), td) for gid, seq, d, h, td in db.conn.execute(
        "SELECT game_id, seq, data, hash, typeof(data) FROM events ORDER BY rowid")]


def test_the_events_are_stored_as_the_exact_bytes_and_hashes(tmp_path):
    events = [b"\x81\xa1a\x01", b"x" * 3000, b"\x00", b"\xff\xfe" * 7]  # one over a page, one of a byte
    with TournamentDB(tmp_path / "games.sqlite") as db:
        db.record(0, {"id": "g-00000"}, played(events))
        expected = [("g-00000", i + 1, e, hashlib.sha256(e).digest(), "blob") for i, e in enumerate(events)]
        assert rows(db) == expected
        assert db.records() == {0: {"id": "g-00000"}}


@pytest.mark.parametrize("broken", [
    dict(ends=[4, 4, 3005, 3006]),  # an empty event (and the last one cut short)
    dict(ends=[4, 3005, 3004, 3019]),  # ends out of order (an event would end before it starts)
    dict(ends=[4, 3004, 3005, 3018]),  # the last one does not end the bytes
    dict(ends=[4, 3004, 3005, 3020]),  # beyond the bytes
    dict(ends=[4, 3004, 3020]),  # fewer ends than hashes
    dict(hashes=b"\x00" * 31 * 4),  # hashes of the wrong size
    dict(ends=[]),  # no event at all
])
def test_a_game_that_does_not_add_up_is_refused_and_nothing_of_it_is_stored(tmp_path, broken):
    events = [b"\x81\xa1a\x01", b"x" * 3000, b"\x00", b"\xff\xfe" * 7]
    with TournamentDB(tmp_path / "games.sqlite") as db:
        with pytest.raises(TournamentError, match="g-00000"):
            db.record(0, {"id": "g-00000"}, played(events, **broken))
        assert rows(db) == []
        assert db.conn.execute("SELECT count(*) FROM games").fetchone() == (0,)
        assert db.records() == {}


def test_a_game_its_worker_stored_gets_its_result_once_every_event_is_there(tmp_path):
    events = [b"\x81\xa1a\x01", b"x" * 3000, b"\x00"]
    path = tmp_path / "games.sqlite"
    with TournamentDB(path) as db:
        worker = open_for_worker(path)
        try:
            assert worker.execute("PRAGMA synchronous").fetchone() == (1,)  # NORMAL: the result's commit syncs
            store_game(worker, "g-00000", played(events))
            store_game(worker, "g-00001", played(events))
        finally:
            worker.close()
        with pytest.raises(TournamentError, match="g-00001: its worker stored 4 events, the file holds 3"):
            db.record(1, {"id": "g-00001"}, replace(played([]), stored=4))
        assert db.records() == {}
        db.record(0, {"id": "g-00000"}, replace(played([]), stored=3))
        assert db.records() == {0: {"id": "g-00000"}}
        assert rows(db)[:3] == [("g-00000", i + 1, e, hashlib.sha256(e).digest(), "blob") for i, e in enumerate(events)]
        assert db.discard_unrecorded("g") == ["g-00001"]  # stored, never recorded: played again on resume
        assert {gid for (gid,) in db.conn.execute("SELECT game_id FROM games")} == {"g-00000"}
