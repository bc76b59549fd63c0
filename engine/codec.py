"""MessagePack forms of events and states, and the stable state hash.

Encoding is deterministic (map keys sorted), so the same value always gives the same bytes:
that is what the state hash and the log's hash chain rest on. Decoding is typed: bytes that
are not a known event of the right shape raise ``msgspec.ValidationError`` / ``DecodeError``.
"""

from __future__ import annotations

import hashlib

import msgspec

from engine.events import AnyEvent, Event
from engine.model import State

EVENT_FORMAT = 1  # bump, and add an upcaster, when an event's stored shape changes

_encoder = msgspec.msgpack.Encoder(order="deterministic")
_event_decoder = msgspec.msgpack.Decoder(AnyEvent)
_state_decoder = msgspec.msgpack.Decoder(State)

DecodeError = (msgspec.DecodeError, msgspec.ValidationError)


def encode_event(event: Event) -> bytes:
    return _encoder.encode(event)


def decode_event(data: bytes) -> Event:
    return _event_decoder.decode(data)


def encode_state(state: State) -> bytes:
    return _encoder.encode(state)


def decode_state(data: bytes) -> State:
    return _state_decoder.decode(data)


def clone_state(state: State) -> State:
    """A deep copy: ``decide`` runs the rules forward on one, never on the caller's state."""
    return _state_decoder.decode(_encoder.encode(state))


def state_hash(state: State) -> str:
    """sha256 over the canonical MessagePack encoding of the whole state, hex."""
    return hashlib.sha256(_encoder.encode(state)).hexdigest()
