"""Fair dice: commitments, the round seed, dice derivation and public draws (protocol.md §3).

Every function is pure and deterministic. Secrets (dice keys, nonces, shares) are exactly
32 bytes, so a commitment hides them (256 bits of entropy) and binds the author to them.
A commitment binds the kind, game, round and author seat (and, for a share, its subject
seat): a copied commitment cannot be opened by the copier, and nothing replays across
rounds or games.
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence
from typing import Final, Literal

from dudo_p2p.crypto.hashing import tag, tagged_hash, tagged_mac
from dudo_p2p.errors import InvalidValue

SECRET_SIZE: Final = 32
GAME_ID_SIZE: Final = 16
MAX_DICE: Final = 64

CommitKind = Literal["key", "nonce", "share"]
COMMIT_TAGS: Final[dict[str, str]] = {
    "key": tag("commit-key"),
    "nonce": tag("commit-nonce"),
    "share": tag("commit-share"),
}
SEED_TAG: Final = tag("round-seed")
DICE_TAG: Final = tag("dice")
DRAW_TAG: Final = tag("public-draw")
REVEAL_SEED_TAG: Final = tag("reveal-seed")

# A byte b is kept when b < 252 = 6 * 42, so b % 6 is exactly uniform on 0..5.
_DIE_LIMIT: Final = 252


def validate_context(game_id: bytes, round_no: int, seat: int) -> None:
    """InvalidValue unless game_id is 16 bytes and round_no, seat are ints >= 0."""
    if not isinstance(game_id, bytes) or len(game_id) != GAME_ID_SIZE:
        raise InvalidValue(f"a game id is {GAME_ID_SIZE} bytes")
    if isinstance(round_no, bool) or not isinstance(round_no, int) or round_no < 0:
        raise InvalidValue("a round number is an int >= 0")
    if isinstance(seat, bool) or not isinstance(seat, int) or seat < 0:
        raise InvalidValue("a seat is an int >= 0")


def validate_secret(value: bytes, what: str) -> None:
    """InvalidValue (naming ``what``) unless ``value`` is exactly 32 bytes."""
    if not isinstance(value, bytes) or len(value) != SECRET_SIZE:
        raise InvalidValue(f"a {what} is {SECRET_SIZE} bytes")


def commit(
    kind: CommitKind,
    game_id: bytes,
    round_no: int,
    seat: int,
    value: bytes,
    *,
    subject: int | None = None,
) -> bytes:
    """The 32-byte commitment of ``seat`` to the 32-byte secret ``value``.

    ``tagged_hash("dudo-p2p/1/commit-<kind>", game_id, round_no, seat, value)``; a "share"
    commitment also binds its ``subject`` (the seat whose dice the share feeds) after
    ``seat``. Raises InvalidValue on a bad kind, size, or a subject given/missing wrongly.
    """
    domain = COMMIT_TAGS.get(kind)
    if domain is None:
        raise InvalidValue(f"unknown commitment kind {kind!r}")
    validate_context(game_id, round_no, seat)
    validate_secret(value, f"{kind} secret")
    if kind == "share":
        if subject is None or isinstance(subject, bool) or subject < 0 or subject == seat:
            raise InvalidValue("a share commitment needs a subject seat other than its author")
        return tagged_hash(domain, game_id, round_no, seat, subject, value)
    if subject is not None:
        raise InvalidValue(f"a {kind} commitment has no subject")
    return tagged_hash(domain, game_id, round_no, seat, value)


def check_commitment(
    kind: CommitKind,
    game_id: bytes,
    round_no: int,
    seat: int,
    value: bytes,
    commitment: bytes,
    *,
    subject: int | None = None,
) -> bool:
    """True when ``value`` opens ``commitment`` for this kind, game, round, seat (and subject).

    Never raises on peer data: a malformed value or commitment is simply False.
    """
    try:
        expected = commit(kind, game_id, round_no, seat, value, subject=subject)
    except InvalidValue:
        return False
    return isinstance(commitment, bytes) and hmac.compare_digest(expected, commitment)


def round_seed(
    game_id: bytes, round_no: int, commitments: Sequence[bytes], nonces: Sequence[bytes]
) -> bytes:
    """The round seed S: a tagged hash of every commitment then every revealed nonce.

    The caller passes them in the order protocol.md §3 fixes (seat order). Both counts are
    hashed, so the split between the two lists is unambiguous.
    """
    validate_context(game_id, round_no, 0)
    for nonce in nonces:
        validate_secret(nonce, "nonce")
    return tagged_hash(
        SEED_TAG, game_id, round_no, len(commitments), len(nonces), *commitments, *nonces
    )


def derive_dice(
    key: bytes, game_id: bytes, round_no: int, seat: int, seed: bytes, count: int
) -> tuple[int, ...]:
    """``count`` dice (1..6) for ``seat`` from its dice key and the round seed.

    Stream: block_j = HMAC-SHA256(key, encode("dudo-p2p/1/dice", game, round, seat, seed, j))
    for j = 0, 1, ...; each byte b < 252 gives a die b % 6 + 1, bytes >= 252 are skipped.
    """
    validate_context(game_id, round_no, seat)
    validate_secret(key, "dice key")
    validate_secret(seed, "round seed")
    if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_DICE:
        raise InvalidValue(f"a dice count is 0..{MAX_DICE}")
    dice: list[int] = []
    block = 0
    while len(dice) < count:
        stream = tagged_mac(key, DICE_TAG, game_id, round_no, seat, seed, block)
        dice.extend(b % 6 + 1 for b in stream if b < _DIE_LIMIT)
        block += 1
    return tuple(dice[:count])


def public_draw(seed: bytes, label: str, index: int, n: int) -> int:
    """A value uniform in 1..n that every peer computes alike from a public seed.

    Stream: HMAC-SHA256(seed, encode("dudo-p2p/1/public-draw", label, index, j)), read as
    big-endian 32-bit words; words >= 2**32 - 2**32 % n are skipped (no modulo bias).
    Labels: "opener/<attempt>" with index = seat (D2), "spin" with index 0 (V20).
    """
    validate_secret(seed, "draw seed")
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 2**31:
        raise InvalidValue("a public draw is over 1..n with 1 <= n <= 2**31")
    limit = 2**32 - 2**32 % n
    block = 0
    while True:
        stream = tagged_mac(seed, DRAW_TAG, label, index, block)
        for offset in range(0, len(stream), 4):
            word = int.from_bytes(stream[offset : offset + 4], "big")
            if word < limit:
                return word % n + 1
        block += 1


def reveal_seed(seed: bytes, revealed_keys: Sequence[bytes]) -> bytes:
    """Public randomness that exists only once every round key is revealed (the V20 spin).

    tagged_hash("dudo-p2p/1/reveal-seed", seed, len(keys), *keys), keys in seat order.
    Every key was committed before ``seed`` was known, so nobody could steer it, and nobody
    can compute it until the last key is out.
    """
    validate_secret(seed, "round seed")
    for key in revealed_keys:
        validate_secret(key, "dice key")
    return tagged_hash(REVEAL_SEED_TAG, seed, len(revealed_keys), *revealed_keys)
