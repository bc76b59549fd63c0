"""Attacks and damage: seed 001 "Attacks and Damage", steps 1 to 7.

The declaration (steps 1-3: weapon, viable target, lethal or not) is one option of a Task
decision. The attack then runs as a ``TaskFrame`` (``skirmish.engine.rules.core.tasks``): ``buy`` ->
``roll`` (step 4; melee is Opposed, so the defender rolls too) -> ``aim`` -> ``resolve``, then:

``bystander``  a failed ranged attack with a Complication and creatures near the target: the
               opponent may have a bystander struck instead of taking Threat
``outcome``    melee only: the winner inflicts damage or fends off (the seed's last paragraph)
``damage``     steps 5-7: Challenge Dice, Resistance (+ cover dice), Stress, Injury conditions
``injury``     each Injury in turn; the victim's side decides whether to Avoid it
"""

from __future__ import annotations

from skirmish.engine import board as geo
from skirmish.engine.events import (AdvantageUsed, InjuryAvoided, InjurySuffered, PoolChanged, ProcedureEnded,
                           ProcedureStarted, StressLost, UnitMoved)
from skirmish.engine.model import UNARMED, Option, State, TaskFrame, Unit, Weapon, other
from skirmish.engine.rules import registry
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.core import tasks
from skirmish.engine.versions import V0_2
from skirmish.engine.rules.core.tasks import Spec, TaskResult, challenge_total, gain_momentum, suffer_complications, update

NORMAL_HIT = registry.Hit()  # the core's damage: one roll against the whole Resistance
COVER_DICE = 2  # house rule: a unit in a cover cell rolls 2 Resistance (Challenge) Dice
RANGE_DIFFICULTY = {"reach": 0, "close": 0, "medium": 0, "long": 1, "extreme": 2}  # adapted from STA


def weapon_of(unit: Unit, index: int) -> Weapon:
    return unit.weapons[index] if 0 <= index < len(unit.weapons) else UNARMED


def melee_weapon(unit: Unit) -> int:
    """The weapon a unit strikes back with when it wins a melee it did not start (house rule:
    its best drawn melee weapon, else an Unarmed Strike)."""
    best, best_dmg = -1, UNARMED.damage
    for i, w in enumerate(unit.weapons):
        if w.kind == "melee" and w.damage > best_dmg and i not in unit.stowed:
            best, best_dmg = i, w.damage
    return best


def enemy_in_reach(state: State, unit: Unit) -> bool:
    """4B's "an enemy within Reach of the attacker": one able to fight, that no module says is no
    threat (``can_threaten``: seed 000's captive is helpless, a house rule of issue 12)."""
    reach = state.board.reach
    rules = registry.rules_of(state)
    return any(
        e.side != unit.side and not e.incapacitated and geo.distance(unit.x, unit.y, e.x, e.y) <= reach
        and rules.allows(state, "can_threaten", e)
        for e in state.units.values()
    )


def viable(state: State, unit: Unit, weapon: Weapon, target: Unit) -> bool:
    """step 2: melee only within Reach; ranged at enemies visible to the attacker."""
    if weapon.kind == "melee":
        return geo.distance(unit.x, unit.y, target.x, target.y) <= state.board.reach
    return geo.line_of_fire(state.board, unit.x, unit.y, target.x, target.y)


def attack_options(state: State, unit: Unit, only: Unit | None = None, verb: str = "attack") -> list[Option]:
    """(verb, target, weapon, lethal) for every drawn weapon and viable target (steps 1-3)."""
    weapons = [(i, w) for i, w in enumerate(unit.weapons) if i not in unit.stowed]
    if not any(w.kind == "melee" for _, w in weapons):
        weapons.append((-1, UNARMED))  # step 1: "attacking with no weapon (an Unarmed Strike)"
    lethal_choices = lethal_options(state, unit)
    opts: list[Option] = []
    targets = [only] if only is not None else state.units.values()
    vetoes = registry.rules_of(state).hooks["can_target"] if state.modules else ()
    for target in targets:
        if target.side == unit.side or target.dead:
            continue
        if vetoes and not all(can(state, unit, target) for can in vetoes):
            continue
        for index, w in weapons:
            if viable(state, unit, w, target):
                opts.extend((verb, target.id, index, lethal) for lethal in lethal_choices)
    return opts


def lethal_options(state: State, unit: Unit) -> tuple[int, ...]:
    """0 (Non-lethal) and, if ``unit`` may make it, 1 (Lethal): seed 001 "Lethal Attacks": an NPC
    must spend one Threat to make a Lethal attack."""
    return (0, 1) if unit.kind == "hero" or state.threat[unit.side] >= 1 else (0,)


