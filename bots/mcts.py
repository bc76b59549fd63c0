"""``mcts``: determinized Monte Carlo tree search over the engine, from the bot's own view.

Each iteration:

1. **determinize** the view (``skirmish.bots.determinize``): a complete state sampled from what the side
   can see (today a copy: the core rules hide nothing). Worlds are told apart by their encoded
   bytes; the root's statistics are shared by all of them, so the move is chosen on the
   average over the worlds sampled, as in ISMCTS; below the root each world has its own tree.
2. **select** down the tree with PUCT over the decision nodes of *both* sides: at a node the
   mover (``decision.side``) picks ``argmax q + c * prior * sqrt(N) / (1 + n)``, ``q`` being its
   own mean reward, so each side plays for itself. The prior is a softmax of the static option
   scores of ``skirmish.bots.policy`` (computed on a node's second visit: most leaves are never
   revisited), and unvisited options start from their node's mean reward. ``c`` is
   ``c_puct`` (1.0: rewards are in [0, 1]).
3. **chance**: an option whose play rolled dice is a chance edge. Its outcomes are the distinct
   states reached (keyed by their encoded bytes), sampled by really rolling fast local dice
   (``skirmish.engine.dice.LocalDice``, seeded from the bot's seed) while the edge has fewer than
   ``sqrt(visits)`` outcomes (progressive widening), afterwards drawn among those seen in
   proportion to how often they were rolled. Deterministic edges are played once and cached,
   so walking down the tree costs nothing but the steps into new states.
4. **expand and evaluate**: the new state becomes a leaf (its bytes are kept); a short rollout
   with the static policy answers the decisions inside the procedure in progress (buying dice,
   avoiding an Injury, ...) and -- with ``rollout="turn"`` -- plays out the current unit's turn,
   then
   ``skirmish.bots.evaluate.reward`` (the evaluation squashed to [0, 1]; 1 or 0 for a finished game)
   scores it for side a.
5. **back up** the reward along the path, each node crediting its mover's side.

The answer is the root option with most visits. Budgets: ``budget_ms`` (wall time per
decision, 200 by default: the result then depends on the machine's speed) or ``iterations``
(deterministic: with a fixed seed the same views give the same answers, as tests need). The
search stops early once the most visited option cannot be overtaken in the iterations left.
The subtree under the chosen option is kept: if the next view the bot is handed is a state
that search reached (byte for byte), the next search carries on from it.

The bot only ever builds states from the view it is handed (``determinize``), and the engine
steps it uses are the engine's own rules run on those states (``skirmish.bots.simulate``).
"""

from __future__ import annotations

import math
import random
import time

from skirmish.bots.base import Bot
from skirmish.bots.determinize import determinize, hidden, same_decision
from skirmish.bots.evaluate import reward
from skirmish.bots.policy import best_option, option_scores
from skirmish.bots.simulate import PROCEDURE_KINDS, decode, encode, step
from skirmish.engine.dice import LocalDice
from skirmish.engine.model import Decision, Option, State


class _Stats:
    """Visit counts and summed rewards (of the mover) per option of a decision."""

    __slots__ = ("N", "n", "w")

    def __init__(self, k: int):
        self.N = 0
        self.n = [0] * k
        self.w = [0.0] * k


class _Node:
    __slots__ = ("blob", "side", "options", "stats", "priors", "edges", "value")

    def __init__(self, blob: bytes, state: State, stats: _Stats | None = None):
        self.blob = blob
        p = state.pending
        self.value: float | None = None  # set for a finished game: side a's reward
        if state.outcome is not None or p is None:
            self.side = ""
            self.options: tuple[Option, ...] = ()
            self.value = reward(state, "a")
        else:
            self.side = p.side
            self.options = p.options
        k = len(self.options)
        self.stats = stats if stats is not None else _Stats(k)
        self.priors: list[float] | None = None
        self.edges: list[_Edge | None] = [None] * k


class _Edge:
    __slots__ = ("random", "child", "outcomes", "rolled", "visits")

    def __init__(self, random_: bool):
        self.random = random_
        self.child: _Node | None = None
        self.outcomes: dict[bytes, _Node] = {}
        self.rolled: dict[bytes, int] = {}  # how often each outcome was rolled
        self.visits = 0


def _settled(visits: list[int], left: float) -> bool:
    """Whether the most visited option stays ahead whatever ``left`` more iterations do."""
    first = second = 0
    for v in visits:
        if v > first:
            first, second = v, first
        elif v > second:
            second = v
    return first - second > left


def _subtree(edges: list[_Edge | None]) -> dict[bytes, _Node]:
    """Every node below ``edges``, by its state's bytes."""
    table: dict[bytes, _Node] = {}
    todo = [e for e in edges if e is not None]
    while todo:
        edge = todo.pop()
        for child in ([edge.child] if edge.child is not None else []) + list(edge.outcomes.values()):
            if child.blob not in table:
                table[child.blob] = child
                todo.extend(e for e in child.edges if e is not None)
    return table


