"""A proof that a published X25519 value is the real shared secret of two seats (§3.7).

A seat j that received a sealed box (§3.6) from seat i may need to show everybody what was
in it (a key share that does not check: the dealer cheated). It publishes the X25519
value ``Z = X25519(s_j, u_i)`` of the pair and this proof; anyone then derives the box's
message key from Z, opens the box and sees the share. The proof is a Chaum-Pedersen proof
of one discrete log over Edwards25519 (:mod:`~dudo_p2p.crypto.edwards`):

    w = s_j / 8 (an X25519 scalar is clamped: a multiple of 8), G1 = 8·B, G2 = 8·D_i
    A1 = w·G1 (= s_j·B: its X25519 form is j's public key u_j)
    A2 = w·G2 (its X25519 form is Z: X25519 ignores the sign and the torsion of D_i)
    c = H("dudo-p2p/1/exchange-proof", G1, G2, A1, A2, T1, T2, context), T = r·G
    z = r + c·w mod L;   proof = A1 || A2 || c || z  (128 bytes)

``D_i`` is the point of the curve with X25519 form u_i (x even). The checker refuses A1 or
A2 outside the prime-order group (a torsion component would let a prover grind c mod 8)
and an A1 whose X25519 form is not u_j. Nobody but the holder of s_j can make a proof that
checks, and it shows nothing of s_j (the nonce r is derived from s_j and the statement).
"""

from __future__ import annotations

from typing import Final

from dudo_p2p.crypto import edwards as ed
from dudo_p2p.crypto import points as pt
from dudo_p2p.crypto.hashing import tag, tagged_hash
from dudo_p2p.errors import InvalidValue

PROOF_TAG: Final = tag("exchange-proof")
NONCE_TAG: Final = tag("exchange-proof-nonce")
PROOF_SIZE: Final = 128


def clamp(private: bytes) -> int:
    """The X25519 scalar of 32 private bytes (RFC 7748 decodeScalar25519)."""
    k = bytearray(private)
    k[0] &= 248
    k[31] &= 127
    k[31] |= 64
    return int.from_bytes(k, "little")


def _challenge(points: tuple[ed.Point, ...], context: bytes) -> int:
    return _challenge_of(tuple(ed.encode(p) for p in points), context)


def _challenge_of(encoded: tuple[bytes, ...], context: bytes) -> int:
    wide = b"".join(tagged_hash(PROOF_TAG, half, *encoded, context) for half in (0, 1))
    return ed.wide_scalar(wide)


def usable(u: bytes) -> bool:
    """Whether an X25519 public key is a point of the curve outside the small subgroup
    (the keys X25519 makes always are; a key in a genesis that is not cannot share)."""
    point = ed.from_montgomery(u)
    return point is not None and not ed.equal(ed.clear_cofactor(point), ed.IDENTITY)


def prove(private: bytes, peer_u: bytes, context: bytes) -> tuple[bytes, bytes]:
    """(Z, proof): the X25519 value with ``peer_u`` of the X25519 private key ``private``
    and the proof that it is. InvalidValue when ``peer_u`` is not on the curve or of low
    order (no shared secret exists to prove)."""
    if len(private) != 32:
        raise InvalidValue("an X25519 private key is 32 bytes")
    peer = ed.from_montgomery(peer_u)
    if peer is None:
        raise InvalidValue("the peer's X25519 key is not a point of the curve")
    g2 = ed.clear_cofactor(peer)
    if ed.equal(g2, ed.IDENTITY):
        raise InvalidValue("the peer's X25519 key has a low order")
    w = clamp(private) // 8
    r = ed.wide_scalar(b"".join(
        tagged_hash(NONCE_TAG, half, private, ed.encode(g2), context) for half in (0, 1)
    ))
    # by libsodium (~1 ms where the reference takes ~10): G2 is of order L, so every product
    # is, but r = 0 (never met) would make one the identity, which libsodium refuses
    g2b = ed.encode(g2)
    a2, t2 = pt.times(w, g2b), pt.times(r, g2b)
    if a2 is None or t2 is None:
        return _prove_reference(w, r, g2, context)
    a1, t1 = pt.base_times(8 * w), pt.base_times(8 * r)  # w·G1 = (8w)·B
    c = _challenge_of((_G1, g2b, a1, a2, t1, t2), context)
    z = (r + c * w) % ed.L
    return pt.montgomery_u(a2), a1 + a2 + ed.scalar_bytes(c) + ed.scalar_bytes(z)


