"""Which bid may follow which (D5–D9, D15, V2, V8, V10, V19), and counting dice (D10).

Every rule about raising is expressed by one function, ``min_raise``: the lowest legal bid on a
given face after ``previous``. A bid is legal exactly when its count reaches that minimum, so
``is_legal_raise``, ``why_not_raise`` and the engine's enumeration can never disagree. What a
raise is judged against besides the bids (the table's rules, and whether this round is a
palifico or a sucio one, and V10 for the bidder) is one value, :class:`RaiseContext`.

Three orderings exist:

- *wild* (default table): D6 between plain faces; to aces D7 ``ceil(n/2)`` or V2 "half plus
  one" (even n -> n/2 + 1, odd n -> ceil(n/2)); aces to aces D8 ``n + 1``; aces to a face D9
  ``2n + 1``. The opening may not be on aces (D5) unless ``rules.juego_sucio`` (V19), in which
  case opening on aces makes the round *sucio*.
- *plain* (aces not wild: V8 for the whole game, or a V19 sucio round): aces are the lowest face
  and there is no halving or doubling; a raise is a higher count, or the same count on a higher
  face.
- *palifico* (D15): the opening may be any face, aces included; raises keep the locked face and
  add count. With ``face_change`` (V10, a one-die player other than the palifico player) the
  face may change with a strictly higher count.

These functions know nothing of the dice on the table; the engine also caps a bid's count at
the number of dice on the table.

Decisions implemented here (the same words are in protocol.md §1):

- V8: with aces not wild, aces are an ordinary face ranked lowest, there is no halving or
  doubling, and the opening may be on aces.
- V19: the opening may be on aces only outside palifico; that round aces are not wild, rank as
  the lowest face and no conversion applies; the next round is ordinary again.
- A palifico round (D15) may open on any face, aces included; aces count only as aces in a bid
  on aces, also under V9.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from dudo_p2p.rules.bid import Bid
from dudo_p2p.rules.ruleset import RuleSet

__all__ = [
    "RaiseContext",
    "count_showing",
    "is_legal_raise",
    "is_pasar_hand",
    "min_raise",
    "why_not_raise",
]

_FACE_EN = {1: "aces", 2: "twos", 3: "threes", 4: "fours", 5: "fives", 6: "sixes"}


def count_showing(dice: Iterable[int], face: int, *, wild: bool) -> int:
    """How many dice count for ``face``: the face itself, plus aces when ``wild`` (D10).

    A bid on aces counts only aces, wild or not.
    """
    if wild and face != 1:
        return sum(1 for d in dice if d == face or d == 1)
    return sum(1 for d in dice if d == face)


@dataclass(frozen=True)
class RaiseContext:
    """What a raise is judged against besides the bids: the table's ``rules``; ``palifico``:
    this is a palifico round (D15); ``sucio``: a V19 juego-sucio round; ``face_change``: V10
    applies to the bidder (only meaningful with ``palifico``). The default: an ordinary round
    at the default table."""

    rules: RuleSet = field(default_factory=RuleSet)
    palifico: bool = False
    sucio: bool = False
    face_change: bool = False


def _to_aces(count: int, rules: RuleSet) -> int:
    if rules.aces_conversion == "half_plus_one" and count % 2 == 0:
        return count // 2 + 1  # V2: an even count n needs n/2 + 1 aces
    return (count + 1) // 2  # D7 (and V2 for an odd count): ceil(n/2)


_ORDINARY = RaiseContext()


def min_raise(previous: Bid | None, face: int, context: RaiseContext = _ORDINARY) -> Bid | None:
    """The lowest legal bid on ``face`` after ``previous`` (None: the opening) in ``context``,
    or None if no bid on that face is legal (an opening on aces outside palifico/V19/V8, a
    locked palifico face).
    """
    rules, palifico, sucio = context.rules, context.palifico, context.sucio
    face_change = context.face_change
    if not 1 <= face <= 6:
        return None
    if previous is None:
        if face == 1 and not palifico and rules.aces_wild and not sucio and not rules.juego_sucio:
            return None  # D5: the opening may not be on aces
        return Bid(1, face)
    if palifico:
        if face == previous.face or face_change:
            return Bid(previous.count + 1, face)
        return None
    if not rules.aces_wild or sucio:
        # plain ordering: aces are the lowest face, no conversion
        return Bid(previous.count if face > previous.face else previous.count + 1, face)
    if previous.face == 1:
        if face == 1:
            return Bid(previous.count + 1, 1)  # D8
        return Bid(2 * previous.count + 1, face)  # D9
    if face == 1:
        return Bid(_to_aces(previous.count, rules), 1)  # D7 / V2
    return Bid(previous.count if face > previous.face else previous.count + 1, face)  # D6


def is_legal_raise(previous: Bid | None, bid: Bid, context: RaiseContext = _ORDINARY) -> bool:
    """True when ``bid`` may follow ``previous`` (None: ``bid`` opens the round) in
    ``context``."""
    lowest = min_raise(previous, bid.face, context)
    return lowest is not None and bid.count >= lowest.count


def why_not_raise(
    previous: Bid | None, bid: Bid, context: RaiseContext = _ORDINARY
) -> str | None:
    """None if the raise is legal in ``context``, else the reason in plain words, naming the
    minimum."""
    lowest = min_raise(previous, bid.face, context)
    if lowest is not None and bid.count >= lowest.count:
        return None
    if previous is None:
        return "opening bid may not be on aces"
    if lowest is None:
        return (
            f"in a palifico round the face is locked to {_FACE_EN[previous.face]}: "
            f"the lowest bid is {previous.count + 1}x{previous.face}"
        )
    rules = context.rules
    wild = rules.aces_wild and not context.sucio and not context.palifico
    if wild and previous.face == 1 and bid.face != 1:
        return (
            f"after {previous} the lowest bid on another face is {lowest.count}x… "
            f"(twice the aces plus one), here {lowest}"
        )
    if wild and previous.face != 1 and bid.face == 1:
        rounding = "half, rounded up"
        if rules.aces_conversion == "half_plus_one":
            rounding = "half plus one"
        return f"after {previous} the lowest bid on aces is {lowest} ({rounding})"
    if bid.face == previous.face:
        return f"after {previous} a bid on {_FACE_EN[bid.face]} needs a higher count: {lowest}"
    return f"after {previous} the lowest bid on {_FACE_EN[bid.face]} is {lowest}"


def is_pasar_hand(hand: Iterable[int]) -> bool:
    """V18: five dice all different, all equal, or a full house (three + two); aces plain."""
    dice = list(hand)
    if len(dice) != 5:
        return False
    shape = sorted(dice.count(v) for v in set(dice))
    return shape in ([1, 1, 1, 1, 1], [5], [2, 3])
