"""A peer's identity: an Ed25519 signing key and an X25519 key for pairwise encryption.

Both private keys are 32 raw bytes. The Ed25519 public key *is* the peer's id everywhere
(envelope author, seat table); the X25519 public key is announced in a message signed by
the Ed25519 key, which is what binds the two (protocol.md §2.1).

Serialized form (``to_bytes``, 73 bytes)::

    b"DDID" || version 0x01 || ed25519 seed (32) || x25519 private (32)
    || first 4 bytes of SHA-256 of everything before   (detects a corrupt file)

Pure: the identity file is read and written by ``dudo_p2p.node.keystore``.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from cryptography.hazmat.primitives.asymmetric import x25519
from nacl.bindings import crypto_sign, crypto_sign_open, crypto_sign_seed_keypair
from nacl.exceptions import CryptoError

from dudo_p2p.crypto.hashing import tag, tagged_hash
from dudo_p2p.errors import InvalidValue

KEY_SIZE: Final = 32
SIGNATURE_SIZE: Final = 64
_MAGIC: Final = b"DDID\x01"
_CHECK_SIZE: Final = 4
SERIALIZED_SIZE: Final = len(_MAGIC) + 2 * KEY_SIZE + _CHECK_SIZE

# Crockford's base32: digits and letters without I, L, O, U, so a fingerprint read aloud or
# copied by hand has no look-alikes.
_CROCKFORD: Final = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
FINGERPRINT_TAG: Final = tag("fingerprint")
MAX_SHARED: Final = 64  # X25519 values an identity keeps (Identity.exchange)


class Identity:
    """An Ed25519 + X25519 key pair owner. ``repr`` shows the fingerprint, never a secret."""

    __slots__ = ("_ed", "_ed_seed", "_shared", "_x", "_x_seed", "public_key", "x25519_public")

    def __init__(self, ed25519_seed: bytes, x25519_private: bytes) -> None:
        """Build from the two 32-byte raw private keys; InvalidValue on a wrong length."""
        if len(ed25519_seed) != KEY_SIZE or len(x25519_private) != KEY_SIZE:
            raise InvalidValue("identity private keys are 32 bytes each")
        self._ed_seed = bytes(ed25519_seed)
        self._x_seed = bytes(x25519_private)
        # Ed25519 by libsodium (PyNaCl): it signs in ~40 us where OpenSSL takes ~55 here,
        # the very same bytes (RFC 8032 signatures are deterministic); ``_ed`` is its
        # 64-byte secret key, seed || public key
        self.public_key, self._ed = crypto_sign_seed_keypair(self._ed_seed)
        self._x = x25519.X25519PrivateKey.from_private_bytes(self._x_seed)
        self.x25519_public: bytes = self._x.public_key().public_bytes_raw()
        # exchange()'s values by peer key: both keys are fixed for a game, and every round
        # seals a key share to each other seat and opens one from each (2(n-1) exchanges)
        self._shared: dict[bytes, bytes] = {}

    @classmethod
    def generate(cls, rng_bytes: Callable[[int], bytes] | None = None) -> Identity:
        """A new identity from ``rng_bytes(64)`` (default: the OS CSPRNG).

        Tests pass a deterministic source; real peers must use the default.
        """
        source = rng_bytes if rng_bytes is not None else secrets.token_bytes
        material = source(2 * KEY_SIZE)
        if len(material) != 2 * KEY_SIZE:
            raise InvalidValue("rng_bytes returned the wrong number of bytes")
        return cls(material[:KEY_SIZE], material[KEY_SIZE:])

    def sign(self, data: bytes) -> bytes:
        """The 64-byte Ed25519 signature of ``data`` (deterministic)."""
        return crypto_sign(data, self._ed)[:SIGNATURE_SIZE]  # signature || data

    def exchange(self, peer_x25519_public: bytes) -> bytes:
        """The 32-byte X25519 shared secret with a peer's public key.

        Raises InvalidValue for a key of the wrong length or a low-order point (which would
        give an all-zero secret that an attacker knows too).
        """
        if len(peer_x25519_public) != KEY_SIZE:
            raise InvalidValue("an X25519 public key is 32 bytes")
        key = bytes(peer_x25519_public)
        shared = self._shared.get(key)
        if shared is not None:
            return shared
        try:
            shared = self._x.exchange(x25519.X25519PublicKey.from_public_bytes(key))
        except ValueError as exc:
            raise InvalidValue(f"unusable X25519 public key: {exc}") from exc
        if len(self._shared) >= MAX_SHARED:  # keys of a few tables, not of every stranger
            self._shared.clear()
        self._shared[key] = shared
        return shared

    def prove_exchange(self, peer_x25519_public: bytes, context: bytes) -> tuple[bytes, bytes]:
        """(the X25519 value with a peer's key, a proof anyone can check that it is:
        :func:`dudo_p2p.crypto.exchange_proof.check`), for ``context``. Raises InvalidValue
        when the peer's key is not a usable point of the curve."""
        from dudo_p2p.crypto.exchange_proof import prove  # the group arithmetic, on demand

        return prove(self._x_seed, peer_x25519_public, context)

    def to_bytes(self) -> bytes:
        """The 73-byte serialized form (module docstring). Secret: store it 0600."""
        body = _MAGIC + self._ed_seed + self._x_seed
        return body + hashlib.sha256(body).digest()[:_CHECK_SIZE]

    @classmethod
    def from_bytes(cls, data: bytes) -> Identity:
        """Parse ``to_bytes`` output; InvalidValue (saying what is wrong) on anything else."""
        if len(data) != SERIALIZED_SIZE:
            raise InvalidValue(f"identity data is {len(data)} bytes, expected {SERIALIZED_SIZE}")
        if not data.startswith(_MAGIC):
            raise InvalidValue("identity data has an unknown magic or version")
        body, check = data[:-_CHECK_SIZE], data[-_CHECK_SIZE:]
        if hashlib.sha256(body).digest()[:_CHECK_SIZE] != check:
            raise InvalidValue("identity data fails its checksum (corrupt)")
        seeds = body[len(_MAGIC) :]
        return cls(seeds[:KEY_SIZE], seeds[KEY_SIZE:])

    def __repr__(self) -> str:
        return f"Identity({fingerprint(self.public_key)})"


