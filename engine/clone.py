"""Deep copies of the state, planned once per type from the model's annotations.

``decide`` runs the rules forward on a copy of the state, never on the caller's, so it copies
the whole state on every command. A MessagePack round trip does that in C, but it builds every
field of every unit again (about 50 fields each). This module copies only what can change:

- an immutable value is shared: ``str``, ``int``, ``bool``, ``float``, ``bytes``, ``None``, a
  ``Literal``, a tuple of immutable values, a frozen struct whose fields are all immutable;
- a struct is copied with its C ``__copy__``, then each of its fields that can hold something
  mutable is replaced by a copy of its own (a frozen struct that holds a dict is rebuilt);
- a dict or a list is copied, its items copied where they can be mutable.

The copy equals the round trip's result, dict order included: the round trip encodes with
sorted keys, so dicts come back sorted, and so they do here (rules that walk a dict see the same
order either way). ``tests/engine/test_clone.py`` checks both over playouts of every bundled
mission, and that ``decide`` leaves the state it was given untouched.

A field whose annotation this module does not know raises ``TypeError`` when the plan is made
(at import), so that a new kind of field cannot be shared by mistake.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Callable, Literal, Union

import msgspec

Copier = Callable[[Any], Any]

_SCALARS = (str, int, bool, float, bytes, type(None))
_plans: dict[type, Copier] = {}


def _share(value):
    return value


def _is_immutable(tp, seen: frozenset = frozenset()) -> bool:
    if tp in _SCALARS or tp is None:
        return True
    origin = typing.get_origin(tp)
    if origin is Literal:
        return True
    if origin in (Union, types.UnionType):
        return all(_is_immutable(a, seen) for a in typing.get_args(tp))
    if origin is tuple:
        return all(_is_immutable(a, seen) for a in typing.get_args(tp) if a is not Ellipsis)
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        if not tp.__struct_config__.frozen:
            return False
        if tp in seen:
            return True
        return all(_is_immutable(f.type, seen | {tp}) for f in msgspec.structs.fields(tp))
    if origin in (dict, list) or tp in (dict, list):
        return False
    raise TypeError(f"skirmish.engine.clone: no copy rule for the type {tp!r}")


def _dict_sorted(d: dict) -> dict:
    return dict(sorted(d.items())) if len(d) > 1 else d.copy()


def _copier(tp) -> Copier:
    """A function copying a value of annotated type ``tp`` (``_share`` for an immutable one)."""
    if _is_immutable(tp):
        return _share
    origin = typing.get_origin(tp)
    if origin is dict:
        _, vt = typing.get_args(tp)
        item = _copier(vt)
        if item is _share:
            return _dict_sorted
        return lambda d: {k: item(d[k]) for k in sorted(d)} if d else {}
    if origin is list:
        (vt,) = typing.get_args(tp)
        item = _copier(vt)
        if item is _share:
            return list.copy
        return lambda xs: [item(x) for x in xs] if xs else []
    if origin is tuple:
        args = [a for a in typing.get_args(tp) if a is not Ellipsis]
        item = _copier(Union[tuple(args)]) if len(args) > 1 else _copier(args[0])
        return lambda xs: tuple(item(x) for x in xs)
    if origin in (Union, types.UnionType):
        for arg in typing.get_args(tp):  # plan every struct the union may hold, now
            if isinstance(arg, type) and issubclass(arg, msgspec.Struct):
                _plan(arg)
        return _dynamic
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        return _plan(tp)
    raise TypeError(f"skirmish.engine.clone: no copy rule for the type {tp!r}")


def _dynamic(value):
    """A value of a union type: copied by what it is at run time."""
    if value is None or type(value) in _SCALARS:
        return value
    plan = _plans.get(type(value))
    return (plan or _plan(type(value)))(value)


def _plan(cls: type) -> Copier:
    """The copier of struct class ``cls``, made once (as generated code, like ``dataclasses``
    makes ``__init__``: a loop over the fields would cost as much as the copying)."""
    plan = _plans.get(cls)
    if plan is not None:
        return plan
    if _is_immutable(cls):
        _plans[cls] = _share
        return _share
    env: dict[str, Any] = {"cls": cls, "plan_of": _plan, "replace": msgspec.structs.replace}
    # Registered before its fields are planned: a struct may (indirectly) hold its own type.
    _plans[cls] = lambda obj: env["copy"](obj)
    lines = ["def copy(obj):", "    if type(obj) is not cls:", "        return plan_of(type(obj))(obj)"]
    parts = []
    for i, f in enumerate(msgspec.structs.fields(cls)):
        fn = _copier(f.type)
        if fn is not _share:
            env[f"c{i}"] = fn
            parts.append((f.name, f"c{i}(obj.{f.name})"))
    if cls.__struct_config__.frozen:  # a frozen struct holding something mutable: rebuilt
        lines.append("    return replace(obj, " + ", ".join(f"{n}={e}" for n, e in parts) + ")")
    else:
        lines.append("    new = obj.__copy__()")
        lines += [f"    new.{n} = {e}" for n, e in parts]
        lines.append("    return new")
    exec("\n".join(lines), env)
    _plans[cls] = env["copy"]
    return env["copy"]


def planner(cls: type) -> Copier:
    """The deep-copy function of the struct class ``cls``."""
    return _plan(cls)
