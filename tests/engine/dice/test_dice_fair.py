"""The provably fair algorithm: known answers, an independent reimplementation, uniformity,
verification from the revealed seed, and the checks on seeds."""

from __future__ import annotations

import collections
import hashlib
import hmac
import math
import random
from collections.abc import Iterator

import pytest

from skirmish.engine.dice import ProvablyFairDice, fair_roll, verify_commitment
from skirmish.engine.dice.fair import canonical_client_seeds

SEED = bytes(range(32))
CLIENT = "a=alice,b=bob"


# --- an independent reimplementation, straight from the spec ----------------------------------


def reference_stream(server_seed: bytes, client_seeds: str, nonce: int) -> Iterator[int]:
    """The roll's byte stream, one HMAC per block, byte by byte."""
    cursor = 0
    while True:
        message = client_seeds + ":" + str(nonce) + ":" + str(cursor)
        yield from hmac.new(server_seed, message.encode("ascii"), hashlib.sha256).digest()
        cursor += 1


def reference_roll(server_seed: bytes, client_seeds: str, nonce: int, sides: int, count: int) -> tuple[int, ...]:
    width = 1 if sides <= 256 else 2
    limit = 256**width - (256**width) % sides
    stream = reference_stream(server_seed, client_seeds, nonce)
    dice: list[int] = []
    while len(dice) < count:
        value = 0
        for _ in range(width):
            value = value * 256 + next(stream)
        if value < limit:
            dice.append(value % sides + 1)
    return tuple(dice)


# --- known answers ----------------------------------------------------------------------------


def test_the_vector_published_in_the_module_docstring() -> None:
    import skirmish.engine.dice.fair as fair

    expected = (2, 6, 18, 3, 16, 1, 16, 9, 16, 11)
    assert fair_roll(SEED, CLIENT, 0, 20, 10) == expected
    assert reference_roll(SEED, CLIENT, 0, 20, 10) == expected
    assert str(expected) in " ".join(fair.__doc__.split())


@pytest.mark.parametrize(
    "client, nonce, sides, count, expected",
    [
        # frozen outputs, so that the implementation and the reference cannot drift together
        ("", 0, 6, 8, (1, 6, 5, 3, 3, 6, 5, 3)),
        (CLIENT, 1, 1000, 4, (441, 783, 194, 891)),
        (CLIENT, 12345, 65536, 3, (35890, 39011, 3172)),
        (CLIENT, 2, 256, 5, (69, 213, 13, 194, 162)),
    ],
)
def test_frozen_vectors(client: str, nonce: int, sides: int, count: int, expected: tuple[int, ...]) -> None:
    assert fair_roll(SEED, client, nonce, sides, count) == expected
    assert reference_roll(SEED, client, nonce, sides, count) == expected


def test_matches_the_reference_over_many_nonces_and_dice() -> None:
    rng = random.Random(2024)
    sides_pool = [2, 3, 4, 5, 6, 7, 8, 10, 12, 20, 30, 100, 128, 200, 255, 256, 257, 300, 1000, 4096, 6000, 65535, 65536]
    for case in range(4000):
        seed = rng.randbytes(32)
        client = rng.choice(["", "a=x", CLIENT, "a=" + "z" * 64 + ",b= !~"])
        nonce = rng.choice([case, rng.randrange(10**12)])
        sides = rng.choice(sides_pool + [rng.randrange(2, 65537)])
        count = rng.choice([1, 2, 3, 17, 33, 100, 1000] if case % 50 == 0 else [1, 2, 3, 17, 33, 100])
        expected = reference_roll(seed, client, nonce, sides, count)
        assert fair_roll(seed, client, nonce, sides, count) == expected, (seed.hex(), client, nonce, sides, count)
        if client == CLIENT:
            assert ProvablyFairDice(seed, {"b": "bob", "a": "alice"}).roll(nonce, sides, count) == expected


# --- rejection sampling -----------------------------------------------------------------------


@pytest.mark.parametrize("sides", [6, 20, 1000])
def test_rejected_candidates_are_skipped(sides: int) -> None:
    """Find a roll whose first candidate is rejected: its die is the next accepted candidate."""
    width = 1 if sides <= 256 else 2
    limit = 256**width - (256**width) % sides
    for nonce in range(100_000):
        stream = reference_stream(SEED, CLIENT, nonce)
        candidates = [int.from_bytes(bytes(next(stream) for _ in range(width)), "big") for _ in range(8)]
        if candidates[0] >= limit and candidates[1] < limit:
            break
    else:
        pytest.fail(f"no nonce rejects the first candidate of a d{sides}")
    die = fair_roll(SEED, CLIENT, nonce, sides, 1)
    assert die == (candidates[1] % sides + 1,)
    assert die == reference_roll(SEED, CLIENT, nonce, sides, 1)
    accepted = [c % sides + 1 for c in candidates if c < limit]
    assert fair_roll(SEED, CLIENT, nonce, sides, len(accepted)) == tuple(accepted)


