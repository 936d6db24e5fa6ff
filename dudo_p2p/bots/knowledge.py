"""What a bot may use, read from a ``SeatView`` only: own/visible dice and public history.

``Knowledge.from_view`` never looks at another seat's dice unless the view carries them (an
open palifico round, V11). ``Estimator`` turns knowledge plus a truthfulness per opponent
into exact pmfs of the table's matches for each face (see :mod:`dudo_p2p.bots.prob`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dudo_p2p.bots.prob import (
    binomial_pmf,
    match_probability,
    posterior_match_pmfs,
    prob_at_least,
    prob_exactly,
    total_pmf,
)
from dudo_p2p.rules import Bid, Picado, Raise, SeatView, count_showing


def informative_faces(view: SeatView, *, palifico_opening: bool = True) -> dict[int, list[int]]:
    """Per seat, the faces of its bids this round that it chose freely.

    In a palifico round only the opening bid names a face by choice (the face is locked
    after it), so later raises say nothing about the bidder's hand; ``palifico_opening=False``
    does not read that opening either (a bidder may open a palifico round on any face).
    """
    faces: dict[int, list[int]] = {}
    palifico = view.palifico_round is not None
    first = palifico_opening
    for action in view.state.bids:
        if isinstance(action, Raise | Picado):
            if first or not palifico:
                faces.setdefault(action.seat, []).append(action.bid.face)
            first = False
    return faces


def next_live_seat(view: SeatView, seat: int) -> int | None:
    """The next seat with dice after ``seat`` in the current direction (None if alone)."""
    state = view.state
    step = 1 if state.clockwise else -1
    s = seat
    for _ in range(state.n_seats - 1):
        s = (s + step) % state.n_seats
        if state.alive[s] and state.dice_counts[s] > 0:
            return s
    return None


@dataclass(frozen=True)
class Knowledge:
    """A seat's information at one decision: visible dice, hidden hands, the bid to beat."""

    seat: int
    wild: bool
    palifico: bool
    total: int
    known_dice: tuple[int, ...]
    hidden: tuple[tuple[int, int], ...]  # (seat, dice count) whose dice this seat cannot see
    own_dice: tuple[int, ...] | None
    standing: Bid | None
    bidder: int | None
    next_seat: int | None
    n_alive: int
    faces: dict[int, list[int]] = field(default_factory=dict)

    @classmethod
    def from_view(cls, view: SeatView, *, palifico_opening: bool = True) -> Knowledge:
        """Read everything a decision needs from ``view`` (public state + visible dice);
        ``palifico_opening``: see :func:`informative_faces`."""
        state = view.state
        known: list[int] = list(view.own_dice or ())
        hidden: list[tuple[int, int]] = []
        for s in range(state.n_seats):
            n = state.dice_counts[s]
            if n <= 0 or not state.alive[s]:
                continue
            if s == view.seat:
                if view.own_dice is None:
                    hidden.append((s, n))
            elif s in view.others:
                known.extend(view.others[s])
            else:
                hidden.append((s, n))
        return cls(
            seat=view.seat,
            wild=state.wild,
            palifico=state.palifico_round is not None,
            total=state.total_dice,
            known_dice=tuple(known),
            hidden=tuple(hidden),
            own_dice=view.own_dice,
            standing=state.standing_bid,
            bidder=state.standing_bidder,
            next_seat=next_live_seat(view, view.seat),
            n_alive=sum(1 for s in range(state.n_seats) if state.alive[s]),
            faces=informative_faces(view, palifico_opening=palifico_opening),
        )


class Estimator:
    """Exact pmfs of the table's matches per face, given knowledge and opponents' truthfulness.

    ``taus[seat]`` is how much that seat's bid faces are trusted (0 ignores them); a seat
    missing from ``taus`` gets ``default_tau``. Results are cached per face, so scoring every
    legal raise costs one pmf per face.
    """

    def __init__(
        self,
        know: Knowledge,
        taus: dict[int, float],
        default_tau: float,
        *,
        sharpness: float = 1.0,
    ) -> None:
        self.know = know
        self._sharpness = sharpness
        self._taus = taus
        self._default = default_tau
        self._parts: dict[int, dict[int, list[float]]] = {}
        self._totals: dict[int, list[float]] = {}
        self._without: dict[tuple[int, int], list[float]] = {}

    def tau(self, seat: int) -> float:
        return self._taus.get(seat, self._default)

    def seat_pmf(self, seat: int, face: int) -> list[float]:
        """Pmf of how many of hidden ``seat``'s dice match ``face``."""
        parts = self._parts.get(face)
        if parts is None:
            parts = {}
            know = self.know
            for s, n in know.hidden:
                bid_faces = know.faces.get(s, []) if s != know.seat else []
                tau = self.tau(s)
                if bid_faces and tau > 0:
                    pmfs = posterior_match_pmfs(
                        n,
                        tuple(sorted(bid_faces)),
                        round(tau * 20) / 20,
                        know.wild,
                        self._sharpness,
                    )
                    parts[s] = list(pmfs[face - 1])
                else:
                    parts[s] = binomial_pmf(n, match_probability(face, wild=know.wild))
            self._parts[face] = parts
        return parts[seat]

    def known_matches(self, face: int) -> int:
        return count_showing(self.know.known_dice, face, wild=self.know.wild)

    def total(self, face: int) -> list[float]:
        """Pmf of all matches on the table for ``face``."""
        pmf = self._totals.get(face)
        if pmf is None:
            parts = [self.seat_pmf(s, face) for s, _ in self.know.hidden]
            pmf = total_pmf(self.known_matches(face), parts)
            self._totals[face] = pmf
        return pmf

    def total_without(self, face: int, seat: int) -> list[float]:
        """Pmf of all matches for ``face`` except hidden ``seat``'s own dice."""
        key = (face, seat)
        pmf = self._without.get(key)
        if pmf is None:
            parts = [self.seat_pmf(s, face) for s, _ in self.know.hidden if s != seat]
            pmf = total_pmf(self.known_matches(face), parts)
            self._without[key] = pmf
        return pmf

    def p_true(self, bid: Bid) -> float:
        """P(the table holds at least ``bid.count`` matches of ``bid.face``)."""
        return prob_at_least(self.total(bid.face), bid.count)

    def p_exact(self, bid: Bid) -> float:
        """P(the table holds exactly ``bid.count`` matches)."""
        return prob_exactly(self.total(bid.face), bid.count)

    def is_hidden(self, seat: int) -> bool:
        return any(s == seat for s, _ in self.know.hidden)
