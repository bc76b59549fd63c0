"""Creating a game is one store transaction, and taking a seat is idempotent per request id:
a ``create_game`` or ``join`` whose ``seated`` was lost gets the same seat and token again."""

from __future__ import annotations

import uuid

import pytest

from skirmish.engine.codec import decode_event
from skirmish.engine.events import ClientSeedAdded, GameCreated, SeatTaken
from skirmish.protocol import messages as m
from skirmish.server.store import MemoryStore, StoreError

from .helpers import RawClient, verify_store


def rid() -> str:
    return uuid.uuid4().hex


async def kinds(store, game_id):
    return [type(decode_event(s.data)).__name__ for s in await store.read(game_id)]


# -- item 1: a game is created in one transaction ------------------------------------------------


class FailingStore(MemoryStore):
    """Fails the ``fail_at``-th write (``create_game`` or ``append``) with a StoreError, as a
    server killed between two writes would leave the store."""

    def __init__(self, fail_at: int) -> None:
        super().__init__()
        self.fail_at = fail_at
        self.writes = 0

    def _count(self) -> None:
        self.writes += 1
        if self.writes == self.fail_at:
            raise StoreError(f"write {self.writes} failed (injected)")

    async def create_game(self, *args, **kw):
        self._count()
        return await super().create_game(*args, **kw)

    async def append(self, *args, **kw):
        self._count()
        return await super().append(*args, **kw)


@pytest.mark.parametrize("fail_at", [1, 2, 3])
@pytest.mark.parametrize("seat", ["a", ""])
async def test_a_failure_at_any_write_of_a_creation_leaves_no_half_made_game(make_server, fail_at, seat):
    """Whichever write of ``create_game`` fails, the store holds the whole game (GameCreated and,
    asked for, the seat) or nothing of it; every game in it verifies."""
    store = FailingStore(fail_at)
    async with make_server(store=store) as srv:
        c = await RawClient.open(srv.url, name="alice")
        reply = await c.call(m.CreateGame(mission="ridge", seat=seat, client_seed="alice-seed"))
        games = await store.list_games()
        if isinstance(reply, m.Error):
            assert reply.code == "server.internal"
            assert games == [], f"a failed creation left {[(g.game_id, g.last_seq) for g in games]}"
        else:
            assert store.writes < fail_at  # the creation was over before the failure's turn
            assert [g.game_id for g in games] == [reply.game_id]
            expected = ["GameCreated", "SeatTaken", "ClientSeedAdded"] if seat else ["GameCreated"]
            assert await kinds(store, reply.game_id) == expected
        for g in games:
            assert (await verify_store(store, g.game_id)).ok
        # the server carries on: the next creation works
        store.fail_at = 0
        again = await c.call(m.CreateGame(mission="ridge", seat="a"))
        assert isinstance(again, m.Seated)
        assert (await verify_store(store, again.game_id)).ok


async def test_creating_a_seated_game_is_one_write(make_server):
    store = FailingStore(0)
    async with make_server(store=store) as srv:
        c = await RawClient.open(srv.url, name="alice")
        reply = await c.call(m.CreateGame(mission="ridge", seat="any", client_seed="alice-seed", request_id=rid()))
        assert isinstance(reply, m.Seated) and reply.seat == "a"
        assert store.writes == 1
        assert await kinds(store, reply.game_id) == ["GameCreated", "SeatTaken", "ClientSeedAdded"]
        backlog = [await c.next_of(m.EventMsg) for _ in range(3)]
        assert [(e.seq, type(e.event)) for e in backlog] == [(1, GameCreated), (2, SeatTaken), (3, ClientSeedAdded)]


# -- item 2: idempotent seat-taking --------------------------------------------------------------


async def test_a_join_retried_with_its_request_id_gets_the_same_seat_and_token(server):
    alice = await RawClient.open(server.url, name="alice")
    sa = await alice.call(m.CreateGame(mission="ridge", seat="a", request_id=rid()))
    bob = await RawClient.open(server.url, name="bob")
    r = rid()
    first = await bob.call(m.Join(game_id=sa.game_id, seat="any", client_seed="bob-seed", request_id=r))
    assert isinstance(first, m.Seated) and first.seat == "b"
    # the reply was "lost": bob says it again, on a new connection, with the same request id
    bob2 = await RawClient.open(server.url, name="bob")
    again = await bob2.call(m.Join(game_id=sa.game_id, seat="any", client_seed="bob-seed", request_id=r))
    assert isinstance(again, m.Seated), again
    assert (again.game_id, again.seat, again.token) == (first.game_id, "b", first.token)
    # with the backlog from the start, as at the first try; the older connection lets go of the seat
    seqs = [x.seq for x in bob2.msgs if isinstance(x, m.EventMsg)]
    assert seqs[:4] == [1, 2, 3, 4]
    assert (await bob.next_of(m.Error)).code == "auth.not_seated"
    # nothing was written the second time: one SeatTaken for b
    assert (await kinds(server.store, sa.game_id)).count("SeatTaken") == 2
    # a different request id for the taken seat is refused as before
    carol = await RawClient.open(server.url, name="carol")
    full = await carol.call(m.Join(game_id=sa.game_id, seat="any", request_id=rid()))
    assert isinstance(full, m.Error) and full.code == "lobby.game_full"
    # the retried seat plays: its token resumes and its commands are accepted
    decision = await bob2.next_of(m.DecisionMsg)
    mover = bob2 if decision.decision.side == "b" else alice
    ack = await mover.call(m.Command(game_id=sa.game_id, decision_id=decision.decision.id,
                                     option=decision.decision.options[0], command_id="c1"))
    assert isinstance(ack, m.Ack)


