"""The server seed is in no frame before the game ends; seat tokens and seeds are in no log line."""

from __future__ import annotations

import asyncio
import base64
import json
import random

from skirmish.engine.events import SeedRevealed
from skirmish.protocol import messages as m
from skirmish.protocol.codec import JSON, MSGPACK
from skirmish.server.game import decode_secret

from .helpers import RawClient, play, seated_pair


def encodings(secret: bytes) -> tuple[list[bytes], list[str]]:
    """Forms the seed could take in a binary frame and in a text frame."""
    texts = [secret.hex(), secret.hex().upper(), ",".join(str(x) for x in secret)]
    for shift in range(3):  # base64 of the seed at each alignment
        part = secret[shift:]
        for enc in (base64.b64encode, base64.urlsafe_b64encode):
            texts.append(enc(part).decode().rstrip("=")[4:])
        texts.append(base64.b32encode(part).decode().rstrip("=")[8:])
    texts.append(base64.b85encode(secret).decode())
    raw = [secret[i:i + 8] for i in range(0, len(secret) - 7)]  # any 8 bytes of it
    return raw + [t.encode() for t in texts], texts


def leaks(frame: bytes | str, raw: list[bytes], texts: list[str]) -> list:
    if isinstance(frame, bytes):
        return [r for r in raw if r in frame]
    return [t for t in texts if t in frame]


async def test_the_seed_is_in_no_frame_before_the_game_ends(server, capsys):
    a, b, sa, sb = await seated_pair(server.url, codecs=(MSGPACK, JSON))
    s1 = await RawClient.open(server.url, codec=MSGPACK, name="spec-mp")
    s2 = await RawClient.open(server.url, codec=JSON, name="spec-json")
    for s in (s1, s2):
        await s.call(m.Spectate(game_id=sa.game_id))
    rng = random.Random(11)
    await asyncio.gather(play(a, sa.game_id, "a", rng=rng), play(b, sa.game_id, "b", rng=rng),
                         s1.next_of(m.GameOverMsg), s2.next_of(m.GameOverMsg))
    secret = decode_secret(await server.store.load_secret(sa.game_id))
    raw, texts = encodings(secret.seed)
    for client in (a, b, s1, s2):
        reveal = next(i for i, msg in enumerate(client.msgs)
                      if isinstance(msg, m.EventMsg) and isinstance(msg.event, SeedRevealed))
        assert len(client.frames) == len(client.msgs) > reveal > 100
        for i, frame in enumerate(client.frames[:reveal]):
            assert not leaks(frame, raw, texts), (client.name, i, client.msgs[i])
        assert leaks(client.frames[reveal], raw, texts)  # the detector does see it where it is
        assert client.msgs[reveal].event.server_seed == secret.seed.hex()
        assert isinstance(client.msgs[reveal + 1], m.GameOverMsg) or isinstance(client.msgs[-1], m.GameOverMsg)
    for c in (a, b, s1, s2):
        await c.close()

    # no log line holds a seat token or the seed (it is only ever in the log of events)
    err = capsys.readouterr().err
    assert any(json.loads(line).get("event") == "command" for line in err.splitlines() if line.startswith("{"))
    for token in (sa.token, sb.token):
        assert token not in err
    for t in texts:
        assert t not in err
    # and the tokens are stored nowhere: only the key they are derived from, which no log shows
    stored = await server.store.load_secret(sa.game_id)
    assert sa.token.encode() not in stored and sb.token.encode() not in stored
    assert len(secret.token_key) == 32 and secret.token_key.hex() not in err
