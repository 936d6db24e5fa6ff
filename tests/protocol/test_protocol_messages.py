"""The @message machinery: exact field sets, exact types, constraints, registration errors."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Annotated

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_examples import BID, TABLE, BidExample, TableExample

from dudo_p2p.errors import DecodeError, LocalProtocolError
from dudo_p2p.protocol import (
    Range,
    Size,
    decode,
    encode,
    from_wire,
    kind_of,
    message,
    message_class,
    registered_kinds,
    to_wire,
)

bids = st.builds(
    BidExample,
    count=st.integers(1, 30),
    face=st.integers(1, 6),
    commitment=st.binary(min_size=32, max_size=32),
    note=st.none() | st.text(max_size=20),
)
tables = st.builds(
    TableExample,
    rules=st.dictionaries(
        st.text(max_size=12), st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=8)
    ),
    names=st.lists(st.text(max_size=8), max_size=6).map(tuple),
    dice=st.lists(st.lists(st.integers(1, 6), max_size=5).map(tuple), max_size=6).map(tuple),
    pair=st.tuples(st.integers(-(2**63), 2**63 - 1), st.binary(max_size=8)),
    flag=st.booleans(),
)


@settings(derandomize=True, max_examples=300)
@given(bids | tables)
def test_messages_round_trip_through_the_wire(msg: BidExample | TableExample) -> None:
    data = encode(to_wire(msg))
    back = from_wire(kind_of(msg), decode(data))
    assert back == msg
    assert type(back) is type(msg)


def test_the_wire_body_is_a_map_of_every_field_with_lists_for_tuples() -> None:
    assert to_wire(BID) == {"count": 4, "face": 5, "commitment": bytes(range(32)), "note": None}
    assert to_wire(TABLE)["dice"] == [[1, 2, 3], [6], []]
    assert kind_of(BID) == kind_of(BidExample) == "test-bid"
    assert {"test-bid", "test-table"} <= registered_kinds()
    assert message_class("test-table") is TableExample


def body(**changes: object) -> dict[str, object]:
    wire: dict[str, object] = dict(to_wire(BID))
    wire.update(changes)
    return wire


@pytest.mark.parametrize(
    ("wire", "match"),
    [
        ({**body(), "extra": 1}, "unexpected field 'extra'"),
        ({k: v for k, v in body().items() if k != "face"}, "missing field 'face'"),
        (body(count="4"), r"test-bid\.count: expected int, got str"),
        (body(count=True), r"test-bid\.count: expected int, got bool"),
        (body(count=31), r"test-bid\.count: 31 outside 1\.\.30"),
        (body(face=0), r"test-bid\.face"),
        (body(commitment=bytes(31)), r"test-bid\.commitment: expected 32 bytes, got 31"),
        (body(commitment="x" * 32), r"test-bid\.commitment: expected bytes"),
        (body(note="n" * 21), r"test-bid\.note: longer than 20"),
        (body(note=3), r"test-bid\.note"),
        ([1, 2], "body is not a map"),
    ],
)
def test_from_wire_refuses_each_malformed_body_naming_the_field(wire: object, match: str) -> None:
    with pytest.raises(DecodeError, match=match):
        from_wire("test-bid", wire)


def table_body(**changes: object) -> dict[str, object]:
    wire: dict[str, object] = dict(to_wire(TABLE))
    wire.update(changes)
    return wire


@pytest.mark.parametrize(
    ("wire", "match"),
    [
        (table_body(rules={"x": 1.5}), r"test-table\.rules\['x'\]: expected int \| bool \| str"),
        (table_body(rules={"x": [1]}), r"test-table\.rules\['x'\]"),
        (table_body(rules=[1]), r"test-table\.rules: expected a map"),
        (table_body(names=["a"] * 7), r"test-table\.names: more than 6 items"),
        (table_body(dice=[[1, "2"]]), r"test-table\.dice\[0\]\[1\]: expected int"),
        (table_body(dice=[1]), r"test-table\.dice\[0\]: expected a sequence"),
        (table_body(pair=[1]), r"test-table\.pair: expected 2 items, got 1"),
        (table_body(pair=[1, 2]), r"test-table\.pair\[1\]: expected bytes"),
        (table_body(flag=0), r"test-table\.flag: expected bool, got int"),
    ],
)
def test_from_wire_checks_inside_containers(wire: object, match: str) -> None:
    with pytest.raises(DecodeError, match=match):
        from_wire("test-table", wire)


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(DecodeError, match="unknown message kind 'no-such-kind'"):
        from_wire("no-such-kind", {})


def test_to_wire_refuses_to_send_what_a_peer_would_refuse() -> None:
    with pytest.raises(LocalProtocolError, match=r"test-bid\.face"):
        to_wire(replace(BID, face=7))
    with pytest.raises(
        LocalProtocolError, match=r"test-table\.rules\['big'\]: 18446744073709551616"
    ):
        to_wire(replace(TABLE, rules={"big": 2**64}))
    with pytest.raises(LocalProtocolError, match=r"test-table\.names"):
        to_wire(replace(TABLE, names=["a"]))  # type: ignore[arg-type]  # a list, not a tuple

    @dataclass(frozen=True)
    class Unregistered:
        x: int

    with pytest.raises(LocalProtocolError, match="not a registered message"):
        to_wire(Unregistered(1))


def test_registration_refuses_bad_definitions_at_import() -> None:
    with pytest.raises(LocalProtocolError, match="already registered"):

        @message("test-bid")
        @dataclass(frozen=True)
        class Again:
            x: int

    with pytest.raises(LocalProtocolError, match="frozen dataclass"):

        @message("test-mutable")
        @dataclass
        class Mutable:
            x: int

    with pytest.raises(LocalProtocolError, match="unsupported field type"):

        @message("test-float")
        @dataclass(frozen=True)
        class Floaty:
            x: float

    with pytest.raises(LocalProtocolError, match="Size does not apply"):

        @message("test-sized-int")
        @dataclass(frozen=True)
        class SizedInt:
            x: Annotated[int, Size(4)]

    with pytest.raises(LocalProtocolError, match="Range does not apply"):

        @message("test-ranged-str")
        @dataclass(frozen=True)
        class RangedStr:
            x: Annotated[str, Range(0, 1)]

    with pytest.raises(LocalProtocolError, match="is not 1-32 chars"):
        message("Bad Kind")
    assert "test-mutable" not in registered_kinds()
