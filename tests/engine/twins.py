"""Twin games: the strongest check that a hidden fact does not leak (issue 15, "Hidden information,
end to end").

Two games that differ only in a hidden fact (which unit is behind a marker, where a hidden unit
stands, what a side holds in its hand) must give every viewer the fact is hidden from
byte-identical frames until the fact is revealed. ``play_twins`` drives both games in lockstep
with the same dice and the same choices, and compares, after each command, what each blind viewer
receives in each game:

- a frame is ``skirmish.engine.codec.encode_event`` of each event as ``skirmish.engine.view``
  shows it to that viewer (``views``; a withheld event is no frame), plus the pending decision as
  ``skirmish.engine.view.pending`` shows it (its bytes as msgspec JSON);
- the choices are picked from what the blind viewer sees: the pending decision as ``chooser``
  (the first blind side) sees it -- identical in both games while the frames are -- gives the
  option, by one shared random draw; each game then plays a true option that ``chooser`` would see
  as that one (``view`` of the ``OptionChosen``): the side that owns the fact "does the same
  visible thing" in both games, whatever its hidden options are;
- a ``Checkpoint`` whose state hash covers a salt that the viewer may not know (a secret
  ``Module.secrets`` declares at a path ending in ``salt``) is a commitment: its hash differs
  between twins by design and tells nothing without the salt (128 secret bits,
  ``skirmish.engine.rules.salt``), so its bytes are compared with the hash masked; the event
  itself, its place and its count are compared.

The comparison stops at the first event for which the caller's ``reveal(state, event)`` holds in
either game (the state before the event: the event that reveals the fact; its own frame may
differ), at ``GameEnded`` (the whole log opens) or at the first difference, which ``Twins.leak``
names. The dice: both games roll ``LocalDice(seed)``, or the caller's (``NonceDice`` alters the
rolls at given nonces: twins whose hidden rolls differ, e.g. the cards a side draws).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import msgspec

from skirmish.engine import events as ev
from skirmish.engine.codec import encode_event
from skirmish.engine.commands import Choose, Start
from skirmish.engine.decide import decide
from skirmish.engine.dice import LocalDice
from skirmish.engine.evolve import evolve, initial_state
from skirmish.engine.rules.registry import rules_of
from skirmish.engine.view import pending, view, views

_JSON = msgspec.json.Encoder()
SALTED = "<salted>"


class NonceDice:
    """``LocalDice(seed)``, but the rolls at the nonces ``at`` come from ``LocalDice(other)``:
    the twin of a game whose hidden rolls (and only those) fell otherwise."""

    def __init__(self, seed: int, other: int = 0, at: frozenset = frozenset()) -> None:
        self._dice, self._other, self.at = LocalDice(seed), LocalDice(other), frozenset(at)

    def roll(self, nonce: int, sides: int, count: int) -> tuple[int, ...]:
        results = self._dice.roll(nonce, sides, count)  # drawn in both twins: the streams stay in step
        return self._other.roll(nonce, sides, count) if nonce in self.at else results


def salted(state, viewer: str) -> bool:
    """Whether ``state``'s hash covers a salt ``viewer`` may not know."""
    for s in rules_of(state).secrets_of(state, viewer):
        if s.path and isinstance(s.path[-1], str) and s.path[-1].endswith("salt"):
            value = state
            for key in s.path:
                value = getattr(value, key, None) if isinstance(key, str) else None
            if value:
                return True
    return False


def frame(state, event, viewer: str) -> bytes:
    """The bytes ``viewer`` receives for ``event`` as shown to it (a salted hash masked)."""
    if isinstance(event, ev.Checkpoint) and salted(state, viewer):
        event = msgspec.structs.replace(event, state_hash=SALTED)
    return encode_event(event)


