"""Probability of a bid: exact distributions over unseen dice and over opponents' hands.

Everything here is exact arithmetic on small discrete distributions (no sampling):

* an unseen die matches a face with probability 1/3 when aces are wild and the face is not
  an ace, 1/6 otherwise (an ace, or no wilds) — the seed-003 probability guide, shared with
  the table's hint through :func:`dudo_p2p.rules.odds.match_probability`;
* a hand of ``n`` dice is a vector of face counts; ``hands(n)`` lists every such vector with
  its multinomial probability (252 vectors for five dice), so a posterior over a hand is an
  exact reweighting of that list;
* an opponent's bids this round are evidence about their hand: under a *truthfulness*
  ``tau`` a bidder picks the face of a bid in proportion to how many dice they hold that
  match it with probability ``tau``, and uniformly otherwise. ``posterior_hands`` applies
  that likelihood to every hand; ``tau = 0`` gives back the prior.

Distributions are plain ``list[float]`` pmfs indexed by count.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

from dudo_p2p.rules.odds import match_probability

__all__ = [
    "Counts",
    "Hand",
    "binomial_pmf",
    "convolve",
    "counts_matches",
    "face_choice_likelihood",
    "face_weights",
    "hand_matches",
    "hands",
    "match_probability",
    "matches_pmf",
    "posterior_hands",
    "posterior_match_pmfs",
    "posterior_probs",
    "prior_total_pmf",
    "prob_at_least",
    "prob_exactly",
    "shift",
    "total_pmf",
]

Counts = tuple[int, int, int, int, int, int]
Hand = tuple[Counts, float]


def binomial_pmf(n: int, p: float) -> list[float]:
    """Pmf of Binomial(n, p) as a list of length ``n + 1`` (a new list: callers may keep it)."""
    return list(_binomial(n, p))


@lru_cache(maxsize=256)
def _binomial(n: int, p: float) -> tuple[float, ...]:
    return tuple(math.comb(n, k) * p**k * (1.0 - p) ** (n - k) for k in range(n + 1))


def convolve(a: Sequence[float], b: Sequence[float]) -> list[float]:
    """Pmf of the sum of two independent counts with pmfs ``a`` and ``b``."""
    out = [0.0] * (len(a) + len(b) - 1)
    for i, pa in enumerate(a):
        if pa == 0.0:
            continue
        for k, pb in enumerate(b, i):  # k = i + j
            out[k] += pa * pb
    return out


def shift(pmf: Sequence[float], by: int) -> list[float]:
    """Pmf of ``X + by`` for a known non-negative offset ``by``."""
    return [0.0] * by + list(pmf)


def prob_at_least(pmf: Sequence[float], k: int) -> float:
    """P(X >= k) for the pmf; 1.0 when ``k <= 0``."""
    if k <= 0:
        return 1.0
    return min(1.0, sum(pmf[k:]))


def prob_exactly(pmf: Sequence[float], k: int) -> float:
    """P(X == k) for the pmf (0.0 outside its support)."""
    return pmf[k] if 0 <= k < len(pmf) else 0.0


def counts_matches(counts: Counts, face: int, *, wild: bool) -> int:
    """Like :func:`dudo_p2p.rules.count_showing` for a face-count vector (index 0 is aces)."""
    held = counts[face - 1]
    if wild and face != 1:
        held += counts[0]
    return held


@lru_cache(maxsize=16)
def hands(n: int) -> tuple[Hand, ...]:
    """Every hand of ``n`` fair dice as (face-count vector, probability); probabilities sum to 1."""
    if n < 0:
        raise ValueError("n must be >= 0")
    out: list[Hand] = []
    total = 6**n
    for combo in _compositions(n, 6):
        ways = math.factorial(n)
        for c in combo:
            ways //= math.factorial(c)
        out.append((combo, ways / total))
    return tuple(out)


def _compositions(n: int, parts: int) -> list[Counts]:
    result: list[Counts] = []

    def rec(prefix: list[int], left: int, slots: int) -> None:
        if slots == 1:
            full = [*prefix, left]
            result.append((full[0], full[1], full[2], full[3], full[4], full[5]))
            return
        for k in range(left + 1):
            rec([*prefix, k], left - k, slots - 1)

    rec([], n, parts)
    return result


def face_choice_likelihood(
    counts: Counts, face: int, tau: float, *, wild: bool, sharpness: float = 1.0
) -> float:
    """Chance a bidder holding ``counts`` names ``face``, under truthfulness ``tau``.

    With probability ``tau`` the face is chosen in proportion to (matches + 1/2) raised to
    ``sharpness`` over the six faces — a bidder mostly names what they hold, and the half
    keeps a hand with no match for a face possible; a higher ``sharpness`` models a bidder
    who names its best face more strictly. Otherwise the face is uniform. ``tau`` in [0, 1].
    """
    weights = face_weights(counts, wild, sharpness)
    return tau * weights[face - 1] / sum(weights) + (1.0 - tau) / 6.0


def face_weights(counts: Counts, wild: bool, sharpness: float) -> list[float]:
    """The weight of each face (index face-1) in :func:`face_choice_likelihood`."""
    return [float((counts_matches(counts, f, wild=wild) + 0.5) ** sharpness) for f in range(1, 7)]


def posterior_hands(
    n: int, bid_faces: Sequence[int], tau: float, *, wild: bool, sharpness: float = 1.0
) -> list[Hand]:
    """Exact posterior over an opponent's ``n``-dice hand given the faces they bid this round.

    Bayes' rule over :func:`hands` with :func:`face_choice_likelihood` for each bid, the
    bids taken as independent choices given the hand. Probabilities sum to 1.
    """
    probs = posterior_probs(n, tuple(bid_faces), tau, wild, sharpness)
    return [(counts, p) for (counts, _), p in zip(hands(n), probs, strict=True)]


def posterior_probs(
    n: int, bid_faces: tuple[int, ...], tau: float, wild: bool, sharpness: float = 1.0
) -> tuple[float, ...]:
    """The probabilities of :func:`posterior_hands`, in the order of :func:`hands` (cached:
    the play-outs sample from the posteriors the estimator reads; a flat tuple of floats, so
    the cache holds no objects for the garbage collector to walk)."""
    if not bid_faces or tau <= 0.0:
        return _prior_probs(n)
    return _posterior_probs(n, bid_faces, tau, wild, sharpness)


@lru_cache(maxsize=16)
def _prior_probs(n: int) -> tuple[float, ...]:
    return tuple(p for _, p in hands(n))


@lru_cache(maxsize=4096)
def _posterior_probs(
    n: int, bid_faces: tuple[int, ...], tau: float, wild: bool, sharpness: float
) -> tuple[float, ...]:
    weighted: list[float] = []
    total = 0.0
    uniform = (1.0 - tau) / 6.0
    table = _face_weights(n, wild, sharpness)
    for (_, p), (weights, weight_sum) in zip(hands(n), table, strict=True):
        # face_choice_likelihood inlined: the six weights are computed once per hand
        scale = tau / weight_sum
        w = p
        for face in bid_faces:
            w *= weights[face - 1] * scale + uniform
        weighted.append(w)
        total += w
    return tuple(w / total for w in weighted)


@lru_cache(maxsize=64)
def _face_weights(
    n: int, wild: bool, sharpness: float
) -> tuple[tuple[tuple[float, ...], float], ...]:
    """Per hand of :func:`hands`, its six face weights of :func:`face_choice_likelihood`
    and their sum."""
    out: list[tuple[tuple[float, ...], float]] = []
    for counts, _ in hands(n):
        weights = face_weights(counts, wild, sharpness)
        out.append((tuple(weights), sum(weights)))
    return tuple(out)


@lru_cache(maxsize=64)
def hand_matches(n: int, wild: bool) -> tuple[tuple[int, ...], ...]:
    """Per hand of :func:`hands`, its matches of each face (index face-1)."""
    return tuple(
        tuple(counts_matches(counts, f, wild=wild) for f in range(1, 7)) for counts, _ in hands(n)
    )


def matches_pmf(posterior: Sequence[Hand], n: int, face: int, *, wild: bool) -> list[float]:
    """Pmf (length ``n + 1``) of how many dice of a hand drawn from ``posterior`` match ``face``."""
    pmf = [0.0] * (n + 1)
    for counts, p in posterior:
        pmf[counts_matches(counts, face, wild=wild)] += p
    return pmf


def total_pmf(known: int, parts: Sequence[Sequence[float]]) -> list[float]:
    """Pmf of ``known`` plus the sum of independent per-opponent match counts ``parts``."""
    pmf: list[float] = [1.0]
    for part in parts:
        pmf = convolve(pmf, part)
    return shift(pmf, known)


def prior_total_pmf(known: int, unseen: int, face: int, *, wild: bool) -> list[float]:
    """Pmf of the table's matches for ``face`` given ``known`` matches seen and ``unseen`` dice."""
    return shift(binomial_pmf(unseen, match_probability(face, wild=wild)), known)


@lru_cache(maxsize=8192)
def posterior_match_pmfs(
    n: int, bid_faces: tuple[int, ...], tau: float, wild: bool, sharpness: float = 1.0
) -> tuple[tuple[float, ...], ...]:
    """Per face 1..6, the pmf of an ``n``-dice hand's matches under :func:`posterior_hands`.

    Cached: the same opponent's bids come back at every decision of a round, so callers
    pass ``bid_faces`` sorted and ``tau`` rounded to keep the key space small.
    """
    probs = posterior_probs(n, bid_faces, tau, wild, sharpness)
    table = hand_matches(n, wild)  # both in the order of hands(n)
    out: list[tuple[float, ...]] = []
    for f in range(6):
        # matches_pmf inlined, on the matches table
        pmf = [0.0] * (n + 1)
        for p, matches in zip(probs, table, strict=True):
            pmf[matches[f]] += p
        out.append(tuple(pmf))
    return tuple(out)
