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
The sample count is fixed, so a seeded bot decides the same way every time. The evaluators
of one decision share their tables (:class:`~dudo_p2p.bots.playout_tables.PlayoutShare`).
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Sequence
from itertools import repeat, starmap

from dudo_p2p.bots.knowledge import Knowledge, next_live_seat
from dudo_p2p.bots.playout_tables import (
    DEFAULT_CONFIG,
    Belief,
    Matches,
    Move,
    PlayoutConfig,
    PlayoutShare,
    belief_rows,
    offset_rows,
    sampler,
    supported,
)
from dudo_p2p.rules import Action, Bid, Calzo, Dudo, Raise, RaiseContext, SeatView, min_raise

__all__ = ["DEFAULT_CONFIG", "PlayoutConfig", "PlayoutEvaluator", "supported"]

#: Longest play-out (applied raises); bids only go up, so a round ends well before this.
MAX_STEPS = 64


#: A memo miss (a cached move may be None: a doubt).
_UNSEEN: Move = (-1, -1)


class PlayoutEvaluator:
    """Values candidate actions of the seat deciding in ``view`` (see the module docstring).

    ``taus`` / ``default_tau`` / ``sharpness``: the truthfulness model used to sample each
    hidden hand (the same the hard level scores with). ``fitted``: per opponent seat whose
    doubts were fitted, ``(reading, threshold)`` — the truthfulness it gives the others' bid
    faces and the chance, on that scale, below which it doubts (see the module docstring);
    other seats play the default policy. ``share``: tables shared with the other evaluators
    of this decision (:class:`~dudo_p2p.bots.playout_tables.PlayoutShare`; a cache only).
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
        share: PlayoutShare | None = None,
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
        signature = (view, know, config, taus, default_tau, sharpness)
        if share is None or not share.bind(signature):
            share = PlayoutShare()
            share.bind(signature)
        self._share = share
        self._raises = share.raises
        # Our hand's matches, and each other seat's hands to sample with their cumulative
        # weights (see _sample).
        own = know.own_dice or ()
        self._own = tuple(
            sum(1 for d in own if d == f or (self.wild and f != 1 and d == 1))
            for f in range(1, 7)
        )
        self._samplers = []
        for seat, n in zip(self.order[1:], self.sizes[1:], strict=True):
            faces = tuple(sorted(know.faces.get(seat, [])))
            tau = round(taus.get(seat, default_tau) * 20) / 20 if faces else 0.0
            self._samplers.append(sampler(n, faces, tau, self.wild, sharpness))
        # Per face of our candidate raise: each position's memo and belief (see _tables).
        self._per_face: dict[int, tuple[list[dict[int, Move]], list[Belief]]] = {}

    # ---- worlds --------------------------------------------------------------------------

    def _sample(self, rng: random.Random) -> tuple[list[Matches], tuple[int, ...]]:
        """A sampled world and the index of each position's hand in its sampler (ours: 0).
        One ``rng.random()`` per other seat, in play order."""
        world = [self._own]
        index = [0]
        random_ = rng.random
        for hands, cum in self._samplers:
            i = min(len(hands) - 1, bisect.bisect_left(cum, random_() * cum[-1]))
            world.append(hands[i])
            index.append(i)
        return world, tuple(index)

    def worlds(
        self, rng: random.Random
    ) -> tuple[tuple[list[Matches], tuple[int, ...], list[float]], ...]:
        """``config.samples`` (world, hand indices, uniform draws) from ``rng``, shared with
        the evaluators of this decision that start from the same RNG state (the RNG is left
        where drawing them leaves it)."""
        start = rng.getstate()
        found = self._share.worlds.get(start)
        if found is not None:
            rng.setstate(found[1])
            return found[0]
        uniform = rng.random
        draws = 2 * MAX_STEPS if self.config.random_faces else 0  # uniform draws per world
        out = []
        for _ in range(self.config.samples):
            world, index = self._sample(rng)
            out.append((world, index, list(starmap(uniform, repeat((), draws)))))
        drawn = tuple(out)
        self._share.worlds[start] = (drawn, rng.getstate())
        return drawn

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

    def belief(self, viewer: int, our_face: int) -> Belief:
        """Per face, ``t[k]`` = P(the seats other than ``viewer`` hold >= k matches), as
        ``viewer`` reads the bids: the root's bid faces plus our candidate raise on
        ``our_face`` (0: none), trusted with ``public_tau`` or the viewer's fitted reading
        (our own seat, with ``own_reading``: each opponent's fitted truthfulness; our raise
        is not among the hands we read, so its face changes nothing there)."""
        model = self.fitted[viewer]
        ours = viewer == 0 and self.config.own_reading
        key = (viewer, 0 if viewer == 0 else our_face, None if model is None else model[0])
        out = self._share.beliefs.get(key)
        if out is None:
            if ours:
                out = belief_rows(
                    self.know, self.order, self.sizes, 0, our_face,
                    self._taus, self._default_tau, self._sharpness, self._share.products,
                )
            else:
                tau = round((self.config.public_tau if model is None else model[0]) * 20) / 20
                out = belief_rows(
                    self.know, self.order, self.sizes, viewer, our_face, None, tau, 1.0,
                    self._share.products,
                )
            self._share.beliefs[key] = out
        return out

    def _rows(self, viewer: int, our_face: int) -> Belief:
        """:func:`offset_rows` of :meth:`belief` (offset: the dice on the table)."""
        model = self.fitted[viewer]
        key = (viewer, 0 if viewer == 0 else our_face, None if model is None else model[0])
        out = self._share.rows.get(key)
        if out is None:
            out = offset_rows(self.belief(viewer, our_face), self.total, self.total)
            self._share.rows[key] = out
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
        return self._move(matches, offset_rows(belief, self.total, self.total), bid, model)

    def _offset_raises(self, bid: tuple[int, int]) -> tuple[tuple[tuple[int, int], int, int], ...]:
        """:meth:`min_raises` with each raise's count plus the offset and its face - 1."""
        out = self._share.offset_raises.get(bid)
        if out is None:
            out = tuple((r, r[0] + self.total, r[1] - 1) for r in self.min_raises(bid))
            self._share.offset_raises[bid] = out
        return out

    def _move(
        self,
        matches: Matches,
        rows: Belief,
        bid: tuple[int, int],
        model: tuple[float, float] | None,
    ) -> Move:
        """:meth:`policy` on the belief's :func:`offset_rows` (offset: the dice on the table)."""
        best: tuple[int, int] | None = None
        best_p = -1.0
        raises = self._share.offset_raises.get(bid)
        if raises is None:
            raises = self._offset_raises(bid)
        for r, count, f in raises:
            p = rows[f][count - matches[f]]  # chance(matches, belief, r)
            if p > best_p:
                best, best_p = r, p
        if best is None:
            return None
        row = rows[bid[1] - 1]
        k = bid[0] + self.total - matches[bid[1] - 1]
        p_stand = row[k] if k < len(row) else 0.0  # chance(matches, belief, bid)
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

    def _tables(self, face: int) -> tuple[list[dict[int, Move]], list[Belief]]:
        """Per position, for play-outs of our raise on ``face``: its memo of :meth:`policy`
        (shared by the evaluators that give that position the same model) and its belief's
        :func:`offset_rows`."""
        tables = self._per_face.get(face)
        if tables is None:
            moves = self._share.moves
            tables = (
                [
                    moves.setdefault((pos, model, face if pos else 0), {})
                    for pos, model in enumerate(self.fitted)
                ],
                [self._rows(pos, face) for pos in range(len(self.order))],
            )
            self._per_face[face] = tables
        return tables

    def play_out(
        self,
        world: list[Matches],
        bid: tuple[int, int],
        draws: Sequence[float] = (),
        index: tuple[int, ...] | None = None,
    ) -> float:
        """Our payoff when we have just bid ``bid`` and everyone follows :meth:`policy`
        (``draws``: this world's uniform numbers, two per step, for ``random_faces``;
        ``index``: each position's hand in its sampler, for the memo)."""
        n = len(self.order)
        face = bid[1]
        hands = index if self.memo else None
        memos, rows = self._tables(face)
        fitted = self.fitted
        truth = self._truth_of
        bidder = 0
        actor = 1 % n
        for step in range(MAX_STEPS):
            if hands is None:
                move = self._move(world[actor], rows[actor], bid, fitted[actor])
            else:
                # policy() is a pure function of the actor's model and belief (fixed for the
                # evaluator, our raise's face aside), its hand and the bid faced; the same
                # step recurs across worlds, candidates and models.
                memo = memos[actor]
                key = (hands[actor] << 16) | (bid[0] << 3) | bid[1]
                move = memo.get(key, _UNSEEN)
                if move is _UNSEEN:
                    move = self._move(world[actor], rows[actor], bid, fitted[actor])
                    memo[key] = move
            if move is None:
                held = self._held(world, bid[1])
                return self._loss(actor if held >= bid[0] else bidder)
            if draws and actor and draws[2 * step] >= truth[actor]:
                # face_choice inlined: not its best face, the minimum raise on a drawn face
                options = self.min_raises(bid)
                move = options[min(len(options) - 1, int(draws[2 * step + 1] * len(options)))]
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
        for world, index, draws in self.worlds(rng):
            for i, action in enumerate(candidates):
                match action:
                    case Raise(bid=bid):
                        sums[i] += self.play_out(world, (bid.count, bid.face), draws, index)
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
