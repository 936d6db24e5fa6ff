"""Every action the engine accepts: one frozen dataclass each, dispatched with ``match``.

Player actions carry the acting ``seat``. Environment actions are supplied by the caller (the
in-process runner from a seeded RNG; the p2p layer from the fair-dice protocol).

Constructors check shape only (a negative seat, a die outside 1..6, an unknown palifico mode
raise ``InvalidValue``); whether an action is allowed *now* is the engine's question
(``GameState.why_illegal``), answered with ``IllegalAction``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from dudo_p2p.errors import InvalidValue
from dudo_p2p.rules.bid import Bid

__all__ = [
    "PALIFICO_MODES",
    "Action",
    "Calzo",
    "ChooseDirection",
    "ChoosePalifico",
    "DoubtClaim",
    "Dudo",
    "EnvAction",
    "Matar",
    "OpenerDraw",
    "PalificoMode",
    "Pasar",
    "Picado",
    "PlayerAction",
    "Raise",
    "Remove",
    "Reveal",
    "Spin",
]

class PalificoMode(StrEnum):
    """The opener's setup choice for a palifico round. A ``str`` (its value is the wire's
    ``option`` string, protocol.md §4.10 act), so comparisons with the plain strings hold;
    a string that names none is refused where an action is built (``InvalidValue``)."""

    NORMAL = "normal"  # D15 as written
    OPEN = "open"  # V11: everyone sees every other player's dice, not their own
    CLOSED = "closed"  # V11: only the one-die player sees its die, the others play blind
    DECLINE = "decline"  # V12: the opener declines its palifico round
    OBLIGAR = "obligar"  # V13: the opener forces a palifico round
    NONE = "none"  # V13: the opener does not


#: Every ChoosePalifico mode, in declaration order.
PALIFICO_MODES: tuple[PalificoMode, ...] = tuple(PalificoMode)


def _check_seat(seat: int) -> None:
    if not isinstance(seat, int) or isinstance(seat, bool) or seat < 0:
        raise InvalidValue(f"a seat is a whole number from 0, not {seat!r}")


def _check_die(value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 6:
        raise InvalidValue(f"a die shows 1..6, not {value!r}")


@dataclass(frozen=True, slots=True)
class _Seated:
    seat: int

    def __post_init__(self) -> None:
        _check_seat(self.seat)


@dataclass(frozen=True, slots=True)
class Raise(_Seated):
    """Bid ``bid`` (the opening bid or a raise of the standing bid)."""

    bid: Bid

    def __post_init__(self) -> None:
        _check_seat(self.seat)
        if not isinstance(self.bid, Bid):
            raise InvalidValue(f"a raise carries a Bid, not {self.bid!r}")


@dataclass(frozen=True, slots=True)
class Dudo(_Seated):
    """¡Dudo!: challenge the standing bid (D12; V15 a la siciliana)."""


@dataclass(frozen=True, slots=True)
class Calzo(_Seated):
    """¡Calzo!: the table holds exactly the standing bid's count (D13; V3–V7)."""


@dataclass(frozen=True, slots=True)
class Matar(_Seated):
    """V16: kill the standing bid; exactly its count -> the bidder loses, else the killer."""


@dataclass(frozen=True, slots=True)
class Pasar(_Seated):
    """V18: pass instead of raising, claiming a qualifying five-dice hand."""


@dataclass(frozen=True, slots=True)
class Picado(_Seated):
    """V17: raise to ``bid`` and reverse the direction, claiming at least two aces."""

    bid: Bid

    def __post_init__(self) -> None:
        _check_seat(self.seat)
        if not isinstance(self.bid, Bid):
            raise InvalidValue(f"a picado carries a Bid, not {self.bid!r}")


@dataclass(frozen=True, slots=True)
class DoubtClaim(_Seated):
    """Doubt the pasar/picado claim made by the previous player (V17, V18)."""


@dataclass(frozen=True, slots=True)
class ChooseDirection(_Seated):
    """The opener's direction: once per game (D2) or every round (V14).

    ``clockwise`` means play passes to increasing seat numbers (seat + 1, wrapping).
    """

    clockwise: bool

    def __post_init__(self) -> None:
        _check_seat(self.seat)
        if not isinstance(self.clockwise, bool):
            raise InvalidValue(f"clockwise is true or false, not {self.clockwise!r}")


@dataclass(frozen=True, slots=True)
class ChoosePalifico(_Seated):
    """The opener's palifico choice; ``mode`` is one of ``PALIFICO_MODES``."""

    mode: PalificoMode

    def __post_init__(self) -> None:
        _check_seat(self.seat)
        try:  # a plain string (from the wire or a record) becomes the enum member
            object.__setattr__(self, "mode", PalificoMode(self.mode))
        except ValueError:
            modes = ", ".join(PALIFICO_MODES)
            raise InvalidValue(f"palifico mode must be one of {modes}, not {self.mode!r}") from None


@dataclass(frozen=True, slots=True)
class OpenerDraw:
    """D2: one die per seat still in the opener draw, in increasing seat order."""

    values: tuple[int, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.values, tuple):
            raise InvalidValue("OpenerDraw.values is a tuple of dice")
        for v in self.values:
            _check_die(v)


@dataclass(frozen=True, slots=True)
class Reveal:
    """Every seat's dice for the round, in seat order (empty for a seat without dice)."""

    dice: tuple[tuple[int, ...], ...]

    def __post_init__(self) -> None:
        if not isinstance(self.dice, tuple) or not all(isinstance(h, tuple) for h in self.dice):
            raise InvalidValue("Reveal.dice is a tuple of tuples of dice")
        for hand in self.dice:
            for v in hand:
                _check_die(v)


@dataclass(frozen=True, slots=True)
class Spin:
    """V20: the revolver's spin, 1..6; the bullet fires when ``value <= bullets``."""

    value: int

    def __post_init__(self) -> None:
        _check_die(self.value)


@dataclass(frozen=True, slots=True)
class Remove(_Seated):
    """``seat`` leaves the table (removed or forfeit); the round in progress is dealt again."""


PlayerAction = Raise | Dudo | Calzo | Matar | Pasar | Picado | DoubtClaim | ChooseDirection | (
    ChoosePalifico
)
EnvAction = OpenerDraw | Reveal | Spin | Remove
Action = PlayerAction | EnvAction
