"""A replica's actor on its own (no NATS, no PostgreSQL): what it does when it boots, and when its node
takes the game over."""

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


def replica(game: LiveGame, node=None) -> ClusterActor:
    return ClusterActor(game, node=node, owner=False, log=get_logger(),
                        clock=GameClock(move_ms=30_000, reserve_ms=120_000, max_timeouts=3))


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

    actor = replica(replica_game)
    try:
        await actor.call(actor.boot)
        assert actor.state.seq == owner.state.seq
        assert actor.state.pending == owner.state.pending
        assert actor.game.head_hash == owner.head_hash
    finally:
        await actor.close()


class NodeSide:
    """What an actor asks of its node (``skirmish.server.cluster.node.Node``), recorded."""

    open_game_ttl = 0

    def __init__(self) -> None:
        self.owned_games: list[str] = []

    def owned(self, actor) -> None:
        self.owned_games.append(actor.game_id)

    def publish_events(self, *args) -> None:
        pass

    def finished(self, game_id: str) -> None:
        pass


async def test_taking_over_a_game_whose_load_made_a_replica_promotes_it():
    # A resume began loading the game while another node's lease was live (its claim refused:
    # a replica); the lease expired meanwhile and this node's taker claimed it. The load in
    # flight hands the taker that replica: it must be promoted, or this node renews a lease
    # under which nobody plays.
    from skirmish.server.cluster.node import Node

    store = MemoryStore()
    owner = await LiveGame.create(store, load("ridge"))
    await owner.run(Start())
    await play(owner, 2)
    side = NodeSide()
    loaded = replica(await LiveGame.load(store, owner.game_id), side)

    class Loading:  # the lobby: no actor registered yet, the load in flight returns the replica
        actors: dict = {}

        async def get(self, game_id):
            return loaded

    async def claim(game_id):
        return 2  # the lease, taken over (epoch 2)

    node = Node.__new__(Node)  # (only what take_over uses: no NATS, no PostgreSQL)
    node.lobby, node.claim, node.log = Loading(), claim, get_logger()
    try:
        assert await node.take_over(owner.game_id) is True
        assert loaded.owner and side.owned_games == [owner.game_id]
        assert loaded.clock.running is not None  # its clock runs for the pending decision
    finally:
        await loaded.close()
