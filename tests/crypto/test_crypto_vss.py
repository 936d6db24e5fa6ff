"""Verifiable secret sharing of a dice key and the proof of an X25519 value (protocol.md §3.7):
the group arithmetic agrees with ``cryptography``'s keys, any t checked shares rebuild the
key, a wrong share or a key that is not the dealt one is refused, and a proof is accepted
only from the key's holder, for its context, without a torsion trick."""

from __future__ import annotations

import itertools

import pytest
from crypto_fixtures import GAME, identities, secret

from dudo_p2p.crypto import edwards as ed
from dudo_p2p.crypto import exchange_proof as xp
from dudo_p2p.crypto import vss
from dudo_p2p.crypto.shares import open_sealed, open_with_shared, seal
from dudo_p2p.errors import DecryptError, InvalidValue

ROUND = 4


def dealt(seed: str, t: int) -> tuple[bytes, list[int], tuple[bytes, ...]]:
    key = vss.secret_key(secret(seed) + secret(seed + "/2"))
    coefs = vss.coefficients(GAME, ROUND, 0, key, t)
    return key, coefs, vss.commitments(coefs)


def test_the_group_is_the_one_of_ed25519_and_x25519_keys() -> None:
    """a·B is the Ed25519 public key, s·B's X25519 form the X25519 public key, and s·D the
    X25519 shared value (D: the curve point of the peer's X25519 key)."""
    a, b = identities(2)
    x_scalar = xp.clamp(a._x_seed)  # the test opens the key it made
    assert ed.montgomery_u(ed.mul_base(x_scalar)) == a.x25519_public
    assert ed.montgomery_u(ed.mul(x_scalar, ed.B)) == a.x25519_public
    peer = ed.from_montgomery(b.x25519_public)
    assert peer is not None
    assert ed.montgomery_u(ed.mul(x_scalar, peer)) == a.exchange(b.x25519_public)
    assert ed.decode(a.public_key) is not None
    assert ed.encode(ed.decode(a.public_key) or ed.IDENTITY) == a.public_key
    assert ed.torsion_free(ed.B) and ed.equal(ed.mul(ed.L, ed.B), ed.IDENTITY)


def test_decoding_refuses_what_is_not_a_canonical_point() -> None:
    assert ed.decode(b"\x00" * 31) is None
    non_canonical_y = (ed.P + 1).to_bytes(32, "little")  # y = 1 written as p + 1
    assert ed.decode(non_canonical_y) is None
    assert ed.decode((1 | 1 << 255).to_bytes(32, "little")) is None  # x = 0 with its sign set
    assert ed.scalar_of(ed.L.to_bytes(32, "little")) is None
    assert ed.scalar_of((ed.L - 1).to_bytes(32, "little")) == ed.L - 1


def test_the_base_table_multiplies_as_double_and_add_does() -> None:
    """mul_base (a table, signed base-64 digits) against the plain ladder ``mul``: scalars
    at every digit boundary (a digit of 32 stays, 33 borrows from the next), past L, and
    a spread of others, compared as points and as their encodings."""
    edges = [0, 1, 2, 31, 32, 33, 63, 64, 65, 95, 96, 97, 2**252, ed.L - 1, ed.L, ed.L + 5,
             2**253 - 1, 2**256 - 1, sum(32 << (6 * i) for i in range(42)),
             sum(63 << (6 * i) for i in range(42)), sum(33 << (6 * i) for i in range(42))]
    spread = [int.from_bytes(secret(f"k{i}"), "little") >> (i % 9) for i in range(60)]
    for k in edges + spread:
        expected = ed.mul(k % ed.L, ed.B)
        assert ed.equal(ed.mul_base(k), expected), k
        assert ed.encode(ed.mul_base(k)) == ed.encode(expected), k
    points = [ed.mul_base(k) for k in edges + spread]
    assert ed.encode_many(points) == [ed.encode(p) for p in points]  # one inversion for all
    assert ed.encode_many([ed.double(p) for p in points[:3]]) == [  # Z != 1
        ed.encode(ed.double(p)) for p in points[:3]]


