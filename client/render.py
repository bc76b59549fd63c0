"""Text rendering of a view state for the terminal: the board, the units, the decision's options.

Everything here reads a ``State`` (a side's own view) and returns strings; nothing prints.
Every string that came from a mission file or a player (unit, weapon, objective, item, card and
facility names) is escaped with ``skirmish.client.safe.safe`` before it is placed in a line.
"""

from __future__ import annotations

from skirmish.client.safe import safe
from skirmish.engine.model import Decision, Option, State, TaskFrame, Unit
from skirmish.engine.rules import registry
from skirmish.engine.rules.core.tasks import dice_cost, is_prepared

MOVES = ("move", "sprint", "fend")  # options shown packed, several to a line


# What the bundled modules add to the text views (``Module.render``), all of them: a module's
# flags, options and decisions only ever show in games that have it on.
shown = registry.CATALOG.all().render


def cell_option(option: Option) -> tuple[int, int] | None:
    """The cell an option moves to: ``move``/``sprint``/``fend`` ``(x, y)``, also carried by a
    module's option (``Shown.carriers``: the capture module's bonus ``move``); None for every
    other option."""
    if len(option) == 3 and option[0] in MOVES and all(isinstance(v, int) for v in option[1:]):
        return option[1], option[2]
    if len(option) > 1 and option[0] in shown.carriers:
        return cell_option(option[1:])
    return None


def _verb(option: Option) -> str:
    """What a move option (``cell_option``) does, e.g. "fend off to", "bonus action: move"."""
    if option[0] in shown.carriers:
        return shown.carriers[option[0]] + _verb(option[1:])
    return {"move": "move", "sprint": "sprint", "fend": "fend off to"}[option[0]]


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
    hidden = 0
    for u in state.units.values():
        if not isinstance(u.name, str):  # a unit a rules module hides (a marker): "?1", "?2", ...
            hidden += 1
            marks[u.id] = f"?{hidden % 10}"
        elif len(u.id) == 2:
            marks[u.id] = u.id
        else:
            n = counters.get(u.side, 0)
            counters[u.side] = n + 1
            marks[u.id] = f"{u.side}{chr(ord('A') + n % 26)}"
    return marks


def board(state: State, side: str = "", reachable=()) -> str:
    """The map, three characters a cell: terrain (``skirmish.engine.board``'s characters; deployment
    zones shown as open ground) and units by their mark, upper case while standing, lower case
    when down with an Injury; the dead are left out, as are units not on the table (the
    registry's ``on_table``: not yet deployed). Rows are y, columns x: ``(x,y)`` is what
    move options name. The cells in ``reachable`` (where the pending decision can move) carry
    an ``o`` after their terrain."""
    b = state.board
    reach = set(reachable)
    marks = unit_marks(state)
    at = {(u.x, u.y): u for u in state.units.values()
          if not u.dead and registry.allows(state, "on_table", u)}  # a module may hold a unit off the table
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
                terrain = '.' if cell in 'ab' else cell
                row.append(f"{terrain}o " if (x, y) in reach else f"{terrain}  ")
        lines.append(f"{y:3d} " + "".join(row).rstrip())
    legend = "  . open  # blocking  + cover  ~ : ^ % 0 difficult  * objective  n w gates"
    if reach:
        legend += "  o: you can move there (type m X Y)"
    return "\n".join(lines + [legend])


