"""libsodium's Edwards25519 arithmetic on encodings (crypto/points.py) against the reference
of crypto/edwards.py, byte for byte: base products, sums (torsion points, the identity,
doublings included), small multiples, and which encodings name a point; and the checks of
crypto/vss.py built on them decide every case as the reference arithmetic alone does."""

from __future__ import annotations

import pytest
from crypto_fixtures import GAME, secret

from dudo_p2p.crypto import edwards as ed
from dudo_p2p.crypto import points as pt
from dudo_p2p.crypto import vss

ORDER_2 = (0, ed.P - 1, 1, 0)
ORDER_8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
EDGES = [0, 1, 2, 31, 32, 33, 64, 2**252, ed.L - 1, ed.L, ed.L + 5, 2**255 - 20, 2**256 - 1]
SPREAD = [int.from_bytes(secret(f"p{i}") * 2, "little") >> (i % 200) for i in range(40)]


def torsion_points() -> list[ed.Point]:
    t8 = ed.decode(ORDER_8)
    assert t8 is not None
    return [ed.mul(k, t8) for k in range(8)]  # the whole torsion subgroup, identity first


def sample_points() -> list[ed.Point]:
    prime = [ed.mul_base(k) for k in EDGES[:9] + SPREAD[:12]]
    torsion = torsion_points()
    mixed = [ed.add(p, t) for p, t in zip(prime[9:], torsion * 3, strict=False)]
    return prime + torsion + mixed


def test_base_products_are_the_references_byte_for_byte() -> None:
    for k in EDGES + SPREAD:
        assert pt.base_times(k) == ed.encode(ed.mul_base(k)), k
    assert pt.base_times(0) == pt.base_times(ed.L) == pt.ZERO == ed.encode(ed.IDENTITY)


def test_sums_and_small_multiples_are_the_references_byte_for_byte() -> None:
    points = sample_points()
    encoded = [ed.encode(p) for p in points]
    for i, (p, pe) in enumerate(zip(points, encoded, strict=True)):
        for q, qe in zip(points[i::5], encoded[i::5], strict=True):  # p + p among them
            assert pt.add(pe, qe) == ed.encode(ed.add(p, q))
        for z in range(1, 8):
            assert pt.times_small(z, pe) == ed.encode(ed.mul(z, p)), (i, z)
    with pytest.raises(ValueError):
        pt.times_small(0, encoded[0])


def test_an_encoding_names_a_point_for_points_exactly_when_it_does_for_edwards() -> None:
    """canonical() and add()'s check of the curve together refuse exactly what
    edwards.decode refuses: y >= p, x = 0 with its sign bit, a y of no point."""
    ys = [0, 1, 2, 3, ed.P - 1, ed.P, ed.P + 1, ed.P + 2, 2**255 - 1]
    ys += [int.from_bytes(secret(f"y{i}"), "little") >> 1 for i in range(200)]
    on_curve = 0
    for y in ys:
        for sign in (0, 1):
            data = (y | sign << 255).to_bytes(32, "little")
            named = pt.canonical(data) and pt.add(data, pt.ZERO) is not None
            assert named is (ed.decode(data) is not None), (y, sign)
            if named:
                assert pt.add(data, pt.ZERO) == data  # a canonical encoding comes back
                on_curve += 1
    assert 100 < on_curve < 2 * len(ys)
    assert not pt.canonical(b"\x01" * 31) and not pt.canonical("x" * 32)  # type: ignore[arg-type]


def reference_share_ok(cs: tuple[bytes, ...], seat: int, share: bytes) -> bool:
    s = ed.scalar_of(share)
    points = vss.decode_commitments(cs)
    return s is not None and points is not None and vss._share_ok_points(points, seat, s)


def reference_key_ok(first: bytes, key: bytes) -> bool:
    x, c0 = ed.scalar_of(key), ed.decode(first)
    return x is not None and c0 is not None and vss._equal_8(ed.mul_base(x), c0)