@dataclass
class Game:
    """One of the twins: its full state and what each blind viewer received."""

    created: ev.GameCreated
    dice: object
    frames: dict = field(default_factory=dict)  # viewer -> [bytes]
    log: list = field(default_factory=list)  # the true events, up to the reveal

    def __post_init__(self):
        self.state = initial_state(self.created)
        self.revealed = False
        self.ended = False

    def take(self, events, blind, reveal) -> None:
        """Show ``events`` to the blind viewers, up to the first that reveals the fact."""
        for e in events:
            if self.revealed or self.ended:
                return
            if reveal(self.state, e):
                self.revealed = True
                return
            self.log.append(e)
            shown = views(self.state, e) if not isinstance(e, ev.GameCreated) else {v: view(self.state, e, v) for v in blind}
            for v in blind:
                seen = e if shown is None else shown[v]
                if seen is not None:
                    self.frames.setdefault(v, []).append(frame(self.state, seen, v))
            if not isinstance(e, ev.GameCreated):
                evolve(self.state, e)
            if isinstance(e, ev.GameEnded):
                self.ended = True

    def show_pending(self, blind) -> None:
        for v in blind:
            self.frames.setdefault(v, []).append(b"pending " + _JSON.encode(pending(self.state, v)))


@dataclass
class Twins:
    """What ``play_twins`` found: ``leak`` is None or (viewer, frame index, frame of game 1, frame
    of game 2) at the first difference; ``compared``: frames compared per viewer."""

    games: tuple
    leak: tuple | None = None
    compared: dict = field(default_factory=dict)
    revealed: bool = False
    ended: bool = False
    commands: int = 0


def pick(games, chooser: str, r: int):
    """The option each game plays: the pending decision as ``chooser`` sees it (in game 1: while
    the frames are identical, as in game 2) gives the option ``r`` picks; each game plays its
    first true option that ``chooser`` sees as that one (or, when the decision is withheld from
    ``chooser`` or no option matches, the option at the same index)."""
    shown = pending(games[0].state, chooser)
    out = []
    for g in games:
        p = g.state.pending
        want = shown.options[r % len(shown.options)] if shown is not None else None
        match = [o for o in p.options if want is not None
                 and view(g.state, ev.OptionChosen(decision_id=p.id, side=p.side, option=o), chooser).option == want]
        out.append(Choose(p.id, match[(r >> 16) % len(match)] if match else p.options[r % len(p.options)], p.side))
    return out


def play_twins(created1: ev.GameCreated, created2: ev.GameCreated, reveal, *, blind=("a", "spectator"),
               seed: int = 0, dice=None, limit: int = 4000) -> Twins:
    """Play the twins in lockstep (see the module's text) and compare what each viewer of
    ``blind`` receives; ``dice``: a pair of dice (default ``LocalDice(seed)`` each)."""
    dice = dice or (LocalDice(seed), LocalDice(seed))
    games = (Game(created1, dice[0]), Game(created2, dice[1]))
    out = Twins(games)
    rng = random.Random(seed)
    for g in games:
        g.take([g.created], blind, reveal)
    commands = [Start(), Start()]
    for _ in range(limit):
        for g, cmd in zip(games, commands):
            if not (g.revealed or g.ended):
                g.take(decide(g.state, cmd, g.dice), blind, reveal)
                if not (g.revealed or g.ended):
                    g.show_pending(blind)
        out.leak = _first_difference(games, blind, out.compared)
        if out.leak or any(g.revealed or g.ended for g in games):
            break
        out.commands += 1
        commands = pick(games, blind[0], rng.getrandbits(32))
    out.revealed = any(g.revealed for g in games)
    out.ended = any(g.ended for g in games)
    return out


def _first_difference(games, blind, compared: dict):
    for v in blind:
        one, two = games[0].frames.get(v, []), games[1].frames.get(v, [])
        n = min(len(one), len(two))
        for i in range(compared.get(v, 0), n):
            if one[i] != two[i]:
                return (v, i, one[i], two[i])
        compared[v] = n
        done = games[0].revealed or games[1].revealed or games[0].ended or games[1].ended
        if len(one) != len(two) and not done:
            i = n
            return (v, i, one[i] if i < len(one) else None, two[i] if i < len(two) else None)
    return None
