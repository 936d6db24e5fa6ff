"""Example message kinds for the protocol tests only (the real kinds live in the package)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from dudo_p2p.protocol import MaxLen, Range, Size, message


@message("test-bid")
@dataclass(frozen=True)
class BidExample:
    """A bid with a commitment and an optional note."""

    count: Annotated[int, Range(1, 30)]
    face: Annotated[int, Range(1, 6)]
    commitment: Annotated[bytes, Size(32)]
    note: Annotated[str, MaxLen(20)] | None = None


@message("test-table")
@dataclass(frozen=True)
class TableExample:
    """Every container shape the machinery supports."""

    rules: dict[str, int | bool | str]
    names: Annotated[tuple[str, ...], MaxLen(6)]
    dice: tuple[tuple[int, ...], ...]
    pair: tuple[int, bytes]
    flag: bool


BID = BidExample(count=4, face=5, commitment=bytes(range(32)))
TABLE = TableExample(
    rules={"calza": True, "starting_dice": 5, "aces_conversion": "ceil_half"},
    names=("ana", "beto"),
    dice=((1, 2, 3), (6,), ()),
    pair=(7, b"\x00"),
    flag=False,
)
