"""Text rendering of a view state for the terminal: the board, the units, the decision's options.

Everything here reads a ``State`` (a side's own view) and returns strings; nothing prints.
"""

from __future__ import annotations

from engine.model import Decision, Option, State, TaskFrame, Unit

MOVES = ("move", "sprint", "fend")  # options shown packed, several to a line


def _weapon_name(unit: Unit | None, index: int) -> str:
    if unit is None:
        return f"weapon {index}"
    if 0 <= index < len(unit.weapons):
        return unit.weapons[index].name
    return "Unarmed Strike"


def unit_marks(state: State) -> dict[str, str]:
    """A two-character mark per unit for the map: its id when that is two characters long,
    else its side and a running letter."""
    marks, counters = {}, {}
    for u in state.units.values():
        if len(u.id) == 2:
            marks[u.id] = u.id
        else:
            n = counters.get(u.side, 0)
            counters[u.side] = n + 1
            marks[u.id] = f"{u.side}{chr(ord('A') + n % 26)}"
    return marks


def board(state: State, side: str = "") -> str:
    """The map, three characters a cell: terrain (``engine.board``'s characters; deployment
    zones shown as open ground) and units by their mark, upper case while standing, lower case
    when down with an Injury; the dead are left out. Rows are y, columns x: ``(x,y)`` is what
    move options name."""
    b = state.board
    marks = unit_marks(state)
    at = {(u.x, u.y): u for u in state.units.values() if not u.dead}
    lines = ["    " + "".join(f"{x:<3d}" for x in range(b.width)).rstrip()]
    for y in range(b.height):
        row = []
        for x in range(b.width):
            u = at.get((x, y))
            if u is not None:
                mark = marks[u.id]
                row.append(f"{mark.upper() if not u.incapacitated else mark.lower():3s}")
            else:
                cell = b.cells[y * b.width + x]
                row.append(f"{'.' if cell in 'ab' else cell}  ")
        lines.append(f"{y:3d} " + "".join(row).rstrip())
    legend = "  . open  # blocking  + cover  ~ : ^ % 0 difficult  * objective  n w gates"
    return "\n".join(lines + [legend])


def units(state: State, side: str = "") -> str:
    """One line per unit: id, name, side, where, Stress, condition, weapons (drawn first)."""
    lines = []
    for u in sorted(state.units.values(), key=lambda u: (u.side != side if side in ("a", "b") else u.side, u.id)):
        if u.dead:
            cond = "DEAD"
        elif u.injury:
            cond = f"injured ({u.injury})" + (", stabilised" if u.stabilised else "")
        else:
            cond = "ok"
        flags = [f for f, on in (("prone", u.prone), ("guarding", u.guarding), ("readied", u.readied),
                                 ("exposed", u.exposed), ("acted", u.acted), ("commander", u.commander),
                                 # morale module (seed 004)
                                 ("unconscious", u.unconscious), ("fear", u.fear), ("resting", u.resting)) if on]
        if u.endurance_max:
            flags.append(f"endurance {u.endurance}/{u.endurance_max}")
        drawn = [w.name for i, w in enumerate(u.weapons) if i not in u.stowed]
        stowed = [f"{w.name} (stowed)" for i, w in enumerate(u.weapons) if i in u.stowed]
        mine = "*" if u.side == side else " "
        lines.append(f"{mine}{u.id:4s} {u.name[:22]:22s} side {u.side}  ({u.x:2d},{u.y:2d})  "
                     f"stress {u.stress:2d}/{u.stress_max:<2d}  {cond}"
                     + (f"  [{', '.join(flags)}]" if flags else "")
                     + (f"  — {', '.join(drawn + stowed)}" if drawn or stowed else ""))
    return "\n".join(lines)


def status(state: State, side: str = "") -> str:
    """Round, who acts, the pools, the objectives."""
    parts = [f"round {state.round}/{state.rounds}", f"phase {state.phase}"]
    if state.phase == "activation":
        parts.append(f"side {state.to_act} to act")
    parts.append("momentum " + " ".join(f"{s}:{n}" for s, n in sorted(state.momentum.items())))
    parts.append("threat " + " ".join(f"{s}:{n}" for s, n in sorted(state.threat.items())))
    if "morale" in state.modules:
        parts.append("command tokens " + " ".join(f"{s}:{n}" for s, n in sorted(state.tokens.items())))
    lines = ["  ".join(parts)]
    for o in state.objectives.values():
        held = f"held by side {o.holder}" if o.holder else "not secured"
        lines.append(f"objective {o.id} {o.name!r} at ({o.x},{o.y}), {o.points} pt: {held}")
    for i in state.items.values():
        where = f"carried by {i.carrier}" if i.carrier else f"at ({i.x},{i.y})"
        lines.append(f"item {i.id} {i.name!r} {where}")
    return "\n".join(lines)


