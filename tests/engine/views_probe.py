"""A probe rules module for tests (added with ``Catalog.with_modules``): one unit of side b that
side a and spectators may not see -- its id (shown under a handle), its name and its position,
in ``GameCreated`` and in every later event -- the kind of thing seed 003's markers need (issue 15).
Its redactions read the state (which unit, the pending decision); ``LEAKY`` declares the same
secrets and hides nothing.
"""

from __future__ import annotations

import functools
import re

import msgspec

from skirmish.engine import events as ev
from skirmish.engine.base import Hidden
from skirmish.engine.rules import registry
from skirmish.engine.rules.registry import Module, Secret
from skirmish.server import missions

HANDLE = "hidden-1"  # the probe's handle for the hidden unit


def hidden_unit(state) -> str:
    """The unit the probe hides: side b's first by id."""
    return min(u.id for u in state.units.values() if u.side == "b")


def _blind(viewer: str) -> bool:
    return viewer != "b"


@functools.lru_cache(maxsize=64)
def mentions(uid: str):
    """A pattern for ``uid`` as a whole word of a string (an id inside a composite key such as an
    order's "3:b1:lieutenant order" or a procedure's "spotlight|b1" names the unit too)."""
    return re.compile(rf"(?<![\w-]){re.escape(uid)}(?![\w-])")


def _in_words(uid: str):
    word = mentions(uid)
    return lambda s: word.sub(HANDLE, s)


def _as_values(uid: str):
    return lambda s: HANDLE if s == uid else s


def _rename(plain, rename):
    if isinstance(plain, dict):
        return {_rename(k, rename): _rename(v, rename) for k, v in plain.items()}
    if isinstance(plain, (list, tuple)):
        return [_rename(v, rename) for v in plain]
    return rename(plain) if isinstance(plain, str) else plain


def _hide_ints(option):
    return tuple(Hidden("position") if isinstance(x, int) else x for x in option)


def probe_game_created(state, e: ev.GameCreated, viewer: str):
    if not _blind(viewer):
        return e
    uid = hidden_unit(state)
    masked = [msgspec.structs.replace(u, id=HANDLE, name=Hidden("name"), x=Hidden("position"), y=Hidden("position"))
              for u in e.units if u.id == uid]
    e = msgspec.structs.replace(e, units=(*(u for u in e.units if u.id != uid), *masked))  # its place in the list tells too
    return msgspec.convert(_rename(msgspec.to_builtins(e), _in_words(uid)), type(e))  # named elsewhere (a Lieutenant candidate)


def probe_event(state, e, viewer: str, renames=_in_words):
    """Any later event: the unit is named by its handle; where it moves or is placed is hidden
    (an event whose type does not admit a hidden position, another module's, is withheld: its
    own module would type it to admit one); the options of its decisions (cells) hide their
    numbers; the state hashes, which would let its place be searched for, are withheld (a real
    module salts the state instead)."""
    if not _blind(viewer):
        return e
    if isinstance(e, ev.Checkpoint):
        return None
    uid = hidden_unit(state)
    if getattr(e, "unit", None) == uid and hasattr(e, "x"):
        hidden = msgspec.to_builtins(Hidden("position"))
        try:
            return msgspec.convert({**msgspec.to_builtins(e), "unit": HANDLE, "x": hidden, "y": hidden}, type(e))
        except msgspec.ValidationError:
            return None
    about = (e.decision.unit if isinstance(e, ev.DecisionRequested)
             else state.pending.unit if isinstance(e, ev.OptionChosen) and state.pending is not None else "")
    if about == uid:
        if isinstance(e, ev.DecisionRequested):
            options = tuple(dict.fromkeys(_hide_ints(o) for o in e.decision.options))
            e = msgspec.structs.replace(e, decision=msgspec.structs.replace(e.decision, options=options))
        else:
            e = msgspec.structs.replace(e, option=_hide_ints(e.option))
    return msgspec.convert(_rename(msgspec.to_builtins(e), renames(uid)), type(e))


def probe_secrets(state, viewer: str):
    if not _blind(viewer):
        return
    uid = hidden_unit(state)
    yield Secret(f"which unit is {HANDLE}", ("units", uid, "id"), token=True)
    yield Secret(f"{uid}'s name", ("units", uid, "name"), seen_as=("units", HANDLE, "name"))
    for axis in ("x", "y"):
        yield Secret(f"{uid}'s position ({axis})", ("units", uid, axis), seen_as=("units", HANDLE, axis))


def probe_can_target(state, unit, target) -> bool:
    return not (target.id == hidden_unit(state) and unit.side != target.side)  # nobody attacks what it cannot see


_EVENTS = [t for t in ev.AnyEvent.__args__ if t is not ev.GameCreated]
PROBE = Module(name="probe", seed="test", summary="one unit of side b hidden from side a and spectators",
               redactions={ev.GameCreated: probe_game_created, **{t: probe_event for t in _EVENTS}},
               secrets=probe_secrets, can_target=probe_can_target)
# renames the unit only where its id is a whole value: ids inside composite keys (an order's
# "3:b1:lieutenant order", a procedure's "spotlight|b1") leak (what the probe did before issue 15)
SHALLOW = Module(name="probe", seed="test", summary="the probe, renaming only whole values",
                 redactions={ev.GameCreated: probe_game_created,
                             **{t: functools.partial(probe_event, renames=_as_values) for t in _EVENTS}},
                 secrets=probe_secrets, can_target=probe_can_target)
LEAKY = Module(name="probe", seed="test", summary="the probe's secrets, with nothing hidden",
               secrets=probe_secrets, can_target=probe_can_target)


def with_probe(module: Module, monkeypatch, mission_id: str):
    """The mission with ``module`` (named "probe") on, the catalog knowing it; for the server's
    lobby too (its bundled missions)."""
    monkeypatch.setattr(registry, "CATALOG", registry.CATALOG.with_modules(module))
    real = missions.bundled

    def bundled():
        out = real()
        m = out[mission_id]
        out[mission_id] = msgspec.structs.replace(m, modules=(*m.modules, "probe"))
        return out

    monkeypatch.setattr(missions, "bundled", bundled)
    return bundled()[mission_id]
