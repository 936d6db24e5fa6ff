"""Identities: signing, never-raising verification, serialization, fingerprints, keystore."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from crypto_fixtures import counter_bytes

from dudo_p2p.crypto import Identity, fingerprint, verify
from dudo_p2p.errors import InvalidValue
from dudo_p2p.node.keystore import default_identity_path, load_or_create


def test_generate_is_deterministic_with_injected_bytes_and_keys_are_32_bytes() -> None:
    one = Identity.generate(counter_bytes("a"))
    two = Identity.generate(counter_bytes("a"))
    other = Identity.generate(counter_bytes("b"))
    assert one.public_key == two.public_key and one.x25519_public == two.x25519_public
    assert one.public_key != other.public_key
    assert len(one.public_key) == 32 and len(one.x25519_public) == 32


def test_generate_without_a_source_gives_fresh_keys() -> None:
    assert Identity.generate().public_key != Identity.generate().public_key


def test_a_signature_verifies_only_for_its_key_and_data() -> None:
    alice, bob = Identity.generate(counter_bytes("a")), Identity.generate(counter_bytes("b"))
    signature = alice.sign(b"4x5")
    assert verify(alice.public_key, b"4x5", signature)
    assert not verify(bob.public_key, b"4x5", signature)
    assert not verify(alice.public_key, b"4x6", signature)
    flipped = bytes([signature[0] ^ 1]) + signature[1:]
    assert not verify(alice.public_key, b"4x5", flipped)


@pytest.mark.parametrize(
    ("key", "data", "sig"),
    [
        (b"", b"d", b"\x00" * 64),
        (b"\x00" * 31, b"d", b"\x00" * 64),
        (b"\xff" * 32, b"d", b"\xff" * 64),  # not a curve point
        (b"\x01" * 32, b"d", b"\x00" * 63),
        ("text", b"d", b"\x00" * 64),
        (b"\x01" * 32, None, b"\x00" * 64),
        (None, None, None),
    ],
)
def test_verify_never_raises_on_garbage(key: object, data: object, sig: object) -> None:
    assert verify(key, data, sig) is False  # type: ignore[arg-type]


def test_serialization_round_trips_and_detects_corruption() -> None:
    identity = Identity.generate(counter_bytes("a"))
    data = identity.to_bytes()
    back = Identity.from_bytes(data)
    assert back.public_key == identity.public_key
    assert back.x25519_public == identity.x25519_public
    assert back.sign(b"m") == identity.sign(b"m")
    for bad in (data[:-1], b"XXXX" + data[4:], data[:10] + bytes([data[10] ^ 1]) + data[11:]):
        with pytest.raises(InvalidValue):
            Identity.from_bytes(bad)


def test_repr_shows_the_fingerprint_and_no_secret() -> None:
    identity = Identity.generate(counter_bytes("a"))
    assert repr(identity) == f"Identity({fingerprint(identity.public_key)})"
    assert identity.to_bytes().hex() not in repr(identity)


def test_fingerprint_is_short_grouped_crockford_and_stable() -> None:
    key = Identity.generate(counter_bytes("a")).public_key
    text = fingerprint(key)
    assert len(text) == 9 and text[4] == "-"
    assert set(text.replace("-", "")) <= set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    assert fingerprint(key) == text
    assert fingerprint(Identity.generate(counter_bytes("b")).public_key) != text


def test_keystore_creates_a_0600_file_in_new_dirs_and_loads_it_back(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "identity"
    created = load_or_create(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert load_or_create(path).public_key == created.public_key
    assert list(path.parent.iterdir()) == [path]  # no temporary file left behind


def test_keystore_refuses_a_corrupt_file_without_touching_it(tmp_path: Path) -> None:
    path = tmp_path / "identity"
    path.write_bytes(b"not an identity")
    with pytest.raises(InvalidValue, match="not a dudo-p2p identity file"):
        load_or_create(path)
    assert path.read_bytes() == b"not an identity"


def test_default_path_follows_xdg_data_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", "/srv/data")
    assert default_identity_path() == Path("/srv/data/dudo-p2p/identity")
    monkeypatch.setenv("XDG_DATA_HOME", "relative")  # invalid per the spec: ignored
    monkeypatch.setenv("HOME", "/home/ana")
    assert default_identity_path() == Path("/home/ana/.local/share/dudo-p2p/identity")


def test_fingerprint_matches_an_independent_implementation_of_the_spec() -> None:
    import base64
    import hashlib
    import struct

    key = Identity.generate(counter_bytes("a")).public_key
    tag = b"dudo-p2p/1/fingerprint"
    encoded = struct.pack(">H", len(tag)) + tag + struct.pack(">I", 1)
    encoded += b"\x01" + struct.pack(">I", 32) + key
    rfc4648 = base64.b32encode(hashlib.sha256(encoded).digest()[:5]).decode()
    crockford = rfc4648.translate(
        str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", "0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    )
    assert fingerprint(key) == f"{crockford[:4]}-{crockford[4:]}"


def test_an_exchange_kept_for_a_peer_is_the_value_computed_afresh() -> None:
    """``exchange`` keeps each peer's value (both keys are fixed for a game): asked again it
    gives what a fresh computation gives, for each peer apart, and an unusable key is
    refused every time (a refusal is not kept)."""
    from cryptography.hazmat.primitives.asymmetric.x25519 import (
        X25519PrivateKey,
        X25519PublicKey,
    )

    me, ann, bob = (Identity.generate(counter_bytes(s)) for s in "mab")
    for peer in (ann, bob, ann, bob):
        fresh = X25519PrivateKey.from_private_bytes(me._x_seed).exchange(
            X25519PublicKey.from_public_bytes(peer.x25519_public))
        assert me.exchange(peer.x25519_public) == fresh == peer.exchange(me.x25519_public)
    assert me.exchange(ann.x25519_public) != me.exchange(bob.x25519_public)
    low_order = bytes(32)  # u = 0: an all-zero value an attacker knows
    for _ in range(2):
        with pytest.raises(InvalidValue):
            me.exchange(low_order)
