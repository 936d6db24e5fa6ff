"""Player actions to and from the ``act`` message's fields (kind, count, face, option).

An ``act`` body that names no valid action (an unknown kind, a bid of 0x7, a direction
other than "cw"/"ccw") is refused with :class:`~dudo_p2p.errors.DecodeError`; whether the
action is *legal now* is the rules engine's question, asked later.
"""

from __future__ import annotations

from collections.abc import Callable

from dudo_p2p.errors import DecodeError, InvalidValue, LocalProtocolError
from dudo_p2p.rules import (
    Bid,
    Calzo,
    ChooseDirection,
    ChoosePalifico,
    DoubtClaim,
    Dudo,
    Matar,
    PalificoMode,
    Pasar,
    Picado,
    PlayerAction,
    Raise,
)

_SIMPLE: dict[str, Callable[[int], PlayerAction]] = {
    "dudo": Dudo,
    "calzo": Calzo,
    "matar": Matar,
    "pasar": Pasar,
    "doubt-claim": DoubtClaim,
}


def action_fields(action: PlayerAction) -> tuple[str, int, int, str]:
    """(kind, count, face, option) for ``action``; LocalProtocolError for an env action."""
    match action:
        case Raise(bid=bid):
            return ("raise", bid.count, bid.face, "")
        case Picado(bid=bid):
            return ("picado", bid.count, bid.face, "")
        case ChooseDirection(clockwise=clockwise):
            return ("direction", 0, 0, "cw" if clockwise else "ccw")
        case ChoosePalifico(mode=mode):
            return ("palifico", 0, 0, mode.value)  # the wire takes a plain str
    for kind, cls in _SIMPLE.items():
        if type(action) is cls:
            return (kind, 0, 0, "")
    raise LocalProtocolError(f"{action!r} is not a player action")


def action_from_fields(seat: int, kind: str, count: int, face: int, option: str) -> PlayerAction:
    """The action of ``seat`` that the fields name; DecodeError when they name none."""
    try:
        if kind in ("raise", "picado"):
            if option:
                raise DecodeError(f"act {kind!r} carries no option")
            bid = Bid(count, face)
            return Raise(seat, bid) if kind == "raise" else Picado(seat, bid)
        if count or face:
            raise DecodeError(f"act {kind!r} carries no bid")
        if kind == "direction":
            if option not in ("cw", "ccw"):
                raise DecodeError(f"direction must be cw or ccw, not {option!r}")
            return ChooseDirection(seat, option == "cw")
        if kind == "palifico":
            try:  # a mode this version does not know cannot be played: the act is refused
                mode = PalificoMode(option)
            except ValueError:
                raise DecodeError(f"unknown palifico mode {option!r}") from None
            return ChoosePalifico(seat, mode)
        cls = _SIMPLE.get(kind)
        if cls is None:
            raise DecodeError(f"unknown act kind {kind!r}")
        if option:
            raise DecodeError(f"act {kind!r} carries no option")
        return cls(seat)
    except InvalidValue as exc:
        raise DecodeError(f"act {kind!r}: {exc}") from exc
