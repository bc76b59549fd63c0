"""Command Tokens (seed 004 "Command Tokens").

"At the beginning of a game, each team starts with a number of Command Tokens equal to their
TCV (Team Command Value). TCV is the Team Commander's Command value plus any other bonuses to
it like "Command Unit"." The uses: +1 Movement until the end of the turn, a re-roll of a
non-damage roll of either side (``skirmish.engine.rules.morale.rolls``), removing an action counter,
and ignoring a failed Courage Test (``skirmish.engine.rules.morale.courage``).
"""

from __future__ import annotations

from skirmish.engine.rules.morale.events import ActionCounterRemoved, CommanderLost, MoveBoosted, TokensChanged
from skirmish.engine.model import SIDES, Option, State, Unit
from skirmish.engine.rules import registry
from skirmish.engine.rules.context import Context
from skirmish.engine.versions import V0_2

COMMAND_UNIT_BONUS = 1  # house rule: a side with a "Command Unit" able to fight adds 1 to its TCV
COMMANDER_LOST_TOKENS = 2  # "two of the remaining Command Tokens are lost"


def commander(state: State, side: str) -> Unit | None:
    return next((u for u in state.units.values() if u.side == side and u.commander), None)


def cost(state: State, side: str) -> int:
    """"If the Team Commander in unconscious, it cost two Command Tokens to do the job of one.\""""
    c = commander(state, side)
    return 2 if c is not None and c.unconscious and not c.incapacitated else 1


def can_pay(state: State, side: str) -> bool:
    return state.tokens[side] >= cost(state, side)


def pay(ctx: Context, side: str, reason: str) -> None:
    ctx.emit(TokensChanged(side=side, delta=-cost(ctx.state, side), reason=reason))


def command_bonus(state: State, side: str) -> int:
    """TCV bonus: "plus any other bonuses to it like "Command Unit"" (one for the side, not per unit)."""
    has = any(u.side == side and u.command_unit and not u.incapacitated for u in state.units.values())
    return COMMAND_UNIT_BONUS if has else 0


def start(ctx: Context) -> None:
    """"each team starts with a number of Command Tokens equal to their TCV\""""
    for side in SIDES:
        tcv = ctx.rules.core.team_command_value(ctx.state, side)
        if tcv > 0:
            ctx.emit(TokensChanged(side=side, delta=tcv, reason="team command value"))


def check_commander(ctx: Context) -> None:
    """"If the unit the Team Commander becomes out of action, then two of the remaining Command
    Tokens are lost." Once per side; fewer if fewer remain."""
    s = ctx.state
    for side in SIDES:
        c = commander(s, side)
        if c is None or s.commander_lost[side] or not c.incapacitated:
            continue
        ctx.emit(CommanderLost(side=side))
        lost = min(COMMANDER_LOST_TOKENS, s.tokens[side])
        if lost:
            ctx.emit(TokensChanged(side=side, delta=-lost, reason="commander out of action"))


def turn_options(state: State, unit: Unit) -> list[Option]:
    """The token uses a unit's "act" decision offers: ("boost",) for +1 Movement while the unit
    has not moved, ("counter", ally) to remove an ally's action counter."""
    if not can_pay(state, unit.side):
        return []
    opts: list[Option] = []
    if ("move" not in state.turn.minors and state.turn.task != "sprint" and not unit.prone
            and (registry.allows(state, "can_move", unit) if state.rules_version >= V0_2 else not unit.fear)):  # not for a unit with Fear (it cannot move)
        opts.append(("boost",))
    for u in state.units.values():
        if u.side == unit.side and u.id != unit.id and u.acted and not u.incapacitated and not u.unconscious:
            opts.append(("counter", u.id))
    return opts


def act_boost(ctx: Context, unit: Unit, option: Option) -> None:
    """"Add one to Movement value of a unit until the end of the turn." (the Movement Minor
    Action's cells; the End Phase clears it)"""
    pay(ctx, unit.side, "movement")
    ctx.emit(MoveBoosted(unit=unit.id))


def act_counter(ctx: Context, unit: Unit, option: Option) -> None:
    """"Remove one action counter from a unit." The unit may be activated again this round."""
    pay(ctx, unit.side, "action counter")
    ctx.emit(ActionCounterRemoved(unit=option[1]))
