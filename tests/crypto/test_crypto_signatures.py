"""Which Ed25519 signatures ``verify`` accepts (protocol.md §2.5): exactly those of the rule
written there, checked against a reference of that rule written from the document in pure
Python, on honest signatures and on adversarial ones both ways: signatures the plain RFC 8032
equation accepts but the rule refuses (a small-order R or key, a non-canonical key), and
adversarial ones it still accepts (a key with a torsion component whose equation holds).
Signing is byte-identical to OpenSSL's (``cryptography``), which the project used before."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest
from crypto_fixtures import counter_bytes, secret
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import ed25519

from dudo_p2p.crypto import Identity, verify
from dudo_p2p.crypto import edwards as ed

MESSAGE = b"dudo-p2p/1/envelope: a bid of four fives"
# a point of order 8 (libsodium's list of small-order encodings has it)
ORDER_8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")


def small_order(point: ed.Point) -> bool:
    return ed.equal(ed.clear_cofactor(point), ed.IDENTITY)


def reference(public_key: bytes, data: bytes, signature: bytes) -> bool:
    """protocol.md §2.5's rule, read off the document: S < L; the key the canonical encoding
    of a curve point not of small order; R byte for byte the encoding of [S]B - [k]A, with
    k = SHA-512(R || A || M) mod L, and that point not of small order."""
    if len(public_key) != 32 or len(signature) != 64:
        return False
    a = ed.decode(public_key)
    s = int.from_bytes(signature[32:], "little")
    if a is None or small_order(a) or s >= ed.L:
        return False
    k = challenge(signature[:32], public_key, data)
    r = ed.add(ed.mul_base(s), ed.neg(ed.mul(k, a)))
    return ed.encode(r) == signature[:32] and not small_order(r)


def plain_equation(public_key: bytes, data: bytes, signature: bytes) -> bool:
    """RFC 8032's cofactorless equation alone, on any point: what the rule adds to it is
    what separates the two."""
    a = ed.decode(public_key) or _any_point(public_key)
    s = int.from_bytes(signature[32:], "little")
    k = challenge(signature[:32], public_key, data)
    r = ed.add(ed.mul_base(s), ed.neg(ed.mul(k, a)))
    return s < ed.L and ed.encode(r) == signature[:32]


def _any_point(data: bytes) -> ed.Point:
    """The point a non-canonical encoding names (y reduced mod p)."""
    value = int.from_bytes(data, "little")
    y = (value & ((1 << 255) - 1)) % ed.P
    x = ed._recover_x(y, value >> 255)
    assert x is not None
    return (x, y, 1, x * y % ed.P)


def challenge(r: bytes, public_key: bytes, data: bytes) -> int:
    return int.from_bytes(hashlib.sha512(r + public_key + data).digest(), "little") % ed.L


def secret_scalar(seed: bytes) -> int:
    """RFC 8032 §5.1.5: the clamped scalar of a 32-byte seed."""
    h = int.from_bytes(hashlib.sha512(seed).digest()[:32], "little")
    return (h & ((1 << 254) - 8)) | (1 << 254)


def ground(label: str, make: Callable[[int], tuple[bytes, bytes, int]]) -> tuple[bytes, bytes]:
    """The first (key, signature) that ``make(nonce)`` gives with 8 dividing k (a torsion
    term k·T then vanishes: the adversary grinds about 8 nonces for it), deterministic."""
    for i in range(200):
        nonce = int.from_bytes(secret(f"{label}/{i}") + secret(f"{label}/{i}/2"), "little")
        key, r_bytes, s = make(nonce % ed.L)
        if challenge(r_bytes, key, MESSAGE) % 8 == 0:
            return key, r_bytes + s.to_bytes(32, "little")
    raise AssertionError("no nonce in 200 gave 8 | k")


SEED = secret("signer")
A_SCALAR = secret_scalar(SEED)
A_KEY = Identity(SEED, secret("x")).public_key


def _honest() -> tuple[bytes, bytes]:
    return A_KEY, Identity(SEED, secret("x")).sign(MESSAGE)


def _s_plus_l() -> tuple[bytes, bytes]:
    key, signature = _honest()
    s = int.from_bytes(signature[32:], "little") + ed.L
    return key, signature[:32] + s.to_bytes(32, "little")


def _r_identity() -> tuple[bytes, bytes]:
    """The key's owner signs with R = the identity: S = k·a."""
    r = ed.encode(ed.IDENTITY)
    return A_KEY, r + (challenge(r, A_KEY, MESSAGE) * A_SCALAR % ed.L).to_bytes(32, "little")


