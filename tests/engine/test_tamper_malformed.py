"""Malformed stored events, late client seeds and games of other engine versions make verification
fail and name the event, never raise (issue 12 items 10 and 13; issue 13 item 4). The honest
game, the fixtures and the tampering helpers are ``test_tamper.py``'s.
"""

from __future__ import annotations

from pathlib import Path
import msgspec
import pytest
from skirmish.engine import events as ev
from skirmish.engine.codec import decode_event, encode_event
from skirmish.engine.log import GENESIS_HASH, chain_hash
from skirmish.engine.mission import ENGINE_VERSION
from skirmish.engine.verify import LoggedEvent, verify_log
from skirmish.server import cli

from tests.engine.test_tamper import (  # noqa: F401 (fixtures, used by name)
    GAME, _no_default_db, assert_fails_at, db, die_seqs, events, middle, other_result, pick, replace_and_rechain,
    rewrite_log, rows, seqs_of, set_data, template, verify_both)


# ---------------------------------------------------------------------------- malformed events
# Issue 12, item 10: every malformed stored event gives "FAILED at event N", exit 1, never a
# traceback: in the store, in a replay file, and for ``replay``.


def with_bad_utf8(data: bytes) -> bytes:
    """``data`` (one stored event) with the bytes of its last string field replaced by bytes that
    are not UTF-8 (same length, so the MessagePack framing still holds)."""
    fields = msgspec.msgpack.decode(data)
    key = [k for k, v in fields.items() if k != "type" and isinstance(v, str) and v][-1]
    value = fields[key].encode()
    at = data.rfind(msgspec.msgpack.encode(fields[key]))
    assert at > 0
    start = at + len(msgspec.msgpack.encode(fields[key])) - len(value)
    return data[:start] + b"\xff" * len(value) + data[start + len(value):]


def string_event(evs: list[ev.Event], where: str) -> int:
    if where == "first":
        return 1
    if where == "choice":
        return pick(evs, "choice")
    return middle(seqs_of(evs, ev.TurnStarted))


@pytest.mark.parametrize("where", ["first", "choice", "turn"])
@pytest.mark.parametrize("rechain", [True, False])
def test_invalid_utf8_in_an_event_fails_at_that_event(db: Path, capsys, where: str, rechain: bool) -> None:
    k = string_event(events(db), where)
    data = with_bad_utf8(rows(db)[k - 1].data)
    if rechain:
        replace_and_rechain(db, k, data)
        assert_fails_at(db, capsys, k, "not a valid event", "UTF-8")
    else:
        set_data(db, k, data)
        assert_fails_at(db, capsys, k, "hash chain")


def test_invalid_utf8_fails_through_a_replay_file_and_replay_names_the_event(db: Path, tmp_path: Path, capsys) -> None:
    k = string_event(events(db), "turn")
    replace_and_rechain(db, k, with_bad_utf8(rows(db)[k - 1].data))
    out_file = tmp_path / "game.skirmish"
    assert cli.main(["export", GAME, str(out_file), "--db", str(db)]) == 0
    for argv in (["verify", "--file", str(out_file)], ["verify", GAME, "--db", str(db)]):
        capsys.readouterr()
        assert cli.main(argv) == 1, argv
        assert f"FAILED at event {k}:" in capsys.readouterr().out, argv
    for argv in (["replay", GAME, "--db", str(db)], ["replay", "--file", str(out_file)]):
        capsys.readouterr()
        assert cli.main(argv) == 1, argv
        out, err = capsys.readouterr()
        assert f"event {k}" in err and "UTF-8" in err, err
        assert "Traceback" not in out + err
        assert f"{k - 1:5d}  " in out or f"{k - 2:5d}  " in out or f"{k - 3:5d}  " in out  # the events before it were shown


MUTATIONS = {
    "negative": -1, "huge": 2**64 - 1, "float": 1.5, "string": "zz", "empty-string": "", "null": None,
    "list": [1, [2, [3]]], "map": {"x": 1}, "true": True, "deep": [[[[[[[[[[[[[[[[[[[[0]]]]]]]]]]]]]]]]]]]],
    "long-string": "x" * 5000, "control-chars": "\x00\x1b[2J\n",
}


# Fields no replay can check, the server's word alone: whether the clock ran out, the names the
# players gave, the reason written on a resignation.
SERVER_ATTESTED = {("OptionChosen", "timeout"), ("SeatTaken", "name"), ("Resigned", "reason")}


