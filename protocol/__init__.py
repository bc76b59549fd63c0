"""Wire messages and codecs (sans-I/O). See docs/protocol.md."""

from skirmish.protocol.codec import JSON, MSGPACK, SUBPROTOCOLS, Codec, JsonCodec, MsgpackCodec, codec_for
from skirmish.protocol.errors import CODES, ProtocolError
from skirmish.protocol.messages import PROTOCOL_VERSION

__all__ = ["JSON", "MSGPACK", "SUBPROTOCOLS", "Codec", "JsonCodec", "MsgpackCodec", "codec_for", "CODES",
           "ProtocolError", "PROTOCOL_VERSION"]
