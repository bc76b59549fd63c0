"""The dice challenge and its Defender's Prerogative loop (seed 002, "Defender's Prerogative").

A ``ChallengeFrame`` on the stack runs ``roll`` -> ``turn`` ... -> ``assess``:

- ``roll``: both pools are rolled (a threshold challenge has only the attacker's);
- ``turn``: the side ``to_decide`` chooses: ``("accept",)``, ``("fate", 1)`` (spend one fate:
  re-roll its failed dice) or ``("card", name)`` (play a tactic card). The defender decides
  first ("the defender is given a special opportunity to accept the results right there"):
  accepting then ends the challenge (decision kind ``prerogative``). Spending fate or playing a
  card cedes the prerogative, and "the attacker is given a chance to respond"; from then on the
  sides answer each other (kind ``respond``) "until both sides accept the results". A threshold
  challenge has no defender: its side re-rolls or plays cards until it accepts (kind
  ``threshold``). Every answer is a decision of its own with the server's clock; a time-out
  accepts.
- ``assess``: "the damage assessment phase begins and any bonus damage if applicable is applied
  if a hit/wound has been scored"; then ``ChallengeResolved`` is the results dialogue.
"""

from __future__ import annotations

import msgspec

from skirmish.engine import board as geo
from skirmish.engine.events import InjurySuffered, ProcedureEnded, ProcedureStarted, ProcedureUpdated
from skirmish.engine.model import Option, State, Unit, other
from skirmish.engine.rules import registry
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.challenges import dice
from skirmish.engine.rules.challenges.cards import playable
from skirmish.engine.rules.challenges.events import (CardCreated, CardPlayed, ChallengeResolved, FacilityDamaged,
                                                     FacilityDestroyed, FateChanged, StealthChanged)
from skirmish.engine.rules.challenges.frames import ChallengeFrame

KINDS = ("prerogative", "respond", "threshold")  # the decision kinds of the loop
FATE_COST = 1  # fate spent per re-roll of a side's failed dice (house rule)
HERO_WOUND_POINTS = 2  # RULES-BRIEF "Conditions": lethal, then dead
BOGEY_WOUND_POINTS = 1  # house rule: seed 001's NPCs are out at their first Injury


def update(ctx: Context, f: ChallengeFrame, **changes) -> ChallengeFrame:
    new = msgspec.structs.replace(f, **changes)
    ctx.emit(ProcedureUpdated(frame=new))
    return new


def start(ctx: Context, frame: ChallengeFrame) -> None:
    ctx.emit(ProcedureStarted(frame=frame))


# -- pools ---------------------------------------------------------------------------------------


def bodyguard(state: State, target: Unit) -> int:
    """"plus any bonus modifiers like the Bodyguard special ability": the best Bodyguard level of
    the target or an ally able to fight within Reach of it (adapted: "the same hex")."""
    best = 0
    for u in state.units.values():
        if u.side == target.side and not u.incapacitated and \
                geo.distance(u.x, u.y, target.x, target.y) <= state.board.reach:
            best = max(best, u.abilities.get("bodyguard", 0))
    return best


def pool_sizes(state: State, f: ChallengeFrame) -> tuple[int, int]:
    attacker = state.units[f.attacker]
    if f.op == "assassinate":
        # "The assassin's dice pool strength is equal to his 'Assassin' special ability level";
        # "The defender's dice pool is equal to the defending hero's fate plus any bonus modifiers"
        target = state.units[f.target]
        return attacker.abilities.get("assassin", 0), target.fate + bodyguard(state, target)
    if f.op == "sabotage":
        # "equal to his 'Saboteur' special ability level"; "the defending facility's defense
        # attribute plus any bonus modifiers" (the bonus: +X dice cards)
        return attacker.abilities.get("saboteur", 0), state.facilities[f.target].defence
    if f.op == "capture_kill":
        target = state.units[f.target]
        return attacker.abilities.get("detection", 0), target.fate
    return attacker.abilities.get(f.target, 0), 0  # create: the ability's level vs the threshold


def side_unit(f: ChallengeFrame, side: str) -> str:
    """The unit whose fate a side spends in this challenge ("" for a facility)."""
    if side == f.aside:
        return f.attacker
    return "" if f.op == "sabotage" else f.target


