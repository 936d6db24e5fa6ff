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
