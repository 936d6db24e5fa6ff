"""What every sparring-pool member shares: its :class:`Sight` of the table and the frame.

:class:`Sight` is what a member reads from its ``SeatView`` (visible dice, unseen count,
wilds, the standing bid); :func:`floors`, :func:`raise_to`, :func:`find` and
:func:`best_face` pick among the legal actions; :class:`PoolBot` is the common frame (setup
choices, then the member's ``play``, then :func:`fallback`). The members themselves are in
:mod:`dudo_p2p.bots.pool`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from dudo_p2p.bots.levels import setup_choice
from dudo_p2p.bots.prob import binomial_pmf, prob_at_least, prob_exactly
from dudo_p2p.rules import (
    Action,
    Bid,
    Calzo,
    DoubtClaim,
    Dudo,
    Matar,
    Pasar,
    Raise,
    SeatView,
    count_showing,
    is_pasar_hand,
)
from dudo_p2p.rules.odds import match_probability

PREFIX = "pool:"


# ---- what every member reads from its view --------------------------------------------------


@dataclass(frozen=True)
class Sight:
    """A seat's visible dice (own + shown), the unseen count, wilds and the standing bid."""

    known: tuple[int, ...]
    unseen: int
    wild: bool
    standing: Bid | None
    bidder: int | None

    @classmethod
    def of(cls, view: SeatView) -> Sight:
        known = (*(view.own_dice or ()), *(d for dice in view.others.values() for d in dice))
        state = view.state
        return cls(
            tuple(known),
            max(0, state.total_dice - len(known)),
            state.wild,
            state.standing_bid,
            state.standing_bidder,
        )

    def held(self, face: int, *, aces_count: bool = True) -> int:
        """Visible dice that count for ``face`` (``aces_count=False``: the face itself only)."""
        if aces_count:
            return count_showing(self.known, face, wild=self.wild)
        return sum(1 for d in self.known if d == face)

    def pmf(self, face: int) -> list[float]:
        """Binomial pmf of the unseen dice that count for ``face``."""
        return binomial_pmf(self.unseen, match_probability(face, wild=self.wild))

    def p_hold(self, bid: Bid, *, aces_count: bool = True, extra: float = 0.0) -> float:
        """P(at least ``bid.count``) from visible dice (+ ``extra`` assumed matches) alone."""
        need = bid.count - self.held(bid.face, aces_count=aces_count) - round(extra)
        return prob_at_least(self.pmf(bid.face), need)

    def p_exact(self, bid: Bid, *, aces_count: bool = True) -> float:
        need = bid.count - self.held(bid.face, aces_count=aces_count)
        return prob_exactly(self.pmf(bid.face), need)

    def expected(self, face: int) -> float:
        return self.held(face) + self.unseen * match_probability(face, wild=self.wild)


def floors(legal: list[Action]) -> dict[int, Raise]:
    """The lowest legal raise on each face (``legal`` lists a face's raises from its minimum)."""
    out: dict[int, Raise] = {}
    for a in legal:
        if isinstance(a, Raise) and a.bid.face not in out:
            out[a.bid.face] = a
    return out


def raise_to(legal: list[Action], face: int, count: int) -> Raise | None:
    """The lowest legal raise on ``face`` with at least ``count`` dice (else the highest)."""
    on_face = [a for a in legal if isinstance(a, Raise) and a.bid.face == face]
    if not on_face:
        return None
    return next((a for a in on_face if a.bid.count >= count), on_face[-1])


def find(legal: list[Action], kind: type) -> Action | None:
    return next((a for a in legal if isinstance(a, kind)), None)


def best_face(sight: Sight, faces: list[int], *, aces_count: bool = True) -> int:
    """The face with the most visible matches (ties: the higher face)."""
    return max(faces, key=lambda f: (sight.held(f, aces_count=aces_count), f))


def fallback(view: SeatView, legal: list[Action]) -> Action:
    """When a member has no raise or call of its own: an honest pasar, a call, else legal[0]."""
    own = view.own_dice
    pasar = find(legal, Pasar)
    if pasar is not None and own is not None and is_pasar_hand(own):
        return pasar
    for kind in (Dudo, Calzo, Matar, DoubtClaim):
        call = find(legal, kind)
        if call is not None:
            return call
    return legal[0]


class PoolBot:
    """Common frame: setup choices, then :meth:`play` (None: :func:`fallback`)."""

    style = "base"

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self.level = PREFIX + self.style

    def decide(self, view: SeatView, legal: list[Action]) -> Action:
        self.observe(view)
        choice = setup_choice(legal)
        if choice is not None:
            return choice
        action = self.play(view, legal, Sight.of(view))
        return action if action is not None and action in legal else fallback(view, legal)

    def observe(self, view: SeatView) -> None:
        """Hook for members that learn from the history (the profiler)."""

    def play(self, view: SeatView, legal: list[Action], sight: Sight) -> Action | None:
        raise NotImplementedError

    def doubt_if(
        self,
        legal: list[Action],
        sight: Sight,
        below: float,
        *,
        aces_count: bool = True,
        extra: float = 0.0,
    ) -> Action | None:
        """¡Dudo! when it is legal and the standing bid holds with a chance below ``below``."""
        bid = sight.standing
        dudo = find(legal, Dudo)
        if bid is None or dudo is None:
            return None
        return dudo if sight.p_hold(bid, aces_count=aces_count, extra=extra) < below else None

    def min_raise_best(
        self, legal: list[Action], sight: Sight, *, aces_count: bool = True
    ) -> Raise | None:
        """The minimum raise on the best face available (else the cheapest raise)."""
        low = floors(legal)
        if not low:
            return None
        return low[best_face(sight, sorted(low), aces_count=aces_count)]