def pay_for_lethal(ctx: Context, attacker: Unit) -> None:
    """step 3 / "Lethal Attacks": a hero adds one Threat (to the opponent's pool, since the
    opponent plays the GM); an NPC spends one Threat of its own side."""
    if attacker.kind == "hero":
        ctx.emit(PoolChanged(side=other(attacker.side), pool="threat", delta=1, reason="lethal attack"))
    else:
        ctx.emit(PoolChanged(side=attacker.side, pool="threat", delta=-1, reason="lethal attack"))


def declare(ctx: Context, attacker: Unit, target_id: str, weapon: int, lethal: bool) -> None:
    if lethal:
        pay_for_lethal(ctx, attacker)
    ctx.emit(ProcedureStarted(frame=TaskFrame(unit=attacker.id, task="attack", target=target_id,
                                              weapon=weapon, lethal=lethal)))
    ctx.rules.call(ctx, "on_attack_declared", ctx.state.stack[-1])  # e.g. the target's reaction (skills)


# -- step 4: the Task ----------------------------------------------------------------------------


def spec(state: State, f: TaskFrame) -> Spec:
    attacker, target = state.units[f.unit], state.units[f.target]
    weapon = weapon_of(attacker, f.weapon)
    guard = 1 if target.guarding else 0  # Guard: "additional readiness for an attack"
    advantage = 1 if target.exposed else 0  # Create Advantage against the target
    guard += registry.bonus(state, "attack_difficulty", attacker, target)  # modules' modifiers
    guard += registry.bonus(state, "weapon_difficulty", f)  # those that need the weapon
    if weapon.kind == "melee":
        # 4A: Daring + Security, Difficulty 1
        return Spec("daring", "security", 1 + guard - advantage, weapon.name)
    # 4B: Control + Security, Difficulty 2, +1 with an enemy in the attacker's Reach,
    # Complication Range +1 with creatures within the target's Reach.
    band = geo.range_band(state.board, attacker.x, attacker.y, target.x, target.y)
    prone = 1 if target.prone and band not in ("reach", "close") else 0  # "a smaller target"
    difficulty = 2 + (1 if enemy_in_reach(state, attacker) else 0) + RANGE_DIFFICULTY[band] + prone + guard - advantage
    crowded = bool(bystanders(state, f))
    return Spec("control", "security", difficulty, weapon.name, 2 if crowded else 1)


def bystanders(state: State, f: TaskFrame) -> list[Unit]:
    target = state.units[f.target]
    return [u for u in state.units.values()
            if u.id not in (f.target, f.unit) and not u.dead
            and geo.distance(u.x, u.y, target.x, target.y) <= state.board.reach]


def defence(state: State, f: TaskFrame):
    """4A: the target's Daring + Security, Difficulty 1 (melee only)."""
    if weapon_of(state.units[f.unit], f.weapon).kind != "melee":
        return None, None
    return state.units[f.target], Spec("daring", "security", 1, "")


def resolve(ctx: Context, f: TaskFrame, r: TaskResult) -> None:
    s = ctx.state
    attacker, target = s.units[f.unit], s.units[f.target]
    if target.exposed:
        ctx.emit(AdvantageUsed(unit=target.id))
    if weapon_of(attacker, f.weapon).kind == "melee":
        _resolve_melee(ctx, f, r)
        return
    if r.passed:
        suffer_complications(ctx, attacker, r.complications, "ranged attack")
        gain_momentum(ctx, attacker.side, r.momentum, "ranged attack")
        update(ctx, f, step="damage", winner=attacker.id, victim=target.id)
    elif r.complications and bystanders(s, f):
        # 4B: "A Complication may indicate that one of the other, nearby creatures is struck."
        suffer_complications(ctx, attacker, r.complications - 1, "ranged attack")
        update(ctx, f, step="bystander")
    else:
        suffer_complications(ctx, attacker, r.complications, "ranged attack")
        ctx.emit(ProcedureEnded())


