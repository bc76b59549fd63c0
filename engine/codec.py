"""MessagePack forms of events and states, and the stable state hash.

Encoding is deterministic (map keys sorted), so the same value always gives the same bytes:
that is what the state hash and the log's hash chain rest on. Decoding is typed: bytes that
are not a known event of the right shape raise ``msgspec.ValidationError`` / ``DecodeError``.
"""

from __future__ import annotations

import hashlib
from typing import Callable

import msgspec

from skirmish.engine.clone import planner
from skirmish.engine.events import AnyEvent, Event
from skirmish.engine.model import State, Unit, Weapon

# -- upcasting: stored events of an older shape are read as today's events ----------------------
# The log is never rewritten: its hash chain covers the exact stored bytes, so ``skirmish.engine.verify``
# checks the chain on those bytes first and only then decodes them, upcasting on the way. When an
# event's stored shape changes (a field renamed, retyped, or added with no default that fits the
# old events), add to UPCASTERS under the event's tag a function from the older plain form (the
# MessagePack map, "type" included) to the next one. It must leave a map of today's shape as it is
# (it tells the shapes apart by their fields), since stored events carry no shape number; the
# functions of one tag run in order. tests/engine/test_upcast.py shows one at work.
Upcaster = Callable[[dict], dict]
UPCASTERS: dict[str, list[Upcaster]] = {}

_encoder = msgspec.msgpack.Encoder(order="deterministic")
_event_decoder = msgspec.msgpack.Decoder(AnyEvent)
_state_decoder = msgspec.msgpack.Decoder(State)

_clone_state = planner(State)

DecodeError = (msgspec.DecodeError, msgspec.ValidationError)


def encode_event(event: Event) -> bytes:
    return _encoder.encode(event)


def decode_event(data: bytes) -> Event:
    """The event stored as ``data``; ``msgspec.DecodeError``/``ValidationError`` for anything else.

    msgspec raises ``UnicodeDecodeError`` for a string that is not UTF-8: that is malformed
    input like any other, so it is raised as ``msgspec.DecodeError`` (one of ``DecodeError``)."""
    try:
        if not UPCASTERS:
            return _event_decoder.decode(data)
        try:
            event = _event_decoder.decode(data)
        except msgspec.ValidationError:  # an older shape that today's event does not take?
            return _upcast(data)
        if type(event).__struct_config__.tag in UPCASTERS:  # an older shape that decodes, but means another thing?
            return _upcast(data)
        return event
    except UnicodeDecodeError as exc:
        raise msgspec.DecodeError(f"a string is not valid UTF-8 ({exc.reason} at byte {exc.start} of the string)") from None


def _upcast(data: bytes) -> Event:
    """Decode ``data`` as a plain map, run its tag's upcasters and convert the result to an event
    (``ValidationError`` if it still is not one)."""
    plain = msgspec.msgpack.decode(data)
    if not isinstance(plain, dict) or plain.get("type") not in UPCASTERS:
        return _event_decoder.decode(data)  # raises the error the typed decoder gives
    for upcast in UPCASTERS[plain["type"]]:
        plain = upcast(plain)
    return msgspec.convert(plain, AnyEvent)


def encode_state(state: State) -> bytes:
    return _encoder.encode(state)


def decode_state(data: bytes) -> State:
    try:
        return _state_decoder.decode(data)
    except UnicodeDecodeError as exc:
        raise msgspec.DecodeError(f"a string is not valid UTF-8 ({exc.reason} at byte {exc.start} of the string)") from None


def clone_state(state: State) -> State:
    """A deep copy: ``decide`` runs the rules forward on one, never on the caller's state.

    Equal to a MessagePack round trip (``roundtrip_state``), in about a third of its time
    (``skirmish.engine.clone``)."""
    return _clone_state(state)


def roundtrip_state(state: State) -> State:
    """A deep copy by a MessagePack round trip: what ``clone_state`` must equal."""
    return _state_decoder.decode(_encoder.encode(state))


def state_hash(state: State) -> str:
    """sha256 over the canonical MessagePack encoding of the state, hex.

    The hash of every engine version so far (0.1.0, 0.2.0; ``skirmish.engine.versions``): the fields that
    ``Unit``, ``State`` and ``Weapon`` had at the first release are always hashed; a field added since is
    hashed only while it differs from its default, so the bytes hashed for a game that leaves it
    at its default are exactly those the engine hashed before it existed, and older logs'
    checkpoints still verify. The rules' version (``State.rules_version``) is left out:
    ``GameCreated`` fixes it."""
    return hashlib.sha256(_plain_encoder.encode(_hashed_form(state))).hexdigest()


# Struct fields in definition order, dicts sorted: the same bytes as ``_encoder`` gives the structs.
_plain_encoder = msgspec.msgpack.Encoder()

# The fields of the first release, always hashed. Frozen: a field added later needs no entry here
# (it replaces the list of late fields each module had to add its fields to).
_FIRST_RELEASE: dict[type, frozenset[str]] = {
    Unit: frozenset((
        "id", "side", "name", "stats", "stress_max", "stress", "resistance", "weapons", "x", "y", "kind", "tier",
        "focuses", "points", "commander", "prone", "injury", "dead", "stabilised", "avoid_available", "acted",
        "stowed", "guarding", "readied", "assisted_by", "recovered", "exposed", "directed")),
    State: frozenset((
        "game_id", "mission", "board", "units", "rounds", "objectives", "items", "midline_points", "dice",
        "commitment", "client_seeds", "seats", "revealed_seed", "seq", "next_nonce", "next_decision", "started",
        "round", "phase", "to_act", "kept_initiative", "momentum", "threat", "turn", "stack", "pending",
        "outcome")),
    Weapon: frozenset(("name", "kind", "damage", "qualities")),
}


def _later_defaults(cls: type) -> dict[str, object]:
    """The default (as plain data) of each field of ``cls`` added after the first release."""
    out = {}
    for f in msgspec.structs.fields(cls):
        if f.name in _FIRST_RELEASE[cls] or (f.default is msgspec.NODEFAULT and f.default_factory is msgspec.NODEFAULT):
            continue
        out[f.name] = msgspec.to_builtins(f.default_factory() if f.default is msgspec.NODEFAULT else f.default)
    return out


_UNIT_LATER = _later_defaults(Unit)
_STATE_LATER = _later_defaults(State)
_WEAPON_LATER = _later_defaults(Weapon)


def _strip(plain: dict, defaults: dict[str, object]) -> dict:
    for name, default in defaults.items():
        if name in plain and plain[name] == default:
            del plain[name]
    return plain


def _hashed_form(state: State):
    plain = msgspec.to_builtins(state, order="deterministic")
    del plain["rules_version"]  # fixed by GameCreated, which the chain covers (skirmish.engine.versions)
    for unit in plain["units"].values():
        _strip(unit, _UNIT_LATER)
        if _WEAPON_LATER:
            for weapon in unit["weapons"]:
                _strip(weapon, _WEAPON_LATER)
    if _WEAPON_LATER:
        for item in plain["items"].values():
            if item.get("weapon"):
                _strip(item["weapon"], _WEAPON_LATER)
    return _strip(plain, _STATE_LATER)
