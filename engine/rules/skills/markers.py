"""What the other side and spectators see of Impersonation markers (issue 15, "Hidden information,
end to end"; docs/protocol.md, "Impersonation markers"; skills/impersonation.py for the rules).

Hidden from a viewer, until the marker is revealed (``ImpersonationRevealed``) or the game ends:
which unit is behind each of another side's markers assigned at the start, where that unit
stands, and everything that would tell it. The roster is public (the mission file is), so what is
hidden is the pairing of marker and unit. For such a *hidden* unit the views:

- ``GameCreated``: the unit's mission cell is a ``Hidden("position")`` (a deploying unit's cell
  is only its default, and the option list does not start with it: impersonation.deploy_options);
- ``ImpersonatorsAssigned``: each unit a ``Hidden("unit")``; ``MarkerPlaced`` likewise (the view
  keeps a shadow unit under the marker id: skills/imp_evolve.py);
- every later event names the unit by its marker id, wherever its id stands as a whole word (an
  Order's "3:b4", a reaction's ``against``, a decision's ``unit``, an option); a decision's options
  that name a marker go last, sorted, so that their place in the roster's order tells nothing;
- the deployment WIP Roll: its ``DiceRolled`` has a ``Hidden("roll")`` and target 0; its
  ``SkillRolled`` and the roll's ``ProcedureStarted`` / ``ProcedureEnded`` are withheld (its WIP
  would tell the profile); one die, always, so the count tells nothing; pass or fail shows only in
  what follows (a failure reveals the figure);
- the marker's ``act`` decisions: its covert options (moves, Drop Prone, Stand, end) as they are,
  every option that would cancel it as the one ``("reveal", Hidden("option"))``, and the
  ``OptionChosen`` of one likewise: which weapon, which Task, is told only by the figure's action;
  likewise its side's ``react`` options of units behind markers (which reactions a unit has would
  tell its profile; declaring one reveals it).

What a marker's moves reveal, by design: the marker itself is on the table, so where it stands
and moves, its Silhouette, that it moves as far as the Movement Minor Action allows (every unit's
Movement is the board's Medium range plus the skills' bonuses: a MetaChemistry roll's Enhanced
Mobility would show), when it is activated and that it is an impersonator of its side (its
level, against an alien army, shows in whether it may deploy as a marker). Checkpoint hashes
cover the secrecy salt (skills/secrecy.py), so they cannot be searched for the pairing.
"""

from __future__ import annotations

import functools
import re

import msgspec

from skirmish.engine import events as core_ev
from skirmish.engine.base import Hidden
from skirmish.engine.model import SIDES, State
from skirmish.engine.rules.registry import ROLLS, Secret
from skirmish.engine.rules.skills import deploy
from skirmish.engine.rules.skills import imp_evolve
from skirmish.engine.rules.skills import impersonation as imp
from skirmish.engine.rules.skills.events import SkillRolled
from skirmish.engine.rules.skills.frames import SkillRollFrame
from skirmish.engine.rules.skills.imp_events import ImpersonationRevealed, ImpersonatorsAssigned, MarkerPlaced

UNIT = Hidden("unit")
OPTION = ("reveal", Hidden("option"))
ROLL = "skills:" + imp.PURPOSE


def hidden(state: State, viewer: str) -> dict[str, str]:
    """The units whose marker ``viewer`` may not pair with them: unit -> marker (full state only)."""
    if viewer == "all" or not state.imp_markers:
        return {}
    return {u: m for m, u in state.imp_markers.items()
            if isinstance(u, str) and m not in state.imp_known and state.units[u].side != viewer}


@functools.lru_cache(maxsize=256)
def _pattern(uids: tuple[str, ...]):
    return re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, uids)) + r")(?![\w-])")