def _r_identity_not_canonical() -> tuple[bytes, bytes]:
    r = (1 + ed.P).to_bytes(32, "little")  # y = 1 written as p + 1
    return A_KEY, r + (challenge(r, A_KEY, MESSAGE) * A_SCALAR % ed.L).to_bytes(32, "little")


def _r_with_torsion() -> tuple[bytes, bytes]:
    """R = rB + T (T of order 8), S = r + k·a: a cofactored check would take it."""
    t = ed.decode(ORDER_8)
    assert t is not None
    for i in range(8):
        r = int.from_bytes(secret(f"rt/{i}") * 2, "little") % ed.L
        r_bytes = ed.encode(ed.add(ed.mul_base(r), t))
        k = challenge(r_bytes, A_KEY, MESSAGE)
        if k % 8:
            return A_KEY, r_bytes + ((r + k * A_SCALAR) % ed.L).to_bytes(32, "little")
    raise AssertionError("no nonce gave 8 ∤ k")


def _small_order_key() -> tuple[bytes, bytes]:
    """Anybody's signature under the key T of order 8: R = S·B, ground until 8 | k."""
    return ground("t8", lambda s: (ORDER_8, ed.encode(ed.mul_base(s)), s))


def _identity_key() -> tuple[bytes, bytes]:
    s = 12345
    return ed.encode(ed.IDENTITY), ed.encode(ed.mul_base(s)) + s.to_bytes(32, "little")


def _identity_key_not_canonical() -> tuple[bytes, bytes]:
    s = 12345
    return (1 + ed.P).to_bytes(32, "little"), ed.encode(ed.mul_base(s)) + s.to_bytes(32, "little")


def _mixed_order_key() -> tuple[bytes, bytes]:
    """Key aB + T (T of order 8), signed as usual, ground until 8 | k: accepted."""
    t = ed.decode(ORDER_8)
    assert t is not None
    key = ed.encode(ed.add(ed.mul_base(A_SCALAR), t))

    def make(r: int) -> tuple[bytes, bytes, int]:
        r_bytes = ed.encode(ed.mul_base(r))
        return key, r_bytes, (r + challenge(r_bytes, key, MESSAGE) * A_SCALAR) % ed.L

    return ground("mixed", make)


# (case, accepted by the rule, accepted by the plain equation)
CASES = [
    (_honest, True, True),
    (_mixed_order_key, True, True),
    (_r_identity, False, True),
    (_small_order_key, False, True),
    (_identity_key, False, True),
    (_identity_key_not_canonical, False, True),
    (_s_plus_l, False, False),
    (_r_with_torsion, False, False),
    (_r_identity_not_canonical, False, False),
]


@pytest.mark.parametrize(("case", "accepted", "plain"), CASES, ids=[c[0].__name__ for c in CASES])
def test_verify_accepts_exactly_what_the_documented_rule_accepts(
    case: Callable[[], tuple[bytes, bytes]], accepted: bool, plain: bool
) -> None:
    key, signature = case()
    assert plain_equation(key, MESSAGE, signature) is plain  # the case is what it says
    assert reference(key, MESSAGE, signature) is accepted
    assert verify(key, MESSAGE, signature) is accepted
    flipped = bytes([signature[0] ^ 4]) + signature[1:]
    assert verify(key, MESSAGE, flipped) is reference(key, MESSAGE, flipped) is False


def test_signatures_and_keys_are_byte_identical_to_openssls() -> None:
    """libsodium signs as OpenSSL did (RFC 8032 is deterministic): the same public keys and
    signatures, each accepted by the other library; RFC 8032 §7.1's first vector too."""
    for i in range(20):
        seed = counter_bytes(f"same/{i}")(32)
        message = secret(f"m{i}") * i
        ours = Identity(seed, secret("x"))
        theirs = ed25519.Ed25519PrivateKey.from_private_bytes(seed)
        assert ours.public_key == theirs.public_key().public_bytes_raw()
        signature = ours.sign(message)
        assert signature == theirs.sign(message)
        theirs.public_key().verify(signature, message)  # raises if not
        assert verify(ours.public_key, message, signature)
        with pytest.raises(InvalidSignature):
            theirs.public_key().verify(signature, message + b"!")
    rfc = Identity(bytes.fromhex(
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"), secret("x"))
    assert rfc.public_key.hex() == \
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
    assert rfc.sign(b"").hex() == (
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555"
        "fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
