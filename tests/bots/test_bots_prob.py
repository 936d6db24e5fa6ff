"""Probability functions against brute-force enumeration of every roll on small cases."""

from __future__ import annotations

import itertools

import pytest

from dudo_p2p.bots.prob import (
    face_choice_likelihood,
    hands,
    matches_pmf,
    posterior_hands,
    prior_total_pmf,
    prob_at_least,
    prob_exactly,
    total_pmf,
)
from dudo_p2p.rules import count_showing as count_matches


def _counts(dice: tuple[int, ...]) -> tuple[int, int, int, int, int, int]:
    c = [0] * 6
    for d in dice:
        c[d - 1] += 1
    return (c[0], c[1], c[2], c[3], c[4], c[5])


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4])
def test_hands_are_the_multinomial_of_every_roll(n: int) -> None:
    brute: dict[tuple[int, int, int, int, int, int], float] = {}
    for roll in itertools.product(range(1, 7), repeat=n):
        key = _counts(roll)
        brute[key] = brute.get(key, 0.0) + 6.0**-n
    got = dict(hands(n))
    assert got.keys() == brute.keys()
    for counts, p in brute.items():
        assert got[counts] == pytest.approx(p)


@pytest.mark.parametrize("wild", [True, False])
@pytest.mark.parametrize("face", [1, 3, 6])
def test_prior_total_matches_enumeration(face: int, wild: bool) -> None:
    own = (1, 3, 5)
    unseen = 3
    pmf = prior_total_pmf(count_matches(own, face, wild=wild), unseen, face, wild=wild)
    brute = [0.0] * (len(own) + unseen + 1)
    for roll in itertools.product(range(1, 7), repeat=unseen):
        brute[count_matches(own + roll, face, wild=wild)] += 6.0**-unseen
    padded = pmf + [0.0] * (len(brute) - len(pmf))
    assert padded == pytest.approx(brute)
    for k in range(len(brute) + 1):
        assert prob_at_least(pmf, k) == pytest.approx(sum(brute[k:]))
        assert prob_exactly(pmf, k) == pytest.approx(brute[k] if k < len(brute) else 0.0)


def test_unseen_die_matches_a_third_with_wilds_and_a_sixth_otherwise() -> None:
    assert prior_total_pmf(0, 1, 4, wild=True)[1] == pytest.approx(1 / 3)
    assert prior_total_pmf(0, 1, 1, wild=True)[1] == pytest.approx(1 / 6)
    assert prior_total_pmf(0, 1, 4, wild=False)[1] == pytest.approx(1 / 6)


def test_posterior_is_bayes_rule_over_every_roll() -> None:
    n, bids, tau, face = 3, [5, 5, 2], 0.7, 5
    post = posterior_hands(n, bids, tau, wild=True)
    assert sum(p for _, p in post) == pytest.approx(1.0)
    # brute force over ordered rolls: prior 6^-n times the likelihood of each bid face
    joint = [0.0] * (n + 1)
    for roll in itertools.product(range(1, 7), repeat=n):
        w = 6.0**-n
        for b in bids:
            w *= face_choice_likelihood(_counts(roll), b, tau, wild=True)
        joint[count_matches(roll, face, wild=True)] += w
    brute = [x / sum(joint) for x in joint]
    assert matches_pmf(post, n, face, wild=True) == pytest.approx(brute)


def test_bids_on_a_face_raise_the_belief_in_that_face() -> None:
    prior = matches_pmf(hands(4), 4, 6, wild=True)
    post = matches_pmf(posterior_hands(4, [6, 6], 0.9, wild=True), 4, 6, wild=True)

    def mean(pmf: list[float]) -> float:
        return sum(k * p for k, p in enumerate(pmf))

    assert mean(post) > mean(prior) + 0.2
    # truthfulness 0 ignores the bids
    assert matches_pmf(posterior_hands(4, [6, 6], 0.0, wild=True), 4, 6, wild=True) == (
        pytest.approx(prior)
    )


def test_total_of_two_posteriors_is_their_convolution_by_enumeration() -> None:
    a = matches_pmf(posterior_hands(2, [3], 0.6, wild=False), 2, 3, wild=False)
    b = matches_pmf(hands(1), 1, 3, wild=False)
    pmf = total_pmf(2, [a, b])
    brute = [0.0] * 6
    for i, pa in enumerate(a):
        for j, pb in enumerate(b):
            brute[2 + i + j] += pa * pb
    assert pmf == pytest.approx(brute)
