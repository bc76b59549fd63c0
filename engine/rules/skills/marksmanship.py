"""BS Attacks in a skills game: their MODs, the weapons' Burst, and Marksmanship L1, L2 and LX
(seed 003, "MARKSMANSHIP"; docs/rules.md, seed 003, "BS Attacks" and "Marksmanship").

*House rule* (issue 14 asks it decided): a unit's BS and CC Attacks stay the core's 2d20 Tasks
(seed 001 step 4); the d20 MODs the skills give map onto their Difficulty, each full 3 of the
MODs' sum one step the other way (-3: +1 Difficulty; +6: -2), since a d20 MOD of 3 moves a roll
by 15%, about what one step of Difficulty moves a 2d20 Task. So one attack has one roll, every
module that changes attacks (morale's Defence, capture's captives) still applies, and the
recorded games of the core stay as they were.

- **Cover**: a target in a cover cell gives a BS Attack the -3 MOD of Partial Cover (on top
  of the core's cover dice, which it keeps).
- **Burst** (B): in its side's Active Turn, a BS Attack rolls B-1 more d20, free (the Task still
  rolls at most ``tasks.DICE_MAX``); in a reaction (the core's Ready), B 1, as in an ARO.
- **Marksmanship L1**: the user's BS Weapons have Shock besides their ammunition, not those with
  the Throwing Weapon, Technical Weapon or Non-Lethal trait (a weapon's ``qualities``).
- **Marksmanship L2**: the user ignores Partial Cover's MOD (not the cover dice), and has L1's
  Shock (*house rule*: a numbered level includes the ones below it, as in *Infinity*; the seed
  says LX "does not include any other Levels", which the numbered levels therefore do).
- **Marksmanship LX**: in the user's own turn, with a BS Weapon of B 2 or more, the option
  ``("aimed_shot", target, weapon, lethal)``: B 1 and +6 BS. LX alone gives neither L1 nor L2.

An ``AttackModified`` event, after the attack's dice, names the MODs and what they did.
"""

from __future__ import annotations

from skirmish.engine import board as geo
from skirmish.engine.events import TaskAttempted
from skirmish.engine.model import Option, State, TaskFrame, Unit
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.core import attack
from skirmish.engine.rules.skills import ammunition, comms
from skirmish.engine.rules.skills.events import AimedShot, AttackModified

PARTIAL_COVER = -3
AIMED = 6  # Marksmanship LX's +6 BS
MOD_STEP = 3  # a full 3 of MODs is one step of Difficulty
LEVEL_1 = {"marksmanship 1", "marksmanship 2"}  # a level includes those below it (not LX: the seed says so of it)
NO_SHOCK = ("throwing weapon", "throwing", "technical weapon", "technical", "non-lethal")



def is_bs(weapon) -> bool:
    return weapon.kind == "ranged"


def _frame_parts(state: State, f: TaskFrame):
    attacker = state.units[f.unit]
    return attacker, state.units[f.target], attack.weapon_of(attacker, f.weapon)


def active(state: State, unit: Unit) -> bool:
    """``unit``'s side has the Active Turn (its own turn, or a Direct in it)."""
    return state.turn is not None and state.units[state.turn.unit].side == unit.side


def mods(state: State, f: TaskFrame) -> list[tuple[str, int]]:
    """The BS MODs of attack ``f`` (none for a CC Attack)."""
    attacker, target, weapon = _frame_parts(state, f)
    if not is_bs(weapon):
        return []
    out: list[tuple[str, int]] = []
    if state.board is not None and geo.in_cover(state.board, target.x, target.y):
        if "marksmanship 2" in attacker.skills:
            out.append(("Partial Cover ignored: Marksmanship L2", 0))
        else:
            out.append(("Partial Cover", PARTIAL_COVER))
    if state.aimed == attacker.id:
        out.append(("Marksmanship LX", AIMED))
    out += comms.targeted_mods(state, f, attacker, target)
    return out


def difficulty(mod_list) -> int:
    """The Difficulty the MODs add: each full 3 of their sum one step, the other way."""
    total = sum(v for _, v in mod_list)
    return -(abs(total) // MOD_STEP) if total > 0 else abs(total) // MOD_STEP


def weapon_difficulty(state: State, f: TaskFrame) -> int:
    return difficulty(mods(state, f)) if f.task == "attack" else 0


def attack_dice(state: State, f: TaskFrame) -> int:
    """The free d20 of the weapon's Burst: B-1 in the Active Turn, none for an aimed shot."""
    attacker, _, weapon = _frame_parts(state, f)
    if not is_bs(weapon) or state.aimed == attacker.id or not active(state, attacker):
        return 0
    return weapon.burst - 1


def on_task_rolled(ctx: Context, f) -> None:
    """After a BS Attack's dice: say its MODs and Burst."""
    if not isinstance(f, TaskFrame) or f.task != "attack":
        return
    found = mods(ctx.state, f)
    burst = attack_dice(ctx.state, f)
    if found or burst:
        ctx.emit(AttackModified(unit=f.unit, target=f.target, mods=tuple(found), difficulty=difficulty(found),
                                burst=burst))


def shock(attacker: Unit, weapon) -> tuple[str, ...]:
    """Marksmanship L1's Shock, for a BS Weapon without the traits it excludes."""
    if not LEVEL_1 & set(attacker.skills) or not is_bs(weapon):
        return ()
    if any(q.lower() in NO_SHOCK for q in weapon.qualities):
        return ()
    return ("shock",)


def hit_effects(ctx: Context, f, winner, victim, weapon):
    extra = shock(winner, weapon) if winner.id == f.unit else ()  # the attacker's BS Attack
    return ammunition.hit_effects(ctx, f, winner, victim, weapon, extra)


# -- Marksmanship LX -----------------------------------------------------------------------------


def turn_options(state: State, unit: Unit, options: list) -> list:
    """An aimed shot beside each BS Attack with a weapon of B 2 or more (the user's own turn)."""
    if "marksmanship x" not in unit.skills:
        return options
    aimed = [("aimed_shot",) + o[1:] for o in options
             if o[0] == "attack" and is_bs(w := attack.weapon_of(unit, o[2])) and w.burst >= 2]
    return options + aimed


def act_aimed_shot(ctx: Context, unit: Unit, option: Option) -> None:
    ctx.emit(TaskAttempted(unit=unit.id, task="attack"))
    ctx.emit(AimedShot(unit=unit.id))
    attack.declare(ctx, unit, option[1], option[2], bool(option[3]))


def on_idle(ctx: Context) -> None:
    """The aimed shot is over once nothing is in progress."""
    if ctx.state.aimed:
        ctx.emit(AimedShot(unit=""))
