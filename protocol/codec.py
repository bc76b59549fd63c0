"""The two codecs, negotiated as WebSocket subprotocols (sans-I/O: bytes and str in, messages out).

- ``skirmish.v1.msgpack``: MessagePack in binary frames (the default);
- ``skirmish.v1.json``: JSON in text frames, for browsers and bots in other languages.

``decode_client`` turns a frame into a client message or raises ``ProtocolError`` with the
code that says what is wrong; the server answers it with an ``error`` message.
"""

from __future__ import annotations

import msgspec

from protocol.errors import ProtocolError
from protocol.messages import CLIENT_TYPES, ClientMessage, ServerMessage

MSGPACK = "skirmish.v1.msgpack"
JSON = "skirmish.v1.json"
SUBPROTOCOLS = (MSGPACK, JSON)


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
        try:
            return decoder.decode(frame)
        except msgspec.ValidationError as exc:
            raise self._explain(frame, exc) from None
        except msgspec.DecodeError as exc:
            raise ProtocolError("protocol.malformed", f"not {self.name}: {exc}") from None

    def _explain(self, frame, exc: msgspec.ValidationError) -> ProtocolError:
        """A typed decode failed: say whether the type is unknown or a field is wrong."""
        try:
            raw = self._any.decode(frame)
        except msgspec.DecodeError as inner:
            return ProtocolError("protocol.malformed", str(inner))
        if not isinstance(raw, dict) or "type" not in raw:
            return ProtocolError("protocol.malformed", "a message is a map with a 'type' field")
        if raw["type"] not in CLIENT_TYPES and "`$.type`" in str(exc):
            return ProtocolError("protocol.unknown_type", f"unknown message type {raw['type']!r}")
        return ProtocolError("protocol.invalid_field", str(exc))


class MsgpackCodec(Codec):
    name, binary = MSGPACK, True

    def __init__(self):
        self._encoder = msgspec.msgpack.Encoder()
        super().__init__()

    def _decoder(self, kind):
        return msgspec.msgpack.Decoder(kind)

    def encode(self, message) -> bytes:
        return self._encoder.encode(message)


class JsonCodec(Codec):
    name, binary = JSON, False

    def __init__(self):
        self._encoder = msgspec.json.Encoder()
        super().__init__()

    def _decoder(self, kind):
        return msgspec.json.Decoder(kind)

    def encode(self, message) -> str:
        return self._encoder.encode(message).decode()


def codec_for(subprotocol: str | None) -> Codec:
    """The codec of a negotiated subprotocol; none negotiated means MessagePack."""
    return JsonCodec() if subprotocol == JSON else MsgpackCodec()