def units(state: State, side: str = "") -> str:
    """One line per unit: id, name, side, where ("off" while not on the table), Stress, condition,
    weapons (drawn first)."""
    lines = []
    for u in sorted(state.units.values(), key=lambda u: (u.side != side if side in ("a", "b") else u.side, u.id)):
        if u.dead:
            cond = "DEAD"
        elif u.injury:
            cond = f"injured ({u.injury})" + (", stabilised" if u.stabilised else "")
        else:
            cond = "ok"
        flags = [f for f, on in (("prone", u.prone), ("guarding", u.guarding), ("readied", u.readied),
                                 ("exposed", u.exposed), ("acted", u.acted), ("commander", u.commander)) if on]
        for unit_flags in shown.unit_flags:  # the modules' (Module.render)
            flags += unit_flags(u)
        drawn = [safe(w.name) for i, w in enumerate(u.weapons) if i not in u.stowed]
        stowed = [f"{safe(w.name)} (stowed)" for i, w in enumerate(u.weapons) if i in u.stowed]
        mine = "*" if u.side == side else " "
        where = f"({u.x:2d},{u.y:2d})" if registry.allows(state, "on_table", u) else "  off  "  # not on the table yet
        name = safe(u.name) if isinstance(u.name, str) else "(a marker)"
        lines.append(f"{mine}{safe(u.id):4s} {name[:22]:22s} side {u.side}  {where}  "
                     f"stress {u.stress:2d}/{u.stress_max:<2d}  {cond}"
                     + (f"  [{', '.join(flags)}]" if flags else "")
                     + (f"  — {', '.join(drawn + stowed)}" if drawn or stowed else ""))
    return "\n".join(lines)


def _pools(pool: dict[str, int], side: str) -> str:
    def who(s: str) -> str:
        return f"{s} (you)" if s == side else s
    return ", ".join(f"{who(s)} {n}" for s, n in sorted(pool.items()))


def status(state: State, side: str = "") -> str:
    """Round, who acts, the pools (Momentum, Threat, the modules' such as Command Tokens and Action
    Points), the modules' lines (your hand of cards and the other side's hand size), the objectives,
    items and the modules' places (facilities)."""
    head, places = status_parts(state, side)
    return head + ("\n" + places if places else "")


def status_parts(state: State, side: str = "") -> tuple[str, str]:
    """``status`` in two parts: the round, the pools and the hands (which change often), and
    the objectives, items and facilities (which change seldom)."""
    rendered = registry.rules_of(state).render  # the game's modules' (Module.render)
    parts = [f"round {state.round}/{state.rounds}", f"phase {state.phase}"]
    if state.phase == "activation":
        parts.append(f"side {state.to_act} to act" + (" (you)" if state.to_act == side else ""))
    lines = ["  ".join(parts)]
    pools = [f"Momentum: {_pools(state.momentum, side)}", f"Threat: {_pools(state.threat, side)}"]
    for module_pools in rendered.pools:
        pools += [f"{name}: {_pools(pool, side)}" for name, pool in module_pools(state)]
    lines.append("  " + "; ".join(pools))
    for module_status in rendered.status:
        lines += [safe(line) for line in module_status(state, side)]
    head, lines = "\n".join(lines), []
    for o in state.objectives.values():
        held = f"held by side {o.holder}" if o.holder else "not secured"
        lines.append(f"objective {safe(o.id)} '{safe(o.name)}' at ({o.x},{o.y}), {o.points} pt: {held}")
    for i in state.items.values():
        where = f"carried by {safe(i.carrier)}" if i.carrier else f"at ({i.x},{i.y})"
        lines.append(f"item {safe(i.id)} '{safe(i.name)}' {where}")
    for module_places in rendered.places:
        lines += [safe(line) for line in module_places(state)]
    return head, "\n".join(lines)


def label(option: Option, state: State, decision: Decision) -> str:
    """A short label for an option, e.g. "attack b1 with Type-2 phaser (lethal)", escaped
    (``skirmish.client.safe``): it names units, weapons and cards from the mission."""
    return safe(_label(tuple(option), state, decision))


def _label(option: Option, state: State, decision: Decision) -> str:
    def uname(uid) -> str:
        return _unit_name(state, uid)

    for module_label in shown.labels:  # the modules' options (Module.render)
        told = module_label(option, state, decision, uname)
        if told is not None:
            return told
    kind, args = option[0], option[1:]
    told = _PLAIN.get(kind) if not args else None
    if told is None and kind in _LABELS:
        told = _LABELS[kind](args, state, decision)
    if told is None and args and kind in shown.carriers:  # a module's option carrying another (Shown.carriers)
        told = shown.carriers[kind] + _label(args, state, decision)
    return told if told is not None else " ".join(str(v).replace("_", " ") for v in option)


