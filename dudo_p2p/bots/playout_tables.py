"""The play-outs' configuration and tables, and what the evaluators of one decision share.

:class:`PlayoutConfig` holds the knobs of the play-outs and :func:`supported` says which
decisions they cover (both re-exported by :mod:`dudo_p2p.bots.playouts`).
:class:`~dudo_p2p.bots.playouts.PlayoutEvaluator` samples hands from :func:`sampler` and reads
bids through :func:`belief_rows`; both are pure functions of their arguments. The expert
values one decision under several doubt models (the likeliest, then each plausible other
one: see ``ExpertBot.best_deviation``), on the same sampled worlds: a :class:`PlayoutShare`
carries what those evaluators have in common — the worlds drawn from one RNG state, the
beliefs and play-out moves of every seat whose model is the same, the minimum raises — so
each is computed once per decision. It is a cache only: every value is the float an
evaluator computes alone (tests/bots/test_bots_expert_choices.py holds the decisions).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from dudo_p2p.bots.knowledge import Knowledge
from dudo_p2p.bots.prob import (
    binomial_pmf,
    convolve,
    hand_matches,
    match_probability,
    posterior_match_pmfs,
    posterior_probs,
)
from dudo_p2p.rules import Action, Calzo, Dudo, Raise, SeatView

#: One seat's matches per face (index face-1).
Matches = tuple[int, ...]
#: Per face, ``row[k]`` = P(the other seats hold >= k matches).
Belief = tuple[tuple[float, ...], ...]
#: A seat's play-out move facing a bid: a raise, or None to doubt.
Move = tuple[int, int] | None
#: The sampled (world, hand indices, uniform draws) of one values() call, and the RNG state
#: after them (see PlayoutShare.worlds).
Worlds = tuple[tuple[tuple[list[Matches], tuple[int, ...], list[float]], ...], tuple[Any, ...]]


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
def sampler(
    n: int, faces: tuple[int, ...], tau: float, wild: bool, sharpness: float
) -> tuple[tuple[Matches, ...], tuple[float, ...]]:
    """The posterior over an ``n``-dice hand for sampling: (each hand's matches per face,
    index face-1, as :func:`~dudo_p2p.bots.prob.hand_matches`; cumulative weights)."""
    cum: list[float] = []
    acc = 0.0
    for p in posterior_probs(n, faces, tau, wild, sharpness):
        acc += p
        cum.append(acc)
    return hand_matches(n, wild), tuple(cum)


def belief_rows(
    know: Knowledge,
    order: tuple[int, ...],
    sizes: tuple[int, ...],
    viewer: int,
    our_face: int,
    taus: dict[int, float] | None,
    tau: float,
    sharpness: float,
    products: dict[tuple[tuple[float, ...], ...], list[float]],
) -> Belief:
    """Per face, ``t[k]`` = P(the seats of ``order`` other than position ``viewer`` hold >= k
    matches), each hand's posterior given the faces it bid (``our_face``, when not 0, added
    to position 0's) trusted with ``tau`` (rounded to 0.05 by the caller), or, when ``taus``
    is given (our own seat's reading), with its ``taus`` entry (default ``tau``) rounded to
    0.05 at ``sharpness``."""
    # each hand read once (the posterior's pmfs of all six faces), then face by face
    hands: list[tuple[int, tuple[float, ...], tuple[tuple[float, ...], ...] | None]] = []
    for pos, (seat, n) in enumerate(zip(order, sizes, strict=True)):
        if pos == viewer:
            continue
        faces = list(know.faces.get(seat, []))
        if pos == 0 and our_face:
            faces.append(our_face)
        t = tau if taus is None else round(taus.get(seat, tau) * 20) / 20
        if faces and t > 0:
            sharp = sharpness if taus is not None else 1.0
            bid = tuple(sorted(faces))
            post = posterior_match_pmfs(n, bid, t, know.wild, sharp)
            hands.append((n, (float(n), *bid, t, sharp), post))
        else:
            hands.append((n, (float(n),), None))
    rows: list[tuple[float, ...]] = []
    for face in range(1, 7):
        # the product of the hands' pmfs, left to right, each prefix kept in ``products``
        # under what its hands are (the same prefix recurs across viewers, our raise's faces
        # and, for hands read as binomials, the faces with the same chance to match)
        pmf: list[float] = [1.0]
        prefix: tuple[tuple[float, ...], ...] = ()
        p = match_probability(face, wild=know.wild)
        for n, key, pmfs in hands:
            part = None if pmfs is None else pmfs[face - 1]
            prefix = (*prefix, (*key, p) if part is None else (*key, float(face)))
            known = products.get(prefix)
            if known is None:
                known = convolve(pmf, binomial_pmf(n, p) if part is None else part)
                products[prefix] = known
            pmf = known
        suffix = [0.0] * (len(pmf) + 1)
        for k in range(len(pmf) - 1, -1, -1):
            suffix[k] = min(1.0, suffix[k + 1] + pmf[k])
        rows.append(tuple(suffix))
    return tuple(rows)


def offset_rows(belief: Belief, offset: int, total: int) -> Belief:
    """``belief`` indexed by ``need + offset`` (``offset`` at least any seat's matches): 1.0
    where ``need <= 0`` (the bid holds on the seat's own dice), ``row[need]`` after, 0.0
    beyond the row's end, up to a need of ``total`` — the values of
    ``PlayoutEvaluator.chance`` without its branches."""
    out: list[tuple[float, ...]] = []
    for row in belief:
        body = row[1 : total + 1]
        out.append((1.0,) * (offset + 1) + body + (0.0,) * (total - len(body)))
    return tuple(out)


@dataclass
class PlayoutShare:
    """What the evaluators of one decision share (they may differ only in their doubt
    models). ``signature`` is set by the first evaluator; one whose inputs differ does not
    use the share (see ``PlayoutEvaluator``)."""

    signature: tuple[object, ...] | None = None
    #: per RNG state at the start of values(): its sampled worlds and the state after them
    worlds: dict[object, Worlds] = field(default_factory=dict)
    #: (viewer position, our face or 0, the viewer's reading or None) -> its belief
    beliefs: dict[tuple[int, int, float | None], Belief] = field(default_factory=dict)
    #: (actor position, its fitted model, our face or 0) -> {hand and bid key: move}
    moves: dict[tuple[int, tuple[float, float] | None, int], dict[int, Move]] = field(
        default_factory=dict
    )
    #: the same with each belief's offset_rows
    rows: dict[tuple[int, int, float | None], Belief] = field(default_factory=dict)
    #: the products of hands' pmfs behind the beliefs (see belief_rows)
    products: dict[tuple[tuple[float, ...], ...], list[float]] = field(default_factory=dict)
    #: bid (or (0, 0) for none) -> the minimum raise on each face
    raises: dict[tuple[int, int], tuple[tuple[int, int], ...]] = field(default_factory=dict)
    #: bid -> each minimum raise with its count plus the offset and its face - 1
    offset_raises: dict[tuple[int, int], tuple[tuple[tuple[int, int], int, int], ...]] = field(
        default_factory=dict
    )

    def bind(self, signature: tuple[object, ...]) -> bool:
        """True when an evaluator with these inputs may use the share (the first binds it)."""
        if self.signature is None:
            self.signature = signature
            return True
        return self.signature == signature
