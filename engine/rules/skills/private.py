"""The Lieutenant as Private Information (seed 003, Lieutenant L1: "Obligatory, Private
Information"; issue 15; docs/rules.md, seed 003, "Private Information").

A mission file is public, so it cannot fix a secret Lieutenant: with ``[skills]
lieutenant_candidates = { a = [...], b = [...] }`` it names each side's candidates (public, in
``GameCreated``) and no profile carries ``lieutenant`` (``command_mission``). Then:

- **Choice**: at the game's start, before deployment, each side (a, then b) answers a
  ``lieutenant`` decision, options ``("lieutenant", unit)`` for its candidates; the answer is
  ``LieutenantChosen``. The other side and spectators see the decision with the one option
  ``("lieutenant", Hidden("unit"))``, its ``OptionChosen`` likewise (its ``timeout`` flag false:
  a time-out answers the first candidate, so the flag would name it) and ``LieutenantChosen``
  with a ``Hidden("unit")``: that a choice was asked and made, never which. (What stays public is
  the clock: a side that lets it run out gets its first candidate.)
- **The commander is not the Lieutenant**: the core's ``Unit.commander`` (Direct, the Team Command
  Value, the lost-commander penalty) stays the mission's public unit; the Lieutenant is this
  module's private role (``command.lieutenant``). A side may choose its commander as Lieutenant,
  which nothing public tells.
- **Reveals** (``LieutenantRevealed``, public; the Lieutenant is public from then on): using the
  Special Lieutenant Order (``command.on_idle`` gives it as soon as the Lieutenant has acted in a
  round: the reveal comes just before it, ``why`` "order"); choosing a Lieutenant with Inspiring
  Leadership (its gifts, every unit's Training and V: Courage, are public effects: "inspiring
  leadership"); Loss of Lieutenant (every unit Irregular is a public effect: "lost", as soon as
  the Lieutenant is in a Null state or off the table from round 1).
- **Nomination after a loss**: in the next round (the next Tactical Phase), between activations,
  the side nominates a new Lieutenant the same way among its candidates on the table in a
  non-Null state; until then (and for good if none is left) Loss of Lieutenant applies.

``secrets`` declares who an unrevealed Lieutenant is for the other side and spectators;
``sample`` (``skirmish.bots.determinize``) draws it for a search among the candidates its view
allows, never from the truth.
"""

from __future__ import annotations

import random

import msgspec
from skirmish.engine.base import Hidden
from skirmish.engine.events import DecisionRequested, OptionChosen
from skirmish.engine.model import SIDES, Option, State
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.registry import Secret
from skirmish.engine.rules.skills import command
from skirmish.engine.rules.skills.events import LieutenantChosen, LieutenantRevealed

KIND = "lieutenant"
UNIT = Hidden("unit")
HIDDEN_OPTION = (KIND, UNIT)


def _i(side: str) -> int:
    return SIDES.index(side)


def choosable(state: State, side: str) -> list[str]:
    """The candidates ``side`` may choose now: every one before round 1, then those on the table
    in a non-Null state."""
    ids = state.lt_candidates.get(side, ())
    if state.round == 0:
        return list(ids)
    return [u for u in ids if u in state.units and command.on_battlefield(state.units[u])]


def on_idle(ctx: Context) -> bool:
    """Ask a side's choice or nomination, or reveal a Lieutenant; True if it did anything."""
    s = ctx.state
    if not s.lt_candidates or s.outcome is not None:
        return False
    if s.round == 0:
        side = next((x for x in SIDES if x not in s.lieutenants), None)
        if side is not None:
            ctx.ask(side, KIND, [(KIND, u) for u in choosable(s, side)])
        return side is not None
    for side in SIDES:
        lt = command.lieutenant(s, side)
        if lt is not None and not command.on_battlefield(lt) and not s.lt_lost[_i(side)]:
            ctx.emit(LieutenantRevealed(side=side, unit=lt.id, why="lost"))
            return True
    if s.phase != "activation" or s.turn is not None or s.stack:
        return False
    for side in SIDES:
        lost = s.lt_lost[_i(side)]
        options = [(KIND, u) for u in choosable(s, side)]
        if lost and s.round > lost and options:
            ctx.ask(side, KIND, options)
            return True
    for side in SIDES:  # in command.on_idle's order: the first Lieutenant Order due is given next
        lt = command.lieutenant(s, side)
        if command._order_due(s, lt):
            if side not in s.lt_revealed:
                ctx.emit(LieutenantRevealed(side=side, unit=lt.id, why="order"))
                return True
            break
    return False


def answer(ctx: Context, option: Option) -> None:
    side = ctx.events[-1].side  # the OptionChosen just emitted
    uid = option[1]
    ctx.emit(LieutenantChosen(side=side, unit=uid))
    if command.LEADERSHIP in ctx.state.units[uid].skills:
        ctx.emit(LieutenantRevealed(side=side, unit=uid, why="inspiring leadership"))


# -- what the other side and spectators see ----------------------------------------------------------------------


def decision_requested(state, e: DecisionRequested, viewer: str):
    d = e.decision
    if d.kind != KIND or d.side == viewer:
        return e
    return msgspec.structs.replace(e, decision=msgspec.structs.replace(d, options=(HIDDEN_OPTION,)))


def option_chosen(state, e: OptionChosen, viewer: str):
    p = state.pending
    if p is None or p.kind != KIND or e.side == viewer:
        return e
    # a time-out answers the first candidate (the default): the flag would name it
    return msgspec.structs.replace(e, option=HIDDEN_OPTION, timeout=False)


def lieutenant_chosen(state, e: LieutenantChosen, viewer: str):
    return e if e.side == viewer else msgspec.structs.replace(e, unit=UNIT)


REDACTIONS = {DecisionRequested: decision_requested, OptionChosen: option_chosen, LieutenantChosen: lieutenant_chosen}


def secrets(state, viewer: str):
    """Who each side's Lieutenant is, for the other side and spectators, until revealed."""
    for side in SIDES:
        if side != viewer and side in state.lieutenants and side not in state.lt_revealed:
            yield Secret(f"side {side}'s Lieutenant", ("lieutenants", side))


# -- the bots' determinization ----------------------------------------------------------------------------------


def possible(state: State, side: str) -> list[str]:
    """The candidates ``side``'s hidden Lieutenant may be, as a view shows the game: chosen before
    round 1, or on the table in a non-Null state (a lost one is revealed); without Inspiring
    Leadership (revealed when chosen); not one that has acted this round and is not acting now
    (its Lieutenant Order, which reveals it, would have come)."""
    ids = choosable(state, side)
    if state.round == 0 or not ids:
        return ids or list(state.lt_candidates.get(side, ()))
    acting = state.turn.unit if state.turn is not None else ""
    # the Order comes between activations only: after the round's activations it may not have come
    ordered = state.lt_order_round[_i(side)] == state.round or state.phase != "activation"
    keep = [u for u in ids if command.LEADERSHIP not in state.units[u].skills
            and (ordered or not state.units[u].acted or u == acting)]
    return keep or ids


def sample(state: State, side: str, rng: random.Random) -> None:
    """Fill in each hidden Lieutenant of the other side in ``state`` (a view's copy)."""
    if not state.lt_candidates:
        return
    for owner in SIDES:
        if owner != side and isinstance(state.lieutenants.get(owner), Hidden):
            state.lieutenants[owner] = rng.choice(possible(state, owner))