def _unit_name(state: State, uid) -> str:
    u = state.units.get(uid)
    if u is not None and not isinstance(u.name, str):
        return f"{uid} (a marker)"
    return f"{uid} ({u.name})" if u else str(uid)


# The core's options without arguments whose label says it all.
_PLAIN = {
    "end": "end the turn", "pass": "let the action pass", "aim": "aim (minor action)",
    "prepare": "prepare (minor action: the first bonus die is free)", "prone": "drop prone", "stand": "stand up",
    "hold": "hold fire", "recover": "recover (task)", "sprint": "sprint (task)", "guard": "guard (task)",
    "ready": "ready an attack (task)", "none": "no task", "threat": "no bystander: the attacker suffers a complication",
    "damage": "inflict damage", "accept": "accept the Injury", "stay": "stay where you are",
}


def _first(args, state: State, d: Decision) -> str | None:
    match args:
        case (side,):
            return f"side {side} acts first" + (" (you)" if side == d.side else "")
    return None


def _keep(args, state: State, d: Decision) -> str | None:
    match args:
        case () if d.kind == "keep_initiative":
            return "keep the initiative (2 Momentum)"
        case ():
            return "keep the dice"
    return None


def _pickup(args, state: State, d: Decision) -> str | None:
    match args:
        case (iid,):
            item = state.items.get(iid)
            return f"pick up {item.name if item else iid}"
    return None


def _objective(text: str):
    """``("interact", objective)`` and ``("other", objective)``: ``text`` with the objective's name."""
    def label(args, state: State, d: Decision) -> str | None:
        match args:
            case (oid,):
                o = state.objectives.get(oid)
                return text.format(o.name if o else oid)
        return None
    return label


def _to_cell(verb: str):
    """``("move", x, y)``, ``("sprint", x, y)``, ``("fend", x, y)``."""
    def label(args, state: State, d: Decision) -> str | None:
        match args:
            case (x, y):
                return f"{verb} to ({x},{y})"
        return None
    return label


def _of_unit(text: str):
    """An option naming one unit, e.g. ``("unit", "a1")``: ``text`` with the unit's id and name."""
    def label(args, state: State, d: Decision) -> str | None:
        match args:
            case (uid,):
                return text.format(_unit_name(state, uid))
        return None
    return label


def _draw(args, state: State, d: Decision) -> str | None:
    match args:
        case (i,):
            return f"draw {_weapon_name(state.units.get(d.unit), i)}"
    return None


def _lethal(lethal) -> str:
    return "lethal" if lethal else "non-lethal"


def _attack(args, state: State, d: Decision) -> str | None:
    match args:
        case (target, weapon, lethal):
            return f"attack {target} with {_weapon_name(state.units.get(d.unit), weapon)} ({_lethal(lethal)})"
    return None


def _fire(args, state: State, d: Decision) -> str | None:
    match args:
        case (uid, weapon, lethal):
            return f"{uid} fires at {d.unit} with {_weapon_name(state.units.get(uid), weapon)} ({_lethal(lethal)})"
    return None


def _buy(args, state: State, d: Decision) -> str | None:
    match args:
        case (0,):
            return "roll without bonus dice"
        case (n, pool):
            return f"buy {n} bonus d20 with {pool}" + _buy_cost(state, d, n, pool)
    return None


def _reroll(args, state: State, d: Decision) -> str | None:
    match args:
        case (i,):
            frame = state.stack[-1] if state.stack else None
            rolled = frame.rolled[i] if isinstance(frame, TaskFrame) and i < len(frame.rolled) else "?"
            return f"re-roll die {i + 1} (rolled {rolled})"
    return None


def _damage(args, state: State, d: Decision) -> str | None:
    match args:
        case (lethal,):
            return "strike back lethally" if lethal else "strike back non-lethally"
    return None


