"""Holding the views to what the rules modules declare secret (``Module.secrets``), against the
full state: the harness of ``tests/engine/test_views_hide_secrets.py``.

The check does not ask the redactions whether they ran. Each module declares, apart from how it
hides them, what a viewer may not know in a state (``skirmish.engine.rules.registry.Secret``); the
harness follows a game with the full state and, for each viewer, the state that viewer folds
from the events as ``view`` shows them (plus the dice it was shown, which no state keeps), and
after every event looks each secret up in the full state and in the viewer's knowledge:

- a scalar (a position, a name, a salt) is revealed if the viewer holds the true value there
  (at the secret's own path, or at ``seen_as``, where the module shows the thing);
- a collection (a hand, the dice of the draws) is revealed if the viewer holds, not hidden,
  more copies of a secret item than the full state holds in public (``Secret.value``);
- a ``token`` (an id) is revealed if it appears anywhere in an event the viewer received: as a
  value, or as a whole word inside a string (an id inside a composite key such as an order's
  "3:b1:lieutenant order").

A path the viewer's state does not have reveals nothing; a ``Hidden`` never equals a value.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import msgspec

from skirmish.engine import events as ev
from skirmish.engine.base import Hidden
from skirmish.engine.evolve import evolve, initial_state
from skirmish.engine.rules.registry import ROLLS, WHOLE, Secret, rules_of
from skirmish.engine.view import LIVE, view

MISSING = object()


@dataclass
class Knowledge:
    """A viewer's state, folded from what it was shown, and the dice it was shown:
    (purpose, unit) -> the results of each roll, in order (``Hidden`` where hidden)."""

    state: object
    rolls: dict = field(default_factory=dict)

    def learn(self, event) -> None:
        evolve(self.state, event)
        if isinstance(event, ev.DiceRolled):
            self.rolls.setdefault((event.purpose, event.unit), []).append(
                event.results if isinstance(event.results, Hidden) else tuple(event.results))


def at(known: Knowledge, path: tuple):
    """The value at ``path`` (see ``Secret``), or MISSING."""
    if path and path[0] == ROLLS:
        return known.rolls.get(tuple(path[1:3]), MISSING)
    here = known.state
    for key in path:
        if isinstance(here, msgspec.Struct):
            here = getattr(here, key, MISSING) if isinstance(key, str) else MISSING
        elif isinstance(here, dict):
            here = here.get(key, MISSING)
        elif isinstance(here, (list, tuple)) and isinstance(key, int):
            here = here[key] if -len(here) <= key < len(here) else MISSING
        else:
            here = MISSING
        if here is MISSING:
            return MISSING
    return here


def _items(value) -> list:
    if isinstance(value, dict):
        return list(value.values())
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def revealed(secret: Secret, truth, seen) -> bool:
    """Whether the viewer's value ``seen`` at the secret's place tells the true one."""
    if seen is MISSING or isinstance(seen, Hidden):
        return False
    if not isinstance(truth, (list, tuple, dict)):
        return seen == truth
    named = [x for x in _items(seen) if not isinstance(x, Hidden)]
    if not named:  # the usual case: every item hidden (counting the truth's would cost the most)
        return False
    items = Counter(map(_key, _items(truth)))
    secret_items = items if secret.value == WHOLE else Counter(map(_key, secret.value))
    public = items - secret_items
    shown = Counter(map(_key, named))
    return any(shown[x] > public[x] for x in secret_items)


def _key(x):
    return msgspec.json.encode(x) if isinstance(x, (dict, list, msgspec.Struct)) else x


def _leaves(plain, out: set) -> set:
    if isinstance(plain, dict):
        for k, v in plain.items():
            _leaves(k, out)
            _leaves(v, out)
    elif isinstance(plain, (list, tuple)):
        for v in plain:
            _leaves(v, out)
    else:
        out.add(plain)
    return out


def _mentioned(token, leaves: set) -> bool:
    if token in leaves:
        return True
    if not isinstance(token, str):
        return False
    word = re.compile(rf"(?<![\w-]){re.escape(token)}(?![\w-])")
    return any(isinstance(x, str) and word.search(x) for x in leaves)


@dataclass
class Follow:
    """A game followed with the full state and each live viewer's knowledge, checking every
    viewer after every event until the game ends. ``leaks`` lists what was revealed."""

    created: ev.GameCreated
    leaks: list = field(default_factory=list)
    checked: int = 0  # secrets looked up, over every viewer and event

    def __post_init__(self):
        self.truth = Knowledge(initial_state(self.created))
        self.known = {v: Knowledge(initial_state(view(self.truth.state, self.created, v))) for v in LIVE}
        self.over = False
        self.seq = 1
        self._check({v: view(self.truth.state, self.created, v) for v in LIVE})

    def apply(self, events) -> None:
        for e in events:
            self.seq += 1
            seen = {v: view(self.truth.state, e, v) for v in LIVE}  # in the state before the event
            self.truth.learn(e)
            if self.over or isinstance(e, ev.GameEnded):
                self.over = True  # the whole log is open now
                continue
            for v in LIVE:
                if seen[v] is not None:
                    self.known[v].learn(seen[v])
            self._check(seen)

    def _check(self, seen: dict) -> None:
        rules = rules_of(self.truth.state)
        for v in LIVE:
            leaves = None  # the event's values, gathered only for a token
            for s in rules.secrets_of(self.truth.state, v):
                self.checked += 1
                truth = at(self.truth, s.path)
                if truth is MISSING:
                    continue
                # where the viewer would hold it: at the same place, or where the module shows it
                if any(revealed(s, truth, at(self.known[v], place)) for place in (s.path, s.seen_as) if place):
                    self.leaks.append((self.seq, v, s.what, "in its state"))
                if s.token and leaves is None:
                    leaves = _leaves(msgspec.to_builtins(seen[v]), set()) if seen[v] is not None else set()
                if s.token and _mentioned(truth, leaves):
                    self.leaks.append((self.seq, v, s.what, f"in event {type(seen[v]).__name__}"))
