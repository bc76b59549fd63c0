"""Determinization: a complete game state, sampled from what one side can see.

A search bot must never read the true state (DESIGN.md sections 5 and 7). It searches from
its own *view* (the state its client reduced from the events ``skirmish.engine.view`` showed its side),
and where that view hides something it plays from *determinizations*: complete states in which
every hidden thing has been given a value drawn from what the side could believe.

``determinize(view, side, rng) -> State`` returns a fresh state the search may mutate. It never
returns ``view`` itself, and nothing it returns holds information the view lacks: all it may
add is what it samples with ``rng``.

The core rules (seed 001) hide nothing: in their games a determinization is a copy of the view.
Modules with hidden information name *samplers* in their ``Module`` (``samplers``): functions
``(state, side, rng) -> None`` that fill in, in place on the copy, what the module's redactions
(``Module.redactions``, applied by ``skirmish.engine.view``) took out of ``side``'s view. For example:

- hands of cards (seed 002): deal the opponent's hand uniformly from the cards not seen
  (the deck minus the cards played and in the side's own hand), keeping its known size;
- hidden units and markers (seed 003: Camouflage, Impersonation): place each marker's unit
  among the profiles it may be, and a hidden unit in a cell consistent with what was seen;
- private information (who the Lieutenant is): draw it among the candidates still possible.

The samplers that apply are those of the modules the game has on (its rule set,
``skirmish.engine.rules.registry.rules_of``). ``hidden(state)`` says whether any applies: where none does,
the view is the whole truth and a search may make one determinization and keep its tree from one
decision to the next. Samplers run in the mission's order of the modules with the caller's
``rng``, so a search with a fixed seed samples the same worlds. A sampler reads only the view
copy it is given.
"""

from __future__ import annotations

import random
from skirmish.bots.simulate import clone
from skirmish.engine.model import Side, State
from skirmish.engine.rules.registry import rules_of


def hidden(state: State) -> bool:
    """True when some sampler applies to this game: its views may hide something."""
    return any(m.samplers and (m.hides is None or m.hides(state)) for m in rules_of(state).modules)


def determinize(view: State, side: Side, rng: random.Random) -> State:
    """A complete state consistent with ``side``'s ``view``, sampled with ``rng``."""
    state = clone(view)
    for sample in rules_of(state).samplers:
        sample(state, side, rng)
    return state


def same_decision(sampled, seen) -> bool:
    """Whether a sample's pending options are the view's, one for one: the same actions in the same
    order, an option that named a marker's shadow now naming the unit the sample put behind it."""
    return len(sampled) == len(seen) and all(
        len(a) == len(b) and a[0] == b[0] and all(x == y or isinstance(y, str) for x, y in zip(a, b))
        for a, b in zip(sampled, seen))