class MctsBot(Bot):
    name = "mcts"

    def __init__(self, seed: int | None = None, *, budget_ms: float = 200.0, iterations: int | None = None,
                 c_puct: float = 1.0, prior_temperature: float = 0.3, widening: float = 1.0,
                 rollout: str = "settle", reuse: bool = True, fpu_reduction: float = 0.0,
                 stop_early: bool = True):
        super().__init__(seed)
        self.stop_early = stop_early
        self.reuse = reuse
        self.fpu_reduction = fpu_reduction
        self._table: dict[bytes, _Node] = {}  # the subtree kept from the last search, by state
        self.budget_ms = budget_ms
        self.iterations = iterations
        self.c_puct = c_puct
        self.temperature = prior_temperature
        self.widening = widening
        self.rollout = rollout
        # for benchmarks and inspection: the last search's iterations, the visits its root had
        # from earlier searches, and its root (options, visits, summed rewards, priors)
        self.last_iterations = 0
        self.reused = 0
        self.last_root: tuple | None = None

    def new_game(self, side: str) -> None:
        super().new_game(side)
        self._table = {}

    # -- the search ------------------------------------------------------------------------------

    def choose(self, view: State, decision: Decision) -> Option:
        options = decision.options
        if len(options) == 1:
            self.last_iterations = 0
            return options[0]
        start = time.perf_counter()
        # stop a little early: the last iteration and the bookkeeping after it take time too
        deadline = start + 0.95 * self.budget_ms / 1000
        side = decision.side
        rng = random.Random(self.rng.getrandbits(64))
        dice = LocalDice(rng.getrandbits(64))
        shared = _Stats(len(options))
        worlds: dict[bytes, _Node] = {}
        self.reused = 0
        # Where no sampler applies, every determinization is the same copy of the view: make it
        # once, and keep the tree from one decision to the next.
        sampling = hidden(view)
        if self.reuse and not sampling and self._table:
            # The view is a state the last search reached (the same bytes): carry on from there.
            blob = encode(view)
            node = self._table.get(blob)
            if node is not None and node.options == options:
                worlds[blob] = node
                shared = node.stats
                self.reused = shared.N
        self._table = {}
        limit = self.iterations
        done = 0
        root: _Node | None = None
        while True:
            if sampling or root is None:
                world: State | None = determinize(view, side, rng)
                blob = encode(world)
                root = worlds.get(blob)
                if root is None:
                    root = worlds[blob] = _Node(blob, world, shared)
                    if not same_decision(root.options, options):
                        raise AssertionError("a determinization changed the decision being made")
            else:
                world = None  # decoded from the root's bytes if this iteration needs it
            self._iterate(root, world, rng, dice)
            done += 1
            if limit is not None:
                if done >= limit:
                    break
                left = limit - done
            else:
                now = time.perf_counter()
                if now >= deadline:
                    break
                left = (deadline - now) * done / max(now - start, 1e-9)
            if self.stop_early and done % 8 == 0 and _settled(shared.n, left):
                break
        self.last_iterations = done
        n, w = shared.n, shared.w
        self.last_root = (options, list(n), list(w), next(iter(worlds.values())).priors)
        best = max(range(len(options)), key=lambda i: (n[i], w[i] / n[i] if n[i] else 0.0))
        if self.reuse and not sampling:
            self._table = _subtree([root.edges[best] for root in worlds.values()])
        return options[best]

    def _iterate(self, root: _Node, state: State | None, rng: random.Random, dice: LocalDice) -> None:
        node = root
        path: list[tuple[_Node, int]] = []
        while True:
            if node.value is not None:
                value = node.value
                break
            if len(node.options) == 1:
                i = 0
            else:
                if node.priors is None:
                    if state is None:
                        state = decode(node.blob)
                    node.priors = self._priors(state, node)
                i = self._select(node)
            path.append((node, i))
            edge = node.edges[i]
            if edge is not None:
                edge.visits += 1
                if not edge.random:
                    node, state = edge.child, None
                    continue
                if len(edge.outcomes) >= max(1, math.ceil(self.widening * math.sqrt(edge.visits))):
                    node, state = self._draw(edge, rng), None
                    continue
            if state is None:
                state = decode(node.blob)
            rolled = step(state, node.options[i], dice)
            blob = encode(state)
            if edge is None:
                edge = node.edges[i] = _Edge(rolled)
                edge.visits = 1
            if not edge.random:
                child = edge.child = _Node(blob, state)
            else:
                edge.rolled[blob] = edge.rolled.get(blob, 0) + 1
                child = edge.outcomes.get(blob)
                if child is not None:
                    node = child
                    continue
                child = edge.outcomes[blob] = _Node(blob, state)
            value = child.value if child.value is not None else self._leaf(state, dice)
            break
        for node, i in path:
            st = node.stats
            st.N += 1
            st.n[i] += 1
            st.w[i] += value if node.side == "a" else 1.0 - value

    def _select(self, node: _Node) -> int:
        st = node.stats
        n, w, priors = st.n, st.w, node.priors
        visited = sum(n)
        fpu = (sum(w) / visited - self.fpu_reduction) if visited else 0.5
        scale = self.c_puct * math.sqrt(st.N + 1)
        best, best_u = 0, -1.0
        for i in range(len(n)):
            ni = n[i]
            u = (w[i] / ni if ni else fpu) + scale * priors[i] / (1 + ni)
            if u > best_u:
                best, best_u = i, u
        return best

    def _priors(self, state: State, node: _Node) -> list[float]:
        scores = option_scores(state, state.pending)
        top = max(scores)
        t = self.temperature
        exps = [math.exp((s - top) / t) for s in scores]
        total = sum(exps)
        return [e / total for e in exps]

    @staticmethod
    def _draw(edge: _Edge, rng: random.Random) -> _Node:
        keys = list(edge.rolled)
        weights = [edge.rolled[k] for k in keys]
        return edge.outcomes[rng.choices(keys, weights)[0]]

    def _leaf(self, state: State, dice: LocalDice) -> float:
        """Side a's reward for a new leaf: a short policy rollout, then the evaluation."""
        limit = 40
        while limit and state.outcome is None:
            p = state.pending
            if p is None:
                break
            if p.kind in PROCEDURE_KINDS or (self.rollout == "turn" and (state.turn is not None or state.stack)):
                step(state, best_option(state, p), dice)
                limit -= 1
            else:
                break
        return reward(state, "a")
