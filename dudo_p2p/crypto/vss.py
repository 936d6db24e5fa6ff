"""Verifiable secret sharing of a dice key (protocol.md §3.7): a withheld key is recovered.

In a normal round of three or more live seats, seat i's dice key is a scalar ``x_i`` mod L
(32 bytes little-endian, what its ``commit`` commits to and its ``reveal`` opens). At COMMIT
it deals ``x_i`` to the other live seats with Shamir's scheme over the scalars mod L, degree
t - 1 with t = :func:`threshold` (a strict majority of the others), and publishes Feldman
commitments ``C_k = a_k·B`` to the polynomial's coefficients (``a_0 = x_i``):

- seat j's share is ``f_i(j + 1)``, sealed to j alone (§3.6's box, :func:`vss_context`);
  j checks it on receipt against the commitments (:func:`share_ok`), before the round seed
  exists: a dealer whose share does not check is caught then (its box, opened with the
  Diffie-Hellman value j proves by :mod:`~dudo_p2p.crypto.exchange_proof`, is the proof);
- a reveal must open ``C_0`` too (:func:`key_ok`), so the key a seat reveals and the key
  its shares rebuild are one key: withholding cannot pick between two hands;
- after a withheld reveal, every other seat publishes its share; any t checked shares
  rebuild ``x_i`` by Lagrange interpolation at 0 (:func:`recover`).

The other coefficients are derived from ``x_i`` (:func:`coefficients`), so a restarted seat
deals the very same shares again. Checks compare cofactor-cleared points (8P): a torsion
component in a commitment changes nothing a check accepts, so interpolation holds exactly
in the prime-order group. The products and sums are libsodium's (:mod:`~dudo_p2p.crypto.points`)
where an honest dealer's points make the check a plain equality; anything else is decided
by the reference arithmetic of :mod:`~dudo_p2p.crypto.edwards`. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from dudo_p2p.crypto import edwards as ed
from dudo_p2p.crypto import points as pt
from dudo_p2p.crypto.dice import validate_context
from dudo_p2p.crypto.hashing import encode_parts, tag, tagged_hash
from dudo_p2p.errors import InvalidValue

COEF_TAG: Final = tag("vss-coefficient")
VSS_CONTEXT_TAG: Final = tag("vss-context")
POINT_SIZE: Final = 32
MIN_SEATS: Final = 3  # with two seats the one other seat would hold the whole key


def threshold(others: int) -> int:
    """How many of ``others`` seats' shares rebuild a key: a strict majority of them."""
    return others // 2 + 1


def dealt_at(live: int) -> bool:
    """Whether a normal round with ``live`` seats deals its dice keys."""
    return live >= MIN_SEATS


def vss_context(game_id: bytes, round_no: int, dealer: int, recipient: int) -> bytes:
    """The context a key share is sealed under (§3.6 box): game, round, dealer, recipient."""
    for seat in (dealer, recipient):
        validate_context(game_id, round_no, seat)
    if dealer == recipient:
        raise InvalidValue("a dealer deals no share to itself")
    return encode_parts(VSS_CONTEXT_TAG, game_id, round_no, dealer, recipient)


def secret_key(random64: bytes) -> bytes:
    """A fresh dice key: a near-uniform scalar from 64 random bytes, as 32 bytes."""
    return ed.scalar_bytes(ed.wide_scalar(random64))


def coefficients(game_id: bytes, round_no: int, dealer: int, key: bytes, t: int) -> list[int]:
    """[x, a_1 .. a_{t-1}]: the key and coefficients derived from it (64 hashed bytes each)."""
    x = ed.scalar_of(key)
    if x is None:
        raise InvalidValue("a dealt dice key is a canonical scalar")
    coefs = [x]
    for k in range(1, t):
        wide = b"".join(
            tagged_hash(COEF_TAG, game_id, round_no, dealer, k, half, key) for half in (0, 1)
        )
        coefs.append(ed.wide_scalar(wide))
    return coefs