async def test_a_seated_create_game_retried_with_its_request_id_gets_the_same_game_seat_and_token(server):
    r = rid()
    alice = await RawClient.open(server.url, name="alice")
    first = await alice.call(m.CreateGame(mission="ridge", seat="any", client_seed="alice-seed", request_id=r))
    assert isinstance(first, m.Seated)
    alice2 = await RawClient.open(server.url, name="alice")
    again = await alice2.call(m.CreateGame(mission="ridge", seat="any", client_seed="alice-seed", request_id=r))
    assert isinstance(again, m.Seated), again
    assert (again.game_id, again.seat, again.token) == (first.game_id, first.seat, first.token)
    assert [g.game_id for g in await server.store.list_games()] == [first.game_id]  # no second game
    assert [x.seq for x in alice2.msgs if isinstance(x, m.EventMsg)] == [1, 2, 3]
    # the same request id asking for something else is refused, naming the field
    for wrong in (m.CreateGame(mission="ridge", seat="b", client_seed="alice-seed", request_id=r),
                  m.CreateGame(mission="ridge", seat="a", client_seed="other-seed", request_id=r),
                  m.CreateGame(mission="outpost", seat="a", client_seed="alice-seed", request_id=r),
                  m.CreateGame(mission="ridge", request_id=r)):
        reply = await alice2.call(wrong)
        assert isinstance(reply, m.Error) and reply.code == "protocol.invalid_field", (wrong, reply)
        assert "request_id" in reply.message
    assert len(await server.store.list_games()) == 1


async def test_an_unseated_create_game_retried_with_its_request_id_gets_the_same_game(server):
    r = rid()
    c = await RawClient.open(server.url, name="alice")
    first = await c.call(m.CreateGame(mission="ridge", request_id=r))
    again = await c.call(m.CreateGame(mission="ridge", request_id=r))
    assert isinstance(first, m.Created) and isinstance(again, m.Created) and first.game_id == again.game_id
    reply = await c.call(m.CreateGame(mission="ridge", seat="a", request_id=r))
    assert isinstance(reply, m.Error) and reply.code == "protocol.invalid_field"
    assert len(await server.store.list_games()) == 1


@pytest.mark.parametrize("bad", ["short", "x" * 65, "has space-in-it-1234", "nul\x00in-the-middle-12", "é" * 20,
                                 "semicolon;0123456789"])
async def test_a_bad_request_id_is_refused_naming_the_field(server, bad):
    c = await RawClient.open(server.url, name="alice")
    reply = await c.call(m.CreateGame(mission="ridge", seat="a", request_id=bad))
    assert isinstance(reply, m.Error) and reply.code == "protocol.invalid_field" and "request_id" in reply.message
    sa = await c.call(m.CreateGame(mission="ridge", seat="a"))  # no request id: allowed, not idempotent
    other = await RawClient.open(server.url, name="bob")
    reply = await other.call(m.Join(game_id=sa.game_id, request_id=bad))
    assert isinstance(reply, m.Error) and reply.code == "protocol.invalid_field" and "request_id" in reply.message
    assert [g.seats for g in (await c.call(m.ListGames())).games] == [["a"]]
    ok = await other.call(m.Join(game_id=sa.game_id, request_id="A-Za-z0-9_.:-" + "0" * 51))  # 64, every kind
    assert isinstance(ok, m.Seated)


async def test_request_ids_survive_a_restart(tmp_path, make_server):
    """The request id is stored with the seat: a server restarted on the same file still knows it."""
    from skirmish.server.store import SQLiteStore

    db = tmp_path / "games.sqlite"
    r_create, r_join = rid(), rid()
    async with await SQLiteStore.open(db, writer="process") as store:
        async with make_server(store=store) as srv:
            a = await RawClient.open(srv.url, name="alice")
            sa = await a.call(m.CreateGame(mission="ridge", seat="a", request_id=r_create))
            b = await RawClient.open(srv.url, name="bob")
            sb = await b.call(m.Join(game_id=sa.game_id, request_id=r_join))
            assert isinstance(sb, m.Seated)
    async with await SQLiteStore.open(db, writer="process") as store:
        async with make_server(store=store) as srv:
            a = await RawClient.open(srv.url, name="alice")
            b = await RawClient.open(srv.url, name="bob")
            again_a = await a.call(m.CreateGame(mission="ridge", seat="a", request_id=r_create))
            again_b = await b.call(m.Join(game_id=sa.game_id, request_id=r_join))
            assert (again_a.game_id, again_a.seat, again_a.token) == (sa.game_id, "a", sa.token)
            assert (again_b.game_id, again_b.seat, again_b.token) == (sb.game_id, "b", sb.token)
            assert len(await store.list_games()) == 1
            assert (await verify_store(store, sa.game_id)).ok


async def test_an_import_is_one_transaction():
    """``skirmish import`` writes the game and all its events at once: cut short, it leaves nothing."""
    from skirmish.bots import make_bot
    from skirmish.server import missions
    from skirmish.server.match import play_match
    from skirmish.server.replayfile import export_game, import_game

    source = MemoryStore()
    result = await play_match(source, missions.load("ridge"), {"a": make_bot("random", 1), "b": make_bot("random", 2)},
                              seed=7)
    assert result.events > 500  # more events than the old import wrote per transaction
    data = await export_game(source, result.game_id)
    for fail_at in (1, 2):
        target = FailingStore(fail_at)
        try:
            await import_game(target, data)
        except StoreError:
            assert await target.list_games() == []
        else:
            assert target.writes == 1 and fail_at == 2
            imported = [s.data for s in await target.read(result.game_id)]
            assert imported == [s.data for s in await source.read(result.game_id)]