def _prove_reference(w: int, r: int, g2: ed.Point, context: bytes) -> tuple[bytes, bytes]:
    """prove's products in the reference arithmetic (edwards.py)."""
    g1 = ed.clear_cofactor(ed.B)
    a1, a2 = ed.mul(w, g1), ed.mul(w, g2)
    t1, t2 = ed.mul(r, g1), ed.mul(r, g2)
    c = _challenge((g1, g2, a1, a2, t1, t2), context)
    z = (r + c * w) % ed.L
    proof = ed.encode(a1) + ed.encode(a2) + ed.scalar_bytes(c) + ed.scalar_bytes(z)
    return ed.montgomery_u(a2), proof


def check(prover_u: bytes, peer_u: bytes, proof: bytes, context: bytes) -> bytes | None:
    """The X25519 value of the holders of ``prover_u`` and ``peer_u`` that ``proof``
    proves (made by the holder of ``prover_u``'s private key), or None if it does not."""
    if not isinstance(proof, bytes) or len(proof) != PROOF_SIZE:
        return None
    peer = ed.from_montgomery(peer_u)
    a1, a2 = proof[:32], proof[32:64]
    c, z = ed.scalar_of(proof[64:96]), ed.scalar_of(proof[96:])
    if peer is None or c is None or z is None:
        return None
    g2 = ed.clear_cofactor(peer)
    if ed.equal(g2, ed.IDENTITY):
        return None
    if not (pt.prime_order(a1) and pt.prime_order(a2)):
        return _check_reference(prover_u, g2, proof, context)  # refused there, or identity
    if pt.montgomery_u(a1) != bytes(prover_u):
        return None
    # by libsodium (~1 ms where the reference takes ~15): A1, A2 and G2 are of order L; a
    # product that is the identity (c or z = 0) is left to the reference, which allows it
    g2b = ed.encode(g2)
    c_a1, c_a2, z_g2 = pt.times(c, a1), pt.times(c, a2), pt.times(z, g2b)
    if c_a1 is None or c_a2 is None or z_g2 is None:
        return _check_reference(prover_u, g2, proof, context)
    t1, t2 = pt.sub(pt.base_times(8 * z), c_a1), pt.sub(z_g2, c_a2)
    if t1 is None or t2 is None:  # cannot happen: every operand is a point; be sure
        return _check_reference(prover_u, g2, proof, context)
    if _challenge_of((_G1, g2b, a1, a2, t1, t2), context) != c:
        return None
    return pt.montgomery_u(a2)


def _check_reference(prover_u: bytes, g2: ed.Point, proof: bytes, context: bytes) -> bytes | None:
    """check's decoding and products in the reference arithmetic (edwards.py)."""
    a1, a2 = ed.decode(proof[:32]), ed.decode(proof[32:64])
    c, z = ed.scalar_of(proof[64:96]), ed.scalar_of(proof[96:])
    if a1 is None or a2 is None or c is None or z is None:
        return None
    if ed.montgomery_u(a1) != bytes(prover_u):
        return None
    if not (ed.torsion_free(a1) and ed.torsion_free(a2)):
        return None
    g1 = ed.clear_cofactor(ed.B)
    t1 = ed.add(ed.mul(z, g1), ed.neg(ed.mul(c, a1)))
    t2 = ed.add(ed.mul(z, g2), ed.neg(ed.mul(c, a2)))
    if _challenge((g1, g2, a1, a2, t1, t2), context) != c:
        return None
    return ed.montgomery_u(a2)


_G1: Final = pt.base_times(8)  # 8·B