def _resolve_melee(ctx: Context, f: TaskFrame, a: TaskResult) -> None:
    s = ctx.state
    attacker, target = s.units[f.unit], s.units[f.target]
    suffer_complications(ctx, attacker, a.complications, "melee attack")
    t_passed, t_momentum = False, 0
    if f.opposed:
        t = tasks.count_successes(f.opposed, target.stats.daring + target.stats.security,
                                  target.stats.security, False, 1)
        suffer_complications(ctx, target, t.complications, "melee defence")
        t_passed, t_momentum = t.passed, t.momentum
    # Opposed Task: the one that passes with more Momentum wins; ties go to the attacker
    # (house rule: seed 001 names no tie-break). "If the target wins the Opposed Task, then they
    # are considered to have made a successful attack instead."
    if a.passed and (not t_passed or a.momentum >= t_momentum):
        gain_momentum(ctx, attacker.side, a.momentum, "melee attack")
        update(ctx, f, step="outcome", winner=attacker.id, victim=target.id)
    elif t_passed:
        gain_momentum(ctx, target.side, t_momentum, "melee defence")
        if registry.allows(s, "can_act", target):
            update(ctx, f, step="outcome", winner=target.id, victim=attacker.id)
        else:
            # seed 004: a unit whose pilot is Unconscious "cannot make any actions": it may defend
            # (the roll is not an action), but its win only fends the attack away; it neither
            # strikes back nor steps off (issue 12 #21).
            ctx.emit(ProcedureEnded())
    else:
        ctx.emit(ProcedureEnded())


def _bystander(ctx: Context, f: TaskFrame) -> None:
    s = ctx.state
    attacker = s.units[f.unit]
    opts: list[Option] = [("threat",)] + [("bystander", u.id) for u in bystanders(s, f)]
    ctx.ask(other(attacker.side), "bystander", opts, unit=f.target)


def answer_bystander(ctx: Context, option: Option) -> None:
    """The opponent (playing seed 001's GM) chooses: 2 Threat, or a bystander is struck."""
    f = ctx.state.stack[-1]
    attacker = ctx.state.units[f.unit]
    if option[0] == "threat":
        suffer_complications(ctx, attacker, 1, "ranged attack")
        ctx.emit(ProcedureEnded())
    else:
        update(ctx, f, step="damage", winner=attacker.id, victim=option[1])


# -- the melee winner's choice ---------------------------------------------------------------------


def fend_off_cells(state: State, winner: Unit, loser: Unit) -> list[tuple[int, int]]:
    """Cells one step away where the winner stands outside the loser's Reach; none for a unit
    that may not move (the registry's ``can_move``: seed 004's Fear Token)."""
    if not registry.allows(state, "can_move", winner):
        return []
    occupied = {(u.x, u.y) for u in state.units.values() if not u.dead}
    cells = registry.reachable(state, winner, 2, occupied)
    return sorted(
        (c for c in cells if geo.distance(winner.x, winner.y, *c) == 1
         and geo.distance(c[0], c[1], loser.x, loser.y) > state.board.reach),
        key=lambda c: (c[1], c[0]),
    )


def strike_options(state: State, f: TaskFrame) -> list[Option]:
    """How the melee's winner may inflict damage: ("damage",) for the attacker, whose declaration
    stands; for a target that won, its own declaration, ("damage", 0) Non-lethal and, if it may
    make one, ("damage", 1) Lethal, paid as any Lethal attack (seed 001 "Lethal Attacks"; the
    counter-blow is the winner's attack, so its side decides and pays: issue 12 #23)."""
    if f.winner == f.unit or state.rules_version < V0_2:  # 0.1.0: the attacker's declaration, always
        return [("damage",)]
    return [("damage", lethal) for lethal in lethal_options(state, state.units[f.winner])]


def _outcome(ctx: Context, f: TaskFrame) -> None:
    s = ctx.state
    winner, loser = s.units[f.winner], s.units[f.victim]
    opts: list[Option] = strike_options(s, f) + [("fend", x, y) for x, y in fend_off_cells(s, winner, loser)]
    if len(opts) == 1:
        _strike(ctx, f, opts[0])
    else:
        ctx.ask(winner.side, "melee_won", opts, unit=winner.id)


def _strike(ctx: Context, f: TaskFrame, option: Option) -> None:
    if len(option) == 1:
        update(ctx, f, step="damage")
        return
    lethal = bool(option[1])
    if lethal:
        pay_for_lethal(ctx, ctx.state.units[f.winner])
    update(ctx, f, step="damage", lethal=lethal)


def answer_melee_won(ctx: Context, option: Option) -> None:
    f = ctx.state.stack[-1]
    if option[0] == "fend":
        # "can immediately leave their enemy's Reach instead of inflicting damage"
        ctx.emit(ProcedureEnded())
        ctx.emit(UnitMoved(unit=f.winner, x=option[1], y=option[2]))
        ctx.rules.core.unit_moved(ctx, f.winner)
    else:
        _strike(ctx, f, option)


# -- steps 5-7 -------------------------------------------------------------------------------------


