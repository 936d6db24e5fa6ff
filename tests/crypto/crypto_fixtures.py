"""Deterministic identities and secrets for the crypto tests (no OS randomness)."""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable

from dudo_p2p.crypto import Identity

GAME = bytes.fromhex("00112233445566778899aabbccddeeff")


def counter_bytes(label: str) -> Callable[[int], bytes]:
    """A deterministic rng_bytes: SHA-256 in counter mode over ``label``."""
    state = {"block": 0}

    def source(n: int) -> bytes:
        out = b""
        while len(out) < n:
            out += hashlib.sha256(f"{label}/{state['block']}".encode()).digest()
            state["block"] += 1
        return out[:n]

    return source


def secret(label: str) -> bytes:
    """A 32-byte secret named by ``label``."""
    return hashlib.sha256(label.encode()).digest()


def identities(n: int) -> list[Identity]:
    """``n`` distinct deterministic identities, seat order."""
    return [Identity.generate(counter_bytes(f"seat-{seat}")) for seat in range(n)]


def spec_encode(tag: str, *parts: bytes | int) -> bytes:
    """protocol.md's ``encode_parts`` (§2.2) re-implemented from the text alone (struct): the
    tag's length and bytes, the part count, then each part as type, length and value."""
    out = struct.pack(">H", len(tag)) + tag.encode() + struct.pack(">I", len(parts))
    for part in parts:
        if isinstance(part, int):
            out += b"\x02" + struct.pack(">I", 8) + struct.pack(">q", part)
        else:
            out += b"\x01" + struct.pack(">I", len(part)) + part
    return out
