"""The beacon codec: every valid beacon round-trips, every malformed datagram is refused, a
beacon of another version is told apart (never a Beacon), with its table when its head says
one (protocol.md §5.3)."""

from __future__ import annotations

import random
import struct
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dudo_p2p.errors import DecodeError, InvalidValue
from dudo_p2p.net.beacon import (
    HEADER_SIZE,
    MAX_BEACON_SIZE,
    MAX_TURN_TIMER_MS,
    TABLE_CODE_ALPHABET,
    Beacon,
    OtherTable,
    OtherVersion,
    TableState,
    decode,
    encode,
    is_table_code,
    new_table_code,
)

PEER = bytes(range(32))
OPEN = Beacon(PEER, 40000, "K7QXM", TableState.OPEN, 2, 4, "Ana", 5, 0x20010, 30_000)

names = st.text(
    st.characters(blacklist_categories=("Cc", "Cf", "Cs")), max_size=32
).filter(lambda s: len(s.encode()) <= 32)
codes = st.text(st.sampled_from(TABLE_CODE_ALPHABET), min_size=5, max_size=5)


@st.composite
def beacons(draw: st.DrawFn) -> Beacon:
    state = draw(st.sampled_from(TableState))
    peer_id = draw(st.binary(min_size=32, max_size=32))
    port = draw(st.integers(0, 0xFFFF))
    name = draw(names)
    if state is TableState.NONE:
        return Beacon(peer_id, port, name=name)
    total = draw(st.integers(1, 255))
    if state is TableState.OPEN:
        taken = draw(st.integers(0, total - 1))
    elif state is TableState.FULL:
        taken = total
    else:
        taken = draw(st.integers(0, total))
    return Beacon(peer_id, port, draw(codes), state, taken, total, name,
                  draw(st.integers(1, 255)), draw(st.integers(0, 2**32 - 1)),
                  draw(st.integers(0, MAX_TURN_TIMER_MS)))


@given(beacons())
def test_every_valid_beacon_round_trips_with_its_documented_length(beacon: Beacon) -> None:
    data = encode(beacon)
    assert decode(data) == beacon
    assert len(data) == HEADER_SIZE + len(beacon.name.encode())
    assert len(data) <= MAX_BEACON_SIZE


def test_encoding_matches_the_byte_layout_in_protocol_md() -> None:
    expected = (
        b"DUDO" + b"\x02" + PEER + b"\x9c\x40" + b"K7QXM" + b"\x01\x02\x04"
        + b"\x05" + b"\x00\x02\x00\x10" + b"\x00\x00\x75\x30" + b"\x03" + b"Ana"
    )
    assert encode(OPEN) == expected
    assert len(expected) == 60 == HEADER_SIZE + 3
    assert encode(Beacon(PEER, 0))[37:57] == bytes(20)
    assert MAX_BEACON_SIZE == 89  # well under the 508 bytes any IPv4 path carries whole


@given(st.binary(max_size=200))
def test_arbitrary_bytes_either_decode_or_raise_decode_error(data: bytes) -> None:
    try:
        beacon = decode(data)
    except DecodeError:
        return
    assert encode(beacon) == data  # one beacon, one encoding


@pytest.mark.parametrize("cut", range(len(encode(OPEN))))
def test_every_truncation_is_refused(cut: int) -> None:
    with pytest.raises(DecodeError):
        decode(encode(OPEN)[:cut])


def _patch(data: bytes, offset: int, new: bytes) -> bytes:
    return data[:offset] + new + data[offset + len(new):]


GOOD = encode(OPEN)
NONE = encode(Beacon(PEER, 1))
MALFORMED = {
    "trailing byte": GOOD + b"\x00",
    "bad magic": _patch(GOOD, 0, b"ZRE\x01"),
    "version 0": _patch(GOOD, 4, b"\x00"),
    "version 1 (the old wire's tables)": _patch(GOOD, 4, b"\x01"),
    "version 3": _patch(GOOD, 4, b"\x03"),
    "no dice at a table": _patch(GOOD, 47, b"\x00"),
    "turn timer over an hour": _patch(GOOD, 52, struct.pack("!I", MAX_TURN_TIMER_MS + 1)),
    "turn timer of 2**32-1": _patch(GOOD, 52, b"\xff" * 4),
    "dice on no table": _patch(NONE, 47, b"\x05"),
    "variants on no table": _patch(NONE, 48, b"\x00\x00\x00\x01"),
    "timer on no table": _patch(NONE, 52, b"\x00\x00\x75\x30"),
    "a version 1 layout under version 2": GOOD[:47] + b"\x03" + b"Ana",
    "unknown state": _patch(GOOD, 44, b"\x04"),
    "lowercase code": _patch(GOOD, 39, b"k7qxm"),
    "confusable O in code": _patch(GOOD, 39, b"K7QXO"),
    "digit 0 in code": _patch(GOOD, 39, b"K7QX0"),
    "non-ascii code": _patch(GOOD, 39, b"K7QX\xc3"),
    "zero code on an open table": _patch(GOOD, 39, b"\x00" * 5),
    "code on no table": NONE[:39] + b"K7QXM" + NONE[44:],
    "seats on no table": _patch(NONE, 45, b"\x00\x02"),
    "more taken than total": _patch(GOOD, 45, b"\x05\x04"),
    "open table with no free seat": _patch(GOOD, 45, b"\x04\x04"),
    "full table with a free seat": _patch(GOOD, 44, b"\x02"),
    "table without seats": _patch(GOOD, 45, b"\x00\x00"),
    "name length over 32": GOOD[:56] + b"\x21" + b"a" * 33,
    "name length beyond the data": GOOD[:56] + b"\x05" + b"abc",
    "name not utf-8": GOOD[:56] + b"\x02" + b"\xff\xfe",
    "control char in name": GOOD[:56] + b"\x02" + b"a\n",
    "escape char in name": GOOD[:56] + b"\x04" + b"\x1b[2J",
    "right-to-left override in name": GOOD[:56] + b"\x04" + "\u202ea".encode(),
    "zero-width space in name": GOOD[:56] + b"\x04" + "a\u200b".encode(),
    "empty": b"",
}


