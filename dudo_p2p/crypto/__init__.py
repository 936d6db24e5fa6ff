"""Identities, domain-separated hashing, commitments, dice derivation, palifico shares.

Pure: no sockets, no clock, no global random, no files: the identity file is read and written
by :mod:`dudo_p2p.node.keystore` (the node owns I/O).
"""

from dudo_p2p.crypto.dice import (
    GAME_ID_SIZE,
    SECRET_SIZE,
    CommitKind,
    check_commitment,
    commit,
    derive_dice,
    public_draw,
    reveal_seed,
    round_seed,
)
from dudo_p2p.crypto.hashing import (
    PROTOCOL_VERSION,
    encode_parts,
    tag,
    tagged_hash,
    tagged_mac,
)
from dudo_p2p.crypto.identity import KEY_SIZE, SIGNATURE_SIZE, Identity, fingerprint, verify
from dudo_p2p.crypto.shares import (
    SEALED_SHARE_SIZE,
    closed_palifico_key,
    open_palifico_key,
    open_sealed,
    seal,
    share_context,
)

__all__ = [
    "GAME_ID_SIZE",
    "KEY_SIZE",
    "PROTOCOL_VERSION",
    "SEALED_SHARE_SIZE",
    "SECRET_SIZE",
    "SIGNATURE_SIZE",
    "CommitKind",
    "Identity",
    "check_commitment",
    "closed_palifico_key",
    "commit",
    "derive_dice",
    "encode_parts",
    "fingerprint",
    "open_palifico_key",
    "open_sealed",
    "public_draw",
    "reveal_seed",
    "round_seed",
    "seal",
    "share_context",
    "tag",
    "tagged_hash",
    "tagged_mac",
    "verify",
]
