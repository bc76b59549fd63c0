"""Who plays whom, on which mission, with which seed: deterministic from (config, seed).

**Mirrored pairs.** A pairing (x, y) plays ``config.games`` games (always even) as
``config.games // 2`` pairs: game ``2k`` has x on side a and y on side b, game ``2k + 1`` the
same match seed and mission with the sides swapped. Each bot's own seed follows the entrant
(derived from the match seed and the entrant's name), not the side. The pairs of a pairing
cycle through the missions, each pairing starting one mission further on.

**Dice: one seed per game, shared by no other game.** Each game's server seed comes from its
own ``dice_seed`` (derived one-way from the tournament seed and the game's place in the
schedule, mirror flag included), never from the other game of its pair. Sharing the dice would
hand one game's secrets to the other: in ``knives`` both games would open with the same hidden
hands seat for seat (a bot that remembers its own hand knows its opponent's in the mirror), the
seed game ``2k`` reveals at its end would give away every hidden draw and the salt of game
``2k + 1``, and even public rolls seen in one game would foretell the rolls of the other by
nonce. So a mirrored pair evens out the sides and the bots' own randomness, not the dice
(docs/decisions.md).

**Order.** Games are numbered (the *game index*) round by round; within a round pair 0 of
every pairing, then pair 1 of every pairing, and so on, the two mirrored games side by side.
Ratings are updated in this order, whatever order the workers finish in.

**Formats.** Round robin: every pair of entrants, once (one round). Gauntlet: the champion
against each other entrant (one round). Swiss: ``rounds`` rounds, each paired from the
standings after the rounds before it (see :func:`swiss_pairings`).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass

from .config import Entrant, TournamentConfig

_SEED_MASK = (1 << 63) - 1


@dataclass(frozen=True)
class Seat:
    entrant: str
    bot: str  # what skirmish.bots.make_bot takes
    seed: int  # the bot's own random seed for this game


@dataclass(frozen=True)
class GameSpec:
    index: int  # the game index: the order of rating updates
    game_id: str
    round: int  # 0 for round robin and gauntlet
    pairing: tuple[str, str]  # the two entrants, in pairing order (first is side a in even games)
    game_in_pairing: int  # 2k + m: pair k, m = 0 as paired, 1 mirrored
    mission: str  # as given in the config (a bundled id or a path)
    seed: int  # the match seed of the pair: the bots' seeds (and, through a server, the client seed) follow it
    dice_seed: int  # this game's own: its server seed is derived from it (local play); no other game shares it
    a: Seat
    b: Seat
    timeout_ms: int  # per decision; 0: no limit

    @property
    def pair(self) -> int:
        return self.game_in_pairing // 2

    @property
    def mirrored(self) -> bool:
        return self.game_in_pairing % 2 == 1

    def seat(self, side: str) -> Seat:
        return self.a if side == "a" else self.b


def derive(*parts: object) -> int:
    """A 63-bit number from the parts (stable across runs, machines and Python versions)."""
    text = "\x1f".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") & _SEED_MASK


def game_id_prefix(config: TournamentConfig) -> str:
    return "t" + config.fingerprint_hash()[:8]


def round_robin_pairings(entrants: list[Entrant]) -> list[tuple[str, str]]:
    names = [e.name for e in entrants]
    return [(x, y) for i, x in enumerate(names) for y in names[i + 1:]]


def gauntlet_pairings(entrants: list[Entrant], champion: str) -> list[tuple[str, str]]:
    return [(champion, e.name) for e in entrants if e.name != champion]


def pairings_per_round(config: TournamentConfig) -> int:
    n = len(config.entrants)
    if config.format == "round-robin":
        return n * (n - 1) // 2
    if config.format == "gauntlet":
        return n - 1
    return n // 2


def rounds(config: TournamentConfig) -> int:
    return config.rounds if config.format == "swiss" else 1  # type: ignore[return-value]


def total_games(config: TournamentConfig) -> int:
    return rounds(config) * pairings_per_round(config) * config.games


def plan_round(config: TournamentConfig, round_no: int, pairings: list[tuple[str, str]]) -> list[GameSpec]:
    """The games of one round, with their indices, ids, seeds, missions and seats."""
    assert config.seed is not None, "the seed is settled before planning"
    bots = {e.name: e.bot for e in config.entrants}
    prefix = game_id_prefix(config)
    first = round_no * pairings_per_round(config) * config.games
    specs = []
    for k in range(config.pairs):
        for p, (x, y) in enumerate(pairings):
            seed = derive("match", config.seed, round_no, x, y, k)
            mission = config.missions[(k + p) % len(config.missions)]
            for m in (0, 1):
                index = first + (k * len(pairings) + p) * 2 + m
                dice_seed = derive("dice", config.seed, round_no, x, y, k, m)
                a, b = (x, y) if m == 0 else (y, x)
                specs.append(GameSpec(
                    index=index, game_id=f"{prefix}-{index:05d}", round=round_no, pairing=(x, y),
                    game_in_pairing=2 * k + m, mission=mission, seed=seed, dice_seed=dice_seed,
                    a=Seat(a, bots[a], derive("bot", seed, a)), b=Seat(b, bots[b], derive("bot", seed, b)),
                    timeout_ms=config.decision_timeout_ms,
                ))
    return specs


def swiss_pairings(ranked: list[str], played: Counter, byes: set[str], *,
                   node_budget: int = 200_000) -> tuple[list[tuple[str, str]], str | None]:
    """Pair entrants given best first (by score, then rating, then entry order).

    With an odd number, the lowest-ranked entrant that has not had a bye sits this round out
    (the bye). The rest are paired top down, each with the closest-ranked opponent it has not
    met (``played`` counts meetings per ``frozenset({x, y})``); a depth-first search backs
    up when that leaves someone without a new opponent. Rematches come only when no pairing
    without them exists (then as few as the search finds within its budget).
    """
    order = list(ranked)
    bye = None
    if len(order) % 2:
        candidates = [n for n in reversed(order) if n not in byes] or list(reversed(order))
        bye = candidates[0]
        order.remove(bye)

    for allowed in range(len(order) // 2 + 1):
        budget = [node_budget]
        found = _pair(order, played, allowed, budget)
        if found is not None:
            return found, bye
    return [(order[i], order[i + 1]) for i in range(0, len(order), 2)], bye  # pragma: no cover


def _pair(order: list[str], played: Counter, allowed: int, budget: list[int]) -> list[tuple[str, str]] | None:
    if not order:
        return []
    budget[0] -= 1
    if budget[0] < 0:
        return None
    first, rest = order[0], order[1:]
    for i, opp in enumerate(rest):
        cost = 1 if played[frozenset((first, opp))] else 0
        if cost > allowed:
            continue
        sub = _pair(rest[:i] + rest[i + 1:], played, allowed - cost, budget)
        if sub is not None:
            return [(first, opp), *sub]
    return None