def test_a_roll_reads_on_into_the_next_blocks() -> None:
    stream = reference_stream(SEED, CLIENT, 5)
    accepted = [b % 6 + 1 for b in (next(stream) for _ in range(32 * 40)) if b < 252]
    assert len(accepted) >= 1000
    assert fair_roll(SEED, CLIENT, 5, 6, 1000) == tuple(accepted[:1000])


# --- uniformity: a chi-square test that can fail --------------------------------------------

# Upper 0.1% points of the chi-square distribution, from the NIST/SEMATECH e-Handbook of
# Statistical Methods, section 1.3.6.7.4 (Critical Values of the Chi-Square Distribution);
# checked against a numerical inversion of the regularized incomplete gamma function.
CHI2_999 = {5: 20.515, 11: 31.264, 19: 43.820}


def wilson_hilferty_999(df: int) -> float:
    """The Wilson-Hilferty approximation of the 0.999 quantile of chi-square with ``df`` degrees."""
    z = 3.090232306167813  # the standard normal 0.999 quantile
    a = 2 / (9 * df)
    return df * (1 - a + z * math.sqrt(a)) ** 3


def chi2_critical_999(df: int) -> float:
    """The 0.999 quantile of chi-square with ``df`` degrees of freedom (tabulated, else Wilson-Hilferty)."""
    return CHI2_999[df] if df in CHI2_999 else wilson_hilferty_999(df)


def chi2_statistic(results: list[int], sides: int) -> float:
    counts = collections.Counter(results)
    assert set(counts) <= set(range(1, sides + 1)), "results out of range"
    expected = len(results) / sides
    return sum((counts.get(face, 0) - expected) ** 2 / expected for face in range(1, sides + 1))


def looks_uniform(results: list[int], sides: int) -> bool:
    """Whether a chi-square test at significance 0.001 accepts ``results`` as a fair d``sides``."""
    return chi2_statistic(results, sides) < chi2_critical_999(sides - 1)


def test_wilson_hilferty_is_close_to_the_table() -> None:
    for df, tabulated in CHI2_999.items():
        assert abs(wilson_hilferty_999(df) - tabulated) / tabulated < 0.015
    assert abs(wilson_hilferty_999(999) - 1142.848) < 0.1  # numerical inversion, as above


@pytest.mark.parametrize(
    "sides, rolls, per_roll",
    [(6, 1000, 100), (12, 1000, 100), (20, 1000, 100), (20, 100_000, 1), (1000, 1000, 100)],
)
def test_fair_dice_are_uniform(sides: int, rolls: int, per_roll: int) -> None:
    dice = ProvablyFairDice(hashlib.sha256(b"chi-square").digest(), {"a": "alice", "b": "bob"})
    results = [x for nonce in range(rolls) for x in dice.roll(nonce, sides, per_roll)]
    assert len(results) == 100_000
    stat = chi2_statistic(results, sides)
    assert stat < chi2_critical_999(sides - 1), f"chi-square {stat:.1f} for d{sides}"


def test_modulo_bias_fails_the_same_test() -> None:
    """d20 as ``byte % 20 + 1`` without rejection: faces 1..16 come up 13/256, 17..20 12/256."""
    stream = reference_stream(hashlib.sha256(b"chi-square").digest(), CLIENT, 0)
    biased = [next(stream) % 20 + 1 for _ in range(100_000)]
    assert not looks_uniform(biased, 20)


def test_a_loaded_die_fails_the_same_test() -> None:
    """A d6 whose six is 10% more likely than each other face."""
    rng = random.Random(6)
    loaded = rng.choices(range(1, 7), weights=[1, 1, 1, 1, 1, 1.1], k=100_000)
    assert not looks_uniform(loaded, 6)
    assert looks_uniform(rng.choices(range(1, 7), k=100_000), 6)  # same helper, fair die: passes


# --- commit, play, reveal, verify -------------------------------------------------------------


def test_the_revealed_seed_reproduces_every_roll() -> None:
    dice = ProvablyFairDice.new({"b": "bob's seed"}).with_client_seed("a", "alice #1")
    published_commitment = dice.commitment  # before the first roll
    plays = [(6, 2), (20, 1), (6, 10), (12, 3), (100, 1), (1000, 2), (256, 4), (20, 40)] * 25
    events = [(nonce, sides, count, dice.roll(nonce, sides, count)) for nonce, (sides, count) in enumerate(plays)]

    # The verifier knows only what was published, revealed and logged.
    revealed = bytes.fromhex(dice.server_seed_hex)
    client_seeds = dice.canonical_client_seeds
    assert client_seeds == "a=alice #1,b=bob's seed"
    assert verify_commitment(revealed, published_commitment)
    for nonce, sides, count, results in events:
        assert fair_roll(revealed, client_seeds, nonce, sides, count) == results
        assert reference_roll(revealed, client_seeds, nonce, sides, count) == results


