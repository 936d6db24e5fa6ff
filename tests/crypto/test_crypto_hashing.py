"""tagged_hash: the encoding is unambiguous, typed and domain-separated."""

from __future__ import annotations

import hashlib

import pytest

from dudo_p2p.crypto import encode_parts, tag, tagged_hash
from dudo_p2p.errors import InvalidValue


def test_encoding_matches_the_documented_layout_byte_by_byte() -> None:
    encoded = encode_parts("dudo-p2p/1/x", b"\xaa", 258, "é")
    assert encoded == (
        b"\x00\x0c"
        + b"dudo-p2p/1/x"
        + b"\x00\x00\x00\x03"
        + b"\x01"
        + b"\x00\x00\x00\x01"
        + b"\xaa"
        + b"\x02"
        + b"\x00\x00\x00\x08"
        + (258).to_bytes(8, "big")
        + b"\x03"
        + b"\x00\x00\x00\x02"
        + "é".encode()
    )
    assert tagged_hash("dudo-p2p/1/x", b"\xaa", 258, "é") == hashlib.sha256(encoded).digest()


def test_moving_a_byte_between_parts_changes_the_hash() -> None:
    assert tagged_hash(tag("t"), b"ab", b"c") != tagged_hash(tag("t"), b"a", b"bc")
    assert tagged_hash(tag("t"), b"abc") != tagged_hash(tag("t"), b"ab", b"c")


def test_types_are_part_of_the_encoding() -> None:
    assert tagged_hash(tag("t"), 1) != tagged_hash(tag("t"), (1).to_bytes(8, "big"))
    assert tagged_hash(tag("t"), "a") != tagged_hash(tag("t"), b"a")


def test_tags_separate_domains() -> None:
    assert tagged_hash(tag("commit-key"), b"k") != tagged_hash(tag("commit-nonce"), b"k")
    assert tag("commit-key") == "dudo-p2p/1/commit-key"


def test_negative_ints_are_twos_complement() -> None:
    assert encode_parts(tag("t"), -1).endswith(b"\xff" * 8)


@pytest.mark.parametrize("bad", [True, 2**63, -(2**63) - 1, 1.5, None, [1]])
def test_refuses_parts_that_could_be_ambiguous_or_unencodable(bad: object) -> None:
    with pytest.raises(InvalidValue):
        tagged_hash(tag("t"), bad)  # type: ignore[arg-type]


def test_refuses_a_tag_without_the_versioned_prefix() -> None:
    with pytest.raises(InvalidValue):
        tagged_hash("commit-key", b"x")


def reference(domain: str, *parts: object) -> bytes:
    """The module docstring's layout, written out plainly (no kept tags, no short paths)."""
    out = len(domain.encode()).to_bytes(2, "big") + domain.encode()
    out += len(parts).to_bytes(4, "big")
    for part in parts:
        if isinstance(part, bytes | bytearray | memoryview):
            kind, payload = b"\x01", bytes(part)
        elif isinstance(part, int):
            kind, payload = b"\x02", part.to_bytes(8, "big", signed=True)
        else:
            assert isinstance(part, str)
            kind, payload = b"\x03", part.encode()
        out += kind + len(payload).to_bytes(4, "big") + payload
    return out


def test_every_kind_of_part_encodes_as_the_layout_says_on_every_path() -> None:
    """The short paths (bytes, int) and the general one (bytearray, memoryview, an int
    subclass, str) against the layout written plainly; the edges of the int range; a tag
    seen many times encodes as the first time, and a refused tag stays refused."""
    import enum

    class Seat(enum.IntEnum):
        TWO = 2

    parts: list[object] = [b"", b"\x00" * 300, bytearray(b"ab"), memoryview(b"cd"), 0, -1,
                           2**63 - 1, -(2**63), Seat.TWO, "", "ñandú", 7]
    for i in range(len(parts)):
        for domain in (tag("t"), tag("entry"), "dudo-p2p/1/é"):
            chosen = parts[i:] + parts[:i]
            assert encode_parts(domain, *chosen) == reference(domain, *chosen)  # type: ignore[arg-type]
    assert encode_parts(tag("t")) == reference(tag("t"))
    for _ in range(3):
        with pytest.raises(InvalidValue):
            encode_parts("dudo-p2p/2/t", b"x")
        with pytest.raises(InvalidValue):
            encode_parts(b"dudo-p2p/1/t", b"x")  # type: ignore[arg-type]
