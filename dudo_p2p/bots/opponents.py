"""Per-opponent truthfulness fitted online from reveals (the hard and expert levels).

A bot sees each round's bids while it plays (``state.bids`` at each of its turns) and, once
the round is resolved, every hand in ``RoundResult.dice``. ``TruthModel`` remembers the freely
chosen bid faces it saw per round and, when that round's result appears in the view, scores
each bidder's actual hand under the face-choice likelihood of :mod:`dudo_p2p.bots.prob` for
a grid of truthfulness values. The estimate is the posterior mean over the grid with a prior
centred on ``prior``, so a few rounds move it only a little.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

from dudo_p2p.bots.knowledge import informative_faces
from dudo_p2p.bots.prob import (
    binomial_pmf,
    face_choice_likelihood,
    match_probability,
    prob_at_least,
)
from dudo_p2p.rules import Picado, Raise, RoundResult, SeatView, count_showing

GRID = tuple(i / 10 for i in range(11))


def _counts(dice: tuple[int, ...]) -> tuple[int, int, int, int, int, int]:
    c = [0] * 6
    for d in dice:
        c[d - 1] += 1
    return (c[0], c[1], c[2], c[3], c[4], c[5])


@dataclass
class TruthModel:
    """Online estimate of how truthfully each seat names the faces it bids."""

    prior: float = 0.5
    prior_strength: float = 4.0
    #: the face-choice likelihood's sharpness (see :func:`face_choice_likelihood`)
    sharpness: float = 1.0
    #: fit only each round's opening bid (a bidder may open at random and raise truthfully)
    openings_only: bool = False
    _seen: dict[int, tuple[bool, dict[int, list[int]]]] = field(default_factory=dict)
    _loglik: dict[int, list[float]] = field(default_factory=dict)
    _done: set[int] = field(default_factory=set)

    def observe(self, view: SeatView) -> None:
        """Record this round's bids and fit every newly resolved round."""
        state = view.state
        if state.bids:
            faces = _opening(view) if self.openings_only else informative_faces(view)
            old = self._seen.get(state.round_no)
            merged = faces if old is None or _size(faces) >= _size(old[1]) else old[1]
            self._seen[state.round_no] = (state.wild, merged)
        for result in state.results:
            if result.round_no in self._done:
                continue
            self._done.add(result.round_no)
            wild, faces = self._seen.pop(result.round_no, (state.rules.aces_wild, {}))
            called = result.kind in ("dudo", "calzo", "matar")
            if result.bid is not None and called and not self.openings_only:
                last = faces.setdefault(result.target, [])
                if not last or last[-1] != result.bid.face:
                    last.append(result.bid.face)
            for seat, seat_faces in faces.items():
                if seat == view.seat or seat >= len(result.dice) or not result.dice[seat]:
                    continue
                counts = _counts(result.dice[seat])
                ll = self._loglik.setdefault(seat, [0.0] * len(GRID))
                for face in seat_faces:
                    for i, tau in enumerate(GRID):
                        ll[i] += math.log(
                            face_choice_likelihood(
                                counts, face, tau, wild=wild, sharpness=self.sharpness
                            )
                        )

    def tau(self, seat: int) -> float:
        """Posterior-mean truthfulness of ``seat`` (the prior mean when nothing is known)."""
        ll = self._loglik.get(seat)
        if ll is None:
            return self.prior
        a = self.prior * self.prior_strength
        b = (1.0 - self.prior) * self.prior_strength
        logs = [
            x + (a - 1) * math.log(max(t, 1e-3)) + (b - 1) * math.log(max(1 - t, 1e-3))
            for x, t in zip(ll, GRID, strict=True)
        ]
        top = max(logs)
        weights = [math.exp(v - top) for v in logs]
        return sum(w * t for w, t in zip(weights, GRID, strict=True)) / sum(weights)

    def taus(self, seats: list[int]) -> dict[int, float]:
        return {s: self.tau(s) for s in seats}


