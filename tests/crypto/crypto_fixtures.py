"""Deterministic identities and secrets for the crypto tests (no OS randomness)."""

from __future__ import annotations

import hashlib
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
