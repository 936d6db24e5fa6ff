"""Resolving a call once the dice are shown: who was right (``judge``) and what it costs
(``settle``). Pure functions over tuples; ``state.py`` calls them from its transitions.

Decisions implemented here (the same words are in protocol.md §1):

- V4 bank: a right ¡Calzo! by a player holding all their starting dice banks one die; a seat
  holds at most one banked die (a second such call gains nothing). A banked die is not rolled
  and does not count on the table; it absorbs the next die its owner would lose.
- V4 bidder_loses: a right ¡Calzo! by a player holding all their starting dice costs the bidder
  one die (a banked die pays first, as for any loss).
- V15 a la siciliana: a ¡Dudo! whose target is the round's opening bid (no raise since; passes
  do not count as raises) costs the loser two dice; a loss never goes below zero dice.
- V16 matar: exactly the count -> the bidder loses a die; any other count -> the killer loses
  one.
- V17/V18 doubted claims: the claimer's hand decides (picado: at least two aces, aces counted as
  themselves; pasar: five dice all different, all equal or three + two, aces as their own face);
  a true claim costs the doubter a die, a false one the claimer. All dice are revealed and the
  round ends.
- V20 revolver: every die a player would lose becomes one bullet added (at most 6), then one
  Spin that fires when its value ≤ bullets; a right ¡Calzo! removes one bullet (none if the
  cylinder is empty) and regains nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from dudo_p2p.rules.actions import Action, Calzo, DoubtClaim, Dudo, Matar, Pasar, Picado
from dudo_p2p.rules.bid import Bid
from dudo_p2p.rules.legality import count_showing, is_pasar_hand
from dudo_p2p.rules.results import SeatCounts
from dudo_p2p.rules.ruleset import RuleSet

__all__ = ["Settlement", "Verdict", "judge", "settle"]


@dataclass(frozen=True, slots=True)
class Verdict:
    """Who was right: ``loser`` loses ``amount`` dice; ``right_caller`` made a right ¡Calzo!."""

    kind: str
    caller: int
    target: int
    bid: Bid | None
    held: int
    loser: int | None
    amount: int
    right_caller: int | None


def judge(
    call: Action,
    *,
    standing_bid: Bid | None,
    standing_bidder: int | None,
    claim: Pasar | Picado | None,
    dice: tuple[tuple[int, ...], ...],
    wild: bool,
    opening_bid_stands: bool,
    rules: RuleSet,
) -> Verdict:
    """Judge ``call`` (Dudo, Calzo, Matar or DoubtClaim) against the revealed ``dice``."""
    if isinstance(call, DoubtClaim):
        assert claim is not None  # the engine only accepts DoubtClaim right after a claim
        hand = dice[claim.seat]
        bid: Bid | None
        if isinstance(claim, Picado):
            held = hand.count(1)
            true_claim = held >= 2
            kind, bid = "picado", claim.bid
        else:
            true_claim = is_pasar_hand(hand)
            held = int(true_claim)
            kind, bid = "pasar", standing_bid
        loser = call.seat if true_claim else claim.seat
        return Verdict(kind, call.seat, claim.seat, bid, held, loser, 1, None)

    assert standing_bid is not None and standing_bidder is not None
    held = count_showing((d for hand in dice for d in hand), standing_bid.face, wild=wild)
    bidder = standing_bidder
    if isinstance(call, Dudo):
        amount = 2 if rules.siciliana and opening_bid_stands else 1
        loser = call.seat if held >= standing_bid.count else bidder
        return Verdict("dudo", call.seat, bidder, standing_bid, held, loser, amount, None)
    if isinstance(call, Calzo):
        if held == standing_bid.count:
            return Verdict("calzo", call.seat, bidder, standing_bid, held, None, 1, call.seat)
        return Verdict("calzo", call.seat, bidder, standing_bid, held, call.seat, 1, None)
    if isinstance(call, Matar):
        loser = bidder if held == standing_bid.count else call.seat
        return Verdict("matar", call.seat, bidder, standing_bid, held, loser, 1, None)
    raise TypeError(f"not a call: {call!r}")


@dataclass(frozen=True, slots=True)
class Settlement:
    """The verdict's cost applied: new per-seat tuples and what changed."""

    dice_counts: tuple[int, ...]
    bank: tuple[int, ...]
    bullets: tuple[int, ...]
    ever_lost: tuple[bool, ...]
    losses: SeatCounts
    gains: SeatCounts
    banked: SeatCounts
    eliminated: tuple[int, ...]
    spin_seat: int | None  # V20: this seat must now Spin
    pivot: int  # the seat that lost or regained: D14 starts from it


def settle(
    verdict: Verdict,
    rules: RuleSet,
    *,
    dice_counts: tuple[int, ...],
    bank: tuple[int, ...],
    bullets: tuple[int, ...],
    ever_lost: tuple[bool, ...],
) -> Settlement:
    """Apply ``verdict``: losses (bank first, or bullets under V20), regains (capped, D13)."""
    counts, banks, guns, lost = list(dice_counts), list(bank), list(bullets), list(ever_lost)
    losses: dict[int, int] = {}
    gains: dict[int, int] = {}
    banked: dict[int, int] = {}
    spin_seat: int | None = None
    loser = verdict.loser
    amount = verdict.amount

    right = verdict.right_caller
    if right is not None:
        if rules.revolver:
            guns[right] = max(0, guns[right] - 1)
        elif counts[right] < rules.starting_dice:
            counts[right] += 1
            gains[right] = 1
        elif rules.calza_full_hand == "bidder_loses":
            loser, amount = verdict.target, 1
        elif rules.calza_full_hand == "bank" and banks[right] == 0:
            banks[right] = 1
            banked[right] = 1

    if loser is not None:
        if rules.revolver:
            guns[loser] = min(6, guns[loser] + amount)
            spin_seat = loser
        else:
            absorbed = min(banks[loser], amount)
            if absorbed:
                banks[loser] -= absorbed
                banked[loser] = -absorbed
            taken = min(counts[loser], amount - absorbed)
            if taken:
                counts[loser] -= taken
                losses[loser] = taken
                lost[loser] = True

    eliminated = tuple(s for s in range(len(counts)) if dice_counts[s] > 0 and counts[s] == 0)
    pivot = loser if loser is not None else verdict.caller
    return Settlement(
        tuple(counts), tuple(banks), tuple(guns), tuple(lost),
        SeatCounts(losses), SeatCounts(gains), SeatCounts(banked),
        eliminated, spin_seat, pivot,
    )