# -- the loop ------------------------------------------------------------------------------------


def step(ctx: Context, f: ChallengeFrame) -> None:
    if f.step == "roll":
        _roll(ctx, f)
    elif f.step == "turn":
        side = f.to_decide
        kind = "threshold" if not f.dside else ("prerogative" if side == f.dside and f.prerogative else "respond")
        ctx.ask(side, kind, options(ctx.state, f, side), unit=side_unit(f, side))
    else:
        assess(ctx, f)


def _roll(ctx: Context, f: ChallengeFrame) -> None:
    a_n, d_n = pool_sizes(ctx.state, f)
    purpose = f"challenge:{f.op}"
    apool, dpool, anonce, dnonce = (), (), -1, -1
    if a_n > 0:
        anonce = ctx.state.next_nonce
        apool = ctx.roll(dice.SIDES, a_n, purpose, unit=f.attacker, target=f.threshold)
    if f.dside and d_n > 0:
        dnonce = ctx.state.next_nonce
        dpool = ctx.roll(dice.SIDES, d_n, purpose, unit=f.target)
    update(ctx, f, step="turn", apool=apool, dpool=dpool, anonce=anonce, dnonce=dnonce,
           to_decide=f.dside or f.aside)


def options(state: State, f: ChallengeFrame, side: str) -> list[Option]:
    """accept, then fate (with enough fate and a failed die to re-roll), then Command Token
    re-rolls (``token_options``), then each card held."""
    opts: list[Option] = [("accept",)]
    fate, pool = (f.afate, f.apool) if side == f.aside else (f.dfate, f.dpool)
    if fate >= FATE_COST and dice.failed(pool):
        opts.append(("fate", FATE_COST))
    opts += token_options(state, f, side)
    opts += [("card", c) for c in playable(state.hands.get(side, []))]
    return opts


def token_options(state: State, f: ChallengeFrame, side: str) -> list[Option]:
    """seed 004 "Command Tokens" with the morale module on: "Re-roll one of yours or your
    opponent's dice rolls, which is not damage." A side with a token to spend (the registry's
    ``can_reroll``) may re-roll a pool, all its dice as one roll: ``("token", pool_side)``, its own
    pool while it holds a failed die, the opponent's while it holds a success. Like fate or a
    card it cedes the Defender's Prerogative (issue 12)."""
    if not state.modules or not registry.offers(state, "can_reroll", side):
        return []
    opts: list[Option] = []
    own = f.apool if side == f.aside else f.dpool
    if dice.failed(own):
        opts.append(("token", side))
    if f.dside:
        theirs = f.dpool if side == f.aside else f.apool
        if dice.succeeded(theirs):
            opts.append(("token", other(side)))
    return opts


def answer(ctx: Context, option: Option) -> None:
    f: ChallengeFrame = ctx.state.stack[-1]
    side = f.to_decide
    if option[0] == "accept":
        if f.dside and side == f.dside and f.prerogative:
            update(ctx, f, step="assess", accepted=(side,))  # Defender's Prerogative taken
            return
        accepted = f.accepted + (side,)
        if {f.aside, f.dside} - {""} <= set(accepted):
            update(ctx, f, step="assess", accepted=accepted)
        else:
            update(ctx, f, accepted=accepted, to_decide=other(side))
        return
    if option[0] == "fate":
        f = _spend_fate(ctx, f, side)
    elif option[0] == "token":
        f = _spend_token(ctx, f, side, str(option[1]))
    else:
        f = _play_card(ctx, f, side, str(option[1]))
    # "he cedes his Defender's Prerogative and the attacker is given a chance to respond"
    update(ctx, f, accepted=(), prerogative=f.prerogative and side != f.dside,
           to_decide=other(side) if f.dside else side)


def _own(f: ChallengeFrame, side: str) -> tuple[tuple[int, ...], int]:
    return (f.apool, f.afate) if side == f.aside else (f.dpool, f.dfate)


