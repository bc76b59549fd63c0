"""Wire messages and codecs (sans-I/O). See docs/protocol.md."""

from protocol.codec import JSON, MSGPACK, SUBPROTOCOLS, Codec, JsonCodec, MsgpackCodec, codec_for
from protocol.errors import CODES, ProtocolError
from protocol.messages import PROTOCOL_VERSION

__all__ = ["JSON", "MSGPACK", "SUBPROTOCOLS", "Codec", "JsonCodec", "MsgpackCodec", "codec_for", "CODES",
           "ProtocolError", "PROTOCOL_VERSION"]
