"""Per-opponent truthfulness fitted online from reveals (the hard and expert levels).

A bot sees each round's bids while it plays (``state.bids`` at each of its turns) and, once
the round is resolved, every hand in ``RoundResult.dice``. ``TruthModel`` remembers the freely
chosen bid faces it saw per round and, when that round's result appears in the view, scores
each bidder's actual hand under the face-choice likelihood of :mod:`dudo_p2p.bots.prob` for
a grid of truthfulness values. The estimate is the posterior mean over the grid with a prior
centred on ``prior``, so a few rounds move it only a little.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from dudo_p2p.bots.knowledge import informative_faces
from dudo_p2p.bots.prob import (
    binomial_pmf,
    face_weights,
    match_probability,
    posterior_match_pmfs,
    prob_at_least,
    total_pmf,
)
from dudo_p2p.rules import Bid, Picado, Raise, RoundResult, SeatView, count_showing

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
                # face_choice_likelihood over the grid, its six weights computed once per hand
                weights = face_weights(counts, wild, self.sharpness)
                total = sum(weights)
                for face in seat_faces:
                    w = weights[face - 1]
                    for i, tau in enumerate(GRID):
                        ll[i] += math.log(tau * w / total + (1.0 - tau) / 6.0)

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


#: Doubt thresholds the :class:`DoubtModel` weighs (P(bid holds) on the seat's own scale).
THRESHOLDS = tuple(0.1 + 0.05 * i for i in range(13))

#: How a seat may read the others' bids when it judges one (the truthfulness it gives their
#: faces, at the play-outs' sharpness 1): 0, not at all (its own dice plus the binomial of
#: the rest: the pool's callers), half-way, or 0.9, the play-outs' default ``public_tau``.
READINGS = (0.0, 0.5, 0.9)

#: Width of the doubt sigmoid (in probability): P(doubt) = 1 / (1 + exp((p - t) / WIDTH)).
WIDTH = 0.08


@dataclass
class DoubtModel:
    """Online estimate of how each seat decides to doubt, fitted from reveals.

    A seat facing a bid either raises or doubts. Once the round is revealed we know the
    facing seat's dice, so the chance the bid held *as that seat saw it* is exact on each
    scale of :data:`READINGS`: its own matches plus, for every other hand, the binomial
    (reading 0) or the posterior given the faces that hand had bid so far this round
    (reading ``r``: those faces trusted with ``r``, as the play-outs' ``public_tau`` does).
    A seat with threshold ``t`` on scale ``r`` doubts with probability
    ``1 / (1 + exp((p_r - t) / WIDTH))``. Per seat the model keeps the likelihood of every
    (reading, threshold) pair; :meth:`threshold` is the posterior mean of ``t`` on a given
    scale (normal prior around ``prior``, sd ``prior_sd``) and :meth:`reading` the scale the
    reveals favour. A threshold must be *used* on the scale it was fitted on: thresholds fitted
    on the binomial scale and compared with chances that read bids (higher, for a true bid)
    made the play-outs believe a reading player such as normal almost never doubts.
    """

    prior: float = 0.35
    prior_sd: float = 0.12
    readings: tuple[float, ...] = READINGS
    _seen: dict[int, tuple[bool, bool, tuple[tuple[int, int, int], ...]]] = field(
        default_factory=dict
    )
    _loglik: dict[int, list[list[float]]] = field(default_factory=dict)
    _facings: dict[int, int] = field(default_factory=dict)
    _done: set[int] = field(default_factory=set)
    # _posterior and threshold per seat, dropped when that seat's likelihoods move: the hard
    # level asks for the next seat's threshold once per legal raise.
    _posteriors: dict[int, list[list[float]]] = field(default_factory=dict)
    _thresholds: dict[tuple[int, float], float] = field(default_factory=dict)

    def observe(self, view: SeatView) -> None:
        """Record this round's raises and fit every newly resolved round."""
        state = view.state
        raises = tuple(
            (a.seat, a.bid.count, a.bid.face) for a in state.bids if isinstance(a, Raise)
        )
        if raises:
            old = self._seen.get(state.round_no)
            if old is None or len(raises) >= len(old[2]):
                palifico = state.palifico_round is not None
                self._seen[state.round_no] = (state.wild, palifico, raises)
        for result in state.results:
            if result.round_no in self._done:
                continue
            self._done.add(result.round_no)
            wild, palifico, seen = self._seen.pop(
                result.round_no, (state.rules.aces_wild, False, ())
            )
            self._fit(view.seat, wild, palifico, seen, result)

    def _fit(
        self,
        me: int,
        wild: bool,
        palifico: bool,
        seen: tuple[tuple[int, int, int], ...],
        result: RoundResult,
    ) -> None:
        bid = result.bid
        called = result.kind in ("dudo", "calzo", "matar")
        if bid is not None and called and (not seen or seen[-1][1:] != (bid.count, bid.face)):
            # the final raise came after our last look (or we never saw a bid this round)
            seen = (*seen, (result.target, bid.count, bid.face))
        facing: list[tuple[int, int, bool]] = []  # (index of the bid faced, seat, doubted)
        for i, (seat, _, _) in enumerate(seen[1:]):
            facing.append((i, seat, False))
        if result.kind == "dudo" and bid is not None and seen:
            facing.append((len(seen) - 1, result.caller, True))
        sizes = [len(d) for d in result.dice]
        for i, seat, doubted in facing:
            if seat == me or seat >= len(result.dice) or not result.dice[seat]:
                continue
            _, count, face = seen[i]
            ll = self._loglik.setdefault(seat, [[0.0] * len(THRESHOLDS) for _ in self.readings])
            self._facings[seat] = self._facings.get(seat, 0) + 1
            self._forget(seat)
            faces = _faces_before(seen[: i + 1], palifico)
            for row, reading in zip(ll, self.readings, strict=True):
                p = seen_chance(
                    result.dice[seat], seat, sizes, faces, Bid(count, face), reading, wild=wild
                )
                for j, t in enumerate(THRESHOLDS):
                    q = 1.0 / (1.0 + math.exp((p - t) / WIDTH))
                    q = min(0.98, max(0.02, q))
                    row[j] += math.log(q if doubted else 1.0 - q)

    def observed(self, seat: int) -> int:
        """How many of ``seat``'s decisions facing a bid have been fitted."""
        return self._facings.get(seat, 0)

    def _forget(self, seat: int) -> None:
        """Drop ``seat``'s cached posterior and thresholds (its likelihoods are changing)."""
        self._posteriors.pop(seat, None)
        for reading in self.readings:
            self._thresholds.pop((seat, reading), None)

    def _posterior(self, seat: int) -> list[list[float]] | None:
        """Unnormalised posterior weights per (reading, threshold), None when nothing seen
        (cached until the seat's next fit: callers only read it)."""
        cached = self._posteriors.get(seat)
        if cached is not None:
            return cached
        ll = self._loglik.get(seat)
        if ll is None:
            return None
        logs = [
            [
                x - 0.5 * ((t - self.prior) / self.prior_sd) ** 2
                for x, t in zip(row, THRESHOLDS, strict=True)
            ]
            for row in ll
        ]
        top = max(max(row) for row in logs)
        post = [[math.exp(v - top) for v in row] for row in logs]
        self._posteriors[seat] = post
        return post

    def threshold(self, seat: int, reading: float = 0.0) -> float:
        """Posterior-mean doubt threshold of ``seat`` on the scale ``reading`` (one of
        :attr:`readings`; 0: own dice plus the binomial); the prior when nothing is known."""
        key = (seat, reading)
        cached = self._thresholds.get(key)
        if cached is not None:
            return cached
        post = self._posterior(seat)
        if post is None:
            return self.prior
        weights = post[self.readings.index(reading)]
        t = sum(w * t for w, t in zip(weights, THRESHOLDS, strict=True)) / sum(weights)
        self._thresholds[key] = t
        return t

    def reading_weights(self, seat: int) -> dict[float, float]:
        """Posterior share of each reading of :attr:`readings` for ``seat`` (marginal
        likelihood, equal prior odds; they sum to 1); equal shares when nothing is known."""
        post = self._posterior(seat)
        if post is None:
            return {r: 1.0 / len(self.readings) for r in self.readings}
        sums = [sum(row) for row in post]
        total = sum(sums)
        return {r: m / total for r, m in zip(self.readings, sums, strict=True)}

    def reading(self, seat: int) -> float:
        """The reading of :attr:`readings` whose thresholds explain ``seat``'s doubts best
        (marginal likelihood, equal prior odds); the first when nothing is known."""
        post = self._posterior(seat)
        if post is None:
            return self.readings[0]
        best = max(range(len(post)), key=lambda i: (sum(post[i]), -i))
        return self.readings[best]


def seen_chance(
    dice: tuple[int, ...],
    seat: int,
    sizes: list[int],
    faces: dict[int, list[int]],
    bid: Bid,
    reading: float,
    *,
    wild: bool,
) -> float:
    """P(``bid`` holds) as ``seat`` holding ``dice`` sees it on the scale ``reading``.

    ``sizes``: every seat's dice count; ``faces``: the faces each seat chose in its bids so
    far this round. Every other hand is binomial (``reading`` 0) or its posterior given its
    faces trusted with ``reading`` (the play-outs' :func:`~dudo_p2p.bots.prob.posterior_match_pmfs`
    at sharpness 1, as their ``belief`` reads bids).
    """
    parts: list[list[float]] = []
    for other, n in enumerate(sizes):
        if other == seat or n == 0:
            continue
        bid_faces = faces.get(other)
        if bid_faces and reading > 0:
            # sharpness given as the play-outs give it: one cache entry for both
            pmfs = posterior_match_pmfs(n, tuple(sorted(bid_faces)), reading, wild, 1.0)
            parts.append(list(pmfs[bid.face - 1]))
        else:
            parts.append(binomial_pmf(n, match_probability(bid.face, wild=wild)))
    own = count_showing(dice, bid.face, wild=wild)
    return prob_at_least(total_pmf(own, parts), bid.count)


def _faces_before(
    seen: tuple[tuple[int, int, int], ...], palifico: bool
) -> dict[int, list[int]]:
    """Per seat, the faces it chose in ``seen`` (a palifico round: the opening's face only)."""
    faces: dict[int, list[int]] = {}
    for k, (seat, _, face) in enumerate(seen):
        if k == 0 or not palifico:
            faces.setdefault(seat, []).append(face)
    return faces