def _with_one(text: str):
    """An option with one plain argument, e.g. ``("spend", 2)``: ``text`` with it."""
    def label(args, state: State, d: Decision) -> str | None:
        match args:
            case (value,):
                return text.format(value)
        return None
    return label


# The core's options with arguments (and "keep", whose label depends on the decision): option
# kind -> (its arguments, state, decision) -> the label, or None when the arguments are not its.
_LABELS = {
    "unit": _of_unit("activate {}"), "first": _first, "keep": _keep, "draw": _draw, "pickup": _pickup,
    "interact": _objective("secure {} (interact)"), "other": _objective("task to secure {}"),
    "move": _to_cell("move"), "sprint": _to_cell("sprint"), "fend": _to_cell("fend off"),
    "attack": _attack, "fire": _fire,
    "first_aid": _of_unit("first aid on {}"), "create_advantage": _of_unit("create an advantage against {}"),
    "assist": _of_unit("assist {}"), "direct": _of_unit("direct {}"),
    "buy": _buy, "reroll": _reroll, "bystander": _of_unit("the shot strikes bystander {}"), "damage": _damage,
    "avoid": _with_one("avoid the Injury ({})"), "spend": _with_one("spend {} Momentum"),
}


class Menu:
    """The options of a decision as a person picks them: every option that is not a move is
    numbered from 1, in the decision's order; the moves (``move``, ``sprint``, ``fend``, and a
    module's option carrying one, ``cell_option``) are collapsed into one line per kind and picked by their
    cell (``m X Y``, ``X,Y``), which the board marks. ``pick(text)`` reads what was typed."""

    def __init__(self, decision: Decision, state: State):
        self.decision, self.state = decision, state
        self.numbered: list[Option] = []
        self.cells: dict[str, dict[tuple[int, int], Option]] = {}  # kind word -> cell -> option
        for option in decision.options:
            cell = cell_option(option)
            if cell is None:
                self.numbered.append(option)
            else:
                self.cells.setdefault(option[0], {}).setdefault(cell, option)

    @property
    def reachable(self) -> set[tuple[int, int]]:
        return {c for cells in self.cells.values() for c in cells}

    def usage(self) -> str:
        """What the prompt offers, e.g. ``1-5, m X Y``."""
        parts = []
        if self.numbered:
            parts.append("1" if len(self.numbered) == 1 else f"1-{len(self.numbered)}")
        for i, word in enumerate(self.cells):
            parts.append("m X Y" if i == 0 else f"{word} X Y")
        return ", ".join(parts)

    def text(self) -> str:
        d = self.decision
        about = ""
        if d.unit:
            u = self.state.units.get(d.unit)
            about = f" for {safe(d.unit)}" + (f" ({safe(u.name)})" if u else "")
        lines = [f"decision {d.id}: {DECISION_TITLES.get(d.kind, d.kind.replace('_', ' '))}{about} (side {d.side})"]
        for n, option in enumerate(self.numbered, start=1):
            lines.append(f"  {n:>2}) {label(option, self.state, d)}")
        for i, (word, cells) in enumerate(self.cells.items()):
            key = "m X Y" if i == 0 else f"{word} X Y"
            verb = _verb(next(iter(cells.values())))
            some = " ".join(f"{x},{y}" for x, y in sorted(cells, key=lambda c: (c[1], c[0]))[:6])
            more = " ..." if len(cells) > 6 else ""
            lines.append(f"  {key}) {verb} to one of {len(cells)} cells marked o on the board ({some}{more})")
        return "\n".join(lines)

    def pick(self, text: str) -> Option:
        """The option ``text`` names: a number, or a cell (``m 3 4``, ``move 3,4``, ``3,4``,
        ``3 4``, ``(3,4)``). ValueError with what to type instead."""
        words = text.replace(",", " ").replace("(", " ").replace(")", " ").split()
        if len(words) == 1 and words[0].isdigit():
            n = int(words[0])
            if 1 <= n <= len(self.numbered):
                return self.numbered[n - 1]
            raise ValueError(f"there is no option {n}: type {self.usage()}")
        kind = None
        if words and not words[0].lstrip("-").isdigit():
            word = words.pop(0)
            kind = next(iter(self.cells), None) if word in ("m", "move", "go") else word
            if kind not in self.cells:
                what = "is not a move here" if self.cells else "is not a command"
                raise ValueError(f"'{safe(word)}' {what}: type {self.usage()} (? for help)")
        elif self.cells:
            kind = next(iter(self.cells))
        if len(words) != 2 or not all(w.lstrip("-").isdigit() for w in words):
            raise ValueError(f"type {self.usage()} (? for help)" if self.cells or self.numbered else "")
        if kind is None:
            raise ValueError(f"nothing here moves to a cell: type {self.usage()}")
        cell = (int(words[0]), int(words[1]))
        option = self.cells[kind].get(cell)
        if option is None:
            raise ValueError(f"({cell[0]},{cell[1]}) is not a cell you can {kind} to: the board marks them with o")
        return option