def _damage(ctx: Context, f: TaskFrame) -> None:
    s = ctx.state
    winner, victim = s.units[f.winner], s.units[f.victim]
    index = f.weapon if winner.id == f.unit else melee_weapon(winner)
    weapon = weapon_of(winner, index)
    hit = ctx.rules.first("hit_effects", ctx, f, winner, victim, weapon) or NORMAL_HIT  # modules' ammunition
    # step 5: damage rating + Security in Challenge Dice (RULES-BRIEF "Core", damage)
    dice = weapon.damage + winner.stats.security
    rolled, _ = challenge_total(ctx.roll(6, dice, "damage", unit=winner.id))
    # step 6: Resistance = static Resistance (+ Recover's) + Resistance Dice from cover
    resistance = victim.resistance + victim.recovered
    if geo.in_cover(s.board, victim.x, victim.y):
        cover, _ = challenge_total(ctx.roll(6, COVER_DICE, "cover", unit=victim.id))
        resistance += cover
    if hit.halve_resistance:
        resistance = (resistance + 1) // 2
    damage = last = max(0, rolled - resistance)
    for i in range(1, hit.rolls + hit.repeat):  # the module's further damage rolls (a Hit's)
        if i >= hit.rolls and last == 0:
            break
        more, _ = challenge_total(ctx.roll(6, dice, f"damage:{hit.why}", unit=winner.id))
        last = max(0, more - resistance)
        damage += last
    # step 7
    if damage == 0:
        ctx.emit(ProcedureEnded())
        ctx.rules.call(ctx, "on_hit", victim, 0)
        return
    before = victim.stress
    ctx.emit(StressLost(unit=victim.id, amount=damage))
    injuries = (damage >= 5) + (before > 0 and victim.stress == 0) + (before == 0)  # 7A, 7B, 7C
    if injuries:
        injuries += hit.extra_injuries
    if injuries:
        update(ctx, f, step="injury", injuries=injuries)
    else:
        ctx.emit(ProcedureEnded())
    ctx.rules.call(ctx, "on_hit", victim, damage)


def avoid_options(state: State, unit: Unit) -> list[Option]:
    """How ``unit`` may Avoid an Injury now (seed 001 step 7 and "Avoiding Injuries")."""
    if not unit.avoid_available or unit.dead:
        return []
    if unit.kind == "hero":
        opts: list[Option] = []
        if state.momentum[unit.side] >= 2:
            opts.append(("avoid", "momentum"))
        opts.append(("avoid", "complication"))
        return opts
    if unit.tier == "grunt":
        return []  # "Minor NPCs do not have this ability."
    # "Notable NPCs can spend two Threat to Avoid an Injury." Major NPCs (bosses) likewise.
    return [("avoid", "threat")] if state.threat[unit.side] >= 2 else []


def _injury(ctx: Context, f: TaskFrame) -> None:
    victim = ctx.state.units[f.victim]
    opts = avoid_options(ctx.state, victim)
    if opts:
        ctx.ask(victim.side, "avoid_injury", [("accept",)] + opts, unit=victim.id)
    else:
        _suffer(ctx, f)


def answer_avoid_injury(ctx: Context, option: Option) -> None:
    f = ctx.state.stack[-1]
    victim = ctx.state.units[f.victim]
    if option[0] == "accept":
        _suffer(ctx, f)
        return
    how = option[1]
    if how == "momentum":
        ctx.emit(PoolChanged(side=victim.side, pool="momentum", delta=-2, reason="avoid injury"))
    elif how == "threat":
        ctx.emit(PoolChanged(side=victim.side, pool="threat", delta=-2, reason="avoid injury"))
    ctx.emit(InjuryAvoided(unit=victim.id, by=how))
    if how == "complication":
        suffer_complications(ctx, victim, 1, "avoided an injury")
    _next_injury(ctx, f)


def injury_result(current: str, lethal: bool) -> str:
    """The condition after one more Injury (seed 001 step 7, last paragraph)."""
    if current == "lethal":
        return "dead"
    if current == "nonlethal":
        return "lethal"  # "a second Injury when already suffering from a Non-lethal Injury"
    return "lethal" if lethal else "nonlethal"


def _suffer(ctx: Context, f: TaskFrame) -> None:
    victim = ctx.state.units[f.victim]
    result = injury_result(victim.injury, f.lethal)
    if not ctx.rules.first("on_injury", ctx, victim, f.lethal, result):  # a module may take it (V: Dogged)
        ctx.emit(InjurySuffered(unit=victim.id, lethal=f.lethal, result=result))
    _next_injury(ctx, f)


def _next_injury(ctx: Context, f: TaskFrame) -> None:
    if f.injuries > 1 and not ctx.state.units[f.victim].dead:
        update(ctx, f, injuries=f.injuries - 1)
    else:
        ctx.emit(ProcedureEnded())


# The attack's own steps, after it is resolved (skirmish.engine.rules.core.procedure looks them up).
STEPS = {"bystander": _bystander, "outcome": _outcome, "damage": _damage, "injury": _injury}