def test_no_malformed_event_breaks_verify(db: Path) -> None:
    """A dishonest or broken server's log: each of a sample of events with one field set to an
    odd value (wrong type, out of range, nested, missing), the chain recomputed. Verification
    never raises; it passes only a change the encoding cannot tell apart (an unknown field), and
    otherwise names the changed event or a later one that no longer follows."""
    stored = rows(db)
    datas = [r.data for r in stored]
    import random

    rng = random.Random(12)
    candidates = [(k, key) for k, data in enumerate(datas, start=1)
                  for key in msgspec.msgpack.decode(data) if key != "type"]
    cases = rng.sample(candidates, 60)
    checked = 0
    for k, key in cases:
        for name in rng.sample(sorted(MUTATIONS), 3) + ["missing", "unknown-field", "not-utf8"]:
            fields = msgspec.msgpack.decode(datas[k - 1])
            if name == "missing":
                del fields[key]
            elif name == "unknown-field":
                fields["zz_unknown"] = [1, "two"]
            elif name == "not-utf8":
                fields[key] = "\x01" * 7  # a placeholder, then its bytes are made invalid UTF-8
            else:
                fields[key] = MUTATIONS[name]
            forged = msgspec.msgpack.encode(fields)
            if name == "not-utf8":
                forged = forged.replace(b"\xa7" + b"\x01" * 7, b"\xa7" + b"\xff\xfe" * 3 + b"\xc0")
            tampered = list(datas)
            tampered[k - 1] = forged
            prev, log = GENESIS_HASH, []
            for seq, data in enumerate(tampered, start=1):
                prev = chain_hash(prev, GAME, seq, data)
                log.append(LoggedEvent(seq, data, prev))
            report = verify_log(GAME, log)  # must not raise
            try:
                same = encode_event(decode_event(forged)) == encode_event(decode_event(datas[k - 1]))
            except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError):
                same = False
            if same:
                assert report.ok, (k, key, name, report.problem)
            elif report.ok:  # only what the server alone can attest may change unnoticed
                assert (type(decode_event(datas[k - 1])).__name__, key) in SERVER_ATTESTED, (k, key, name)
            else:
                assert not report.ok and report.bad_seq >= k, (k, key, name, report.bad_seq, report.problem)
            checked += 1
    assert checked == 60 * 6


# ---------------------------------------------------------------------------- client seeds
# Issue 12, item 13: a client seed applies only to the rolls after it.


@pytest.mark.parametrize("where", ["between-commands", "inside-a-command"])
def test_client_seed_logged_after_a_roll_is_the_event_named(db: Path, capsys, where: str) -> None:
    """Before the fix, verify built the dice with every client seed of the log, so the roll
    before the late seed (a correct one) was blamed."""
    evs = events(db)
    first_roll = seqs_of(evs, ev.DiceRolled)[0]
    if where == "between-commands":  # before the first choice after the first roll
        at = next(s for s in seqs_of(evs, ev.OptionChosen) if s > first_roll) - 1
    else:
        at = first_roll
    datas = [r.data for r in rows(db)]
    datas.insert(at, encode_event(ev.ClientSeedAdded(seat="a", seed="late")))  # becomes event at + 1
    rewrite_log(db, datas)
    report = assert_fails_at(db, capsys, at + 1)
    if where == "between-commands":
        assert "after the first roll" in report.problem


def test_client_seeds_apply_to_the_rolls_after_them(db: Path, capsys) -> None:
    """A client seed logged before the first roll (as the server logs them when seats are taken)
    enters every roll: the first roll the seed changes is named. A second seed for a seat is
    named too."""
    from skirmish.engine.dice.fair import fair_roll

    evs = events(db)
    datas = [r.data for r in rows(db)]
    seeded = [datas[0], encode_event(ev.ClientSeedAdded(seat="a", seed="alice")), *datas[1:]]
    rewrite_log(db, seeded)
    seed = bytes.fromhex(evs[-1].server_seed)
    changed = next(s for s in seqs_of(evs, ev.DiceRolled)
                   if fair_roll(seed, "a=alice", evs[s - 1].nonce, evs[s - 1].sides, len(evs[s - 1].results))
                   != evs[s - 1].results)
    assert_fails_at(db, capsys, changed + 1, f"roll {evs[changed - 1].nonce}")
    twice = [datas[0], encode_event(ev.ClientSeedAdded(seat="a", seed="alice")),
             encode_event(ev.ClientSeedAdded(seat="a", seed="again")), *datas[1:]]
    rewrite_log(db, twice)
    assert_fails_at(db, capsys, 3, "already has a client seed")


def test_a_failure_in_a_game_of_another_engine_version_names_the_rules_that_re_ran_it(db: Path, capsys) -> None:
    """A game recorded by an older engine is re-run with that engine's rules (skirmish.engine.versions):
    a failure says so, and which engine verified it. A game of this engine's version that fails
    says nothing of the kind."""
    evs = events(db)
    k = die_seqs(evs)["middle-roll"]
    replace_and_rechain(db, k, encode_event(other_result(evs[k - 1])))
    assert "re-run with" not in assert_fails_at(db, capsys, k, "roll").problem
    older = msgspec.structs.replace(evs[0], engine_version="0.1.0")
    replace_and_rechain(db, 1, encode_event(older))
    report = assert_fails_at(db, capsys, k, "roll", "rules of engine '0.1.0', which recorded it",
                             f"this is engine '{ENGINE_VERSION}'")
    assert report.problem.startswith(f"roll {evs[k - 1].nonce}")


def test_a_game_of_an_engine_version_this_engine_does_not_know_fails_at_its_first_event(db: Path, capsys) -> None:
    """A game whose rules this engine does not have (a newer engine's) cannot be re-run: verify
    says so at event 1, naming the version and the versions it knows, instead of re-running it
    with other rules."""
    evs = events(db)
    newer = msgspec.structs.replace(evs[0], engine_version="9.0.0")
    replace_and_rechain(db, 1, encode_event(newer))
    report = assert_fails_at(db, capsys, 1, "rules cannot be re-run", "engine '9.0.0'", "does not know",
                             f"'{ENGINE_VERSION}'")
    assert report.checkpoints == 0 and report.commands_rerun == 0