def _with(f: ChallengeFrame, side: str, pool=None, fate=None, nonce=None) -> ChallengeFrame:
    if side == f.aside:
        return msgspec.structs.replace(f, apool=f.apool if pool is None else pool,
                                       afate=f.afate if fate is None else fate,
                                       anonce=f.anonce if nonce is None else nonce)
    return msgspec.structs.replace(f, dpool=f.dpool if pool is None else pool,
                                   dfate=f.dfate if fate is None else fate,
                                   dnonce=f.dnonce if nonce is None else nonce)


def _nonce(f: ChallengeFrame, side: str) -> int:
    return f.anonce if side == f.aside else f.dnonce


def _spend_fate(ctx: Context, f: ChallengeFrame, side: str) -> ChallengeFrame:
    """"use his Fate pool to re-roll die": one fate re-rolls every failed die of the side's pool.
    Fate from a card or an Intel Center is spent first; then the hero's own, for good."""
    pool, fate = _own(f, side)
    uid = side_unit(f, side)
    own = ctx.state.units[uid].fate if uid else 0
    if fate - FATE_COST < own:
        ctx.emit(FateChanged(unit=uid, delta=-(own - (fate - FATE_COST)), reason="re-roll"))
    idx = dice.failed(pool)
    nonce = ctx.state.next_nonce
    faces = ctx.roll(dice.SIDES, len(idx), "challenge:fate", unit=uid or f.target, replaces=_nonce(f, side))
    return _with(f, side, pool=dice.replace_at(pool, idx, faces), fate=fate - FATE_COST, nonce=nonce)


def _spend_token(ctx: Context, f: ChallengeFrame, side: str, whose: str) -> ChallengeFrame:
    """A Command Token re-rolls ``whose`` pool, every die of it as one roll (seed 004: "Rolling
    several dice at once ... is classed as one roll")."""
    ctx.rules.call(ctx, "pay_reroll", side, f"re-roll challenge:{f.op}")
    pool, _ = _own(f, whose)
    nonce = ctx.state.next_nonce
    faces = ctx.roll(dice.SIDES, len(pool), "challenge:token", unit=side_unit(f, whose) or f.target,
                     replaces=_nonce(f, whose))
    return _with(f, whose, pool=faces, nonce=nonce)


def _play_card(ctx: Context, f: ChallengeFrame, side: str, name: str) -> ChallengeFrame:
    card = ctx.state.challenges.cards[name]
    ctx.emit(CardPlayed(side=side, card=name, unit=side_unit(f, side)))
    pool, fate = _own(f, side)
    who = side_unit(f, side) or f.target
    if card.effect == "dice":  # "+X dice"
        if card.value <= 0:
            return f
        nonce = ctx.state.next_nonce
        extra = ctx.roll(dice.SIDES, card.value, "challenge:card", unit=who)
        return _with(f, side, pool=pool + extra, nonce=nonce)
    if card.effect == "convert":  # "turn failures into successes"
        idx = dice.failed(pool)[: card.value]
        return _with(f, side, pool=dice.replace_at(pool, idx, (6,) * len(idx)))
    if card.effect == "fate":  # "+X fate"
        return _with(f, side, fate=fate + card.value)
    # "reroll": re-roll the opponent's successes
    opp = other(side)
    opool, _ = _own(f, opp) if f.dside else ((), 0)
    idx = dice.succeeded(opool)
    if not idx:
        return f
    nonce = ctx.state.next_nonce
    faces = ctx.roll(dice.SIDES, len(idx), "challenge:card", unit=side_unit(f, opp) or f.target,
                     replaces=_nonce(f, opp))
    return _with(f, opp, pool=dice.replace_at(opool, idx, faces), nonce=nonce)


# -- damage assessment ---------------------------------------------------------------------------


def wound_points(unit: Unit) -> int:
    return HERO_WOUND_POINTS if unit.kind == "hero" else BOGEY_WOUND_POINTS


def wound(ctx: Context, uid: str, wounds: int, slayer: bool = False) -> None:
    """seed 002's wounds are lethal Injuries, one at a time (RULES-BRIEF "Conditions"): a hero's
    first leaves it lethally injured, the one that reaches its wound points kills it ("the hero
    is killed and permanently discarded"); "Slayer ... kill a target hero if a single wound is
    inflicted"."""
    for _ in range(wounds):
        u = ctx.state.units[uid]
        if u.dead:
            return
        taken = 1 if u.injury == "lethal" else 0
        dead = slayer or taken + 1 >= wound_points(u)
        result = "dead" if dead else "lethal"
        if not ctx.rules.first("on_injury", ctx, u, True, result):  # another module may take it (the on_injury hook)
            ctx.emit(InjurySuffered(unit=uid, lethal=True, result=result))


