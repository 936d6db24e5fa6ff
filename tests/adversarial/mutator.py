"""A seeded frame mutator for fuzzing: bit flips, truncation, splicing of real captured frames,
random msgpack values, envelope-shaped values, signed nonsense and msgpack bombs.

Every function takes an injected ``random.Random`` so a run is reproducible from its seed.
"""

from __future__ import annotations

import random
import struct

import msgpack

from dudo_p2p.crypto.identity import Identity
from dudo_p2p.protocol.codec import encode
from dudo_p2p.protocol.envelope import ENVELOPE_TAG
from dudo_p2p.protocol.messages import registered_kinds

KINDS = sorted(registered_kinds())


def bombs() -> list[bytes]:
    """Frames built to exhaust a careless decoder: huge declared lengths with no data behind
    them, deep nesting, many tiny items, and frames just over the size limit."""
    out = [
        b"\xdb\xff\xff\xff\xff",  # str32 of 4 GiB declared
        b"\xc6\xff\xff\xff\xff" + b"x" * 16,  # bin32 of 4 GiB declared
        b"\xdd\xff\xff\xff\xff" + b"\xc0" * 64,  # array32 of 4 G items
        b"\xdf\xff\xff\xff\xff" + b"\xa1k\xc0" * 16,  # map32 of 4 G pairs
        b"\x98" + b"\xdd\x7f\xff\xff\xff" * 8,  # an envelope-sized array of huge arrays
        b"\x91" * 60_000 + b"\xc0",  # 60 000 levels of nesting
        b"\x81\xa1k" * 20_000 + b"\xc0",  # 20 000 levels of nested maps
        b"\xdc\x04\x00" + b"\xdc\x04\x00" * 10 + b"\xc0" * 1024,  # nested 1024-arrays, truncated
        b"\xdd\x00\x00\xff\xff" + b"\xc0" * 65_535,  # 65 535 nils (over the frame limit)
        b"\xc7\xff\xff\xff\xff",  # ext8 (no ext allowed)
        b"\xc9\xff\xff\xff\xff\x01",  # ext32 of 4 GiB declared
        b"\xcb" + struct.pack(">d", float("nan")),  # a float
        b"\x98\x01\xc4\x10" + bytes(16) + b"\x00\x00\xc4\x20" + bytes(32)
        + b"\xa3ack\x81\xa5entry" + b"\xc6\x7f\xff\xff\xff",  # an ack whose entry lies
        bytes(65_537),  # one byte over the frame limit
        b"",
    ]
    return out


def random_wire(rng: random.Random, depth: int = 0) -> object:
    """A random value of the wire's types (sometimes one the codec refuses)."""
    roll = rng.random()
    if depth > 4 or roll < 0.5:
        return rng.choice([
            None, True, False, rng.randrange(-(2**63), 2**64), rng.randrange(-40, 300),
            rng.randbytes(rng.choice([0, 1, 16, 31, 32, 33, 64, 65])),
            "".join(chr(rng.randrange(32, 0x2FF)) for _ in range(rng.randrange(12))),
            rng.choice(KINDS), rng.random(),
        ])
    if roll < 0.75:
        return [random_wire(rng, depth + 1) for _ in range(rng.randrange(10))]
    keys = ["prev", "kind", "count", "face", "option", "entry", "nonce", "key", "target",
            "reason", "have", "entries", "start", "more", "length", "head", "first", "second"]
    return {rng.choice(keys): random_wire(rng, depth + 1) for _ in range(rng.randrange(6))}


def random_msgpack(rng: random.Random) -> bytes:
    data: bytes = msgpack.packb(random_wire(rng), use_bin_type=True)
    return data


def envelope_shaped(rng: random.Random, game_id: bytes, authors: list[bytes]) -> bytes:
    """An array of 8 that passes the envelope's shape checks more often than random bytes."""
    body = random_wire(rng, 1)
    if not isinstance(body, dict):
        body = {}
    fields = [
        rng.choice([1, 1, 1, 2, 0]),
        rng.choice([game_id, bytes(16), rng.randbytes(16)]),
        rng.randrange(0, 6),
        rng.randrange(0, 6),
        rng.choice([*authors, rng.randbytes(32)]),
        rng.choice(KINDS),
        body,
        rng.randbytes(64),
    ]
    data: bytes = msgpack.packb(fields, use_bin_type=True)
    return data


def signed_nonsense(rng: random.Random, identity: Identity, game_id: bytes) -> bytes:
    """A validly signed envelope (by a seated key) whose body is random: it passes the
    signature only when the body also decodes, so it reaches the deepest checks."""
    body = random_wire(rng, 1)
    if not isinstance(body, dict):
        body = {}
    kind = rng.choice(KINDS)
    round_no, seq = rng.randrange(0, 6), rng.randrange(0, 4)
    try:
        signed = encode([ENVELOPE_TAG, 1, game_id, round_no, seq, identity.public_key, kind, body])
        return encode([1, game_id, round_no, seq, identity.public_key, kind, body,
                       identity.sign(signed)])
    except Exception:  # a body the codec refuses: send it unsigned instead
        data: bytes = msgpack.packb(body, use_bin_type=True)
        return data


def mutate(rng: random.Random, frame: bytes, corpus: list[bytes]) -> bytes:
    """One to four random edits of a real frame."""
    data = bytearray(frame)
    for _ in range(rng.randrange(1, 5)):
        op = rng.randrange(7)
        if op == 0 and data:  # flip bits
            for _ in range(rng.randrange(1, 4)):
                pos = rng.randrange(len(data))
                data[pos] ^= 1 << rng.randrange(8)
        elif op == 1 and data:  # truncate
            del data[rng.randrange(len(data)):]
        elif op == 2 and corpus:  # splice with another real frame
            other = rng.choice(corpus)
            cut = rng.randrange(len(data) + 1)
            data = data[:cut] + other[rng.randrange(len(other) + 1):]
        elif op == 3 and data:  # overwrite a byte with an interesting value
            data[rng.randrange(len(data))] = rng.choice([0x00, 0x7F, 0x80, 0xC0, 0xC1, 0xD9,
                                                         0xDB, 0xDC, 0xDD, 0xDE, 0xDF, 0xFF])
        elif op == 4:  # insert random bytes
            pos = rng.randrange(len(data) + 1)
            data[pos:pos] = rng.randbytes(rng.randrange(1, 9))
        elif op == 5 and len(data) > 2:  # duplicate a slice
            a = rng.randrange(len(data))
            b = min(len(data), a + rng.randrange(1, 64))
            data[a:a] = data[a:b]
        elif op == 6:  # append trailing garbage
            data += rng.randbytes(rng.randrange(1, 4))
    return bytes(data)


def fuzz_frame(
    rng: random.Random, corpus: list[bytes], game_id: bytes, authors: list[bytes],
    signer: Identity | None = None,
) -> bytes:
    """One fuzz frame drawn from every family above."""
    roll = rng.random()
    if roll < 0.45 and corpus:
        return mutate(rng, rng.choice(corpus), corpus)
    if roll < 0.6:
        return random_msgpack(rng)
    if roll < 0.75:
        return envelope_shaped(rng, game_id, authors)
    if roll < 0.85 and signer is not None:
        return signed_nonsense(rng, signer, game_id)
    if roll < 0.9:
        return rng.choice(bombs())
    return rng.randbytes(rng.randrange(0, 300))