def _rename(plain, names: dict, word):
    if isinstance(plain, dict):
        return {_rename(k, names, word): _rename(v, names, word) for k, v in plain.items()}
    if isinstance(plain, (list, tuple)):
        return [_rename(v, names, word) for v in plain]
    if isinstance(plain, str):
        return names[plain] if plain in names else word.sub(lambda m: names[m.group(1)], plain)
    return plain


def renamed(e, names: dict):
    """``e`` with each unit of ``names`` called by its marker; a decision's options naming a marker last."""
    word = _pattern(tuple(sorted(names)))
    out = msgspec.convert(_rename(msgspec.to_builtins(e), names, word), type(e))
    if isinstance(out, core_ev.DecisionRequested):
        marks = set(names.values())
        opts = out.decision.options
        plain = [o for o in opts if not any(x in marks for x in o if isinstance(x, str))]
        named = sorted((o for o in opts if o not in plain), key=msgspec.json.encode)
        out = msgspec.structs.replace(out, decision=msgspec.structs.replace(out.decision, options=(*plain, *named)))
    return out


def _hidden_roll(state: State, e, names: dict) -> bool:
    if isinstance(e, SkillRolled):
        return e.unit in names
    if isinstance(e, (core_ev.ProcedureStarted, core_ev.ProcedureUpdated)):
        frame = e.frame
    elif isinstance(e, core_ev.ProcedureEnded) and state.stack:
        frame = state.stack[-1]
    else:
        return False
    return isinstance(frame, SkillRollFrame) and any(r.unit in names for r in frame.rollers)


def _options(e, names: dict):
    d = e.decision
    opts = tuple(dict.fromkeys(OPTION if o[0] == "reveal" else o for o in d.options))
    return msgspec.structs.replace(e, decision=msgspec.structs.replace(d, options=opts))


def _names_hidden(option, names: dict) -> bool:
    return any(isinstance(x, str) and x in names for x in option[1:])


def _reactions(e, names: dict):
    """A side's reactions by units behind markers (each would reveal it; which reactions a unit has
    would tell its profile): one hidden option for them all."""
    d = e.decision
    if not any(_names_hidden(o, names) for o in d.options):
        return e
    opts = tuple(dict.fromkeys(OPTION if _names_hidden(o, names) else o for o in d.options))
    return msgspec.structs.replace(e, decision=msgspec.structs.replace(d, options=opts))


def _collapsed(pending, option, names: dict) -> bool:
    """The answer is one of the options a view shows as the hidden one."""
    if pending.kind == "act" and pending.unit in names:
        return option[0] == "reveal"
    return pending.kind == "react" and _names_hidden(option, names)


def event(state: State, e, viewer: str):
    """Any event but ``GameCreated``, as ``viewer`` sees it (see the module's text)."""
    if e is None:
        return None
    if isinstance(e, ImpersonatorsAssigned):
        return e if e.side == viewer or viewer == "all" else msgspec.structs.replace(e, units=tuple(UNIT for _ in e.units))
    names = hidden(state, viewer)
    if not names or isinstance(e, ImpersonationRevealed):
        return e
    if isinstance(e, MarkerPlaced):
        return msgspec.structs.replace(e, unit=UNIT) if e.unit in names else e
    if _hidden_roll(state, e, names):
        return None
    if isinstance(e, core_ev.DiceRolled) and e.unit in names:
        e = msgspec.structs.replace(e, results=Hidden("roll"), target=0)
    elif isinstance(e, core_ev.DecisionRequested) and e.decision.unit in names and e.decision.kind == "act":
        e = _options(e, names)
    elif isinstance(e, core_ev.DecisionRequested) and e.decision.kind == "react":
        e = _reactions(e, names)
    elif isinstance(e, core_ev.OptionChosen) and state.pending is not None and _collapsed(state.pending, e.option, names):
        e = msgspec.structs.replace(e, option=OPTION, timeout=False)
    return renamed(e, names)


