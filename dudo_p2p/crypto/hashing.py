"""Domain-separated hashing: one unambiguous encoding for every hash and MAC input.

Every hash in dudo-p2p is ``tagged_hash(tag, *parts)``: SHA-256 over ``encode_parts(tag,
*parts)``. The encoding is length-prefixed and typed, so no two different (tag, parts)
lists give the same bytes (protocol.md §2.2 spells it out byte by byte)::

    u16be(len(tag)) || tag (UTF-8)
    u32be(number of parts)
    for each part:  type (1 byte) || u32be(len(payload)) || payload
        0x01 bytes  payload = the bytes
        0x02 int    payload = 8 bytes, big-endian two's complement (-2**63 .. 2**63-1)
        0x03 str    payload = UTF-8

Tags name the version of the hashes and the purpose ("dudo-p2p/1/commit-key"); ``tag()``
builds them. The wire's version (:data:`PROTOCOL_VERSION`, carried and signed by every
envelope) is another number: version 2 of the wire changed no hash, so the tags (and every
fingerprint) stayed those of version 1. Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from typing import Final

from dudo_p2p.errors import InvalidValue

PROTOCOL_VERSION: Final = 2  # the wire's (protocol.md §2.5): every envelope signs it
TAG_VERSION: Final = 1  # the hashes' (§2.2): unchanged by wire version 2, fingerprints stay
TAG_PREFIX: Final = f"dudo-p2p/{TAG_VERSION}/"

Part = bytes | int | str

_TYPE_BYTES: Final = b"\x01"
_TYPE_INT: Final = b"\x02"
_TYPE_STR: Final = b"\x03"
_INT_MIN: Final = -(2**63)
_INT_MAX: Final = 2**63 - 1


def tag(purpose: str) -> str:
    """The domain tag for ``purpose``: "dudo-p2p/1/<purpose>" (:data:`TAG_VERSION`)."""
    return TAG_PREFIX + purpose


def encode_parts(domain: str, *parts: Part) -> bytes:
    """The unambiguous byte encoding of a tag and its parts (layout in the module docstring).

    Raises InvalidValue for a tag without the ``dudo-p2p/<version>/`` prefix, a bool (which
    would silently read as an int), an int outside 64-bit signed range, or another type.
    """
    # on every entry digest, chain link and commitment (tens of thousands a game): the
    # tag's bytes are kept, and plain bytes and ints take a short path (~2 us a call, not 3-7)
    out = [_tag_head(domain), len(parts).to_bytes(4, "big")]
    for part in parts:
        if type(part) is bytes:
            out.append(_TYPE_BYTES + len(part).to_bytes(4, "big") + part)
        elif type(part) is int and _INT_MIN <= part <= _INT_MAX:
            out.append(_INT_HEAD + part.to_bytes(8, "big", signed=True))
        else:
            out.append(_encode_part(part))
    return b"".join(out)


_INT_HEAD: Final = _TYPE_INT + (8).to_bytes(4, "big")
_TAG_HEADS: dict[str, bytes] = {}
_MAX_TAGS: Final = 256  # the code's tags are a few dozen: the bound is a guard only


def _tag_head(domain: str) -> bytes:
    """u16be(len(tag)) || tag, checked once per tag."""
    head = _TAG_HEADS.get(domain) if type(domain) is str else None
    if head is None:
        if not isinstance(domain, str) or not domain.startswith(TAG_PREFIX):
            raise InvalidValue(f"hash tag {domain!r} lacks the {TAG_PREFIX!r} prefix")
        tag_bytes = domain.encode("utf-8")
        head = struct.pack(">H", len(tag_bytes)) + tag_bytes
        if len(_TAG_HEADS) < _MAX_TAGS:
            _TAG_HEADS[domain] = head
    return head


def _encode_part(part: object) -> bytes:
    """type || u32be(len(payload)) || payload for any part (the general path)."""
    # bool first: it is an int subclass, and True must not hash like 1 by accident.
    if isinstance(part, bool):
        raise InvalidValue("a bool is not a hash part; pass an int explicitly")
    if isinstance(part, bytes | bytearray | memoryview):
        payload = bytes(part)
        kind = _TYPE_BYTES
    elif isinstance(part, int):
        if not _INT_MIN <= part <= _INT_MAX:
            raise InvalidValue(f"hash part {part} is outside the 64-bit signed range")
        payload = struct.pack(">q", part)
        kind = _TYPE_INT
    elif isinstance(part, str):
        payload = part.encode("utf-8")
        kind = _TYPE_STR
    else:
        raise InvalidValue(f"hash part of type {type(part).__name__} is not bytes|int|str")
    return kind + struct.pack(">I", len(payload)) + payload


def tagged_hash(domain: str, *parts: Part) -> bytes:
    """SHA-256 of ``encode_parts(domain, *parts)``: 32 bytes. Raises as ``encode_parts``."""
    return hashlib.sha256(encode_parts(domain, *parts)).digest()


def tagged_mac(key: bytes, domain: str, *parts: Part) -> bytes:
    """HMAC-SHA256 under ``key`` of ``encode_parts(domain, *parts)``: 32 bytes."""
    return hmac.new(key, encode_parts(domain, *parts), hashlib.sha256).digest()