@pytest.mark.parametrize("t", [1, 2, 3])
def test_share_and_key_checks_decide_as_the_reference_arithmetic_does(t: int) -> None:
    """Honest dealings, wrong shares, shares of another seat, commitments with a torsion
    component (they still check), one off the curve, one written non-canonically, a
    commitment list cut short: share_ok and key_ok agree with the reference every time."""
    key = vss.secret_key(secret(f"dealer{t}") + secret("2"))
    coefs = vss.coefficients(GAME, 3, 0, key, t)
    cs = vss.commitments(coefs)
    assert cs == tuple(ed.encode_many([ed.mul_base(a) for a in coefs]))
    torsion = torsion_points()
    c0 = ed.decode(cs[0])
    assert c0 is not None
    variants = [cs, cs[:-1] or cs, (ed.encode(ed.add(c0, torsion[5])), *cs[1:])]
    variants.append((ed.encode(ed.add(c0, ORDER_2)), *cs[1:]))
    if t > 1:
        last = ed.decode(cs[-1])
        assert last is not None
        variants.append((*cs[:-1], ed.encode(ed.add(last, torsion[3]))))
        variants.append((*cs[:-1], b"\xff" * 31 + b"\x7f"))  # y = 2^255 - 1: not canonical
        variants.append((*cs[:-1], (1 | 1 << 255).to_bytes(32, "little")))  # x = 0, signed
    off_curve = next(
        d for y in range(2, 50) if ed.decode(d := y.to_bytes(32, "little")) is None
    )
    variants.append((*cs[:-1], off_curve))
    variants.append((ed.encode(ed.IDENTITY),) * t)
    decided = {True: 0, False: 0}
    for variant in variants:
        for seat in range(6):
            good = vss.share_for(coefs, seat)
            bumped = ed.scalar_bytes((ed.scalar_of(good) or 0) + 1)
            for share in (good, bumped, vss.share_for(coefs, (seat + 1) % 6)):
                want = reference_share_ok(variant, seat, share)
                assert vss.share_ok(variant, seat, share) is want, (variant, seat)
                decided[want] += 1
        for k in (key, ed.scalar_bytes((ed.scalar_of(key) or 0) + 1)):
            assert vss.key_ok(variant[0], k) is reference_key_ok(variant[0], k)
    assert decided[True] > 10 and decided[False] > 10


def test_exchange_proofs_are_made_and_checked_as_the_reference_arithmetic_does() -> None:
    """prove gives the reference's very bytes; check answers as the reference on honest
    proofs, flipped bytes, A1 or A2 swapped for the identity or given a torsion component,
    c or z of 0 (a product that is the identity: libsodium refuses it, the reference
    decides), and another prover, peer or context."""
    from crypto_fixtures import identities

    from dudo_p2p.crypto import exchange_proof as xp

    def reference_check(prover: bytes, peer_u: bytes, proof: bytes, ctx: bytes) -> bytes | None:
        peer = ed.from_montgomery(peer_u)
        assert peer is not None
        return xp._check_reference(prover, ed.clear_cofactor(peer), proof, ctx)

    ids = identities(4)
    t8 = ed.decode(ORDER_8)
    assert t8 is not None
    checked = 0
    for i, prover in enumerate(ids):
        peer_u = ids[(i + 1) % 4].x25519_public
        ctx = vss.vss_context(GAME, 5, (i + 1) % 4, i)
        shared, proof = prover.prove_exchange(peer_u, ctx)
        peer = ed.from_montgomery(peer_u)
        assert peer is not None
        w = xp.clamp(prover._x_seed) // 8  # the test opens the key it made
        r = ed.wide_scalar(b"".join(xp.tagged_hash(
            xp.NONCE_TAG, half, prover._x_seed, ed.encode(ed.clear_cofactor(peer)), ctx)
            for half in (0, 1)))
        assert (shared, proof) == xp._prove_reference(w, r, ed.clear_cofactor(peer), ctx)
        assert shared == prover.exchange(peer_u)
        a1, a2 = ed.decode(proof[:32]), ed.decode(proof[32:64])
        assert a1 is not None and a2 is not None
        variants = [proof, proof[:5] + bytes([proof[5] ^ 1]) + proof[6:],
                    pt.ZERO + proof[32:], proof[:32] + pt.ZERO + proof[64:],
                    ed.encode(ed.add(a1, t8)) + proof[32:],
                    proof[:32] + ed.encode(ed.add(a2, t8)) + proof[64:],
                    proof[:64] + bytes(32) + proof[96:], proof[:96] + bytes(32),
                    proof[:64] + bytes(64)]
        for variant in variants:
            for who, whose, c in ((prover.x25519_public, peer_u, ctx),
                                  (ids[(i + 2) % 4].x25519_public, peer_u, ctx),
                                  (prover.x25519_public, peer_u, ctx + b"x")):
                want = reference_check(who, whose, variant, c)
                assert xp.check(who, whose, variant, c) == want
                checked += want is not None
    assert checked == len(ids)  # the honest proofs, for their own prover and context only


def test_honest_dealings_and_proofs_never_reach_the_reference_arithmetic(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The speed of issue 19 rests on honest inputs taking libsodium's path alone: with the
    reference's products and decoding made to fail, an honest dealing still deals, checks
    every share and key, and an exchange proof is made and checked (a count, not a time)."""
    from crypto_fixtures import identities

    from dudo_p2p.crypto import exchange_proof as xp

    a, b = identities(2)
    ctx = vss.vss_context(GAME, 5, 1, 0)
    key = vss.secret_key(secret("honest") + secret("2"))
    coefs = vss.coefficients(GAME, 5, 0, key, 3)

    def refuse(*_: object) -> None:
        raise AssertionError("the reference arithmetic was used")

    for name in ("mul", "mul_base", "decode", "torsion_free"):
        monkeypatch.setattr(ed, name, refuse)
    cs = vss.commitments(coefs)
    assert all(vss.share_ok(cs, seat, vss.share_for(coefs, seat)) for seat in range(1, 6))
    assert vss.key_ok(cs[0], key)
    shared, proof = a.prove_exchange(b.x25519_public, ctx)
    assert xp.check(a.x25519_public, b.x25519_public, proof, ctx) == shared
