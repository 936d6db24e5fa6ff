"""``SeatView``: what one seat may know (``GameState.view`` builds it).

The public ``GameState`` holds no hidden information (the engine never holds unrevealed dice),
so a view is that state, plus the seat's own dice when it may see them, plus, in an open
palifico round (V11), the other seats' dice the caller passed in.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from dudo_p2p.rules.bid import Bid
from dudo_p2p.rules.results import PalificoInfo, Phase
from dudo_p2p.rules.ruleset import RuleSet

if TYPE_CHECKING:
    from dudo_p2p.rules.actions import Action
    from dudo_p2p.rules.state import GameState

__all__ = ["SeatView"]


@dataclass(frozen=True, slots=True, eq=False)
class SeatView:
    """One seat's knowledge: ``state`` (public), ``own_dice`` (None: not visible to the seat
    now), ``others`` (seat -> dice, only in an open palifico round)."""

    seat: int
    state: GameState
    own_dice: tuple[int, ...] | None
    others: Mapping[int, tuple[int, ...]] = field(default_factory=dict)

    @property
    def rules(self) -> RuleSet:
        return self.state.rules

    @property
    def phase(self) -> Phase:
        return self.state.phase

    @property
    def to_act(self) -> int | None:
        return self.state.to_act

    @property
    def is_my_turn(self) -> bool:
        return self.state.to_act == self.seat

    @property
    def dice_counts(self) -> tuple[int, ...]:
        return self.state.dice_counts

    @property
    def total_dice(self) -> int:
        return self.state.total_dice

    @property
    def standing_bid(self) -> Bid | None:
        return self.state.standing_bid

    @property
    def standing_bidder(self) -> int | None:
        return self.state.standing_bidder

    @property
    def palifico_round(self) -> PalificoInfo | None:
        return self.state.palifico_round

    @property
    def round_no(self) -> int:
        return self.state.round_no

    def legal_actions(self) -> list[Action]:
        """Every action this seat may take now (legality never depends on hidden dice)."""
        return self.state.legal_actions(self.seat)

    def may_act(self) -> bool:
        return self.state.may_act(self.seat)

    def random_legal_action(self, rng: random.Random) -> Action | None:
        return self.state.random_legal_action(rng, self.seat)
