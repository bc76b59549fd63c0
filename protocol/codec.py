"""The two codecs, negotiated as WebSocket subprotocols (sans-I/O: bytes and str in, messages out).

- ``skirmish.v1.msgpack``: MessagePack in binary frames (the default);
- ``skirmish.v1.json``: JSON in text frames, for browsers and bots in other languages.

``decode_client`` turns a frame into a client message or raises ``ProtocolError`` with the
code that says what is wrong; the server answers it with an ``error`` message. Whatever the
frame holds, nothing else escapes it: a frame nesting arrays and maps deeper than ``MAX_DEPTH``
is ``protocol.malformed`` before it is decoded (decoding it would recurse that deep), and so is
a MessagePack string that is not UTF-8. A client string that breaks its field's rule (length,
characters: ``skirmish.protocol.messages``, "client strings") is ``protocol.invalid_field``, and the
message names the field and the rule.
"""

from __future__ import annotations

import itertools
import re
import typing

import msgspec

from skirmish.protocol.errors import ProtocolError
from skirmish.protocol.messages import CLIENT_TYPES, ClientMessage, ServerMessage

MSGPACK = "skirmish.v1.msgpack"
JSON = "skirmish.v1.json"
SUBPROTOCOLS = (MSGPACK, JSON)
MAX_DEPTH = 32  # arrays and maps inside one another in a client frame (a message needs 2)


def _field_rules() -> dict[tuple[str, str], str]:
    """(message type, field) -> the rule its value breaks, from the fields' ``Meta(description=...)``."""
    rules = {}
    for tag, cls in CLIENT_TYPES.items():
        for name, hint in typing.get_type_hints(cls, include_extras=True).items():
            for meta in getattr(hint, "__metadata__", ()):
                if isinstance(meta, msgspec.Meta) and meta.description:
                    rules[(tag, name)] = meta.description
    return rules


FIELD_RULES = _field_rules()
_PATH = re.compile(r"`\$\.(\w+)")


class Codec:
    name: str
    binary: bool

    def __init__(self):
        self._client = self._decoder(ClientMessage)
        self._server = self._decoder(ServerMessage)
        self._any = self._decoder(object)

    def encode(self, message) -> bytes | str:
        raise NotImplementedError

    def decode_client(self, frame: bytes | str) -> ClientMessage:
        return self._decode(frame, self._client)

    def decode_server(self, frame: bytes | str) -> ServerMessage:
        return self._decode(frame, self._server)

    def _decode(self, frame, decoder):
        if isinstance(frame, str) == self.binary:
            kind = "text" if isinstance(frame, str) else "binary"
            raise ProtocolError("protocol.malformed", f"{self.name} takes {'binary' if self.binary else 'text'} frames, not {kind}")
        if decoder is self._client and self.too_deep(frame):
            raise ProtocolError("protocol.malformed", f"arrays and maps nested deeper than {MAX_DEPTH}")
        try:
            return decoder.decode(frame)
        except msgspec.ValidationError as exc:
            raise self._explain(frame, exc) from None
        except (msgspec.DecodeError, UnicodeDecodeError) as exc:
            raise ProtocolError("protocol.malformed", f"not {self.name}: {exc}") from None
        except RecursionError:  # (a server frame: only client frames are measured first)
            raise ProtocolError("protocol.malformed", "arrays and maps nested too deep to decode") from None

    def _explain(self, frame, exc: msgspec.ValidationError) -> ProtocolError:
        """A typed decode failed: say whether the type is unknown or a field is wrong (naming the
        field and, for a client string, its rule)."""
        try:
            raw = self._any.decode(frame)
        except (msgspec.DecodeError, UnicodeDecodeError) as inner:  # e.g. a string that is not UTF-8
            return ProtocolError("protocol.malformed", f"not {self.name}: {inner}")
        except RecursionError:
            return ProtocolError("protocol.malformed", "arrays and maps nested too deep to decode")
        if not isinstance(raw, dict) or "type" not in raw:
            return ProtocolError("protocol.malformed", "a message is a map with a 'type' field")
        if raw["type"] not in CLIENT_TYPES and "`$.type`" in str(exc):
            return ProtocolError("protocol.unknown_type", f"unknown message type {raw['type']!r}")
        field = _PATH.search(str(exc))
        rule = FIELD_RULES.get((raw["type"], field.group(1))) if field and isinstance(raw["type"], str) else None
        if rule:
            return ProtocolError("protocol.invalid_field", f"{field.group(1)}: {rule} ({exc})")
        return ProtocolError("protocol.invalid_field", str(exc))

    def too_deep(self, frame) -> bool:
        """Whether ``frame`` nests arrays and maps deeper than ``MAX_DEPTH`` (checked without recursion)."""
        raise NotImplementedError


