"""Stored events of an older shape are upcast on read, after the chain is checked on their exact
stored bytes (skirmish.engine.codec.UPCASTERS, issue 13 item 4).

No event's stored shape has changed yet, so the test makes one change up: a DiceRolled whose die
was once logged as ``"die": "d6"`` and its results as ``"faces"`` (``sides`` and ``results``
added later, with no default that fits the old events). A corpus game rewritten in that shape
and re-chained verifies with the upcaster, and not without it."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from skirmish.engine import codec
from skirmish.engine import events as ev
from skirmish.engine.codec import decode_event, encode_event
from skirmish.engine.log import chain_hashes
from skirmish.engine.verify import LoggedEvent, verify_log
from skirmish.server.replayfile import read_file

GAME = Path(__file__).resolve().parents[1] / "corpus" / "0.2.0" / "ridge-1-greedy-greedy.skr"


def old_dice_rolled(event: ev.DiceRolled) -> bytes:
    """The event's bytes in the made-up older shape."""
    plain = msgspec.to_builtins(event)
    plain["die"] = f"d{plain.pop('sides')}"
    plain["faces"] = plain.pop("results")
    return msgspec.msgpack.encode(plain)


def from_die_and_faces(plain: dict) -> dict:
    """The upcaster: the older shape to today's (today's left as it is)."""
    if "die" in plain:
        plain["sides"] = int(plain.pop("die")[1:])
    if "faces" in plain:
        plain["results"] = plain.pop("faces")
    return plain


@pytest.fixture
def old_log():
    rf = read_file(GAME.read_bytes())
    game_id = rf.header.game_id
    events = [old_dice_rolled(e) if isinstance(e := decode_event(d), ev.DiceRolled) else d for d in rf.events]
    rewritten = [i + 1 for i, (a, b) in enumerate(zip(rf.events, events)) if a != b]
    assert len(rewritten) > 10
    hashes = chain_hashes(game_id, events)
    return game_id, [LoggedEvent(i + 1, d, h) for i, (d, h) in enumerate(zip(events, hashes))], rewritten


def test_without_its_upcaster_an_old_shaped_event_is_not_an_event(old_log, monkeypatch):
    monkeypatch.setattr(codec, "UPCASTERS", {})
    game_id, logged, rewritten = old_log
    report = verify_log(game_id, logged)
    assert not report.ok and report.bad_seq == rewritten[0] and "not a valid event" in report.problem


def test_old_shaped_events_are_upcast_on_read_and_the_game_verifies(old_log, monkeypatch):
    monkeypatch.setattr(codec, "UPCASTERS", {"DiceRolled": [from_die_and_faces]})
    game_id, logged, rewritten = old_log
    report = verify_log(game_id, logged)
    assert report.ok, f"event {report.bad_seq}: {report.problem}"
    assert report.seed_verified and report.rolls_checked == report.rolls == len(rewritten)
    # read as today's event; an event of today's shape is left as it is
    old = decode_event(logged[rewritten[0] - 1].data)
    assert isinstance(old, ev.DiceRolled) and old.sides > 0 and old.results
    assert decode_event(encode_event(old)) == old


def test_the_chain_covers_the_old_bytes_as_stored(old_log, monkeypatch):
    """The upcast form is never what is hashed: a changed byte of the stored old shape breaks the
    chain at that event, though the upcast event would read the same."""
    monkeypatch.setattr(codec, "UPCASTERS", {"DiceRolled": [from_die_and_faces]})
    game_id, logged, rewritten = old_log
    k = rewritten[len(rewritten) // 2]
    plain = msgspec.msgpack.decode(logged[k - 1].data)
    reordered = msgspec.msgpack.encode(dict(reversed(list(plain.items()))))  # same event, other bytes
    assert decode_event(reordered) == decode_event(logged[k - 1].data)
    logged[k - 1] = logged[k - 1]._replace(data=reordered)
    report = verify_log(game_id, logged)
    assert not report.ok and report.bad_seq == k and "hash chain" in report.problem


def test_an_upcast_that_still_is_no_event_fails_as_any_bad_event(monkeypatch):
    monkeypatch.setattr(codec, "UPCASTERS", {"DiceRolled": [lambda plain: plain]})
    with pytest.raises(codec.DecodeError):
        decode_event(msgspec.msgpack.encode({"type": "DiceRolled", "nonce": 1, "die": "d6"}))
    with pytest.raises(codec.DecodeError):
        decode_event(msgspec.msgpack.encode({"type": "NoSuchEvent"}))
