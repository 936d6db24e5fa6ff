"""Canonical msgpack: one encoding per value, and every malformed frame refused."""

from __future__ import annotations

import random
import struct

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dudo_p2p.errors import DecodeError, FrameTooLarge, LocalProtocolError
from dudo_p2p.protocol import MAX_FRAME, decode, encode

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.text(max_size=20)
    | st.binary(max_size=20)
)
wire_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=30,
)


@settings(derandomize=True, max_examples=300)
@given(wire_values)
def test_every_wire_value_round_trips_and_its_encoding_is_the_only_one_accepted(
    value: object,
) -> None:
    data = encode(value)
    assert decode(data) == value
    assert encode(decode(data)) == data


def test_map_order_and_tuples_do_not_change_the_encoding() -> None:
    assert encode({"b": 1, "a": (1, 2)}) == encode({"a": [1, 2], "b": 1})
    assert encode({"b": 1, "a": 2}) == b"\x82\xa1a\x02\xa1b\x01"


@pytest.mark.parametrize("bad", [1.5, {1: 2}, {b"k": 1}, {1, 2}, object(), 2**64, -(2**63) - 1])
def test_encode_refuses_what_the_wire_cannot_carry(bad: object) -> None:
    with pytest.raises(LocalProtocolError):
        encode(bad)


def test_encode_refuses_too_deep_nesting() -> None:
    value: object = 1
    for _ in range(40):
        value = [value]
    with pytest.raises(LocalProtocolError):
        encode(value)


def test_an_oversize_frame_is_refused_before_parsing() -> None:
    # Garbage that would be a DecodeError if parsed: FrameTooLarge proves it was not.
    with pytest.raises(FrameTooLarge):
        decode(b"\xc1" * (MAX_FRAME + 1))
    with pytest.raises(FrameTooLarge):
        decode(encode(b"x" * 200), max_size=100)
    assert decode(encode(b"x" * 200), max_size=300) == b"x" * 200


def test_deep_nesting_is_refused() -> None:
    with pytest.raises(DecodeError, match="deeper"):
        decode(b"\x91" * 20 + b"\x01")
    with pytest.raises(DecodeError):
        decode(b"\x91" * 5000 + b"\x01")  # beyond msgpack's own stack
    assert decode(b"\x91" * 5 + b"\x01") == [[[[[1]]]]]


@pytest.mark.parametrize(
    "header",
    [
        b"\xdd\xff\xff\xff\xff",  # array32 of 4 billion items
        b"\xdf\xff\xff\xff\xff",  # map32
        b"\xdb\x7f\xff\xff\xff",  # str32 of 2 GiB
        b"\xc6\x7f\xff\xff\xff",  # bin32
        b"\xdc\x10\x00",  # array16 of 4096 > the container limit
    ],
)
def test_huge_declared_lengths_are_refused_without_allocating(header: bytes) -> None:
    with pytest.raises(DecodeError):
        decode(header + b"\x00" * 16)


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("truncated", encode([1, 2, b"abc"])[:-1]),
        ("empty", b""),
        ("trailing", encode(1) + b"\x01"),
        ("reserved byte", b"\xc1"),
        ("float", struct.pack(">Bd", 0xCB, 1.5)),
        ("ext", b"\xd4\x01\x00"),
        ("int key", b"\x81\x01\x02"),
        ("bytes key", b"\x81\xc4\x01k\x01"),
        ("list key", b"\x81\x91\x01\x02"),
        ("bad utf-8", b"\xa1\xff"),
        ("not bytes", "text"),
    ],
)
def test_malformed_frames_are_decode_errors(name: str, data: bytes) -> None:
    with pytest.raises(DecodeError):
        decode(data)


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("int in 8 bytes", b"\xd3" + (1).to_bytes(8, "big")),
        ("uint8 for a fixint", b"\xcc\x05"),
        ("str8 for a short str", b"\xd9\x01a"),
        ("array16 for 1 item", b"\xdc\x00\x01\x01"),
        ("unsorted keys", b"\x82\xa1b\x01\xa1a\x02"),
        ("duplicate keys", b"\x82\xa1a\x01\xa1a\x02"),
    ],
)
def test_non_canonical_encodings_are_refused(name: str, data: bytes) -> None:
    with pytest.raises(DecodeError):
        decode(data)


def _reference_decode(data: bytes) -> object:
    """The definition of canonical, spelled out slowly: parse, then encode the value again
    (sorting every map, refusing what the wire cannot carry) and compare the bytes. ``decode``
    checks the key order itself and lets msgpack's packer re-encode; it must accept exactly
    what this accepts. Returns the value, or DecodeError (refused)."""
    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=True, max_array_len=1024,
                                max_map_len=1024, max_ext_len=0)
        return value if encode(value) == data else DecodeError()
    except (ValueError, TypeError, msgpack.UnpackException, LocalProtocolError):
        return DecodeError()


def _mutations(data: bytes, where: int, byte: int) -> list[bytes]:
    at = where % (len(data) + 1)
    return [data[:at] + bytes([byte]) + data[at + 1:],  # one byte replaced
            data[:at] + bytes([byte]) + data[at:],  # one byte inserted
            data[:at] + data[at + 1:]]  # one byte removed


@settings(derandomize=True, max_examples=400)
@given(wire_values, st.integers(0, 1 << 16), st.integers(0, 255), st.randoms(use_true_random=False))
def test_decode_accepts_exactly_the_bytes_that_re_encode_to_themselves(
    value: object, where: int, byte: int, rng: random.Random,
) -> None:
    canonical = encode(value)
    # the same value in other encodings: maps in another key order, longer int/str headers
    shuffled = msgpack.packb(_shuffle_maps(decode(canonical), rng), use_bin_type=True)
    for data in [canonical, shuffled, *_mutations(canonical, where, byte)]:
        expected = _reference_decode(data)
        if isinstance(expected, DecodeError):
            with pytest.raises(DecodeError):
                decode(data)
        else:
            assert decode(data) == expected


def _shuffle_maps(value: object, rng: random.Random) -> object:
    if isinstance(value, list):
        return [_shuffle_maps(item, rng) for item in value]
    if isinstance(value, dict):
        keys = list(value)
        rng.shuffle(keys)
        return {key: _shuffle_maps(value[key], rng) for key in keys}
    return value


def test_a_map_with_its_keys_out_of_order_is_refused_at_any_depth() -> None:
    inner_unsorted = b"\x91" + b"\x82\xa1b\x01\xa1a\x02"  # [ {"b": 1, "a": 2} ]
    with pytest.raises(DecodeError, match="non-canonical"):
        decode(inner_unsorted)
    assert decode(b"\x91\x82\xa1a\x02\xa1b\x01") == [{"a": 2, "b": 1}]
    # UTF-8 byte order is code point order: "z" (0x7a) sorts before "é" (0xc3 0xa9)
    assert decode(encode({"é": 1, "z": 2})) == {"z": 2, "é": 1}
    with pytest.raises(DecodeError):
        decode(b"\x82\xa2\xc3\xa9\x01\xa1z\x02")