def game_created(state: State, e, viewer: str):
    """The mission's cell of each unit that may come to stand behind another side's marker, hidden."""
    if viewer == "all":
        return e
    masked = {u.id for u in state.units.values()
              if u.side != viewer and not u.deployed and imp.level(u) is not None}
    if not masked:
        return e
    where = Hidden("position")
    units = tuple(msgspec.structs.replace(u, x=where, y=where) if u.id in masked else u for u in e.units)
    return msgspec.structs.replace(e, units=units)


def redactions() -> dict:
    table = {t: event for t in core_ev.AnyEvent.__args__ if t is not core_ev.GameCreated}
    table[core_ev.GameCreated] = game_created
    return table


def secrets(state: State, viewer: str):
    """Which unit is behind each marker ``viewer`` may not pair, where it stands, its deployment roll."""
    for uid, m in hidden(state, viewer).items():
        yield Secret(f"which unit is behind {m}", ("imp_markers", m))
        yield Secret(f"where {uid} stands (x)", ("units", uid, "x"))
        yield Secret(f"where {uid} stands (y)", ("units", uid, "y"))
        yield Secret(f"{uid}'s deployment roll", (ROLLS, ROLL, uid))


# -- the bots' determinization ----------------------------------------------------------------------------------


NAME_MARKERS = ("discover",)  # options that name the marker itself, not the unit behind it


def _fields(plain, names: dict, keys=("unit", "actor", "target", "victim", "winner", "mover")):
    if isinstance(plain, dict):
        return {k: (names.get(v, v) if k in keys and isinstance(v, str) else _fields(v, names, keys))
                for k, v in plain.items()}
    if isinstance(plain, (list, tuple)):
        return [_fields(v, names, keys) for v in plain]
    return plain


def sample(state: State, side: str, rng) -> None:
    """Pair each marker ``side`` cannot name with an impersonator of its side that may be behind it
    (not revealed, not on the table as a figure), uniformly; the shadow's place becomes the unit's."""
    if not state.imp_markers:
        return
    back: dict[str, str] = {}
    for owner in SIDES:
        blind = sorted(m for m, u in state.imp_markers.items() if isinstance(u, Hidden) and m.startswith(owner + "-"))
        if owner == side or not blind:
            continue
        known = {u for u in state.imp_markers.values() if isinstance(u, str)}
        pool = [u for u in imp.impersonators(state, owner) if u not in known and not state.units[u].deployed]
        rng.shuffle(pool)
        home = min(deploy.zone(state, owner) or {(0, 0)}, key=lambda c: (c[1], c[0]))
        for m, uid in zip(blind, pool):
            state.imp_markers[m] = uid
            u, ghost = state.units[uid], state.units.pop(m, None)
            if ghost is not None:
                u.x, u.y, u.deployed, u.acted, u.prone = ghost.x, ghost.y, True, ghost.acted, ghost.prone
                back[m] = uid
            elif isinstance(u.x, Hidden):
                u.x, u.y = home
    if back:
        _unshadow(state, back)


def _unshadow(state: State, back: dict) -> None:
    """The view's names of the shadows, in the turn, the stack and the pending decision, as the units'."""
    if state.turn is not None and state.turn.unit in back:
        state.turn.unit = back[state.turn.unit]
    if state.stack:
        state.stack = [msgspec.convert(_fields(msgspec.to_builtins(f), back), type(f)) for f in state.stack]
    if state.pending is not None:  # its unit, and the options naming a shadow as a unit (an attack's bystander)
        p = state.pending
        options = [o if o[0] in NAME_MARKERS else tuple(back.get(x, x) if isinstance(x, str) else x for x in o)
                   for o in p.options]
        state.pending = msgspec.structs.replace(p, unit=back.get(p.unit, p.unit), options=options)
    for m, uid in back.items():
        state.reacted_in = re.sub(rf"(?<![\w-]){re.escape(m)}(?![\w-])", uid, state.reacted_in)
        imp_evolve.rename_shadow(state, m, uid)
