"""Values the engine reports: ``Phase``, ``PalificoInfo``, ``RoundResult`` and ``SeatCounts``."""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from dudo_p2p.rules.actions import PalificoMode
from dudo_p2p.rules.bid import Bid

__all__ = ["PalificoInfo", "Phase", "RoundResult", "SeatCounts"]


class Phase(enum.Enum):
    """Where the game stands; environment phases wait for ``GameState.needs()``."""

    DRAW_OPENER = "draw_opener"  # awaiting OpenerDraw (D2)
    SETUP = "setup"  # the opener's pre-round choices (direction, palifico)
    BIDDING = "bidding"  # players raise / call
    REVEAL = "reveal"  # a call was made: awaiting Reveal
    SPIN = "spin"  # V20: awaiting Spin
    OVER = "over"  # one seat left: ``winner`` is set


class SeatCounts(Mapping[int, int]):
    """An immutable, hashable ``{seat: n}`` mapping (compares equal to a plain dict)."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[int, int] | None = None) -> None:
        self._items: tuple[tuple[int, int], ...] = tuple(
            sorted((s, n) for s, n in (items or {}).items() if n)
        )

    def __getitem__(self, seat: int) -> int:
        for s, n in self._items:
            if s == seat:
                return n
        raise KeyError(seat)

    def __iter__(self) -> Iterator[int]:
        return (s for s, _ in self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(self._items)

    def __repr__(self) -> str:
        return f"SeatCounts({dict(self._items)!r})"


@dataclass(frozen=True, slots=True)
class PalificoInfo:
    """The palifico round in play: whose it is, its mode, and the locked face (None until the
    opening bid). ``mode``: "normal" (D15), "open"/"closed" (V11) or "obligar" (V13)."""

    seat: int
    mode: PalificoMode
    face: int | None = None


@dataclass(frozen=True, slots=True)
class RoundResult:
    """One resolved round.

    ``kind``: "dudo", "calzo", "matar", "pasar" (a doubted pass) or "picado" (a doubted
    picado). ``caller`` made the call; ``target`` is the standing bidder (dudo/calzo/matar) or the
    claimer (pasar/picado). ``bid`` is the standing bid (for picado: the picado bid). ``held`` is
    how many dice counted for the bid; for "picado" the claimer's aces; for "pasar" 1 if the hand
    qualified else 0. ``dice``: every seat's revealed dice. ``losses``: dice actually taken from
    each hand (after the V4 bank absorbed what it could); ``gains``: dice regained; ``banked``:
    change of each seat's V4 bank (+1 banked, -1 spent). ``shots``: V20 (seat, fired) pairs.
    ``eliminated``: seats that left the game in this round. ``next_opener``: None if game over.
    """

    round_no: int
    kind: str
    caller: int
    target: int
    bid: Bid | None
    held: int
    dice: tuple[tuple[int, ...], ...]
    losses: SeatCounts
    gains: SeatCounts
    banked: SeatCounts
    eliminated: tuple[int, ...]
    shots: tuple[tuple[int, bool], ...]
    next_opener: int | None
