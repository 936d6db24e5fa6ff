"""Monte Carlo play-outs for the expert: sampled hands, the rest of the round simulated.

``PlayoutEvaluator`` values a few candidate actions of one decision (raises, ¡Dudo!,
¡Calzo!) by the mean payoff, to the deciding seat, over ``samples`` *worlds*. A world draws
every hidden hand from the posterior the hard level uses (:func:`posterior_hands` with the
fitted truthfulness per opponent), independently per seat. In each world:

* ¡Dudo! and ¡Calzo! are settled at once against the sampled dice;
* a raise is played out: every seat, the deciding one included, then follows
  :meth:`PlayoutEvaluator.policy`, a cheap hard-like rule computed from its own (sampled)
  hand and its *public belief* about the others: each other hand's posterior given the
  faces its owner bid this round (the root's bids plus the candidate raise), trusted with
  ``public_tau`` — the way the normal and hard levels read bids. A seat doubts when the
  standing bid holds with a chance below ``doubt_below`` and below the chance that its best
  minimum raise is false (times ``raise_scale``, the hard level's look-ahead in one number),
  else makes that raise, until someone doubts or no raise is left. An opponent whose doubts
  were fitted from reveals (:class:`~dudo_p2p.bots.opponents.DoubtModel`) follows its fitted
  model instead: it reads bids with its fitted reading (0: not at all) and doubts exactly
  when the standing bid holds, on that scale, with a chance below its fitted threshold — the
  scale the threshold was fitted on. Our own seat reads each opponent's faces with the
  truthfulness fitted for it (as our real decisions do), and an opponent names its best face
  only as often as its fitted truthfulness says (else a random face's minimum raise, drawn
  per world so every candidate meets the same draws). Beliefs are fixed for a play-out (bids
  made inside it are not read), which keeps a play-out a few table look-ups per step.

Every candidate is valued on the same worlds (common random numbers), so the comparison
between candidates is far less noisy than each value. Payoff of a round to the deciding
seat: ``-1`` when it loses a die, ``+gain_value`` when a right ¡Calzo! gives it a die back
(below its starting dice), ``+1 / (players - 1)`` when another seat loses one.

Only the round's bidding is modelled (raise, doubt, exact call under the table's raise
rules, wilds and palifico lock); :func:`supported` says when a decision fits that model.
The sample count is fixed, so a seeded bot decides the same way every time.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from dudo_p2p.bots.knowledge import Knowledge, next_live_seat
from dudo_p2p.bots.prob import (
    Counts,
    binomial_pmf,
    counts_matches,
    match_probability,
    posterior_hands,
    posterior_match_pmfs,
    total_pmf,
)
from dudo_p2p.rules import Action, Bid, Calzo, Dudo, Raise, RaiseContext, SeatView, min_raise

__all__ = ["DEFAULT_CONFIG", "PlayoutConfig", "PlayoutEvaluator", "supported"]

#: Longest play-out (applied raises); bids only go up, so a round ends well before this.
MAX_STEPS = 64


@dataclass(frozen=True)
class PlayoutConfig:
    """Knobs of the evaluator (the defaults are the shipped expert's)."""

    samples: int = 40
    doubt_below: float = 0.35
    raise_scale: float = 0.7
    gain_value: float = 0.8
    # How much a play-out seat without a fitted doubt model trusts the faces others bid (a
    # fitted seat reads them as its fit says: see DoubtModel). 0.5 had helped against
    # players that do not read bids while the fitted thresholds were used on the wrong
    # scale; with the fit on its own scale 0.9 is back (seed 12: vs hard 0.640 -> 0.697 of
    # 300, one expert vs three normal 0.450 -> 0.467 of 120, vs pool:equilibrium 162 -> 162
    # of 200).
    public_tau: float = 0.9
    # Our own seat, in a play-out, reads each opponent's bid faces with the truthfulness we
    # fitted for it (as the hard level scoring our real decisions does), not public_tau;
    # and an opponent raises on a random face's minimum raise with the chance that it does
    # not name its best face (1 - its fitted truthfulness), else on its best face. Both
    # were played out as truthful bidders read at 0.9: against pool:liar (random faces)
    # with palifico=false the expert's raises were caught far more than hard's (seed 12,
    # 400 games: bids caught 527 vs 419; games won 337 vs hard's 367; 349 with
    # random_faces, 355 with both). Seed 12, 300 games vs hard: 0.687 -> 0.713 with either.
    # (Against pool:liar a raise margin of 0.5 gave 356 but cost 0.63 vs hard.)
    own_reading: bool = True
    random_faces: bool = True


#: The shipped expert's configuration.
DEFAULT_CONFIG = PlayoutConfig()


def supported(view: SeatView, legal: Sequence[Action]) -> bool:
    """True when the play-out model covers this decision.

    It needs our own dice, no dice shown by others (V11 open palifico), only raises, ¡Dudo!
    and ¡Calzo! among the legal actions (no pasar, picado or matar claims to weigh) and no
    V10 face change.
    """
    state = view.state
    if view.own_dice is None or view.others:
        return False
    if state.palifico_round is not None and state.rules.palifico_face_change:
        return False
    return all(isinstance(a, Raise | Dudo | Calzo) for a in legal)


@lru_cache(maxsize=4096)
def _sampler(
    n: int, faces: tuple[int, ...], tau: float, wild: bool, sharpness: float
) -> tuple[tuple[tuple[int, ...], ...], tuple[float, ...]]:
    """The posterior over an ``n``-dice hand for sampling: (each hand's matches per face,
    index face-1; cumulative weights)."""
    post = posterior_hands(n, faces, tau, wild=wild, sharpness=sharpness)
    cum: list[float] = []
    acc = 0.0
    for _, p in post:
        acc += p
        cum.append(acc)
    return _matches_of(tuple(c for c, _ in post), wild), tuple(cum)


def _matches_of(hands: tuple[Counts, ...], wild: bool) -> tuple[tuple[int, ...], ...]:
    return tuple(
        tuple(counts_matches(counts, f, wild=wild) for f in range(1, 7)) for counts in hands
    )


_MoveKey = tuple[int, int, tuple[int, ...], tuple[int, int]]
#: A memo miss (a cached move may be None: a doubt).
_UNSEEN: tuple[int, int] | None = (-1, -1)


class PlayoutEvaluator:
    """Values candidate actions of the seat deciding in ``view`` (see the module docstring).

    ``taus`` / ``default_tau`` / ``sharpness``: the truthfulness model used to sample each
    hidden hand (the same the hard level scores with). ``fitted``: per opponent seat whose
    doubts were fitted, ``(reading, threshold)`` — the truthfulness it gives the others' bid
    faces and the chance, on that scale, below which it doubts (see the module docstring);
    other seats play the default policy.
    """

    #: Memoise the play-out policy per evaluator (False: recompute every step; the same
    #: values either way, a test compares them).
    memo = True

    def __init__(
        self,
        view: SeatView,
        know: Knowledge,
        taus: dict[int, float],
        default_tau: float,
        config: PlayoutConfig = DEFAULT_CONFIG,
        *,
        sharpness: float = 1.0,
        fitted: dict[int, tuple[float, float]] | None = None,
    ) -> None:
        state = view.state
        self.config = config
        self.rules = state.rules
        self.palifico = state.palifico_round is not None
        self.sucio = state.sucio
        self.raise_context = RaiseContext(self.rules, palifico=self.palifico, sucio=self.sucio)
        self.wild = state.wild
        self.total = state.total_dice
        self.know = know
        # Seats in play order from us: position 0 is the deciding seat.
        order = [view.seat]
        seat = next_live_seat(view, view.seat)
        while seat is not None and seat != view.seat and len(order) < state.n_seats:
            order.append(seat)
            seat = next_live_seat(view, seat)
        self.order = tuple(order)
        # Per position: (reading, threshold) of a fitted opponent, None for the default policy.
        models = fitted or {}
        self.fitted = tuple(
            None if pos == 0 else models.get(seat) for pos, seat in enumerate(order)
        )
        self.sizes = tuple(state.dice_counts[s] for s in order)
        self.can_gain = state.dice_counts[view.seat] < state.rules.starting_dice
        self.other_loss = 1.0 / max(1, len(order) - 1)
        self._taus = taus
        self._default_tau = default_tau
        self._sharpness = sharpness
        self._truth_of = tuple(
            1.0 if pos == 0 else taus.get(seat, default_tau) for pos, seat in enumerate(order)
        )
        self._raises: dict[tuple[int, int], tuple[tuple[int, int], ...]] = {}
        self._beliefs: dict[tuple[int, int], tuple[tuple[float, ...], ...]] = {}
        # policy() per (actor, our root face, actor's matches, bid faced): see play_out.
        self._moves: dict[_MoveKey, tuple[int, int] | None] = {}

    # ---- worlds --------------------------------------------------------------------------

    def sample_world(self, rng: random.Random) -> list[tuple[int, ...]]:
        """Matches per face (index face-1) for each seat of ``order`` in one sampled world."""
        know = self.know
        own = know.own_dice or ()
        world: list[tuple[int, ...]] = [
            tuple(
                sum(1 for d in own if d == f or (self.wild and f != 1 and d == 1))
                for f in range(1, 7)
            )
        ]
        for seat, n in zip(self.order[1:], self.sizes[1:], strict=True):
            faces = tuple(sorted(know.faces.get(seat, [])))
            tau = round(self._taus.get(seat, self._default_tau) * 20) / 20
            if not faces:
                tau = 0.0
            hands, cum = _sampler(n, faces, tau, self.wild, self._sharpness)
            i = min(len(hands) - 1, bisect.bisect_left(cum, rng.random() * cum[-1]))
            world.append(hands[i])
        return world

    # ---- the play-out policy -------------------------------------------------------------

    def min_raises(self, bid: tuple[int, int] | None) -> tuple[tuple[int, int], ...]:
        """The lowest legal raise on each face after ``bid`` (capped at the dice on the table)."""
        key = bid if bid is not None else (0, 0)
        out = self._raises.get(key)
        if out is None:
            prev = Bid(*bid) if bid is not None else None
            found: list[tuple[int, int]] = []
            for face in range(1, 7):
                r = min_raise(prev, face, self.raise_context)
                if r is not None and r.count <= self.total:
                    found.append((r.count, r.face))
            out = tuple(found)
            self._raises[key] = out
        return out

    def belief(self, viewer: int, our_face: int) -> tuple[tuple[float, ...], ...]:
        """Per face, ``t[k]`` = P(the seats other than ``viewer`` hold >= k matches), as
        ``viewer`` reads the bids: the root's bid faces plus our candidate raise on
        ``our_face`` (0: none), trusted with ``public_tau`` or the viewer's fitted reading."""
        key = (viewer, our_face)
        out = self._beliefs.get(key)
        if out is None:
            model = self.fitted[viewer]
            tau = round((self.config.public_tau if model is None else model[0]) * 20) / 20
            ours = viewer == 0 and self.config.own_reading
            rows: list[tuple[float, ...]] = []
            for face in range(1, 7):
                parts: list[list[float]] = []
                for pos, (seat, n) in enumerate(zip(self.order, self.sizes, strict=True)):
                    if pos == viewer:
                        continue
                    faces = list(self.know.faces.get(seat, []))
                    if pos == 0 and our_face:
                        faces.append(our_face)
                    if ours:
                        tau = round(self._taus.get(seat, self._default_tau) * 20) / 20
                    if faces and tau > 0:
                        pmfs = posterior_match_pmfs(
                            n, tuple(sorted(faces)), tau, self.wild,
                            self._sharpness if ours else 1.0,
                        )
                        parts.append(list(pmfs[face - 1]))
                    else:
                        parts.append(binomial_pmf(n, match_probability(face, wild=self.wild)))
                pmf = total_pmf(0, parts)
                suffix = [0.0] * (len(pmf) + 1)
                for k in range(len(pmf) - 1, -1, -1):
                    suffix[k] = min(1.0, suffix[k + 1] + pmf[k])
                rows.append(tuple(suffix))
            out = tuple(rows)
            self._beliefs[key] = out
        return out

    @staticmethod
    def chance(
        matches: tuple[int, ...], belief: tuple[tuple[float, ...], ...], bid: tuple[int, int]
    ) -> float:
        """P(bid holds) for a seat holding ``matches`` who reads the others by ``belief``."""
        need = bid[0] - matches[bid[1] - 1]
        if need <= 0:
            return 1.0
        row = belief[bid[1] - 1]
        return row[need] if need < len(row) else 0.0

    def policy(
        self,
        matches: tuple[int, ...],
        belief: tuple[tuple[float, ...], ...],
        bid: tuple[int, int],
        model: tuple[float, float] | None = None,
    ) -> tuple[int, int] | None:
        """The play-out move of a seat facing ``bid``: a raise, or None to doubt
        (``model``: that seat's fitted (reading, threshold); None: the default policy)."""
        best: tuple[int, int] | None = None
        best_p = -1.0
        for r in self.min_raises(bid):
            p = self.chance(matches, belief, r)
            if p > best_p:
                best, best_p = r, p
        if best is None:
            return None
        p_stand = self.chance(matches, belief, bid)
        if model is not None:  # the fitted model: a threshold on the scale it was fitted on
            return None if p_stand < model[1] else best
        cfg = self.config
        if p_stand < cfg.doubt_below and p_stand < (1.0 - best_p) * cfg.raise_scale:
            return None
        return best

    def face_choice(
        self, pos: int, bid: tuple[int, int], best: tuple[int, int], u: float, v: float
    ) -> tuple[int, int]:
        """The raise the opponent at ``pos`` makes over ``bid``: its best-face raise ``best``
        when the uniform draw ``u`` falls below its fitted truthfulness, else the minimum
        raise on the face the uniform draw ``v`` picks (a bidder whose faces carry no
        information, like pool:liar, is not played out as naming its best face)."""
        if u < self._truth_of[pos]:
            return best
        options = self.min_raises(bid)
        return options[min(len(options) - 1, int(v * len(options)))]

    # ---- values --------------------------------------------------------------------------

    def _loss(self, loser: int) -> float:
        return -1.0 if loser == 0 else self.other_loss

    def _held(self, world: list[tuple[int, ...]], face: int) -> int:
        return sum(m[face - 1] for m in world)

    def play_out(
        self,
        world: list[tuple[int, ...]],
        bid: tuple[int, int],
        draws: Sequence[float] = (),
    ) -> float:
        """Our payoff when we have just bid ``bid`` and everyone follows :meth:`policy`
        (``draws``: this world's uniform numbers, two per step, for ``random_faces``)."""
        n = len(self.order)
        face = bid[1]
        memo = self._moves if self.memo else None
        bidder = 0
        actor = 1 % n
        for step in range(MAX_STEPS):
            matches = world[actor]
            if memo is None:
                move = self.policy(matches, self.belief(actor, face), bid, self.fitted[actor])
            else:
                # policy() is a pure function of these four (the beliefs are fixed for the
                # evaluator), and the same step recurs across worlds and candidates.
                key = (actor, face, matches, bid)
                move = memo.get(key, _UNSEEN)
                if move is _UNSEEN:
                    move = self.policy(matches, self.belief(actor, face), bid, self.fitted[actor])
                    memo[key] = move
            if move is None:
                held = self._held(world, bid[1])
                return self._loss(actor if held >= bid[0] else bidder)
            if draws and actor != 0:
                move = self.face_choice(actor, bid, move, draws[2 * step], draws[2 * step + 1])
            bid, bidder, actor = move, actor, (actor + 1) % n
        return 0.0

    def values(self, candidates: Sequence[Action], rng: random.Random) -> list[float]:
        """Mean payoff of each candidate over ``config.samples`` shared sampled worlds.

        Candidates other than Raise / Dudo / Calzo get ``-inf`` (the caller scores them).
        """
        standing = self.know.standing
        sb = (standing.count, standing.face) if standing is not None else None
        bidder_pos = (
            self.order.index(self.know.bidder)
            if self.know.bidder is not None and self.know.bidder in self.order
            else None
        )
        sums = [0.0] * len(candidates)
        uniform = rng.random
        for _ in range(self.config.samples):
            world = self.sample_world(rng)
            draws = [uniform() for _ in range(2 * MAX_STEPS)] if self.config.random_faces else []
            for i, action in enumerate(candidates):
                match action:
                    case Raise(bid=bid):
                        sums[i] += self.play_out(world, (bid.count, bid.face), draws)
                    case Dudo() if sb is not None and bidder_pos is not None:
                        held = self._held(world, sb[1])
                        sums[i] += self._loss(0 if held >= sb[0] else bidder_pos)
                    case Calzo() if sb is not None:
                        if self._held(world, sb[1]) == sb[0]:
                            sums[i] += self.config.gain_value if self.can_gain else 0.0
                        else:
                            sums[i] -= 1.0
                    case _:
                        sums[i] = -math.inf
        return [s / self.config.samples for s in sums]
