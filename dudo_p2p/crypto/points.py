"""Edwards25519 points as their 32-byte encodings, computed by libsodium (PyNaCl).

The same group and encodings as :mod:`~dudo_p2p.crypto.edwards` (RFC 8032 §5.1), which
stays the exact reference: what is computed here is byte for byte what ``edwards`` computes
(tests/crypto/test_crypto_points.py), only faster on this machine's CPU clock: a base
multiplication ~36 us against ~320 in Python, an addition of two encoded points ~25 us
against a decoding alone of ~230 (a modular square root in Python integers).

libsodium's multiplication of any other point refuses points outside the prime-order
subgroup (and a product that is the identity), which a dealer's commitments may be (§3.7
compares them times the cofactor): the dealing uses only the base multiplication and the
addition, which takes any point of the curve; the exchange proof, whose points must be in
that subgroup anyway, uses :func:`times` too, and the reference for anything refused.
Pure: no I/O.
"""

from __future__ import annotations

from typing import Final

from nacl.bindings import (
    crypto_core_ed25519_add,
    crypto_core_ed25519_is_valid_point,
    crypto_core_ed25519_sub,
    crypto_scalarmult_ed25519_base_noclamp,
    crypto_scalarmult_ed25519_noclamp,
)
from nacl.exceptions import CryptoError

from dudo_p2p.crypto.edwards import IDENTITY, L, P, encode

ZERO: Final = encode(IDENTITY)  # the identity: y = 1, x = 0
_Y_MASK: Final = (1 << 255) - 1


def base_times(k: int) -> bytes:
    """The encoding of (k mod L)·B: ``edwards.encode(edwards.mul_base(k))``."""
    k %= L
    if k == 0:  # libsodium refuses a product that is the identity
        return ZERO
    return crypto_scalarmult_ed25519_base_noclamp(k.to_bytes(32, "little"))


def canonical(data: bytes) -> bool:
    """Whether ``data`` is 32 bytes written as RFC 8032 writes a point: y < p and, when
    x = 0 (y = 1 or p - 1), no sign bit. Whether a point has that y is not asked here
    (:func:`add` answers it)."""
    if not isinstance(data, bytes) or len(data) != 32:
        return False
    value = int.from_bytes(data, "little")
    y = value & _Y_MASK
    return y < P and not (value >> 255 and y in (1, P - 1))


def add(p: bytes, q: bytes) -> bytes | None:
    """The encoding of p + q for two encodings of points of the curve (any order: torsion
    components included), or None when either names no point of the curve. libsodium reads
    y mod p: give it :func:`canonical` encodings where a non-canonical one must fail."""
    try:
        return crypto_core_ed25519_add(p, q)
    except CryptoError:
        return None


def times_small(z: int, p: bytes) -> bytes | None:
    """z·p for a small z >= 1 by doubling and adding (libsodium's own multiplication
    refuses points with a torsion component), or None when p is no point of the curve."""
    if z < 1:
        raise ValueError("a small multiplier is >= 1")
    result = p
    for bit in bin(z)[3:]:
        doubled = add(result, result)
        if doubled is None:
            return None
        result = doubled
        if bit == "1":
            added = add(result, p)
            if added is None:
                return None
            result = added
    return result


def sub(p: bytes, q: bytes) -> bytes | None:
    """The encoding of p - q, as :func:`add` (None when either names no point)."""
    try:
        return crypto_core_ed25519_sub(p, q)
    except CryptoError:
        return None


def prime_order(p: bytes) -> bool:
    """Whether ``p`` is the canonical encoding of a point of order L (the subgroup of B
    without the identity): ``edwards.decode`` takes it and ``torsion_free`` holds."""
    return isinstance(p, bytes) and len(p) == 32 and crypto_core_ed25519_is_valid_point(p)


def times(k: int, p: bytes) -> bytes | None:
    """The encoding of (k mod L)·p for a point p of order L (:func:`prime_order`), or None
    where libsodium refuses: p outside that subgroup, or a product that is the identity."""
    k %= L
    if k == 0:
        return None
    try:
        return crypto_scalarmult_ed25519_noclamp(k.to_bytes(32, "little"), p)
    except CryptoError:
        return None


def montgomery_u(p: bytes) -> bytes:
    """``edwards.montgomery_u`` of the point ``p`` encodes, from its y alone:
    u = (1 + y) / (1 - y), 0 for y = 1 as there."""
    y = int.from_bytes(p, "little") & _Y_MASK
    return ((1 + y) * pow((1 - y) % P, P - 2, P) % P).to_bytes(32, "little")