def test_decoding_finds_the_square_root_the_rfc_way() -> None:
    """Decoding takes one exponentiation (RFC 8032 §5.1.3); it finds the same points as the
    square root taken apart from the division would, and refuses the same encodings."""

    def two_step(y: int, sign: int) -> int | None:  # the previous way: divide, then root
        if y >= ed.P:
            return None
        x2 = (y * y - 1) * pow(ed.D * y * y + 1, ed.P - 2, ed.P) % ed.P
        if x2 == 0:
            return None if sign else 0
        x = pow(x2, (ed.P + 3) // 8, ed.P)
        if (x * x - x2) % ed.P != 0:
            x = x * pow(2, (ed.P - 1) // 4, ed.P) % ed.P
        if (x * x - x2) % ed.P != 0:
            return None
        return x if (x & 1) == sign else ed.P - x

    ys = [0, 1, 2, ed.P - 1, ed.P, ed.P + 1, 2**255 - 1]
    ys += [int.from_bytes(secret(f"y{i}"), "little") >> 1 for i in range(300)]
    found = 0
    for y in ys:
        for sign in (0, 1):
            data = (y | sign << 255).to_bytes(32, "little")
            want = two_step(y, sign)
            point = ed.decode(data)
            assert (point[0] if point is not None else None) == want, (y, sign)
            found += want is not None
    assert 100 < found < 2 * len(ys)  # about half the y are on the curve


@pytest.mark.parametrize(("others", "t"), [(2, 2), (3, 2), (4, 3), (5, 3)])
def test_any_t_checked_shares_rebuild_the_key_and_fewer_do_not(others: int, t: int) -> None:
    assert vss.threshold(others) == t
    key, coefs, cs = dealt(f"key-{others}", t)
    assert vss.decode_commitments(cs) is not None
    seats = range(1, others + 1)
    shares = {j: vss.share_for(coefs, j) for j in seats}
    assert all(vss.share_ok(cs, j, shares[j]) for j in seats)
    for subset in itertools.combinations(seats, t):
        assert vss.recover({j: shares[j] for j in subset}, t) == key
    if t > 1:
        # t - 1 shares and a made-up one rebuild something else: they do not fix the key
        few = {j: shares[j] for j in list(seats)[: t - 1]}
        few[others + 1] = secret("made up")[:31] + b"\x00"
        assert vss.recover(few, t) != key
    with pytest.raises(InvalidValue):
        vss.recover({1: shares[1]}, t + 1)
    assert vss.key_ok(cs[0], key)


def test_a_wrong_share_a_share_for_another_seat_or_another_key_does_not_check() -> None:
    key, coefs, cs = dealt("wrong", 3)
    assert vss.decode_commitments(cs) is not None
    good = vss.share_for(coefs, 2)
    assert vss.share_ok(cs, 2, good)
    assert not vss.share_ok(cs, 3, good)
    bumped = ed.scalar_bytes((ed.scalar_of(good) or 0) + 1)
    assert bumped != good and not vss.share_ok(cs, 2, bumped)
    assert not vss.share_ok(cs, 2, ed.L.to_bytes(32, "little"))  # not canonical
    assert not vss.key_ok(cs[0], ed.scalar_bytes((ed.scalar_of(key) or 0) + 1))
    assert vss.decode_commitments([cs[0], b"\xff" * 32]) is None
    assert not vss.share_ok((cs[0], b"\xff" * 32, cs[2]), 2, good)  # no point of the curve
    assert not vss.share_ok((), 2, good)


def test_a_torsion_component_in_a_commitment_changes_nothing_a_check_accepts() -> None:
    """8·P comparisons: adding a point of order 2 to C_0 keeps every share and the key
    checking, and the rebuilt key is the same."""
    key, coefs, cs = dealt("torsion", 2)
    order2 = (0, ed.P - 1, 1, 0)  # (0, -1)
    c0 = ed.decode(cs[0])
    assert c0 is not None and not ed.torsion_free(ed.add(c0, order2))
    tainted = (ed.encode(ed.add(c0, order2)), cs[1])
    assert vss.decode_commitments(tainted) is not None
    assert all(vss.share_ok(tainted, j, vss.share_for(coefs, j)) for j in (1, 2))
    assert vss.key_ok(tainted[0], key)


def test_shares_are_sealed_to_their_recipient_alone() -> None:
    dealer, rec, other = identities(3)
    ctx = vss.vss_context(GAME, ROUND, 0, 1)
    share = vss.share_for([5, 7], 1)
    box = seal(dealer, rec.x25519_public, ctx, share)
    assert open_sealed(rec, dealer.x25519_public, ctx, box) == share
    with pytest.raises(InvalidValue):
        vss.vss_context(GAME, ROUND, 1, 1)
    with pytest.raises(DecryptError):  # another recipient
        open_sealed(other, dealer.x25519_public, ctx, box)


def test_a_proved_x25519_value_opens_the_box_for_anyone() -> None:
    dealer, rec, other = identities(3)
    ctx = vss.vss_context(GAME, ROUND, 0, 1)
    box = seal(dealer, rec.x25519_public, ctx, secret("share"))
    shared, proof = rec.prove_exchange(dealer.x25519_public, ctx)
    assert shared == rec.exchange(dealer.x25519_public)
    assert xp.check(rec.x25519_public, dealer.x25519_public, proof, ctx) == shared
    opened = open_with_shared(shared, dealer.x25519_public, rec.x25519_public, ctx, box)
    assert opened == secret("share")
    # another context, another claimed prover, another dealer, a flipped byte: refused
    assert xp.check(rec.x25519_public, dealer.x25519_public, proof, ctx + b"x") is None
    assert xp.check(other.x25519_public, dealer.x25519_public, proof, ctx) is None
    assert xp.check(rec.x25519_public, other.x25519_public, proof, ctx) is None
    for i in (0, 40, 70, 100):
        flipped = proof[:i] + bytes([proof[i] ^ 1]) + proof[i + 1:]
        assert xp.check(rec.x25519_public, dealer.x25519_public, flipped, ctx) is None


def test_a_proof_of_a_value_with_a_torsion_component_is_refused() -> None:
    """A2 + T (T of order 2) has another X25519 form, so another box key: a prover that
    could pass it would frame an honest dealer; the checker refuses A2 outside the group."""
    dealer, rec = identities(2)
    ctx = vss.vss_context(GAME, ROUND, 0, 1)
    _, proof = rec.prove_exchange(dealer.x25519_public, ctx)
    a2 = ed.decode(proof[32:64])
    assert a2 is not None
    order2 = (0, ed.P - 1, 1, 0)
    tainted = proof[:32] + ed.encode(ed.add(a2, order2)) + proof[64:]
    assert xp.check(rec.x25519_public, dealer.x25519_public, tainted, ctx) is None


def test_a_key_off_the_curve_is_not_usable_and_admits_no_proof() -> None:
    (rec,) = identities(1)
    twist = None
    for u in range(2, 200):  # a u whose point is on the twist, not the curve
        if ed.from_montgomery(u.to_bytes(32, "little")) is None:
            twist = u.to_bytes(32, "little")
            break
    assert twist is not None
    assert not xp.usable(twist)
    assert xp.usable(rec.x25519_public)
    with pytest.raises(InvalidValue):
        rec.prove_exchange(twist, b"ctx")