def assess(ctx: Context, f: ChallengeFrame) -> None:
    s = ctx.state
    a, d = dice.successes(f.apool), dice.successes(f.dpool)
    attacker = s.units[f.attacker]
    bonus = attacker.abilities.get("bonus_damage", 0)
    if f.op == "create":
        made = dice.threshold_met(f.apool, f.threshold)  # "EQUALS or exceeds the threshold"
        card = s.challenges.creates[f.target].card
        ctx.emit(ChallengeResolved(op=f.op, attacker=f.attacker, target=f.target, attacker_successes=a,
                                   defender_successes=f.threshold, result="created" if made else "failed",
                                   amount=1 if made else 0))
        if made:
            ctx.emit(CardCreated(side=f.aside, card=card, unit=f.attacker))
        ctx.emit(ProcedureEnded())
        return
    margin = dice.opposed(f.apool, f.dpool)
    if margin > 0:
        amount = margin + bonus
        result = "damage" if f.op == "sabotage" else "wounds"
        ctx.emit(ChallengeResolved(op=f.op, attacker=f.attacker, target=f.target, attacker_successes=a,
                                   defender_successes=d, result=result, amount=amount))
        if f.op == "sabotage":
            fac = s.facilities[f.target]
            ctx.emit(FacilityDamaged(facility=fac.id, amount=amount))
            if fac.damage >= fac.structure:  # "destroyed and permanently discarded"
                ctx.emit(FacilityDestroyed(facility=fac.id))
        else:
            wound(ctx, f.target, amount, slayer=f.op == "assassinate" and attacker.abilities.get("slayer", 0) > 0)
    elif f.duel and margin < 0:
        # assassin vs assassin, saboteur vs Intel Center: "should the defender's total successes
        # exceed those of the attacker, the difference is applied as wounds to the attacker"
        ctx.emit(ChallengeResolved(op=f.op, attacker=f.attacker, target=f.target, attacker_successes=a,
                                   defender_successes=d, result="duel", amount=-margin))
        wound(ctx, f.attacker, -margin)
    else:
        ctx.emit(ChallengeResolved(op=f.op, attacker=f.attacker, target=f.target, attacker_successes=a,
                                   defender_successes=d, result="none"))
    ctx.emit(ProcedureEnded())
    if f.op in ("assassinate", "sabotage"):
        detect(ctx, f.attacker)


# -- detection -----------------------------------------------------------------------------------


DETECT = "challenges:detection"


def detect(ctx: Context, uid: str) -> None:
    """House rule for seed 002's "detection and possible capture or termination": after a special
    operation, the enemy unit with the best Detection within Medium range of the operative rolls
    that many dice against 1 (+ the operative's Stealth level while it is stealthed). Detected,
    the operative loses its stealth; a hero ("an army with only a hero (non combat capable)")
    then faces the Capture Kill Challenge, a unit ("faces combat rather than") only its stealth."""
    s = ctx.state
    op = s.units[uid]
    if op.incapacitated:
        return
    spotters = [u for u in s.units.values()
                if u.side != op.side and not u.incapacitated and u.abilities.get("detection", 0) > 0
                and geo.distance(u.x, u.y, op.x, op.y) <= s.board.medium]
    if not spotters:
        return
    spotter = max(spotters, key=lambda u: (u.abilities["detection"], u.id))
    need = 1 + (op.abilities.get("stealth", 0) if op.stealthed else 0)
    roll = ctx.roll(dice.SIDES, spotter.abilities["detection"], DETECT, unit=spotter.id, target=need)
    if dice.successes(roll) < need:
        return
    if op.stealthed:
        ctx.emit(StealthChanged(unit=uid, stealthed=False, reason="detected"))
    if op.kind == "hero":
        start(ctx, ChallengeFrame(op="capture_kill", attacker=spotter.id, target=uid, aside=spotter.side,
                                  dside=op.side, afate=spotter.fate, dfate=op.fate))