@pytest.mark.parametrize("data", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_beacon_is_refused_with_decode_error(data: bytes) -> None:
    with pytest.raises(DecodeError):
        decode(data)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"peer_id": b"\x01" * 31},
        {"port": 70000},
        {"port": -1},
        {"name": "x" * 33},
        {"name": "ñ" * 17},  # 34 bytes of UTF-8
        {"name": "\ud800"},
        {"state": TableState.OPEN},  # no code, no seats
        {"table_code": "ABCDE"},  # code on no table
        {"dice": 3},  # no table: no dice, variants or timer
        {"variants": 1},
        {"turn_timer_ms": 1000},
        {"state": TableState.OPEN, "table_code": "ABCDE", "seats_total": 2},  # no dice
        {"state": TableState.OPEN, "table_code": "ABCDE", "seats_total": 2, "dice": 256},
        {"state": TableState.OPEN, "table_code": "ABCDE", "seats_total": 2, "dice": True},
        {"state": TableState.OPEN, "table_code": "ABCDE", "seats_total": 2, "dice": 5,
         "variants": 2**32},
        {"state": TableState.OPEN, "table_code": "ABCDE", "seats_total": 2, "dice": 5,
         "variants": -1},
        {"state": TableState.OPEN, "table_code": "ABCDE", "seats_total": 2, "dice": 5,
         "turn_timer_ms": MAX_TURN_TIMER_MS + 1},
        {"state": TableState.OPEN, "table_code": "ABCDE", "seats_total": 2, "dice": 5,
         "turn_timer_ms": 1.5},
    ],
)
def test_constructor_refuses_bad_values_with_invalid_value(kwargs: dict[str, object]) -> None:
    fields: dict[str, object] = {"peer_id": PEER, "port": 1, **kwargs}
    with pytest.raises(InvalidValue):
        Beacon(**fields)  # type: ignore[arg-type]


def test_leaving_beacon_keeps_everything_but_the_port() -> None:
    leaving = OPEN.leaving()
    assert leaving.is_leaving and not OPEN.is_leaving
    assert leaving.port == 0
    assert (leaving.peer_id, leaving.table_code, leaving.name) == (PEER, "K7QXM", "Ana")
    assert (leaving.dice, leaving.variants, leaving.turn_timer_ms) == (5, 0x20010, 30_000)
    assert decode(encode(leaving)) == leaving


def test_table_code_alphabet_has_no_confusables() -> None:
    assert not set("0O1IL") & set(TABLE_CODE_ALPHABET)
    assert len(set(TABLE_CODE_ALPHABET)) == len(TABLE_CODE_ALPHABET) == 31
    assert all(unicodedata.category(ch)[0] in "LN" for ch in TABLE_CODE_ALPHABET)


def test_new_table_code_is_valid_and_deterministic_for_a_seed() -> None:
    codes = [new_table_code(random.Random(7)) for _ in range(2)]
    assert codes[0] == codes[1]
    assert is_table_code(codes[0])
    many = {new_table_code(random.Random(seed)) for seed in range(200)}
    assert len(many) > 190  # drawn, not constant
    assert all(is_table_code(code) for code in many)


def test_port_is_network_byte_order() -> None:
    assert struct.unpack_from("!H", encode(Beacon(PEER, 0x1234)), 37) == (0x1234,)


def _v1(head: bytes, name: bytes) -> bytes:
    """A version-1 beacon: the same 47-byte head, then the name's length and the name."""
    return head[:4] + b"\x01" + head[5:47] + bytes([len(name)]) + name


def test_a_version_1_beacon_is_another_version_with_its_table_and_name() -> None:
    with pytest.raises(OtherVersion) as caught:
        decode(_v1(GOOD, b"Ana"))
    assert caught.value.version == 1
    assert caught.value.table == OtherTable(1, PEER, 40000, "K7QXM", TableState.OPEN, 2, 4,
                                            "Ana")
    assert isinstance(caught.value, DecodeError)  # never a Beacon, whoever catches it


def test_a_later_version_is_told_by_its_head_alone() -> None:
    later = _patch(GOOD, 4, b"\x07") + b"whatever version 7 adds"
    with pytest.raises(OtherVersion) as caught:
        decode(later)
    assert caught.value.version == 7
    assert caught.value.table == OtherTable(7, PEER, 40000, "K7QXM", TableState.OPEN, 2, 4)


@pytest.mark.parametrize("data", [
    _patch(_v1(GOOD, b"Ana"), 44, b"\x09"),  # unknown state
    _patch(_v1(GOOD, b"Ana"), 45, b"\x05"),  # more taken than total
    _patch(_v1(GOOD, b"Ana"), 39, b"k7qxm"),  # not a code
    _v1(GOOD, b"a\n"),  # a control character in a version-1 name
    _v1(GOOD, b"Ana")[:-1],  # a version-1 name shorter than its length says
], ids=["state", "seats", "code", "name", "short"])
def test_another_version_with_a_bad_head_names_no_table(data: bytes) -> None:
    with pytest.raises(OtherVersion) as caught:
        decode(data)
    assert caught.value.table is None