DECISION_TITLES = {
    "first": "who acts first this round", "activate": "which unit acts next", "act": "your unit's turn",
    "directed": "directed by its commander: a task", "sprint": "sprint: where to", "ready": "an enemy moved into a readied unit's sights",
    "keep_initiative": "keep the initiative?", "buy_dice": "buy bonus d20 for the task",
    "aim": "aim: re-roll one d20?", "bystander": "a missed shot: a bystander or a Complication",
    "melee_won": "you won the melee", "avoid_injury": "an Injury: accept or avoid it",
    "recover_stress": "spend Momentum to regain Stress",
    **shown.titles,  # the modules' decisions (Module.render)
}


def _buy_cost(state: State, decision: Decision, n: int, pool: str) -> str:
    """What bonus dice cost: 1, 2, 3 for the first, second, third (the first free after Prepare);
    a hero's Threat goes to the other side's pool, an NPC spends its own."""
    frame = state.stack[-1] if state.stack else None
    if not isinstance(frame, TaskFrame) or not isinstance(n, int):
        return ""
    cost = dice_cost(n, is_prepared(state, frame))
    unit = state.units.get(frame.unit)
    if pool == "momentum":
        return f" (costs {cost} Momentum)"
    if unit is not None and unit.kind == "hero":
        return f" (gives the other side {cost} Threat)"
    return f" (costs {cost} Threat)"


def decision_text(decision: Decision, state: State) -> str:
    """What is asked, then the options (``Menu``): numbered from 1, moves collapsed into a line."""
    return Menu(decision, state).text()


def clock_text(move_ms: int, reserve_ms: int, timeouts: int) -> str:
    return f"clock: {move_ms / 1000:.1f}s for this move + {reserve_ms / 1000:.1f}s reserve; {timeouts} time-out(s)"


def clock_short(move_ms: int, reserve_ms: int, timeouts: int) -> str:
    """The clock as a prompt shows it, e.g. ``27s + 2:00 reserve``."""
    def t(ms: int) -> str:
        sec = max(0, ms) // 1000
        return f"{sec // 60}:{sec % 60:02d}" if sec >= 60 else f"{sec}s"
    out = f"{t(move_ms)} + {t(reserve_ms)} reserve"
    return out + (f", {timeouts} time-out{'s' if timeouts != 1 else ''}" if timeouts else "")


def procedure(state: State, side: str = "") -> str:
    """The procedure under way, when a decision is part of one: a module's (a challenge's two pools:
    each die, the successes, the fate left), or a Task's dice while they may change."""
    frame = state.stack[-1] if state.stack else None
    told = shown.procedures.get(type(frame))  # a module's procedure (Module.render)
    lines = told(frame, state, side) if told is not None else []
    if lines:
        return "\n".join(safe(line) for line in lines)
    if isinstance(frame, TaskFrame) and frame.rolled and frame.step in ("aim", "resolve"):
        return f"task: {frame.task.replace('_', ' ')} by {safe(frame.unit)}, dice {list(frame.rolled)}" + (
            f", the defence's {list(frame.opposed)}" if frame.opposed else "")
    return ""
