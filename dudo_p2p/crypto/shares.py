"""Palifico open / closed (V11) by cryptography (protocol.md §3.6).

Open palifico: every seat sees every other seat's dice but not its own. Seat i's dice key is
``open_palifico_key(game, round, i, [s_{j,i} for live j != i in seat order])``; each share
s_{j,i} is chosen and committed by seat j and sent, sealed, to every seat except i (and
except j, who knows it). So every seat but i can compute i's dice; i can only once the
shares are revealed at the end.

Closed palifico: only the one-die seat sees its die. Its dice come from its own round key
as usual; a blind seat i's dice key is ``closed_palifico_key(game, round, i, [k_j for every
live j in seat order])``: it needs every seat's round key, which exist together only once
all are revealed at the end, so nobody (the blind seat included) knows a blind die before.

Sealing: X25519 between the two identities, HKDF-SHA256 with an info string binding both
public keys and the caller's context, ChaCha20-Poly1305 with the context as associated data.
The 12-byte nonce is synthetic (an HMAC of the plaintext under the message key), so sealing
needs no randomness and one (sender, recipient, context, plaintext) has one ciphertext.
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence
from typing import Final

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from dudo_p2p.crypto.dice import SECRET_SIZE, validate_context, validate_secret
from dudo_p2p.crypto.hashing import encode_parts, tag, tagged_hash, tagged_mac
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.errors import DecryptError, InvalidValue

SHARE_CONTEXT_TAG: Final = tag("share-context")
SEAL_INFO_TAG: Final = tag("seal")
SEAL_NONCE_TAG: Final = tag("seal-nonce")
OPEN_KEY_TAG: Final = tag("open-key")
CLOSED_KEY_TAG: Final = tag("closed-key")
NONCE_SIZE: Final = 12
TAG_SIZE: Final = 16
SEALED_SHARE_SIZE: Final = NONCE_SIZE + SECRET_SIZE + TAG_SIZE  # 60 bytes


def share_context(
    game_id: bytes, round_no: int, sender_seat: int, recipient_seat: int, subject_seat: int
) -> bytes:
    """The context a share is sealed under: binds game, round, sender, recipient, subject.

    encode_parts("dudo-p2p/1/share-context", game_id, round_no, sender, recipient, subject).
    Raises InvalidValue on a bad game id/round/seat, or a subject equal to the recipient
    (the subject must never receive its own share) or to the sender.
    """
    for seat in (sender_seat, recipient_seat, subject_seat):
        validate_context(game_id, round_no, seat)
    if subject_seat in (sender_seat, recipient_seat) or sender_seat == recipient_seat:
        raise InvalidValue("sender, recipient and subject of a share are three different seats")
    return encode_parts(
        SHARE_CONTEXT_TAG, game_id, round_no, sender_seat, recipient_seat, subject_seat
    )


def _message_key(
    shared: bytes, sender_pub: bytes, recipient_pub: bytes, context: bytes
) -> bytes:
    info = encode_parts(SEAL_INFO_TAG, sender_pub, recipient_pub, context)
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(shared)


def seal(sender: Identity, recipient_x25519_pub: bytes, context: bytes, plaintext: bytes) -> bytes:
    """Encrypt ``plaintext`` for the holder of ``recipient_x25519_pub`` under ``context``.

    Returns nonce (12) || ChaCha20-Poly1305 ciphertext and tag (len(plaintext) + 16).
    Raises DecryptError when the recipient key is unusable (wrong size or low order: it came
    from a peer's hello, so it is that peer's fault).
    """
    try:
        shared = sender.exchange(recipient_x25519_pub)
    except InvalidValue as exc:
        raise DecryptError(str(exc)) from exc
    key = _message_key(shared, sender.x25519_public, bytes(recipient_x25519_pub), context)
    nonce = tagged_mac(key, SEAL_NONCE_TAG, plaintext)[:NONCE_SIZE]
    return nonce + ChaCha20Poly1305(key).encrypt(nonce, plaintext, context)


def open_sealed(
    recipient: Identity, sender_x25519_pub: bytes, context: bytes, ciphertext: bytes
) -> bytes:
    """The plaintext ``seal`` put in ``ciphertext`` for us, from that sender, under ``context``.

    Raises DecryptError when anything differs: another recipient, sender or context, a
    flipped bit, a truncated ciphertext, a non-synthetic nonce, an unusable sender key.
    """
    if not isinstance(ciphertext, bytes) or len(ciphertext) < NONCE_SIZE + TAG_SIZE:
        raise DecryptError("sealed data is too short")
    try:
        shared = recipient.exchange(sender_x25519_pub)
    except InvalidValue as exc:
        raise DecryptError(str(exc)) from exc
    return open_with_shared(
        shared, bytes(sender_x25519_pub), recipient.x25519_public, context, ciphertext
    )


def open_with_shared(
    shared: bytes, sender_pub: bytes, recipient_pub: bytes, context: bytes, ciphertext: bytes
) -> bytes:
    """:func:`open_sealed` by anyone who holds the pair's X25519 value ``shared`` (a
    recipient proved it to show what a dealer sealed to it, §3.7). Raises DecryptError."""
    if not isinstance(ciphertext, bytes) or len(ciphertext) < NONCE_SIZE + TAG_SIZE:
        raise DecryptError("sealed data is too short")
    key = _message_key(shared, sender_pub, recipient_pub, context)
    nonce, body = ciphertext[:NONCE_SIZE], ciphertext[NONCE_SIZE:]
    try:
        plaintext = ChaCha20Poly1305(key).decrypt(nonce, body, context)
    except InvalidTag as exc:
        raise DecryptError("sealed data does not decrypt for this recipient and context") from exc
    # The nonce must be the synthetic one, so a sender cannot make two different valid
    # ciphertexts of one share (the log then holds a single canonical form).
    if not hmac.compare_digest(nonce, tagged_mac(key, SEAL_NONCE_TAG, plaintext)[:NONCE_SIZE]):
        raise DecryptError("sealed data has a non-canonical nonce")
    return plaintext


def open_palifico_key(
    game_id: bytes, round_no: int, subject: int, shares: Sequence[bytes]
) -> bytes:
    """Seat ``subject``'s dice key in an open palifico round.

    tagged_hash("dudo-p2p/1/open-key", game_id, round_no, subject, len(shares), *shares),
    shares s_{j,subject} of every other live seat j in ascending seat order (at least one).
    """
    validate_context(game_id, round_no, subject)
    if not shares:
        raise InvalidValue("an open palifico key needs at least one share")
    for share in shares:
        validate_secret(share, "share")
    return tagged_hash(OPEN_KEY_TAG, game_id, round_no, subject, len(shares), *shares)


def closed_palifico_key(
    game_id: bytes, round_no: int, seat: int, revealed_keys: Sequence[bytes]
) -> bytes:
    """A blind seat's dice key in a closed palifico round.

    tagged_hash("dudo-p2p/1/closed-key", game_id, round_no, seat, len(keys), *keys), with the
    revealed round keys k_j of every live seat in ascending seat order (at least two).
    """
    validate_context(game_id, round_no, seat)
    if len(revealed_keys) < 2:
        raise InvalidValue("a closed palifico key needs every live seat's key (two or more)")
    for key in revealed_keys:
        validate_secret(key, "round key")
    return tagged_hash(CLOSED_KEY_TAG, game_id, round_no, seat, len(revealed_keys), *revealed_keys)
