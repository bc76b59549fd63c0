"""A replica's actor on its own (no NATS, no PostgreSQL): what it does when it boots."""

from __future__ import annotations

from skirmish.bots.random_bot import RandomBot
from skirmish.engine import Choose, Start
from skirmish.server.clock import GameClock
from skirmish.server.cluster.actor import ClusterActor
from skirmish.server.game import LiveGame
from skirmish.server.logs import get_logger
from skirmish.server.missions import load
from skirmish.server.store import MemoryStore


async def play(game: LiveGame, commands: int) -> None:
    bot = RandomBot(seed=7)
    for _ in range(commands):
        p = game.state.pending
        bot.new_game(p.side)
        await game.run(Choose(p.id, bot.choose(game.state, p), p.side))


async def test_a_replica_reads_what_the_owner_stored_while_it_was_loading():
    # A node loads a game as a replica (its log read first, its actor registered after more
    # round trips): the owner's events published in between found no actor there and were
    # dropped. The replica reads them from the store when it boots, so a seat resuming on it is
    # shown the decision that is really pending (the likely cause of a 150 s wait in CI).
    store = MemoryStore()
    owner = await LiveGame.create(store, load("ridge"))
    await owner.run(Start())
    await play(owner, 3)
    replica_game = await LiveGame.load(store, owner.game_id)
    loaded_at = replica_game.state.seq
    await play(owner, 2)  # stored and published while the replica was still loading
    assert owner.state.seq > loaded_at

    actor = ClusterActor(replica_game, node=None, owner=False, clock=GameClock(move_ms=30_000, reserve_ms=120_000, max_timeouts=3),
                         log=get_logger())
    try:
        await actor.call(actor.boot)
        assert actor.state.seq == owner.state.seq
        assert actor.state.pending == owner.state.pending
        assert actor.game.head_hash == owner.head_hash
    finally:
        await actor.close()
