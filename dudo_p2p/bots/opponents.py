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
from dudo_p2p.bots.prob import face_choice_likelihood
from dudo_p2p.rules import SeatView

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
    _seen: dict[int, tuple[bool, dict[int, list[int]]]] = field(default_factory=dict)
    _loglik: dict[int, list[float]] = field(default_factory=dict)
    _done: set[int] = field(default_factory=set)

    def observe(self, view: SeatView) -> None:
        """Record this round's bids and fit every newly resolved round."""
        state = view.state
        if state.bids:
            faces = informative_faces(view)
            old = self._seen.get(state.round_no)
            merged = faces if old is None or _size(faces) >= _size(old[1]) else old[1]
            self._seen[state.round_no] = (state.wild, merged)
        for result in state.results:
            if result.round_no in self._done:
                continue
            self._done.add(result.round_no)
            wild, faces = self._seen.pop(result.round_no, (state.rules.aces_wild, {}))
            if result.bid is not None and result.kind in ("dudo", "calzo", "matar"):
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


def _size(faces: dict[int, list[int]]) -> int:
    return sum(len(v) for v in faces.values())