def _opening(view: SeatView) -> dict[int, list[int]]:
    """The opening bid's seat and face this round (empty before it)."""
    for action in view.state.bids:
        if isinstance(action, Raise | Picado):
            return {action.seat: [action.bid.face]}
    return {}


def _size(faces: dict[int, list[int]]) -> int:
    return sum(len(v) for v in faces.values())


#: Doubt thresholds the :class:`DoubtModel` weighs (P(bid holds) seen from the doubter's dice).
THRESHOLDS = tuple(0.1 + 0.05 * i for i in range(13))


@dataclass
class DoubtModel:
    """Online estimate of each seat's doubt threshold, fitted from reveals.

    A seat facing a bid either raises or doubts. Once the round is revealed we know the
    doubter's dice, so the chance the bid held *as that seat saw it* (its own matches plus
    the binomial of the dice it could not see) is exact; a seat with threshold ``t`` is
    modelled as doubting with probability ``1 / (1 + exp((p - t) / 0.08))``. The estimate is
    the posterior mean over :data:`THRESHOLDS` with a normal prior around ``prior`` (sd
    ``prior_sd``), so the hard level's own 0.35 stays the guess until reveals say otherwise.
    """

    prior: float = 0.35
    prior_sd: float = 0.12
    _seen: dict[int, tuple[bool, tuple[tuple[int, int, int], ...]]] = field(default_factory=dict)
    _loglik: dict[int, list[float]] = field(default_factory=dict)
    _done: set[int] = field(default_factory=set)

    def observe(self, view: SeatView) -> None:
        """Record this round's raises and fit every newly resolved round."""
        state = view.state
        raises = tuple(
            (a.seat, a.bid.count, a.bid.face) for a in state.bids if isinstance(a, Raise)
        )
        if raises:
            old = self._seen.get(state.round_no)
            if old is None or len(raises) >= len(old[1]):
                self._seen[state.round_no] = (state.wild, raises)
        for result in state.results:
            if result.round_no in self._done:
                continue
            self._done.add(result.round_no)
            wild, seen = self._seen.pop(result.round_no, (state.rules.aces_wild, ()))
            self._fit(view.seat, wild, seen, result)

    def _fit(
        self,
        me: int,
        wild: bool,
        seen: tuple[tuple[int, int, int], ...],
        result: RoundResult,
    ) -> None:
        total = sum(len(d) for d in result.dice)
        facing: list[tuple[int, int, int, bool]] = []  # (seat, count, face, doubted)
        bid = result.bid
        if bid is not None and seen and seen[-1][1:] != (bid.count, bid.face):
            # the final raise came after our last look: its bidder faced our last seen bid
            seen = (*seen, (result.target, bid.count, bid.face))
        for (_, count, face), (seat, _, _) in itertools.pairwise(seen):
            facing.append((seat, count, face, False))
        if result.kind == "dudo" and result.bid is not None:
            facing.append((result.caller, result.bid.count, result.bid.face, True))
        for seat, count, face, doubted in facing:
            if seat == me or seat >= len(result.dice) or not result.dice[seat]:
                continue
            dice = result.dice[seat]
            need = count - count_showing(dice, face, wild=wild)
            p = prob_at_least(
                binomial_pmf(total - len(dice), match_probability(face, wild=wild)), need
            )
            ll = self._loglik.setdefault(seat, [0.0] * len(THRESHOLDS))
            for i, t in enumerate(THRESHOLDS):
                q = 1.0 / (1.0 + math.exp((p - t) / 0.08))
                q = min(0.98, max(0.02, q))
                ll[i] += math.log(q if doubted else 1.0 - q)

    def threshold(self, seat: int) -> float:
        """Posterior-mean doubt threshold of ``seat`` (the prior when nothing is known)."""
        ll = self._loglik.get(seat)
        if ll is None:
            return self.prior
        logs = [
            x - 0.5 * ((t - self.prior) / self.prior_sd) ** 2
            for x, t in zip(ll, THRESHOLDS, strict=True)
        ]
        top = max(logs)
        weights = [math.exp(v - top) for v in logs]
        return sum(w * t for w, t in zip(weights, THRESHOLDS, strict=True)) / sum(weights)
