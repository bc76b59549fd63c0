"""Tampering with a stored game makes verification fail and name the first bad event.

The issue: "changing one byte of any stored event, deleting or reordering an event, or changing
one die result makes verify fail and name the first bad event". A real game (two seeded random
bots, provably fair dice) is played once into a SQLite file; each test copies that file, edits
the ``events`` table directly with ``sqlite3`` (as someone with access to the database would),
then verifies twice: ``skirmish.engine.verify.verify_log`` on the rows, and ``skirmish verify`` through
``skirmish.server.cli.main`` (exit code 1 and the failing event named on stdout).

Two kinds of tampering are covered: clumsy edits that break the hash chain, and a dishonest
server that rewrites its log and recomputes every later chain hash so that the chain is
self-consistent. The second kind can only be caught by replaying the rules and the dice.
"""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import msgspec
import pytest

from skirmish.bots import make_bot
from skirmish.engine import events as ev
from skirmish.engine.codec import decode_event, encode_event
from skirmish.engine.log import GENESIS_HASH, chain_hash
from skirmish.engine.verify import LoggedEvent, Report, verify_log
from skirmish.server import cli, missions
from skirmish.server.match import play_match
from skirmish.server.store import SQLiteStore

GAME = "g-tamper"
# The match seed: dice and bots derive from it, so the game is always the same. The template
# takes the first seed from here whose game has every kind of event the tests tamper with.
SEEDS = range(60)


# ---------------------------------------------------------------------------- the game


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file holding one finished, honest game."""
    folder = tmp_path_factory.mktemp("tamper")

    async def play(seed: int, path: Path) -> None:
        async with await SQLiteStore.open(path) as store:
            bots = {"a": make_bot("random", seed * 2), "b": make_bot("random", seed * 2 + 1)}
            await play_match(store, missions.load("ridge"), bots, seed=seed, game_id=GAME)

    for seed in SEEDS:
        path = folder / f"template-{seed}.sqlite"
        asyncio.run(play(seed, path))
        if _has_everything(events(path)):
            return path
    raise AssertionError(f"no seed in {SEEDS} gives a game with every kind of event the tests need")


def _has_everything(evs: list[ev.Event]) -> bool:
    results = {e.result for e in evs if isinstance(e, ev.InjurySuffered)}
    purposes = {e.purpose for e in evs if isinstance(e, ev.DiceRolled)}
    return ({"nonlethal", "dead"} <= results and {"initiative", "damage", "task:attack", "defence:attack"} <= purposes
            and any(isinstance(e, ev.StressLost) for e in evs))


@pytest.fixture
def db(template: Path, tmp_path: Path) -> Path:
    """A private copy of the template store, free to tamper with."""
    path = tmp_path / "games.sqlite"
    for suffix in ("", "-wal", "-shm"):
        src = Path(str(template) + suffix)
        if src.exists():
            shutil.copyfile(src, Path(str(path) + suffix))
    return path


@pytest.fixture(autouse=True)
def _no_default_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Belt and braces: if a test forgot --db, the CLI must not touch the user's store.
    monkeypatch.setenv("SKIRMISH_DB", str(tmp_path / "default-must-not-be-used.sqlite"))


# ---------------------------------------------------------------------------- the file


def rows(db: Path) -> list[LoggedEvent]:
    with closing(sqlite3.connect(db)) as conn:
        return [LoggedEvent(seq, bytes(data), bytes(h)) for seq, data, h in conn.execute(
            "SELECT seq, data, hash FROM events WHERE game_id = ? ORDER BY seq", (GAME,))]


def events(db: Path) -> list[ev.Event]:
    return [decode_event(r.data) for r in rows(db)]


def set_data(db: Path, seq: int, data: bytes) -> None:
    with closing(sqlite3.connect(db)) as conn, conn:
        n = conn.execute("UPDATE events SET data = ? WHERE game_id = ? AND seq = ?", (data, GAME, seq)).rowcount
    assert n == 1


def delete(db: Path, seq: int) -> None:
    with closing(sqlite3.connect(db)) as conn, conn:
        n = conn.execute("DELETE FROM events WHERE game_id = ? AND seq = ?", (GAME, seq)).rowcount
    assert n == 1


def rewrite_log(db: Path, datas: list[bytes]) -> None:
    """What a dishonest server does: replace the whole log with ``datas``, seqs 1..n, and a
    chain of hashes recomputed over them, so that the chain itself is consistent."""
    prev = GENESIS_HASH
    new_rows = []
    for seq, data in enumerate(datas, start=1):
        prev = chain_hash(prev, GAME, seq, data)
        new_rows.append((GAME, seq, data, prev))
    with closing(sqlite3.connect(db)) as conn, conn:
        conn.execute("DELETE FROM events WHERE game_id = ?", (GAME,))
        conn.executemany("INSERT INTO events (game_id, seq, data, hash) VALUES (?, ?, ?, ?)", new_rows)


def replace_and_rechain(db: Path, seq: int, data: bytes) -> None:
    datas = [r.data for r in rows(db)]
    datas[seq - 1] = data
    rewrite_log(db, datas)


def flip(data: bytes, index: int, mask: int = 0x01) -> bytes:
    b = bytearray(data)
    b[index] ^= mask
    return bytes(b)


def verify_both(db: Path, capsys: pytest.CaptureFixture[str]) -> Report:
    """Verify through the library and the CLI; they must agree. Returns the library's report."""
    report = verify_log(GAME, rows(db))
    capsys.readouterr()
    code = cli.main(["verify", GAME, "--db", str(db)])
    out = capsys.readouterr().out
    if report.ok:
        assert code == 0, out
        assert f"verify {GAME}: OK" in out
    else:
        assert code == 1, out
        assert f"verify {GAME}: FAILED at event {report.bad_seq}:" in out, out
        assert report.problem in out
    return report