def verify(public_key: bytes, data: bytes, signature: bytes) -> bool:
    """True when ``signature`` is a valid Ed25519 signature of ``data`` by ``public_key``
    under the rule of protocol.md §2.5 (RFC 8032's cofactorless equation, by libsodium's
    ``crypto_sign_verify_detached``), which is stricter than RFC 8032 on three points that
    no honest signer meets: ``S`` must be canonical (< L), the key a canonical encoding of a
    point not of small order, and ``R`` no point of small order.

    Never raises: a key or signature of the wrong type or length, or an invalid point, is
    simply False (everything here may come from the wire).
    """
    if not isinstance(public_key, bytes) or not isinstance(signature, bytes):
        return False
    if not isinstance(data, bytes) or len(public_key) != KEY_SIZE:
        return False
    if len(signature) != SIGNATURE_SIZE:
        return False
    try:
        # libsodium: ~70 us a check on this machine's CPU clock where OpenSSL (through
        # ``cryptography``) took ~150; the signed message is passed as signature || data
        crypto_sign_open(signature + data, public_key)
    except CryptoError:
        return False
    return True


def fingerprint(public_key: bytes) -> str:
    """A short human-comparable id of a public key: "K7QF-2M9A".

    The first 40 bits of tagged_hash("dudo-p2p/1/fingerprint", public_key) in Crockford
    base32, grouped 4-4. It is for people checking who sits at the table, not a security
    boundary: the full 32-byte key is the identity everywhere in the protocol.
    """
    digest = tagged_hash(FINGERPRINT_TAG, bytes(public_key))
    bits = int.from_bytes(digest[:5], "big")
    chars = "".join(_CROCKFORD[(bits >> shift) & 31] for shift in range(35, -1, -5))
    return f"{chars[:4]}-{chars[4:]}"


@dataclass(frozen=True)
class KeyPin:
    """The host a joiner chose: a full public key, or only its fingerprint (what a person
    reads off another screen). :meth:`matches` says whether a key is that host's. A
    fingerprint is 40 bits, so a pin by fingerprint resists a chance collision, not a key
    ground to match (about 2^40 work): pin the full key where that matters (protocol.md §2.1).
    """

    key: bytes | None = None
    fingerprint: str | None = None

    @classmethod
    def parse(cls, text: str) -> KeyPin:
        """``KX45-EVEW`` (any case, dash optional, Crockford's O/I/L read as 0/1/1) or 64 hex
        digits of the key; raises InvalidValue for anything else."""
        raw = text.strip()
        if len(raw) == 2 * KEY_SIZE:
            try:
                return cls(key=bytes.fromhex(raw))
            except ValueError:
                pass
        chars = raw.upper().replace("-", "").translate(str.maketrans("OIL", "011"))
        if len(chars) != 8 or any(ch not in _CROCKFORD for ch in chars):
            raise InvalidValue(f"not a fingerprint (XXXX-XXXX) nor a 64-hex key: {text!r}")
        return cls(fingerprint=f"{chars[:4]}-{chars[4:]}")

    def matches(self, public_key: bytes) -> bool:
        """True when ``public_key`` is the pinned host's."""
        if self.key is not None:
            return public_key == self.key
        return fingerprint(public_key) == self.fingerprint

    def __str__(self) -> str:
        return fingerprint(self.key) if self.key is not None else str(self.fingerprint)
