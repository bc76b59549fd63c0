"""docs/replay-format.md is enough to write a verifier: here is one, written from the page alone.

``Verifier`` uses only ``hashlib``, ``hmac`` and ``msgspec`` (to read MessagePack): no engine or
server code. The game it checks is played and exported with the ``skirmish`` command; then the
verifier must pass the honest file, agree with ``skirmish verify --file`` on tampered copies
(naming the same first bad event), and reproduce every example value the page gives.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from pathlib import Path

import msgspec
import pytest

from skirmish.server import cli

DOC = Path(__file__).resolve().parents[2] / "docs" / "replay-format.md"
GAME = "g-doc"


# ---------------------------------------------------------------------------- the verifier (from the page)


class Bad(Exception):
    def __init__(self, n: int, problem: str):
        super().__init__(f"FAILED at event {n}: {problem}")
        self.n = n


def chain_hash(prev: bytes, game_id: str, n: int, event: bytes) -> bytes:
    return hashlib.sha256(prev + game_id.encode("utf-8") + b"\x00" + n.to_bytes(8, "big") + event).digest()


def client_seed_string(seeds: dict[str, str]) -> str:
    return ",".join(f"{seat}={seed}" for seat, seed in sorted(seeds.items()))


def roll(seed: bytes, client_seeds: str, nonce: int, sides: int, count: int) -> list[int]:
    w = 1 if sides <= 256 else 2
    r = 256 ** w
    limit = r - r % sides
    dice: list[int] = []
    cursor = 0
    while len(dice) < count:
        block = hmac.new(seed, f"{client_seeds}:{nonce}:{cursor}".encode("ascii"), hashlib.sha256).digest()
        for i in range(0, 32, w):
            x = int.from_bytes(block[i:i + w], "big")
            if x < limit and len(dice) < count:
                dice.append(x % sides + 1)
        cursor += 1
    return dice


def verify(data: bytes, expect_head: str | None = None) -> dict:
    """Section 6 of the page. Returns what it checked; raises ``Bad`` naming the first bad event."""
    top = msgspec.msgpack.decode(data)
    header, events = top[0], top[1]
    hashes = top[2] if len(top) > 2 else None
    assert header["format"] == "skirmish-replay" and header["version"] in (1, 2)
    game_id = header["game_id"]
    prev = bytes(32)
    for n, event in enumerate(events, start=1):
        prev = chain_hash(prev, game_id, n, event)
        if hashes is not None and (n > len(hashes) or hashes[n - 1] != prev):
            raise Bad(n, "hash chain broken")
    if header["events"] != len(events) or (hashes is not None and len(hashes) != len(events)):
        raise Bad(min(header["events"], len(events)) + 1, "count")
    if prev.hex() != header["head_hash"]:
        raise Bad(len(events), "head hash")
    if expect_head is not None and prev.hex() != expect_head:
        raise Bad(len(events), "not the announced head")

    decoded = []
    for n, event in enumerate(events, start=1):
        try:
            e = msgspec.msgpack.decode(event)
        except (msgspec.DecodeError, UnicodeDecodeError):
            raise Bad(n, "not an event") from None
        if not isinstance(e, dict) or not isinstance(e.get("type"), str):
            raise Bad(n, "not an event")
        decoded.append(e)
    first = decoded[0]
    if first["type"] != "GameCreated" or first["game_id"] != game_id:
        raise Bad(1, "not GameCreated of this game")
    checked = {"events": len(events), "rolls": 0, "seed": False, "head": prev.hex()}
    reveal = next(((n, e) for n, e in enumerate(decoded, start=1) if e["type"] == "SeedRevealed"), None)
    if first["dice"] != "fair" or reveal is None:
        if any(e["type"] == "GameEnded" for e in decoded) and first["dice"] == "fair":
            raise Bad(len(events) + 1, "finished without revealing the seed")
        return checked
    n, e = reveal
    seed = bytes.fromhex(e["server_seed"])
    if len(seed) != 32 or hashlib.sha256(seed).hexdigest() != first["commitment"]:
        raise Bad(n, "seed does not match the commitment")
    checked["seed"] = True
    seeds: dict[str, str] = {}
    rolled = False
    for n, e in enumerate(decoded, start=1):
        if e["type"] == "ClientSeedAdded":
            if rolled or e["seat"] in seeds:
                raise Bad(n, "client seed after a roll, or twice")
            seeds[e["seat"]] = e["seed"]
        elif e["type"] == "DiceRolled":
            rolled = True
            if roll(seed, client_seed_string(seeds), e["nonce"], e["sides"], len(e["results"])) != e["results"]:
                raise Bad(n, f"roll {e['nonce']}")
            checked["rolls"] += 1
    return checked


# ---------------------------------------------------------------------------- the game


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> bytes:
    folder = tmp_path_factory.mktemp("doc")
    db, file = folder / "games.sqlite", folder / "game.skirmish"
    assert cli.main(["match", "--seed", "11", "--game-id", GAME, "--db", str(db)]) == 0
    assert cli.main(["export", GAME, str(file), "--db", str(db)]) == 0
    return file.read_bytes()


def rechained(header: dict, events: list[bytes]) -> bytes:
    """What a dishonest exporter writes: the hashes and head recomputed over changed events."""
    prev, hashes = bytes(32), []
    for n, event in enumerate(events, start=1):
        prev = chain_hash(prev, header["game_id"], n, event)
        hashes.append(prev)
    return msgspec.msgpack.encode([{**header, "head_hash": prev.hex(), "events": len(events)}, events, hashes])


def skirmish_verify(tmp_path: Path, capsys, data: bytes, *extra: str) -> tuple[int, str]:
    file = tmp_path / "check.skirmish"
    file.write_bytes(data)
    capsys.readouterr()
    code = cli.main(["verify", "--file", str(file), *extra])
    return code, capsys.readouterr().out


def test_the_independent_verifier_passes_an_exported_game(exported, tmp_path, capsys) -> None:
    checked = verify(exported)
    assert checked["seed"] and checked["rolls"] > 10
    code, out = skirmish_verify(tmp_path, capsys, exported, "--expect-head", checked["head"])
    assert code == 0 and f"verify {GAME}: OK: {checked['events']} events" in out
    assert f"all {checked['rolls']} dice rolls recomputed" in out
    # unknown fields are ignored: in the header, and in an event (the chain is over the bytes as stored)
    header, events, hashes = msgspec.msgpack.decode(exported)
    assert verify(msgspec.msgpack.encode([{**header, "comment": "added"}, events, hashes]))["seed"]


def test_the_independent_verifier_names_the_same_bad_event_as_skirmish(exported, tmp_path, capsys) -> None:
    header, events, hashes = msgspec.msgpack.decode(exported)
    rolls = [n for n, e in enumerate(events, start=1) if msgspec.msgpack.decode(e)["type"] == "DiceRolled"]

    # one byte changed in an event, nothing else: the chain names it
    k = len(events) // 2
    flipped = list(events)
    flipped[k - 1] = flipped[k - 1][:-1] + bytes([flipped[k - 1][-1] ^ 1])
    tampered = msgspec.msgpack.encode([header, flipped, hashes])
    # a die changed, and every hash recomputed: only the dice can tell
    k2 = rolls[len(rolls) // 2]
    fields = msgspec.msgpack.decode(events[k2 - 1])
    fields["results"][0] = fields["results"][0] % fields["sides"] + 1
    forged = list(events)
    forged[k2 - 1] = msgspec.msgpack.encode(fields)  # same key order: type first, fields as declared
    # a client seed logged after the first roll
    late = list(events)
    late.insert(rolls[0], msgspec.msgpack.encode({"type": "ClientSeedAdded", "seat": "a", "seed": "late"}))

    for data, n in ((tampered, k), (rechained(header, forged), k2), (rechained(header, late), rolls[0] + 1)):
        with pytest.raises(Bad) as bad:
            verify(data)
        assert bad.value.n == n
        code, out = skirmish_verify(tmp_path, capsys, data)
        assert code == 1 and f"FAILED at event {n}:" in out, out

    # a consistent file that is not the log the server announced
    other = rechained(header, forged)
    with pytest.raises(Bad):
        verify(other, expect_head=header["head_hash"])
    code, out = skirmish_verify(tmp_path, capsys, other, "--expect-head", header["head_hash"])
    assert code == 1


# ---------------------------------------------------------------------------- the page's examples


def test_the_pages_examples_are_right() -> None:
    text = DOC.read_text()
    chain = re.search(r"event 1: ([0-9a-f]+)\nevent 2: ([0-9a-f]+)\nh_1 = ([0-9a-f]{64})\nh_2 = ([0-9a-f]{64})", text)
    assert chain, "the chain example is missing"
    e1, e2, h1, h2 = (bytes.fromhex(x) for x in chain.groups())
    assert "g-exämple" in text and "67 2d 65 78 c3 a4 6d 70 6c 65" in text
    assert "g-exämple".encode().hex(" ") == "67 2d 65 78 c3 a4 6d 70 6c 65"
    assert chain_hash(bytes(32), "g-exämple", 1, e1) == h1
    assert chain_hash(h1, "g-exämple", 2, e2) == h2
    assert msgspec.msgpack.decode(e1) == {"type": "ClientSeedAdded", "seat": "a", "seed": "alice"}
    assert list(msgspec.msgpack.decode(e2)) == ["type", "nonce", "sides", "results", "purpose", "unit", "target", "replaces"]

    seed = bytes(range(32))
    assert f"`{hashlib.sha256(seed).hexdigest()}`" in text
    assert roll(seed, "a=alice,b=bob", 0, 20, 10) == [2, 6, 18, 3, 16, 1, 16, 9, 16, 11]
    assert "`2, 6, 18, 3, 16, 1, 16, 9, 16, 11`" in text
    assert "`" + ", ".join(map(str, roll(seed, "", 0, 6, 5))) + "`" in text
    assert "`" + ", ".join(map(str, roll(seed, "a=alice", 7, 300, 3))) + "`" in text
    assert client_seed_string({"b": "bob", "a": "alice"}) == "a=alice,b=bob"


def test_the_page_agrees_with_the_engine() -> None:
    """The page's algorithm is the engine's (checked here, the only place engine code is used)."""
    from skirmish.engine.dice.fair import fair_roll
    from skirmish.engine.log import chain_hash as engine_chain_hash

    seed = bytes(range(32))
    for seeds, nonce, sides, count in (("a=x,b=y", 3, 6, 40), ("", 9, 256, 70), ("a=x", 1, 65536, 30), ("", 2, 257, 50)):
        assert roll(seed, seeds, nonce, sides, count) == list(fair_roll(seed, seeds, nonce, sides, count))
    assert chain_hash(b"\x01" * 32, "g-ü", 300, b"abc") == engine_chain_hash(b"\x01" * 32, "g-ü", 300, b"abc")