def assert_fails_at(db: Path, capsys: pytest.CaptureFixture[str], seq: int, *words: str) -> Report:
    report = verify_both(db, capsys)
    assert not report.ok, "verification passed a tampered log"
    assert report.bad_seq == seq, f"expected event {seq} to be named, got {report.bad_seq}: {report.problem}"
    for w in words:
        assert w in report.problem, report.problem
    return report


# ---------------------------------------------------------------------------- choosing events


def seqs_of(evs: list[ev.Event], cls: type) -> list[int]:
    return [i for i, e in enumerate(evs, start=1) if isinstance(e, cls)]


def middle(seqs: list[int]) -> int:
    assert seqs, "the game has no such event: pick another SEED"
    return seqs[len(seqs) // 2]


def pick(evs: list[ev.Event], where: str) -> int:
    """The seq of a named event of the game."""
    if where == "first":
        return 1
    if where == "second":
        return 2
    if where == "last":
        return len(evs)
    if where == "dice":
        return middle(seqs_of(evs, ev.DiceRolled))
    if where == "choice":
        return middle(seqs_of(evs, ev.OptionChosen))
    if where == "checkpoint":
        return middle(seqs_of(evs, ev.Checkpoint))
    if where == "injury":
        return middle(seqs_of(evs, ev.InjurySuffered))
    if where == "stress":
        return middle(seqs_of(evs, ev.StressLost))
    if where == "game-ended":
        return seqs_of(evs, ev.GameEnded)[0]
    if where == "middle":
        return len(evs) // 2
    raise AssertionError(where)


# ---------------------------------------------------------------------------- honest


def test_untampered_game_verifies(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    evs = events(db)
    report = verify_both(db, capsys)
    assert report.ok, report.problem
    assert report.bad_seq is None
    assert report.finished and report.seed_verified
    assert report.events == len(evs)
    assert report.rolls_checked > 0 and report.rolls_checked == len(seqs_of(evs, ev.DiceRolled))
    # every command re-run: the start and each choice (nobody resigned in this game)
    assert report.commands_rerun > 0
    assert report.commands_rerun == 1 + len(seqs_of(evs, ev.OptionChosen))
    assert report.checkpoints == len(seqs_of(evs, ev.Checkpoint)) > 0


def test_game_has_what_the_tamper_tests_need(db: Path) -> None:
    evs = events(db)
    assert isinstance(evs[0], ev.GameCreated) and evs[0].dice == "fair"
    assert isinstance(evs[-1], ev.SeedRevealed)
    for cls in (ev.DiceRolled, ev.OptionChosen, ev.InjurySuffered, ev.StressLost, ev.Checkpoint):
        assert seqs_of(evs, cls), f"no {cls.__name__} in the game"


# ---------------------------------------------------------------------------- bytes and order


@pytest.mark.parametrize("where", ["first", "second", "dice", "choice", "checkpoint", "middle", "last"])
@pytest.mark.parametrize("byte", ["head", "tail"])
def test_flipped_byte_fails_at_that_event(db: Path, capsys, where: str, byte: str) -> None:
    k = pick(events(db), where)
    data = rows(db)[k - 1].data
    set_data(db, k, flip(data, 0 if byte == "head" else len(data) - 1))
    assert_fails_at(db, capsys, k, "hash chain")


def test_flipped_byte_in_any_event_fails_at_that_event(db: Path) -> None:
    """Every event of the game, each with a different byte and bit flipped."""
    stored = rows(db)
    assert verify_log(GAME, stored).ok
    for k in range(1, len(stored) + 1):
        data = stored[k - 1].data
        tampered = list(stored)
        tampered[k - 1] = stored[k - 1]._replace(data=flip(data, (7 * k) % len(data), 1 << (k % 8)))
        report = verify_log(GAME, tampered)
        assert not report.ok and report.bad_seq == k, (k, report.bad_seq, report.problem)


@pytest.mark.parametrize("where", ["first", "second", "dice", "choice", "checkpoint", "middle", "game-ended"])
def test_deleted_event_fails_at_that_event(db: Path, capsys, where: str) -> None:
    k = pick(events(db), where)
    delete(db, k)
    assert_fails_at(db, capsys, k, "missing")


def test_deleted_last_event_of_finished_game_fails(db: Path, capsys) -> None:
    """Deleting the last event (the seed reveal) of a finished game must not verify.

    An honest server appends ``SeedRevealed`` in the same atomic append as ``GameEnded``, so a
    fair-dice log that ends in ``GameEnded`` has lost an event; verify cannot then check a
    single die, and must say so rather than report OK.
    """
    n = len(rows(db))
    assert isinstance(events(db)[-1], ev.SeedRevealed)
    delete(db, n)
    assert_fails_at(db, capsys, n)


@pytest.mark.parametrize("where", ["first", "dice", "choice", "checkpoint", "middle"])
def test_swapped_events_fail_at_the_first_of_them(db: Path, capsys, where: str) -> None:
    k = pick(events(db), where)
    stored = rows(db)
    a, b = stored[k - 1].data, stored[k].data
    assert a != b
    set_data(db, k, b)
    set_data(db, k + 1, a)
    assert_fails_at(db, capsys, k, "hash chain")


def test_swapped_last_two_events_fail(db: Path, capsys) -> None:
    stored = rows(db)
    n = len(stored)
    set_data(db, n - 1, stored[n - 1].data)
    set_data(db, n, stored[n - 2].data)
    assert_fails_at(db, capsys, n - 1, "hash chain")


def test_swapped_events_with_recomputed_chain_fail(db: Path, capsys) -> None:
    """Reordering two events of one command and recomputing the chain: the rules notice."""
    evs = events(db)
    k = next(s for s in seqs_of(evs, ev.DiceRolled) if isinstance(evs[s], ev.DiceRolled))  # two rolls in a row
    datas = [r.data for r in rows(db)]
    datas[k - 1], datas[k] = datas[k], datas[k - 1]
    rewrite_log(db, datas)
    report = assert_fails_at(db, capsys, k)
    assert "hash chain" not in report.problem  # the chain is self-consistent: the rules caught it


# ---------------------------------------------------------------------------- dice


def other_result(roll: ev.DiceRolled, i: int = 0) -> ev.DiceRolled:
    results = list(roll.results)
    results[i] = results[i] % roll.sides + 1  # a different face, still a legal one
    return msgspec.structs.replace(roll, results=tuple(results))


def die_seqs(evs: list[ev.Event]) -> dict[str, int]:
    """Rolls of every kind the game has: the first, middle and last roll, and the middle roll
    of each purpose (initiative, attack tasks and melee defence, damage)."""
    rolls = seqs_of(evs, ev.DiceRolled)
    by_purpose: dict[str, list[int]] = {}
    for s in rolls:
        by_purpose.setdefault(evs[s - 1].purpose, []).append(s)
    return {"first-roll": rolls[0], "middle-roll": middle(rolls), "last-roll": rolls[-1],
            **{purpose: middle(seqs) for purpose, seqs in by_purpose.items()}}


@pytest.mark.parametrize("which", ["first-roll", "middle-roll", "last-roll", "damage"])
def test_changed_die_without_fixing_the_chain_fails_at_that_roll(db: Path, capsys, which: str) -> None:
    evs = events(db)
    k = die_seqs(evs)[which]
    set_data(db, k, encode_event(other_result(evs[k - 1])))
    assert_fails_at(db, capsys, k, "hash chain")


@pytest.mark.parametrize("which", ["first-roll", "middle-roll", "last-roll", "initiative", "damage",
                                   "task:attack", "defence:attack"])
def test_changed_die_with_recomputed_chain_fails_at_that_roll(db: Path, capsys, which: str) -> None:
    """A dishonest server rewrites one die and recomputes every later chain hash: the chain is
    self-consistent, so only recomputing the roll from the revealed seed can catch it."""
    evs = events(db)
    k = die_seqs(evs)[which]
    roll = evs[k - 1]
    replace_and_rechain(db, k, encode_event(other_result(roll, len(roll.results) - 1)))
    assert_fails_at(db, capsys, k, f"roll {roll.nonce}")


def test_changed_die_with_recomputed_chain_fails_through_a_replay_file(db: Path, tmp_path: Path, capsys) -> None:
    evs = events(db)
    k = die_seqs(evs)["middle-roll"]
    replace_and_rechain(db, k, encode_event(other_result(evs[k - 1])))
    out_file = tmp_path / "game.skirmish"
    assert cli.main(["export", GAME, str(out_file), "--db", str(db)]) == 0
    capsys.readouterr()
    assert cli.main(["verify", "--file", str(out_file)]) == 1
    assert f"FAILED at event {k}:" in capsys.readouterr().out


# ---------------------------------------------------------------------------- outcomes


@pytest.mark.parametrize("change", ["injury-worse", "injury-milder", "injury-lethal-flag", "stress-less",
                                    "stress-more", "stress-dropped"])
def test_changed_attack_outcome_with_recomputed_chain_fails_at_that_event(db: Path, capsys, change: str) -> None:
    """A dishonest server changes the effect of an attack and recomputes the chain.

    Re-running the rules gives a different event right there, so that event is the first bad
    one; a later checkpoint (whose state hash the change also breaks) must not be named
    instead of it.
    """
    evs = events(db)
    datas = [r.data for r in rows(db)]
    injuries = seqs_of(evs, ev.InjurySuffered)
    if change == "injury-worse":  # a first Injury made lethal
        k = next(s for s in injuries if evs[s - 1].result == "nonlethal")
        forged = msgspec.structs.replace(evs[k - 1], result="lethal")
    elif change == "injury-milder":  # a death turned into a lethal injury
        k = next(s for s in injuries if evs[s - 1].result == "dead")
        forged = msgspec.structs.replace(evs[k - 1], result="lethal")
    elif change == "injury-lethal-flag":
        k = middle(injuries)
        forged = msgspec.structs.replace(evs[k - 1], lethal=not evs[k - 1].lethal)
    else:
        k = pick(evs, "stress")
        e = evs[k - 1]
        forged = msgspec.structs.replace(e, amount=e.amount - 1 if change == "stress-less" else e.amount + 1)
    if change == "stress-dropped":
        del datas[k - 1]  # the event vanishes; the later ones move up one seq
    else:
        datas[k - 1] = encode_event(forged)
    rewrite_log(db, datas)
    report = assert_fails_at(db, capsys, k)
    assert "hash chain" not in report.problem


def test_changed_choice_with_recomputed_chain_fails_right_after_it(db: Path, capsys) -> None:
    """Who acts first swapped for the other side (an option the decision offered): the choice is
    legal, but the event right after it (the activation passing) no longer follows from it."""
    evs = events(db)
    k = next(s for s in seqs_of(evs, ev.OptionChosen) if evs[s - 1].option[0] == "first")
    asked = evs[k - 2]
    assert isinstance(asked, ev.DecisionRequested) and asked.decision.kind == "first"
    others = [o for o in asked.decision.options if o != evs[k - 1].option]
    datas = [r.data for r in rows(db)]
    datas[k - 1] = encode_event(msgspec.structs.replace(evs[k - 1], option=others[0]))
    rewrite_log(db, datas)
    assert isinstance(evs[k], ev.ActivationPassed)
    assert_fails_at(db, capsys, k + 1, "rules")


def test_changed_checkpoint_with_recomputed_chain_fails_at_that_checkpoint(db: Path, capsys) -> None:
    evs = events(db)
    k = pick(evs, "checkpoint")
    replace_and_rechain(db, k, encode_event(ev.Checkpoint(state_hash="0" * 64)))
    assert_fails_at(db, capsys, k, "checkpoint")


def test_changed_outcome_with_recomputed_chain_fails_at_game_ended(db: Path, capsys) -> None:
    evs = events(db)
    k = pick(evs, "game-ended")
    e = evs[k - 1]
    forged = msgspec.structs.replace(e.outcome, winner="b" if e.outcome.winner != "b" else "a", reason="forged")
    replace_and_rechain(db, k, encode_event(ev.GameEnded(outcome=forged)))
    assert_fails_at(db, capsys, k)


# ---------------------------------------------------------------------------- the seed


@pytest.mark.parametrize("seed", ["another", "not-hex", "short"])
def test_wrong_revealed_seed_fails_at_the_reveal(db: Path, capsys, seed: str) -> None:
    evs = events(db)
    k = len(evs)
    reveal = evs[k - 1]
    assert isinstance(reveal, ev.SeedRevealed)
    fake = {"another": bytes(range(32)).hex(), "not-hex": "zz" * 32, "short": reveal.server_seed[:-2]}[seed]
    assert fake != reveal.server_seed
    replace_and_rechain(db, k, encode_event(msgspec.structs.replace(reveal, server_seed=fake)))
    report = assert_fails_at(db, capsys, k)
    assert "seed" in report.problem and "hash chain" not in report.problem
    assert not report.seed_verified and report.rolls_checked == 0
