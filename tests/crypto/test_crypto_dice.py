"""Fair dice: commitments bind, the seed mixes everyone, derivation is uniform and pinned."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter

import pytest
from crypto_fixtures import GAME, secret, spec_encode

from dudo_p2p.crypto import (
    check_commitment,
    commit,
    derive_dice,
    public_draw,
    reveal_seed,
    round_seed,
)
from dudo_p2p.crypto.hashing import tagged_mac
from dudo_p2p.errors import InvalidValue

# Chi-square critical values at p = 0.001 (a fair source fails 1 time in 1000; the inputs
# are fixed, so the outcome is too).
CHI2_CRIT_DF5 = 20.515
CHI2_CRIT_DF35 = 66.619


def chi_square(counts: Counter[int] | Counter[tuple[int, int]], cells: int) -> float:
    total = sum(counts.values())
    expected = total / cells
    observed = list(counts.values()) + [0] * (cells - len(counts))
    return sum((o - expected) ** 2 / expected for o in observed)


# ---- commitments ---------------------------------------------------------------------------


def test_a_commitment_opens_with_its_own_value_only() -> None:
    key = secret("k0")
    c = commit("key", GAME, 3, 0, key)
    assert len(c) == 32
    assert check_commitment("key", GAME, 3, 0, key, c)
    assert not check_commitment("key", GAME, 3, 0, secret("changed my mind"), c)


def test_changing_the_key_after_committing_is_caught() -> None:
    committed = secret("k0")
    c = commit("key", GAME, 1, 2, committed)
    # A cheater who dislikes its dice tries every other key: none opens its commitment.
    for attempt in range(200):
        other = secret(f"other-{attempt}")
        assert not check_commitment("key", GAME, 1, 2, other, c)


def test_a_copied_commitment_does_not_verify_for_the_copiers_seat() -> None:
    victim_key = secret("victim")
    victim_commitment = commit("key", GAME, 1, 0, victim_key)
    # Seat 1 copies seat 0's commitment, then learns seat 0's key at the reveal.
    assert not check_commitment("key", GAME, 1, 1, victim_key, victim_commitment)
    assert check_commitment("key", GAME, 1, 0, victim_key, victim_commitment)


@pytest.mark.parametrize(
    ("kind", "game", "round_no", "seat"),
    [
        ("nonce", GAME, 1, 0),  # another kind
        ("key", bytes(16), 1, 0),  # another game
        ("key", GAME, 2, 0),  # another round
        ("key", GAME, 1, 1),  # another seat
    ],
)
def test_a_commitment_binds_kind_game_round_and_seat(
    kind: str, game: bytes, round_no: int, seat: int
) -> None:
    value = secret("v")
    c = commit("key", GAME, 1, 0, value)
    assert not check_commitment(kind, game, round_no, seat, value, c)  # type: ignore[arg-type]


def test_a_share_commitment_binds_its_subject() -> None:
    share = secret("s")
    c = commit("share", GAME, 1, 0, share, subject=2)
    assert check_commitment("share", GAME, 1, 0, share, c, subject=2)
    assert not check_commitment("share", GAME, 1, 0, share, c, subject=3)
    with pytest.raises(InvalidValue):
        commit("share", GAME, 1, 0, share)  # no subject
    with pytest.raises(InvalidValue):
        commit("share", GAME, 1, 0, share, subject=0)  # its own seat
    with pytest.raises(InvalidValue):
        commit("key", GAME, 1, 0, share, subject=1)


@pytest.mark.parametrize(
    "args",
    [
        ("key", GAME, 1, 0, b"short"),
        ("key", b"short-game", 1, 0, bytes(32)),
        ("key", GAME, -1, 0, bytes(32)),
        ("key", GAME, 1, True, bytes(32)),
        ("dice", GAME, 1, 0, bytes(32)),
    ],
)
def test_commit_refuses_malformed_input_and_check_says_false(args: tuple[object, ...]) -> None:
    with pytest.raises(InvalidValue):
        commit(*args)  # type: ignore[arg-type]
    assert check_commitment(*args, b"\x00" * 32) is False  # type: ignore[arg-type, call-arg]


def test_a_reveal_not_matching_its_commitment_is_detected() -> None:
    nonces = [secret(f"n{seat}") for seat in range(3)]
    commitments = [commit("nonce", GAME, 1, seat, n) for seat, n in enumerate(nonces)]
    revealed = [nonces[0], secret("swapped"), nonces[2]]
    verdicts = [
        check_commitment("nonce", GAME, 1, seat, value, commitments[seat])
        for seat, value in enumerate(revealed)
    ]
    assert verdicts == [True, False, True]


# ---- seed and derivation -------------------------------------------------------------------


def test_the_seed_depends_on_every_commitment_and_every_nonce_and_their_order() -> None:
    commitments = [secret(f"c{i}") for i in range(3)]
    nonces = [secret(f"n{i}") for i in range(3)]
    base = round_seed(GAME, 1, commitments, nonces)
    assert round_seed(GAME, 1, commitments, nonces) == base
    for i in range(3):
        assert (
            round_seed(GAME, 1, commitments, [*nonces[:i], secret("x"), *nonces[i + 1 :]]) != base
        )
        assert (
            round_seed(GAME, 1, [*commitments[:i], secret("x"), *commitments[i + 1 :]], nonces)
            != base
        )
    assert round_seed(GAME, 1, commitments[::-1], nonces) != base
    assert round_seed(GAME, 2, commitments, nonces) != base
    # Moving one item across the commitments/nonces split changes the seed.
    assert round_seed(GAME, 1, commitments + nonces[:1], nonces[1:]) != base


def reference_dice(
    key: bytes, game: bytes, round_no: int, seat: int, seed: bytes, count: int
) -> tuple[int, ...]:
    """protocol.md §3.4 re-implemented from the text alone (hmac + struct)."""

    dice: list[int] = []
    block = 0
    while len(dice) < count:
        mac = hmac.new(
            key, spec_encode("dudo-p2p/1/dice", game, round_no, seat, seed, block), hashlib.sha256
        )
        dice += [b % 6 + 1 for b in mac.digest() if b < 252]
        block += 1
    return tuple(dice[:count])


def test_derivation_matches_an_independent_implementation_of_the_spec() -> None:
    for i in range(50):
        key, seed = secret(f"k{i}"), secret(f"s{i}")
        count = i % 40  # up to 39 dice: needs a second HMAC block
        assert derive_dice(key, GAME, i, i % 6, seed, count) == reference_dice(
            key, GAME, i, i % 6, seed, count
        )


def test_derivation_is_bound_to_seat_round_game_seed_and_key() -> None:
    key, seed = secret("k"), secret("s")
    base = derive_dice(key, GAME, 1, 0, seed, 30)
    assert len(base) == 30 and set(base) <= {1, 2, 3, 4, 5, 6}
    assert derive_dice(key, GAME, 1, 0, seed, 30) == base
    assert derive_dice(key, GAME, 1, 0, seed, 5) == base[:5]
    for changed in (
        derive_dice(key, GAME, 1, 1, seed, 30),
        derive_dice(key, GAME, 2, 0, seed, 30),
        derive_dice(key, bytes(16), 1, 0, seed, 30),
        derive_dice(key, GAME, 1, 0, secret("s2"), 30),
        derive_dice(secret("k2"), GAME, 1, 0, seed, 30),
    ):
        assert changed != base


def test_a_million_derived_dice_pass_chi_square_per_face_and_per_pair() -> None:
    seed = secret("seed")
    faces: Counter[int] = Counter()
    pairs: Counter[tuple[int, int]] = Counter()
    for i in range(170_000):
        dice = derive_dice(i.to_bytes(32, "big"), GAME, 1, i % 6, seed, 6)
        faces.update(dice)
        pairs.update(zip(dice[::2], dice[1::2], strict=True))
    assert sum(faces.values()) == 1_020_000
    assert chi_square(faces, 6) < CHI2_CRIT_DF5
    assert chi_square(pairs, 36) < CHI2_CRIT_DF35  # consecutive dice are independent


def test_the_chi_square_check_catches_modulo_bias_of_the_same_stream() -> None:
    # Without the rejection of bytes >= 252, faces 1-4 are 43/256 likely, 5-6 42/256: the
    # statistic above must see that, or it proves nothing.
    biased: Counter[int] = Counter()
    for i in range(32_000):
        stream = tagged_mac(i.to_bytes(32, "big"), "dudo-p2p/1/dice", GAME, 1, 0, secret("s"), 0)
        biased.update(b % 6 + 1 for b in stream)
    assert chi_square(biased, 6) > CHI2_CRIT_DF5


# ---- public draws --------------------------------------------------------------------------


def test_public_draws_are_uniform_in_range_and_bound_to_label_and_index() -> None:
    seed = secret("seed")
    for n in (2, 5, 6):
        counts = Counter(public_draw(seed, "opener/0", i, n) for i in range(12_000))
        assert set(counts) == set(range(1, n + 1))
        crit = {2: 10.828, 5: 18.467, 6: CHI2_CRIT_DF5}[n]
        assert chi_square(counts, n) < crit
    sequence = [public_draw(seed, "spin", i, 6) for i in range(20)]
    assert [public_draw(seed, "spin", i, 6) for i in range(20)] == sequence
    assert [public_draw(seed, "opener/0", i, 6) for i in range(20)] != sequence
    assert public_draw(seed, "x", 0, 1) == 1


def test_public_draw_refuses_an_empty_range() -> None:
    with pytest.raises(InvalidValue):
        public_draw(secret("s"), "spin", 0, 0)


def test_the_reveal_seed_needs_every_key_in_order() -> None:
    seed = secret("seed")
    keys = [secret(f"k{i}") for i in range(4)]
    full = reveal_seed(seed, keys)
    assert full != seed
    assert reveal_seed(seed, keys[:3]) != full
    assert reveal_seed(seed, [keys[0], keys[1], keys[2], secret("guess")]) != full
    assert reveal_seed(seed, keys[::-1]) != full