def commitments(coefs: Sequence[int]) -> tuple[bytes, ...]:
    """The Feldman commitments a_k·B, encoded."""
    return tuple(pt.base_times(a) for a in coefs)


def share_for(coefs: Sequence[int], seat: int) -> bytes:
    """Seat ``seat``'s share f(seat + 1), as 32 bytes."""
    z, value = seat + 1, 0
    for a in reversed(coefs):
        value = (value * z + a) % ed.L
    return ed.scalar_bytes(value)


def decode_commitments(encoded: Sequence[bytes]) -> list[ed.Point] | None:
    """The commitment points, or None if any is not a point's canonical encoding."""
    points = [ed.decode(c) for c in encoded]
    if not points or any(p is None for p in points):
        return None
    return [p for p in points if p is not None]


def share_ok(commitments: Sequence[bytes], seat: int, share: bytes) -> bool:
    """True when ``commitments`` are canonical encodings of points of the curve and
    ``share`` is seat ``seat``'s share of the polynomial they commit to:
    8·s·B == 8·Σ (seat+1)^k·C_k."""
    s = ed.scalar_of(share)
    if s is None or not commitments or not all(pt.canonical(c) for c in commitments):
        return False
    if _evaluate(commitments, seat + 1) == pt.base_times(s):
        return True  # the very point (so every C_k a point): what an honest dealer gives
    points = decode_commitments(commitments)  # anything else: the exact check
    return points is not None and _share_ok_points(points, seat, s)


def _evaluate(commitments: Sequence[bytes], z: int) -> bytes | None:
    """Σ z^k·C_k encoded (Horner: acc·z + C_k, z small), or None if some C_k is no point;
    every C_k passes through an addition, which checks it, unless there is only C_0."""
    acc: bytes | None = commitments[-1]
    for point in reversed(commitments[:-1]):
        acc = pt.times_small(z, acc) if acc is not None else None
        acc = pt.add(acc, point) if acc is not None else None
    return acc


def _share_ok_points(points: Sequence[ed.Point], seat: int, s: int) -> bool:
    """share_ok on decoded points, in the reference arithmetic."""
    z, acc = seat + 1, ed.IDENTITY
    for point in reversed(points):  # Horner: acc = acc·z + C_k (z is small)
        acc = ed.add(ed.mul(z, acc), point)
    return _equal_8(ed.mul_base(s), acc)


def key_ok(first: bytes, key: bytes) -> bool:
    """True when ``key`` is a canonical scalar x with 8·x·B == 8·C_0 (``first`` = C_0)."""
    x = ed.scalar_of(key)
    if x is None:
        return False
    if pt.base_times(x) == first:
        return True  # the very point an honest dealer committed to
    c0 = ed.decode(first)
    return c0 is not None and _equal_8(ed.mul_base(x), c0)


def _equal_8(p: ed.Point, q: ed.Point) -> bool:
    """8p == 8q; p == q first, which implies it (six doublings spared)."""
    return ed.equal(p, q) or ed.equal(ed.clear_cofactor(p), ed.clear_cofactor(q))


def recover(shares: Mapping[int, bytes], t: int) -> bytes:
    """The key the first ``t`` shares (by seat) rebuild: Lagrange at 0 over seat + 1.
    InvalidValue with fewer than t shares or a share that is not a scalar."""
    seats = sorted(shares)[:t]
    if len(seats) < t:
        raise InvalidValue(f"{t} shares rebuild a key, {len(seats)} given")
    xs = [s + 1 for s in seats]
    total = 0
    for s, xi in zip(seats, xs, strict=True):
        value = ed.scalar_of(shares[s])
        if value is None:
            raise InvalidValue("a share is a canonical scalar")
        num, den = 1, 1
        for xj in xs:
            if xj != xi:
                num = num * xj % ed.L
                den = den * (xj - xi) % ed.L
        total = (total + value * num * pow(den, -1, ed.L)) % ed.L
    return ed.scalar_bytes(total)
