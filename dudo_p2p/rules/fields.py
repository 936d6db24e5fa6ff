"""``GameFields``: the public state of one game as data, and what follows from it alone (the
dice on the table, the claim that may be doubted, whether aces are wild, the environment action
awaited). The questions (``turns``), the transitions (``transitions``) and ``GameState``
(``state``) are built on it, so none of them needs another to name its type.
"""

from __future__ import annotations

from dataclasses import dataclass

from dudo_p2p.rules.actions import Action, Pasar, Picado
from dudo_p2p.rules.bid import Bid
from dudo_p2p.rules.results import PalificoInfo, Phase, RoundResult
from dudo_p2p.rules.ruleset import RuleSet

__all__ = ["GameFields"]


@dataclass(frozen=True, slots=True)
class GameFields:
    """The fields of :class:`~dudo_p2p.rules.state.GameState` (immutable, comparable,
    hashable) and the properties read from them alone."""

    rules: RuleSet
    n_seats: int
    phase: Phase
    dice_counts: tuple[int, ...]
    alive: tuple[bool, ...]
    round_no: int
    opener: int | None
    clockwise: bool  # the direction in effect now (a picado reverses it within a round)
    to_act: int | None
    bids: tuple[Action, ...]  # this round's bidding actions, the final call included
    standing_bid: Bid | None
    standing_bidder: int | None
    palifico_round: PalificoInfo | None
    winner: int | None
    results: tuple[RoundResult, ...]
    bank: tuple[int, ...]  # V4 banked dice per seat
    bullets: tuple[int, ...]  # V20 bullets per seat
    draw_seats: tuple[int, ...]  # seats still in the opener draw (D2)
    # ---- bookkeeping the public fields do not show ----
    round_clockwise: bool  # the direction chosen for the game (D2) or this round (V14)
    direction_chosen: bool
    setup_pending: tuple[str, ...]  # "direction", "palifico", "obligar": the opener's choices
    palifico_pending: int | None  # seat owed a palifico round
    palifico_used: frozenset[int]
    obligar_used: frozenset[int]
    ever_lost: tuple[bool, ...]  # V6
    sucio: bool  # V19: this round was opened on aces
    passed: frozenset[int]  # V18: seats that passed this round
    picado_done: bool  # V17: a picado was made this round
    raises: int  # bids made this round (V15: a dudo with raises == 1 targets the opening bid)
    pending_result: RoundResult | None  # V20: the result waiting for its spins
    pending_spins: tuple[int, ...]

    @property
    def total_dice(self) -> int:
        """Dice on the table (banked dice are not rolled)."""
        return sum(self.dice_counts)

    @property
    def claim(self) -> Pasar | Picado | None:
        """The pasar/picado claim the seat to act may doubt now, if any."""
        if self.bids and isinstance(self.bids[-1], Pasar | Picado):
            return self.bids[-1]
        return None

    @property
    def wild(self) -> bool:
        """Whether aces count as the bid face this round (D10, V8, V9, V19, D15)."""
        if not self.rules.aces_wild or self.sucio:
            return False
        return self.palifico_round is None or self.rules.palifico_wilds

    def needs(self) -> str | None:
        """The environment action awaited: "opener_draw", "reveal", "spin", or None."""
        return {Phase.DRAW_OPENER: "opener_draw", Phase.REVEAL: "reveal", Phase.SPIN: "spin"}.get(
            self.phase
        )