def label(option: Option, state: State, decision: Decision) -> str:
    """A short label for an option, e.g. "attack b1 with Type-2 phaser (lethal)"."""
    kind, args = option[0], option[1:]
    units_ = state.units
    actor = units_.get(decision.unit)

    def uname(uid) -> str:
        u = units_.get(uid)
        return f"{uid} ({u.name})" if u else str(uid)

    match kind, args:
        case "end", ():
            return "end the turn"
        case "unit", (uid,):
            return f"activate {uname(uid)}"
        case "first", (side,):
            return f"side {side} acts first" + (" (you)" if side == decision.side else "")
        case "pass", ():
            return "let the action pass"
        case "keep", () if decision.kind == "keep_initiative":
            return "keep the initiative (2 Momentum)"
        case "keep", ():
            return "keep the dice"
        case "aim", ():
            return "aim (minor action)"
        case "prepare", ():
            return "prepare (minor action: the first bonus die is free)"
        case "prone", ():
            return "drop prone"
        case "stand", ():
            return "stand up"
        case "draw", (i,):
            return f"draw {_weapon_name(actor, i)}"
        case "pickup", (iid,):
            item = state.items.get(iid)
            return f"pick up {item.name if item else iid}"
        case "interact", (oid,):
            o = state.objectives.get(oid)
            return f"secure {o.name if o else oid} (interact)"
        case "move", (x, y):
            return f"move ({x},{y})"
        case "sprint", (x, y):
            return f"sprint ({x},{y})"
        case "fend", (x, y):
            return f"fend off to ({x},{y})"
        case "attack", (target, weapon, lethal):
            return f"attack {target} with {_weapon_name(actor, weapon)} ({'lethal' if lethal else 'non-lethal'})"
        case "fire", (uid, weapon, lethal):
            return (f"{uid} fires at {decision.unit} with {_weapon_name(units_.get(uid), weapon)} "
                    f"({'lethal' if lethal else 'non-lethal'})")
        case "hold", ():
            return "hold fire"
        case "recover", ():
            return "recover (task)"
        case "sprint", ():
            return "sprint (task)"
        case "first_aid", (uid,):
            return f"first aid on {uname(uid)}"
        case "create_advantage", (uid,):
            return f"create an advantage against {uname(uid)}"
        case "other", (oid,):
            o = state.objectives.get(oid)
            return f"task to secure {o.name if o else oid}"
        case "guard", ():
            return "guard (task)"
        case "ready", ():
            return "ready an attack (task)"
        case "assist", (uid,):
            return f"assist {uname(uid)}"
        case "direct", (uid,):
            return f"direct {uname(uid)}"
        case "none", ():
            return "no task"
        case "buy", (0,):
            return "roll without bonus dice"
        case "buy", (n, pool):
            return f"buy {n} bonus d20 with {pool}"
        # morale module (seed 004)
        case "reroll", (side,) if decision.kind == "initiative_reroll":
            return f"spend a Command Token: re-roll side {side}'s initiative die" + (" (yours)" if side == decision.side else "")
        case "reroll", ("task",):
            return "spend a Command Token: re-roll the task's dice"
        case "reroll", ("defence",):
            return "spend a Command Token: re-roll the defender's dice"
        case "reroll", ():
            return "spend a Command Token: re-roll the test"
        case "token", (side,):
            return f"spend a Command Token: re-roll side {side}'s pool" + (" (yours)" if side == decision.side else "")
        case "rest", ():
            return "stand down (no action counter: the pilot recovers Endurance)"
        case "boost", ():
            return "spend a Command Token: +1 Movement this turn"
        case "counter", (uid,):
            return f"spend a Command Token: remove {uname(uid)}'s action counter"
        case "retreat", ():
            return "retreat (the side loses the game)"
        case "ignore", ():
            return "spend a Command Token: ignore the failed Courage Test"
        case "reroll", (i,):
            frame = state.stack[-1] if state.stack else None
            rolled = frame.rolled[i] if isinstance(frame, TaskFrame) and i < len(frame.rolled) else "?"
            return f"re-roll die {i + 1} (rolled {rolled})"
        case "threat", ():
            return "no bystander: the attacker suffers a complication"
        case "bystander", (uid,):
            return f"the shot strikes bystander {uname(uid)}"
        case "damage", ():
            return "inflict damage"
        case "damage", (lethal,):
            return "strike back lethally" if lethal else "strike back non-lethally"
        case "accept", ():
            return "accept the Injury"
        case "avoid", (by,):
            return f"avoid the Injury ({by})"
        case "spend", (n,):
            return f"spend {n} Momentum"
        case "stay", ():
            return "stay where you are"
    return " ".join(map(str, option))


def decision_text(decision: Decision, state: State) -> str:
    """What is asked, then the options numbered from 1 (moves packed several to a line)."""
    about = f" for {decision.unit}" if decision.unit else ""
    lines = [f"decision {decision.id}: {decision.kind.replace('_', ' ')}{about} (side {decision.side})"]
    packed: list[str] = []

    def flush():
        line = ""
        for item in packed:
            if line and len(line) + len(item) + 2 > 96:
                lines.append("  " + line)
                line = ""
            line = f"{line}  {item}" if line else item
        if line:
            lines.append("  " + line)
        packed.clear()

    for n, option in enumerate(decision.options, start=1):
        text = f"{n:>2}) {label(option, state, decision)}"
        if option[0] in MOVES and len(option) == 3:
            packed.append(text)
        else:
            flush()
            lines.append("  " + text)
    flush()
    return "\n".join(lines)


def clock_text(move_ms: int, reserve_ms: int, timeouts: int) -> str:
    return f"clock: {move_ms / 1000:.1f}s for this move + {reserve_ms / 1000:.1f}s reserve; {timeouts} time-out(s)"
