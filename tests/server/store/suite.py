"""The one test suite every EventStore backend must pass.

A backend's test module subclasses :class:`EventStoreSuite` and provides an async fixture
``store`` yielding a fresh, open store (closed afterwards). Nothing here knows the backend.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from skirmish.engine.log import GENESIS_HASH, chain_hash
from skirmish.server.store import (
    AppendResult,
    ConcurrencyError,
    CreateResult,
    EventStore,
    GameExists,
    StoreClosed,
    StoredEvent,
    UnknownGame,
)

from .suite_listings import ListingSuite


def assert_chain(game_id: str, events: list[StoredEvent], first_seq: int = 1, prev: bytes = GENESIS_HASH) -> None:
    """The events are seqs first_seq.. without gaps, and each hash is skirmish.engine.log's chain hash."""
    for i, ev in enumerate(events):
        assert ev.game_id == game_id
        assert ev.seq == first_seq + i
        prev = chain_hash(prev, game_id, ev.seq, ev.data)
        assert ev.hash == prev, f"{game_id} seq {ev.seq}: stored hash differs from chain_hash"


class EventStoreSuite(ListingSuite):
    """The contract of skirmish.server.store.base.EventStore, backend-independent (its listings:
    ``suite_listings.py``)."""

    # ------------------------------------------------------------------ round trip

    async def test_round_trip_keeps_exact_bytes(self, store: EventStore) -> None:
        payloads = [b"", b"\x00", b"\xff\x00\xfe", bytes(range(256)), b"x" * 100_000, "é✓".encode()]
        await store.create_game("g1", meta=b"\x00meta\xff")
        r = await store.append("g1", 0, payloads)
        assert (r.first_seq, r.last_seq, r.duplicate) == (1, len(payloads), False)
        got = await store.read("g1")
        assert [e.data for e in got] == payloads
        assert all(type(e.data) is bytes and type(e.hash) is bytes for e in got)
        assert [e.seq for e in got] == list(range(1, len(payloads) + 1))
        assert got[-1].hash == r.last_hash

    async def test_bytes_like_events_are_stored_as_bytes(self, store: EventStore) -> None:
        await store.create_game("g")
        await store.append("g", 0, [bytearray(b"ab"), memoryview(b"cd")])
        assert [e.data for e in await store.read("g")] == [b"ab", b"cd"]

    async def test_seqs_continue_across_appends(self, store: EventStore) -> None:
        await store.create_game("g")
        results = []
        seq = 0
        for n in (1, 3, 2, 5):
            r = await store.append("g", seq, [f"e{seq + k}".encode() for k in range(1, n + 1)])
            assert r.first_seq == seq + 1 and r.last_seq == seq + n and not r.duplicate
            results.append(r)
            seq = r.last_seq
        events = await store.read("g")
        assert [e.seq for e in events] == list(range(1, 12))
        assert [e.data for e in events] == [f"e{i}".encode() for i in range(1, 12)]
        assert await store.last_seq("g") == 11
        for r in results:
            assert events[r.last_seq - 1].hash == r.last_hash

    async def test_chain_hashes_are_engine_log_chain_hash(self, store: EventStore) -> None:
        await store.create_game("chain")
        await store.append("chain", 0, [b"a", b"b"])
        await store.append("chain", 2, [b"c"])
        events = await store.read("chain")
        assert_chain("chain", events)
        h1 = chain_hash(GENESIS_HASH, "chain", 1, b"a")
        assert events[0].hash == h1
        assert events[2].hash == chain_hash(chain_hash(h1, "chain", 2, b"b"), "chain", 3, b"c")

    async def test_same_events_in_two_games_hash_differently(self, store: EventStore) -> None:
        await store.create_game("a")
        await store.create_game("b")
        ra = await store.append("a", 0, [b"same"])
        rb = await store.append("b", 0, [b"same"])
        assert ra.last_hash != rb.last_hash

    async def test_new_game_is_empty(self, store: EventStore) -> None:
        await store.create_game("empty")
        assert await store.last_seq("empty") == 0
        assert await store.read("empty") == []
        assert await store.load_snapshot("empty") is None

    # ------------------------------------------------------------------ errors

    async def test_stale_expected_seq_raises_and_writes_nothing(self, store: EventStore) -> None:
        await store.create_game("g")
        await store.append("g", 0, [b"1", b"2"])
        before = await store.read("g")
        for wrong in (0, 1, 3, 99):
            with pytest.raises(ConcurrencyError) as info:
                await store.append("g", wrong, [b"x"])
            err = info.value
            assert (err.game_id, err.expected_seq, err.actual_seq) == ("g", wrong, 2)
            assert "'g'" in str(err) and str(wrong) in str(err) and "2" in str(err)
        assert await store.read("g") == before
        assert await store.last_seq("g") == 2

    async def test_unknown_game(self, store: EventStore) -> None:
        await store.create_game("known")
        calls = [
            store.append("nope", 0, [b"x"]),
            store.read("nope"),
            store.last_seq("nope"),
            store.game_info("nope"),
            store.save_snapshot("nope", 0, b"s"),
            store.load_snapshot("nope"),
            store.find_command("nope", "c"),
        ]
        for call in calls:
            with pytest.raises(UnknownGame, match="nope") as info:
                await call
            assert info.value.game_id == "nope"
        assert [g.game_id for g in await store.list_games()] == ["known"]

    async def test_game_exists(self, store: EventStore) -> None:
        await store.create_game("g", meta=b"first")
        await store.append("g", 0, [b"e"])
        with pytest.raises(GameExists, match="'g'"):
            await store.create_game("g", meta=b"second")
        info = await store.game_info("g")
        assert (info.meta, info.last_seq) == (b"first", 1)

    async def test_invalid_ids_are_rejected(self, store: EventStore) -> None:
        for bad in ("", "a\x00b"):
            with pytest.raises(ValueError):
                await store.create_game(bad)
        with pytest.raises(TypeError):
            await store.create_game(7)  # type: ignore[arg-type]
        await store.create_game("g")
        for bad_cmd in ("", "c\x00"):
            with pytest.raises(ValueError):
                await store.append("g", 0, [b"x"], command_id=bad_cmd)
        assert await store.last_seq("g") == 0
        assert await store.list_games() == [await store.game_info("g")]

    async def test_empty_events_is_value_error(self, store: EventStore) -> None:
        await store.create_game("g")
        with pytest.raises(ValueError, match="empty"):
            await store.append("g", 0, [])
        with pytest.raises(ValueError, match="empty"):
            await store.append("g", 0, ())
        assert await store.last_seq("g") == 0

    async def test_bad_arguments_are_type_or_value_errors(self, store: EventStore) -> None:
        await store.create_game("g")
        with pytest.raises(TypeError):
            await store.append("g", 0, b"not a list")  # a bytes object is not a list of events
        with pytest.raises(TypeError):
            await store.append("g", 0, ["text, not bytes"])  # type: ignore[list-item]
        with pytest.raises(ValueError):
            await store.append("g", -1, [b"x"])
        with pytest.raises(TypeError):
            await store.append("g", True, [b"x"])
        with pytest.raises(ValueError):
            await store.read("g", 0)
        assert await store.read("g") == []

    # ------------------------------------------------------------------ atomicity

    async def test_failed_append_writes_none_of_its_events(self, store: EventStore) -> None:
        await store.create_game("g")
        await store.append("g", 0, [b"keep"])
        with pytest.raises(TypeError):
            await store.append("g", 1, [b"a", b"b", 3])  # type: ignore[list-item]
        with pytest.raises(ConcurrencyError):
            await store.append("g", 0, [b"a", b"b", b"c"], command_id="cmd")
        assert [e.data for e in await store.read("g")] == [b"keep"]
        # The failed command id was not recorded: it can still be appended for real.
        r = await store.append("g", 1, [b"a"], command_id="cmd")
        assert (r.first_seq, r.last_seq, r.duplicate) == (2, 2, False)
        assert_chain("g", await store.read("g"))

    # ------------------------------------------------------------------ idempotency

    async def test_command_id_is_idempotent(self, store: EventStore) -> None:
        await store.create_game("g")
        first = await store.append("g", 0, [b"a", b"b"], command_id="c1")
        assert first == AppendResult(1, 2, first.last_hash, duplicate=False)
        snapshot = await store.read("g")
        # Retried with the same expected seq (now stale), with a current one, with other events:
        for expected, events in ((0, [b"a", b"b"]), (2, [b"a", b"b"]), (0, [b"other"]), (7, [b"z"])):
            again = await store.append("g", expected, events, command_id="c1")
            assert again == AppendResult(1, 2, first.last_hash, duplicate=True)
        assert await store.read("g") == snapshot
        # Other command ids and other games are independent.
        r2 = await store.append("g", 2, [b"c"], command_id="c2")
        assert (r2.first_seq, r2.duplicate) == (3, False)
        await store.create_game("h")
        rh = await store.append("h", 0, [b"a"], command_id="c1")
        assert (rh.first_seq, rh.duplicate) == (1, False)
        assert await store.append("g", 0, [b"?"], command_id="c1") == AppendResult(1, 2, first.last_hash, True)
        assert await store.last_seq("g") == 3

    async def test_appends_without_command_id_are_never_duplicates(self, store: EventStore) -> None:
        await store.create_game("g")
        a = await store.append("g", 0, [b"same"])
        b = await store.append("g", 1, [b"same"])
        assert not a.duplicate and not b.duplicate and a.last_hash != b.last_hash

    async def test_concurrent_retries_of_one_command_write_once(self, store: EventStore) -> None:
        await store.create_game("g")
        results = await asyncio.gather(*(store.append("g", 0, [b"x", b"y"], command_id="once") for _ in range(20)))
        originals = [r for r in results if not r.duplicate]
        assert len(originals) == 1
        assert {(r.first_seq, r.last_seq, r.last_hash) for r in results} == {(1, 2, originals[0].last_hash)}
        assert [e.data for e in await store.read("g")] == [b"x", b"y"]

    # ------------------------------------------------------------------ concurrency

    async def test_many_concurrent_appends_to_many_games(self, store: EventStore) -> None:
        games = [f"game-{i:03d}" for i in range(60)]
        await asyncio.gather(*(store.create_game(g) for g in games))

        async def play(game_id: str, rounds: int) -> list[AppendResult]:
            seq, out = 0, []
            for r in range(rounds):
                n = 1 + (r + len(game_id)) % 4
                res = await store.append(game_id, seq, [f"{game_id}/{seq + k}".encode() for k in range(1, n + 1)])
                out.append(res)
                seq = res.last_seq
            return out

        all_results = await asyncio.gather(*(play(g, 15) for g in games))
        for game_id, results in zip(games, all_results):
            events = await store.read(game_id)
            assert_chain(game_id, events)
            assert [e.data for e in events] == [f"{game_id}/{i}".encode() for i in range(1, len(events) + 1)]
            assert events[-1].seq == results[-1].last_seq
            assert events[-1].hash == results[-1].last_hash
            assert await store.last_seq(game_id) == results[-1].last_seq

    async def test_concurrent_appends_to_one_game_exactly_one_wins(self, store: EventStore) -> None:
        await store.create_game("g")
        await store.append("g", 0, [b"base"])
        outcomes = await asyncio.gather(
            *(store.append("g", 1, [f"try-{i}".encode(), b"more"]) for i in range(25)), return_exceptions=True
        )
        wins = [o for o in outcomes if isinstance(o, AppendResult)]
        losses = [o for o in outcomes if isinstance(o, ConcurrencyError)]
        assert len(wins) == 1 and len(losses) == 24
        assert all((e.expected_seq, e.actual_seq) == (1, 3) for e in losses)
        winner = outcomes.index(wins[0])
        events = await store.read("g")
        assert [e.data for e in events] == [b"base", f"try-{winner}".encode(), b"more"]
        assert_chain("g", events)

    async def test_failures_in_a_crowd_do_not_spoil_the_others(self, store: EventStore) -> None:
        games = [f"g{i}" for i in range(30)]
        await asyncio.gather(*(store.create_game(g) for g in games))
        calls = []
        for i, g in enumerate(games):
            calls.append(store.append(g, 0, [f"{g}-ok".encode()]))
            if i % 3 == 0:
                calls.append(store.append(g, 5, [b"stale"]))
            if i % 5 == 0:
                calls.append(store.append(f"missing-{i}", 0, [b"x"]))
        outcomes = await asyncio.gather(*calls, return_exceptions=True)
        assert sum(isinstance(o, AppendResult) for o in outcomes) == 30
        assert sum(isinstance(o, ConcurrencyError) for o in outcomes) == 10
        assert sum(isinstance(o, UnknownGame) for o in outcomes) == 6
        for g in games:
            events = await store.read(g)
            assert [e.data for e in events] == [f"{g}-ok".encode()]
            assert_chain(g, events)

    async def test_create_and_append_issued_together(self, store: EventStore) -> None:
        # Issued at once (one group-commit batch in a batching store): the append sees the new game.
        created, appended, again = await asyncio.gather(
            store.create_game("fresh"), store.append("fresh", 0, [b"first"]), store.create_game("fresh"),
            return_exceptions=True,
        )
        assert created == CreateResult("fresh", 0, GENESIS_HASH, duplicate=False)
        assert isinstance(appended, AppendResult) and appended.last_seq == 1
        assert isinstance(again, GameExists)
        assert [e.data for e in await store.read("fresh")] == [b"first"]

    # ------------------------------------------------------------------ creating a game with its first events

    async def test_a_game_is_created_with_its_first_events(self, store: EventStore) -> None:
        r = await store.create_game("g", meta=b"m", secret=b"s", events=[b"created", b"seat", bytearray(b"seed")])
        events = await store.read("g")
        assert [e.data for e in events] == [b"created", b"seat", b"seed"]
        assert_chain("g", events)
        assert r == CreateResult("g", 3, events[-1].hash, duplicate=False)
        assert (await store.game_info("g")).last_seq == 3 and await store.load_secret("g") == b"s"
        assert (await store.append("g", 3, [b"next"])).first_seq == 4
        assert await store.find_command("g", "c") is None  # created without a command id

    async def test_a_creation_with_a_command_id_is_idempotent_across_the_store(self, store: EventStore) -> None:
        first = await store.create_game("g1", b"m1", b"s1", [b"a", b"b"], command_id="req-1")
        assert first == CreateResult("g1", 2, first.last_hash, duplicate=False)
        again = await store.create_game("g2", b"m2", b"s2", [b"other"], command_id="req-1")
        assert again == CreateResult("g1", 2, first.last_hash, duplicate=True)
        assert [g.game_id for g in await store.list_games()] == ["g1"]  # g2 was not made
        assert [e.data for e in await store.read("g1")] == [b"a", b"b"]
        # the first events are stored under the command id in the game, as an append's are
        assert await store.find_command("g1", "req-1") == AppendResult(1, 2, first.last_hash, duplicate=True)
        assert await store.append("g1", 0, [b"zz"], command_id="req-1") == AppendResult(1, 2, first.last_hash, True)
        # a game id that exists, with a new command id, is still GameExists
        with pytest.raises(GameExists):
            await store.create_game("g1", events=[b"x"], command_id="req-2")
        other = await store.create_game("g3", events=[b"x"], command_id="req-2")
        assert (other.game_id, other.duplicate) == ("g3", False)

    async def test_concurrent_creations_with_one_command_id_make_one_game(self, store: EventStore) -> None:
        results = await asyncio.gather(*(store.create_game(f"g{i}", events=[f"e{i}".encode()], command_id="same")
                                         for i in range(6)))
        made = [r for r in results if not r.duplicate]
        assert len(made) == 1 and {r.game_id for r in results} == {made[0].game_id}
        assert [g.game_id for g in await store.list_games()] == [made[0].game_id]

    async def test_find_command_finds_appends(self, store: EventStore) -> None:
        await store.create_game("g")
        r = await store.append("g", 0, [b"x", b"y"], command_id="c1")
        assert await store.find_command("g", "c1") == AppendResult(1, 2, r.last_hash, duplicate=True)
        assert await store.find_command("g", "c2") is None

    async def test_find_command_answers_a_retry_at_once_and_writes_nothing(self, store: EventStore) -> None:
        # how a game actor recognises a retried command: a read, right after the append returned
        await store.create_game("g", events=[b"created"])
        r = await store.append("g", 1, [b"chosen", b"next"], command_id="a:cmd")
        before = await store.read("g")
        for _ in range(3):
            assert await store.find_command("g", "a:cmd") == AppendResult(2, 3, r.last_hash, duplicate=True)
            assert await store.find_command("g", "b:cmd") is None  # another seat's id, never stored
        assert await store.read("g") == before and await store.last_seq("g") == 3
        with pytest.raises(ValueError):
            await store.find_command("g", "")

    async def test_a_creation_that_fails_makes_nothing(self, store: EventStore) -> None:
        with pytest.raises(ValueError, match="command id needs events"):
            await store.create_game("g", command_id="c")
        with pytest.raises(TypeError):
            await store.create_game("g", events=[b"ok", "not bytes"])  # type: ignore[list-item]
        with pytest.raises(TypeError):
            await store.create_game("g", events=b"bytes, not a list of them")
        assert await store.list_games() == []
        await store.create_game("g", events=[b"one"])
        outcomes = await asyncio.gather(store.create_game("g", events=[b"two"], command_id="c"),
                                        store.create_game("h", events=[b"three"]), return_exceptions=True)
        assert isinstance(outcomes[0], GameExists) and outcomes[1].game_id == "h"
        assert [e.data for e in await store.read("g")] == [b"one"]
        assert await store.find_command("g", "c") is None

    # ------------------------------------------------------------------ reads

    async def test_read_ranges_are_inclusive(self, store: EventStore) -> None:
        await store.create_game("g")
        await store.append("g", 0, [f"{i}".encode() for i in range(1, 11)])

        async def seqs(*args: int | None) -> list[int]:
            return [e.seq for e in await store.read("g", *args)]

        assert await seqs() == list(range(1, 11))
        assert await seqs(4) == list(range(4, 11))
        assert await seqs(3, 5) == [3, 4, 5]
        assert await seqs(5, 5) == [5]
        assert await seqs(8, 100) == [8, 9, 10]
        assert await seqs(11) == []
        assert await seqs(6, 5) == []
        assert await seqs(1, 0) == []
        assert await seqs(3, -1) == []
        assert await seqs(1, None) == list(range(1, 11))
        part = await store.read("g", 3, 5)
        assert_chain("g", part, first_seq=3, prev=(await store.read("g", 2, 2))[0].hash)

    # ------------------------------------------------------------------ games

    async def test_list_games_and_game_info(self, store: EventStore) -> None:
        assert await store.list_games() == []
        t0 = time.time()
        await store.create_game("zeta", meta=b"z")
        await asyncio.sleep(0.01)
        await store.create_game("alpha", meta=b"\x00a")
        await asyncio.sleep(0.01)
        await store.create_game("mid")
        await store.append("alpha", 0, [b"1", b"2", b"3"])
        games = await store.list_games()
        assert [g.game_id for g in games] == ["zeta", "alpha", "mid"]  # by creation time, not by name
        assert [g.last_seq for g in games] == [0, 3, 0]
        assert [g.meta for g in games] == [b"z", b"\x00a", b""]
        assert t0 - 1 <= games[0].created_at <= games[1].created_at <= games[2].created_at <= time.time() + 1
        assert await store.game_info("alpha") == games[1]

    async def test_list_games_ties_break_by_game_id(self, store: EventStore) -> None:
        ids = [f"t{i}" for i in (5, 3, 9, 1, 7, 2, 8, 0, 6, 4)]
        await asyncio.gather(*(store.create_game(g) for g in ids))
        games = await store.list_games()
        assert sorted(g.game_id for g in games) == sorted(ids)
        assert games == sorted(games, key=lambda g: (g.created_at, g.game_id))

    # ------------------------------------------------------------------ snapshots

    async def test_a_secret_is_kept_beside_the_game_and_nowhere_else(self, store: EventStore) -> None:
        secret = bytes(range(32))
        await store.create_game("g-secret", b"meta", secret)
        await store.create_game("g-plain")
        await store.append("g-secret", 0, [b"e1"])
        assert await store.load_secret("g-secret") == secret
        assert await store.load_secret("g-plain") == b""
        info = await store.game_info("g-secret")
        assert secret not in info.meta and all(secret not in e.data for e in await store.read("g-secret"))
        with pytest.raises(UnknownGame):
            await store.load_secret("g-missing")

    async def test_snapshots_keep_the_latest(self, store: EventStore) -> None:
        await store.create_game("g")
        await store.append("g", 0, [b"e"] * 6)
        assert await store.load_snapshot("g") is None
        await store.save_snapshot("g", 2, b"at two")
        assert await store.load_snapshot("g") == (2, b"at two")
        await store.save_snapshot("g", 5, b"at five")
        assert await store.load_snapshot("g") == (5, b"at five")
        await store.save_snapshot("g", 3, b"older")  # an older snapshot never replaces a newer one
        assert await store.load_snapshot("g") == (5, b"at five")
        await store.save_snapshot("g", 5, b"at five, again")  # the same seq: the last save wins
        assert await store.load_snapshot("g") == (5, b"at five, again")
        with pytest.raises(ValueError, match="7"):
            await store.save_snapshot("g", 7, b"future")
        with pytest.raises(ValueError):
            await store.save_snapshot("g", -1, b"negative")
        assert await store.load_snapshot("g") == (5, b"at five, again")
        await store.create_game("h")
        assert await store.load_snapshot("h") is None
        assert len(await store.read("g")) == 6  # snapshots never touch the log

    async def test_concurrent_snapshots_keep_the_highest_seq(self, store: EventStore) -> None:
        await store.create_game("g")
        await store.append("g", 0, [b"e"] * 10)
        await asyncio.gather(*(store.save_snapshot("g", s, f"s{s}".encode()) for s in (4, 9, 2, 7, 1)))
        assert await store.load_snapshot("g") == (9, b"s9")

    # ------------------------------------------------------------------ lifecycle

    async def test_closed_store_refuses_calls_and_close_is_idempotent(self, store: EventStore) -> None:
        await store.create_game("g")
        await store.close()
        await store.close()
        with pytest.raises(StoreClosed):
            await store.append("g", 0, [b"x"])
        with pytest.raises(StoreClosed):
            await store.read("g")
        with pytest.raises(StoreClosed):
            await store.create_game("h")
        with pytest.raises(StoreClosed):
            await store.list_games()
        with pytest.raises(StoreClosed):
            await store.list_listings()
        with pytest.raises(StoreClosed):
            await store.stale_listings()

    async def test_async_context_manager_closes(self, store: EventStore) -> None:
        async with store as s:
            assert s is store
            await s.create_game("g")
        with pytest.raises(StoreClosed):
            await store.last_seq("g")