def test_commitment() -> None:
    dice = ProvablyFairDice(SEED)
    assert dice.commitment == hashlib.sha256(SEED).hexdigest()
    assert dice.server_seed_hex == SEED.hex()
    assert verify_commitment(SEED, dice.commitment)
    assert verify_commitment(SEED, dice.commitment.upper())
    assert not verify_commitment(bytes(32), dice.commitment)
    assert not verify_commitment(SEED, dice.commitment[:-1] + ("0" if dice.commitment[-1] != "0" else "1"))
    assert not verify_commitment(SEED, dice.commitment[:-2])
    assert not verify_commitment(SEED[:31], hashlib.sha256(SEED[:31]).hexdigest())
    assert not verify_commitment(SEED, "é" * 64)


def test_new_draws_a_fresh_seed_and_hides_it_from_repr() -> None:
    first, second = ProvablyFairDice.new(), ProvablyFairDice.new({"a": "x"})
    assert first.commitment != second.commitment
    assert second.client_seeds == {"a": "x"}
    assert first.server_seed_hex not in repr(first)
    assert first.commitment in repr(first)


# --- every input matters ----------------------------------------------------------------------


def test_client_seed_nonce_and_server_seed_each_change_the_stream() -> None:
    base = fair_roll(SEED, CLIENT, 7, 20, 50)
    assert fair_roll(SEED, "a=alice,b=bob2", 7, 20, 50) != base
    assert fair_roll(SEED, "", 7, 20, 50) != base
    assert fair_roll(SEED, CLIENT, 8, 20, 50) != base
    assert fair_roll(bytes(31) + b"\x01", CLIENT, 7, 20, 50) != base
    assert fair_roll(SEED, CLIENT, 7, 20, 50) == base


def test_client_seeds_are_combined_canonically() -> None:
    assert canonical_client_seeds(None) == canonical_client_seeds({}) == ""
    assert canonical_client_seeds({"b": "2", "a": "1"}) == "a=1,b=2"
    added = ProvablyFairDice(SEED).with_client_seed("b", "bob").with_client_seed("a", "alice")
    assert added.canonical_client_seeds == CLIENT
    assert added.roll(3, 20, 5) == ProvablyFairDice(SEED, {"a": "alice", "b": "bob"}).roll(3, 20, 5)


# --- refused inputs ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [b"", bytes(31), bytes(33), bytes(64)])
def test_server_seed_must_be_32_bytes(seed: bytes) -> None:
    with pytest.raises(ValueError, match=f"32 bytes, got {len(seed)}"):
        ProvablyFairDice(seed)
    with pytest.raises(ValueError, match="server_seed"):
        fair_roll(seed, "", 0, 6, 1)


def test_server_seed_must_be_bytes() -> None:
    with pytest.raises(TypeError, match="server_seed"):
        ProvablyFairDice(SEED.hex())  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "seat, seed, message",
    [
        ("a", "x" * 65, "longer than 64"),
        ("a", "has:colon", "':'"),
        ("a", "has,comma", "','"),
        ("a", "new\nline", "not printable ASCII"),
        ("a", "caf\u00e9", "not printable ASCII"),
        ("a=b", "x", "'='"),
        ("", "x", "seat name must not be empty"),
    ],
)
def test_invalid_client_seeds_are_refused(seat: str, seed: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ProvablyFairDice(SEED, {seat: seed})
    with pytest.raises(ValueError, match=message):
        ProvablyFairDice(SEED).with_client_seed(seat, seed)


def test_valid_client_seed_edge_cases() -> None:
    dice = ProvablyFairDice(SEED, {"a": "~" * 64, "b": "", "c": " spaced = out "})
    assert dice.canonical_client_seeds == "a=" + "~" * 64 + ",b=,c= spaced = out "


def test_a_seat_gets_one_client_seed_before_the_first_roll() -> None:
    dice = ProvablyFairDice(SEED, {"a": "alice"})
    with pytest.raises(ValueError, match="seat 'a' already has a client seed"):
        dice.with_client_seed("a", "again")
    dice.roll(0, 6, 1)
    with pytest.raises(RuntimeError, match="already rolled"):
        dice.with_client_seed("b", "bob")


def test_fair_roll_refuses_a_non_canonical_client_string() -> None:
    with pytest.raises(ValueError, match="client_seeds"):
        fair_roll(SEED, "a=x:1", 0, 6, 1)
