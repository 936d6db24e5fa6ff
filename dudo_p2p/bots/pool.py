"""The sparring pool: short, honest strategies unlike our levels, for the tournament only.

These players are not levels (the lobby never offers them): they exist so that the ladder is
measured against styles our own levels do not share. Each reads only its ``SeatView`` (own
dice, dice shown in an open palifico round, the public history and reveals), draws its
randomness from the injected RNG and returns one element of ``legal`` (so it is legal under
every variant by construction). A pool member's name is ``pool:<style>``:

* ``binomial`` — opens a random face with a tiny count (about a twelfth of the unseen dice);
  doubts when the binomial chance of the standing bid from its own dice alone is below 0.3,
  calls exact when the chance of the exact count is at least 0.4 (few unseen dice);
  otherwise the minimum raise on its best face. Blind spot kept on purpose: its own aces do
  not count toward other faces.
* ``tight`` — doubts whenever the bid exceeds the expected count (own dice + unseen × p).
* ``loose`` — raises one to three above the minimum, bluffs a random face a third of the
  time, doubts only long shots (below 0.1).
* ``calzo`` — calls ¡Calzo! whenever the exact count is a fair chance (≥ 0.22) or the bid
  sits on the expectation; doubts below 0.3; else the minimum raise on its best face.
* ``liar`` — the minimum raise on a uniformly random face (its bids say nothing about its
  hand); doubts below 0.35.
* ``equilibrium`` — plays the CFR endgame table as is where it applies (two seats, one or
  two dice each, the model's rules); elsewhere a greedy probabilist: doubts when the bid is
  less likely than 0.5 and than its likeliest minimum raise.
* ``profiler`` — builds a profile of each opponent from reveals (how often a face they bid
  was in their hand, how often their doubts were right) and trusts an honest bidder's face
  as one more match; bluffs more against players who rarely doubt.

Claims (pasar, picado) are made only when true; a claim is doubted only when nothing else is
left. ``make_pool_bot("pool:binomial", rng)`` builds one; :data:`POOL` lists the styles.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from dudo_p2p.bots.expert import table_choice
from dudo_p2p.bots.knowledge import next_live_seat
from dudo_p2p.bots.levels import Bot
from dudo_p2p.bots.pool_base import (
    PREFIX,
    PoolBot,
    Sight,
    best_face,
    find,
    floors,
    raise_to,
)
from dudo_p2p.rules import Action, Calzo, Dudo, Raise, SeatView, count_showing

__all__ = ["POOL", "PREFIX", "PoolBot", "Sight", "make_pool_bot"]


# ---- the members --------------------------------------------------------------------------


class BinomialCaller(PoolBot):
    """Tiny random openings, binomial doubts from its own dice (aces not counted), min raises."""

    style = "binomial"
    threshold = 0.3
    exact = 0.4

    def play(self, view: SeatView, legal: list[Action], sight: Sight) -> Action | None:
        bid = sight.standing
        if bid is None:
            low = floors(legal)
            if not low:
                return None
            face = self._rng.choice(sorted(low))
            return raise_to(legal, face, max(1, round(sight.unseen / 12)))
        doubt = self.doubt_if(legal, sight, self.threshold, aces_count=False)
        if doubt is not None:
            return doubt
        calzo = find(legal, Calzo)
        if calzo is not None and sight.p_exact(bid, aces_count=False) >= self.exact:
            return calzo
        return self.min_raise_best(legal, sight, aces_count=False)


class TightCaller(PoolBot):
    """Doubts any bid above the expected count; bids its best face at the expectation."""

    style = "tight"

    def play(self, view: SeatView, legal: list[Action], sight: Sight) -> Action | None:
        bid = sight.standing
        dudo = find(legal, Dudo)
        if bid is not None and dudo is not None and bid.count > sight.expected(bid.face):
            return dudo
        low = floors(legal)
        if not low:
            return None
        face = best_face(sight, sorted(low))
        if bid is None:
            return raise_to(legal, face, int(sight.expected(face)))
        return low[face]


class LooseRaiser(PoolBot):
    """Jumps one to three above the minimum, bluffs a third of the time, rarely doubts."""

    style = "loose"
    doubt_below = 0.1
    bluff = 0.33

    def play(self, view: SeatView, legal: list[Action], sight: Sight) -> Action | None:
        doubt = self.doubt_if(legal, sight, self.doubt_below)
        if doubt is not None:
            return doubt
        low = floors(legal)
        if not low:
            return None
        faces = sorted(low)
        face = self._rng.choice(faces) if self._rng.random() < self.bluff else best_face(
            sight, faces
        )
        return raise_to(legal, face, low[face].bid.count + self._rng.randint(1, 3))


class CalzoHappy(PoolBot):
    """Calls ¡Calzo! at any fair chance of the exact count; otherwise a plain caller."""

    style = "calzo"
    exact = 0.22
    doubt_below = 0.3

    def play(self, view: SeatView, legal: list[Action], sight: Sight) -> Action | None:
        bid = sight.standing
        if bid is not None:
            calzo = find(legal, Calzo)
            on_mean = bid.count == round(sight.expected(bid.face))
            if calzo is not None and (on_mean or sight.p_exact(bid) >= self.exact):
                return calzo
        doubt = self.doubt_if(legal, sight, self.doubt_below)
        return doubt if doubt is not None else self.min_raise_best(legal, sight)


class MinRaiseLiar(PoolBot):
    """The minimum raise on a random face (bids carry no information); doubts below 0.35."""

    style = "liar"
    doubt_below = 0.35

    def play(self, view: SeatView, legal: list[Action], sight: Sight) -> Action | None:
        doubt = self.doubt_if(legal, sight, self.doubt_below)
        if doubt is not None:
            return doubt
        low = floors(legal)
        return low[self._rng.choice(sorted(low))] if low else None


class EquilibriumPlayer(PoolBot):
    """The CFR endgame table as is where it applies; a greedy probabilist elsewhere."""

    style = "equilibrium"

    def play(self, view: SeatView, legal: list[Action], sight: Sight) -> Action | None:
        table = table_choice(view, legal, self._rng)
        if table is not None:
            return table
        low = floors(legal)
        best = max(low.values(), key=lambda r: (sight.p_hold(r.bid), r.bid.face), default=None)
        bid = sight.standing
        dudo = find(legal, Dudo)
        if bid is not None and dudo is not None:
            p = sight.p_hold(bid)
            if p < 0.5 and (best is None or p < sight.p_hold(best.bid)):
                return dudo
        return best


@dataclass
class Profile:
    """What the profiler learned of one opponent from reveals."""

    bids: int = 0
    honest: int = 0
    doubts: int = 0
    doubts_right: int = 0
    faced: int = 0

    def honesty(self) -> float:
        return (self.honest + 1) / (self.bids + 2)

    def doubt_rate(self) -> float:
        return (self.doubts + 1) / (self.faced + 3)


@dataclass
class _Memory:
    rounds: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    done: set[int] = field(default_factory=set)
    profiles: dict[int, Profile] = field(default_factory=dict)


class Profiler(PoolBot):
    """Profiles each opponent from reveals; trusts honest bidders, bluffs at timid doubters."""

    style = "profiler"
    doubt_below = 0.35

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.memory = _Memory()

    def profile(self, seat: int) -> Profile:
        return self.memory.profiles.setdefault(seat, Profile())

    def observe(self, view: SeatView) -> None:
        state = view.state
        mem = self.memory
        bids = [(a.seat, a.bid.face) for a in state.bids if isinstance(a, Raise)]
        if bids:
            mem.rounds[state.round_no] = bids
        for result in state.results:
            if result.round_no in mem.done:
                continue
            mem.done.add(result.round_no)
            for seat, face in mem.rounds.pop(result.round_no, []):
                if seat == view.seat or seat >= len(result.dice) or not result.dice[seat]:
                    continue
                prof = self.profile(seat)
                prof.bids += 1
                wild = state.rules.aces_wild
                prof.honest += count_showing(result.dice[seat], face, wild=wild) > 0
            if result.kind == "dudo" and result.caller != view.seat:
                prof = self.profile(result.caller)
                prof.doubts += 1
                prof.doubts_right += result.bid is not None and result.held < result.bid.count
            for seat in range(len(result.dice)):
                if seat != view.seat and result.dice[seat]:
                    self.profile(seat).faced += 1

    def play(self, view: SeatView, legal: list[Action], sight: Sight) -> Action | None:
        if sight.bidder is not None:
            trust = self.profile(sight.bidder).honesty()
            doubt = self.doubt_if(legal, sight, self.doubt_below, extra=trust)
            if doubt is not None:
                return doubt
        low = floors(legal)
        if not low:
            return None
        faces = sorted(low)
        nxt = next_live_seat(view, view.seat)
        timid = nxt is not None and self.profile(nxt).doubt_rate() < 0.25
        if timid and self._rng.random() < 0.5:
            face = self._rng.choice(faces)
            return raise_to(legal, face, low[face].bid.count + 1)
        return low[best_face(sight, faces)]


#: Every pool style and its class, by ``pool:<style>`` name.
POOL: dict[str, Callable[[random.Random], PoolBot]] = {
    PREFIX + cls.style: cls
    for cls in (
        BinomialCaller,
        TightCaller,
        LooseRaiser,
        CalzoHappy,
        MinRaiseLiar,
        EquilibriumPlayer,
        Profiler,
    )
}


def make_pool_bot(name: str, rng: random.Random) -> Bot:
    """A new pool member ``name`` (``pool:<style>``); ``ValueError`` if unknown."""
    factory = POOL.get(name)
    if factory is None:
        raise ValueError(f"unknown pool member {name!r}; choose one of {', '.join(POOL)}")
    return factory(rng)
