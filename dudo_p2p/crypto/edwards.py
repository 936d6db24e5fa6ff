"""Edwards25519 group arithmetic in pure Python, for verifiable secret sharing (protocol.md §3.7).

Feldman commitments and the proof of a Diffie-Hellman value need point arithmetic, which
``cryptography`` does not expose. This module is the exact reference of that arithmetic:
:mod:`~dudo_p2p.crypto.points` computes the hot cases (base products, sums of encoded
points) by libsodium, byte for byte as here, and falls back on this module for the rest
(torsion components, anything a cheat sends) and the exchange proof. This is the
group of RFC 8032 §5.1 (twisted Edwards, a = -1, base point B of prime order ``L``), in
extended coordinates (X, Y, Z, T) with x = X/Z, y = Y/Z, xy = T/Z, and its encodings:

- a point is 32 bytes: y little-endian with the sign of x in the top bit (RFC 8032
  §5.1.2); :func:`decode` refuses a non-canonical y or a sign bit on x = 0;
- a scalar is an int mod ``L``, 32 bytes little-endian when sent (:func:`scalar_bytes`).

Not constant time: it handles secrets (a dice key's polynomial, a seat's X25519 scalar in
a proof) only inside one process, whose timing a peer cannot measure finely over a LAN
frame that leaves seconds later. Pure: integers only.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Final

P: Final = 2**255 - 19
L: Final = 2**252 + 27742317777372353535851937790883648493  # the order of B
D: Final = -121665 * pow(121666, P - 2, P) % P
_SQRT_M1: Final = pow(2, (P - 1) // 4, P)

Point = tuple[int, int, int, int]
IDENTITY: Final[Point] = (0, 1, 1, 0)
_BY: Final = 4 * pow(5, P - 2, P) % P


def _recover_x(y: int, sign: int) -> int | None:
    """x with x^2 = (y^2 - 1) / (d y^2 + 1) and the given low bit, or None (RFC 8032
    §5.1.3: the square root and the division in one exponentiation,
    x = u v^3 (u v^7)^((p-5)/8), the dominant cost of decoding a point)."""
    if y >= P:
        return None
    yy = y * y % P
    u = (yy - 1) % P
    v = (D * yy + 1) % P  # never 0: d is not a square mod p
    v3 = v * v % P * v % P
    x = u * v3 % P * pow(u * v3 % P * v3 % P * v % P, (P - 5) // 8, P) % P
    vxx = v * x % P * x % P
    if vxx != u:
        if vxx != P - u:
            return None  # u / v is not a square: no point has this y
        x = x * _SQRT_M1 % P
    if x == 0:
        return None if sign else 0
    if (x & 1) != sign:
        x = P - x
    return x


_BX: Final = _recover_x(_BY, 0)
assert _BX is not None
B: Final[Point] = (_BX, _BY, 1, _BX * _BY % P)


def add(p: Point, q: Point) -> Point:
    """p + q (the unified formula: valid for p == q and the identity too)."""
    a = (p[1] - p[0]) * (q[1] - q[0]) % P
    b = (p[1] + p[0]) * (q[1] + q[0]) % P
    c = 2 * p[3] * q[3] * D % P
    d = 2 * p[2] * q[2] % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def double(p: Point) -> Point:
    """2p (dbl-2008-hwcd for a = -1)."""
    a = p[0] * p[0] % P
    b = p[1] * p[1] % P
    c = 2 * p[2] * p[2] % P
    h = a + b
    e = h - (p[0] + p[1]) * (p[0] + p[1]) % P
    g = a - b
    f = c + g
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def neg(p: Point) -> Point:
    return ((P - p[0]) % P, p[1], p[2], (P - p[3]) % P)


def mul(k: int, p: Point) -> Point:
    """k·p for an int k >= 0 (double and add; k is not reduced: k = L checks the order)."""
    if k < 0:
        raise ValueError("a scalar is >= 0")
    result = IDENTITY
    for bit in bin(k)[2:]:
        result = double(result)
        if bit == "1":
            result = add(result, p)
    return result


# mul_base's table: row i holds j·64^i·B for j = 1 .. 32 in affine "Niels" form
# (y + x, y - x, 2·d·x·y), so that adding one costs 7 multiplications (madd-2008-hwcd-3)
# instead of 9, and a scalar, in 43 signed base-64 digits (-32 .. 32), takes at most 43
# additions. 1,376 points, built once per process on first use (a few ms: a bigger window
# would save additions but cost more to build than a game's few hundred products repay).
_WINDOW: Final = 6
_ROWS: Final = 43  # 64^43 > 2·L: the signed digits of any k < L fit (the top one <= 2)
_HALF: Final = 1 << (_WINDOW - 1)
_MASK: Final = (1 << _WINDOW) - 1
Niels = tuple[int, int, int]


@cache
def _base_table() -> tuple[tuple[Niels, ...], ...]:
    points: list[Point] = []
    start = B
    for _ in range(_ROWS):
        row = [start]
        for _ in range(_HALF - 1):
            row.append(add(row[-1], start))
        points.extend(row)
        start = double(row[-1])  # 64·start = 2·(32·start)
    zinvs = _batch_inverse([p[2] for p in points])
    d2 = 2 * D % P
    niels = []
    for (x, y, _, _), zinv in zip(points, zinvs, strict=True):
        x, y = x * zinv % P, y * zinv % P
        niels.append(((y + x) % P, (y - x) % P, d2 * x % P * y % P))
    return tuple(tuple(niels[i * _HALF:(i + 1) * _HALF]) for i in range(_ROWS))


def _batch_inverse(values: list[int]) -> list[int]:
    """1/v mod P for every v (none 0), with one exponentiation (Montgomery's trick)."""
    prefix = [1]
    for v in values:
        prefix.append(prefix[-1] * v % P)
    inv = pow(prefix[-1], P - 2, P)
    out = [0] * len(values)
    for i in range(len(values) - 1, -1, -1):
        out[i] = inv * prefix[i] % P
        inv = inv * values[i] % P
    return out


def _add_niels(p: Point, q: Niels) -> Point:
    """p + q for q in affine Niels form (the unified mixed addition, a = -1)."""
    a = (p[1] - p[0]) * q[1] % P
    b = (p[1] + p[0]) * q[0] % P
    c = p[3] * q[2] % P
    d = 2 * p[2]
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def mul_base(k: int) -> Point:
    """(k mod L)·B, by a fixed table of base multiples (signed base-64 digits)."""
    k %= L
    table = _base_table()
    result = IDENTITY
    i = 0
    while k:
        digit = k & _MASK
        k >>= _WINDOW
        if digit > _HALF:  # digit - 64, and carry one into the next digit
            digit -= 1 << _WINDOW
            k += 1
        if digit > 0:
            result = _add_niels(result, table[i][digit - 1])
        elif digit < 0:
            yp, ym, t2d = table[i][-digit - 1]
            result = _add_niels(result, (ym, yp, P - t2d))  # -(x, y) = (-x, y)
        i += 1
    return result


def equal(p: Point, q: Point) -> bool:
    return (p[0] * q[2] - q[0] * p[2]) % P == 0 and (p[1] * q[2] - q[1] * p[2]) % P == 0


def clear_cofactor(p: Point) -> Point:
    """8p: the component of p in the prime-order subgroup, times 8."""
    return double(double(double(p)))


def torsion_free(p: Point) -> bool:
    """True when p lies in the subgroup of order L generated by B."""
    return equal(mul(L, p), IDENTITY)


def encode(p: Point) -> bytes:
    """The 32-byte encoding of p (RFC 8032 §5.1.2)."""
    zinv = pow(p[2], P - 2, P)
    x, y = p[0] * zinv % P, p[1] * zinv % P
    return (y | (x & 1) << 255).to_bytes(32, "little")


def encode_many(points: list[Point]) -> list[bytes]:
    """``[encode(p) for p in points]`` with one inversion for them all (Montgomery's trick:
    a dealer's commitments are encoded together)."""
    out = []
    for (x, y, _, _), zinv in zip(points, _batch_inverse([p[2] for p in points]), strict=True):
        x, y = x * zinv % P, y * zinv % P
        out.append((y | (x & 1) << 255).to_bytes(32, "little"))
    return out


def decode(data: bytes) -> Point | None:
    """The point ``data`` encodes, or None for anything but a canonical 32-byte encoding
    of a point of the curve."""
    if not isinstance(data, bytes) or len(data) != 32:
        return None
    return _decode(data)


@lru_cache(maxsize=1024)
def _decode(data: bytes) -> Point | None:
    # cached: each commitment is decoded when its shares are checked and again when the
    # key it commits to is revealed, and decoding is a modular exponentiation
    value = int.from_bytes(data, "little")
    y, sign = value & ((1 << 255) - 1), value >> 255
    x = _recover_x(y, sign)
    if x is None:
        return None
    return (x, y, 1, x * y % P)


def montgomery_u(p: Point) -> bytes:
    """The X25519 form of p: u = (1 + y) / (1 - y), 32 bytes little-endian (sign-blind:
    p and -p give the same u, as X25519 does)."""
    zinv = pow((p[2] - p[1]) % P, P - 2, P)
    return ((p[2] + p[1]) * zinv % P).to_bytes(32, "little")


def from_montgomery(u_bytes: bytes) -> Point | None:
    """A point of the curve whose X25519 form is ``u_bytes`` (the one with x even), or
    None when u is not the u of a point of this curve (a point of the twist, u = -1)."""
    if not isinstance(u_bytes, bytes) or len(u_bytes) != 32:
        return None
    u = int.from_bytes(u_bytes, "little") & ((1 << 255) - 1)  # X25519 ignores the top bit
    u %= P
    if (u + 1) % P == 0:
        return None
    y = (u - 1) * pow(u + 1, P - 2, P) % P
    x = _recover_x(y, 0)
    if x is None:
        return None
    return (x, y, 1, x * y % P)


def scalar_bytes(k: int) -> bytes:
    """A scalar mod L as 32 bytes little-endian."""
    return (k % L).to_bytes(32, "little")


def scalar_of(data: bytes) -> int | None:
    """The scalar 32 bytes encode, or None unless canonical (< L)."""
    if not isinstance(data, bytes) or len(data) != 32:
        return None
    value = int.from_bytes(data, "little")
    return value if value < L else None


def wide_scalar(data: bytes) -> int:
    """A near-uniform scalar from 64 or more bytes (little-endian, reduced mod L)."""
    if len(data) < 64:
        raise ValueError("a wide scalar needs 64 bytes")
    return int.from_bytes(data, "little") % L