class MsgpackCodec(Codec):
    name, binary = MSGPACK, True

    def __init__(self):
        self._encoder = msgspec.msgpack.Encoder()
        super().__init__()

    def _decoder(self, kind):
        return msgspec.msgpack.Decoder(kind)

    def encode(self, message) -> bytes:
        return self._encoder.encode(message)

    def too_deep(self, frame: bytes) -> bool:
        # every level of nesting takes a container header byte: few of them, no need to walk
        if len(frame.translate(None, _NOT_CONTAINER)) <= MAX_DEPTH:
            return False
        return msgpack_depth_exceeds(frame, MAX_DEPTH)


class JsonCodec(Codec):
    name, binary = JSON, False

    def __init__(self):
        self._encoder = msgspec.json.Encoder()
        super().__init__()

    def _decoder(self, kind):
        return msgspec.json.Decoder(kind)

    def encode(self, message) -> str:
        return self._encoder.encode(message).decode()

    def too_deep(self, frame: str) -> bool:
        if frame.count("[") + frame.count("{") <= MAX_DEPTH:
            return False
        return json_depth_exceeds(frame, MAX_DEPTH)


# -- nesting depth, measured without recursion ----------------------------------------------------

_CONTAINER = bytes([*range(0x80, 0xA0), *range(0xDC, 0xE0)])  # fixmap, fixarray, array16/32, map16/32
_NOT_CONTAINER = bytes(b for b in range(256) if b not in _CONTAINER)
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
# MessagePack: bytes after the type byte that hold no items (fixed sizes); lengths read below
_FIXED = {0xC0: 0, 0xC2: 0, 0xC3: 0, 0xCA: 4, 0xCB: 8, 0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8, 0xD0: 1, 0xD1: 2,
          0xD2: 4, 0xD3: 8, 0xD4: 2, 0xD5: 3, 0xD6: 5, 0xD7: 9, 0xD8: 17}
_SIZED = {0xC4: (1, 0), 0xC5: (2, 0), 0xC6: (4, 0), 0xD9: (1, 0), 0xDA: (2, 0), 0xDB: (4, 0),
          0xC7: (1, 1), 0xC8: (2, 1), 0xC9: (4, 1)}  # bin, str, ext: (length bytes, type bytes)
_COLLECTIONS = {0xDC: (2, 1), 0xDD: (4, 1), 0xDE: (2, 2), 0xDF: (4, 2)}  # (length bytes, items per entry)


def json_depth_exceeds(text: str, limit: int) -> bool:
    """Whether JSON ``text`` opens more than ``limit`` arrays/objects inside one another (brackets
    inside strings do not count; malformed text is left to the decoder)."""
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    return max(itertools.accumulate(map(_STEP.__getitem__, brackets)), default=0) > limit


def msgpack_depth_exceeds(data: bytes, limit: int) -> bool:
    """Whether the MessagePack value at the start of ``data`` nests arrays/maps deeper than
    ``limit``: a walk over its type bytes with a stack, not a recursion. Malformed data is left to
    the decoder (False)."""
    n = len(data)
    pos = 0
    stack: list[int] = []  # items still to come in each enclosing container
    left = 1  # items still to come at this level
    while pos < n:
        b = data[pos]
        pos += 1
        count = -1  # the number of items if ``b`` starts an array or a map
        if b <= 0x7F or b >= 0xE0:
            pass
        elif b <= 0x8F:
            count = (b & 0x0F) * 2
        elif b <= 0x9F:
            count = b & 0x0F
        elif b <= 0xBF:
            pos += b & 0x1F
        elif b in _FIXED:
            pos += _FIXED[b]
        elif b in _SIZED:
            width, extra = _SIZED[b]
            pos += width + extra + int.from_bytes(data[pos:pos + width], "big")
        elif b in _COLLECTIONS:
            width, per = _COLLECTIONS[b]
            count = int.from_bytes(data[pos:pos + width], "big") * per
            pos += width
        else:  # 0xc1: never used
            return False
        left -= 1
        if count >= 0:
            if len(stack) >= limit:
                return True
            if count:
                stack.append(left)
                left = count
        while not left and stack:
            left = stack.pop()
        if not left:
            return False
    return False


def codec_for(subprotocol: str | None) -> Codec:
    """The codec of a negotiated subprotocol; none negotiated means MessagePack."""
    return JsonCodec() if subprotocol == JSON else MsgpackCodec()
