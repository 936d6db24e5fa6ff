"""The sparring pool: legal under every variant, distinct styles, seated by the tournament."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from dudo_p2p.bots import LEVELS, POOL, Bot, make_bot
from dudo_p2p.bots.pool import BinomialCaller, Sight
from dudo_p2p.rules import Action, Bid, Calzo, Dudo, Raise, RuleSet, SeatView
from dudo_p2p.rules.runner import play_game
from tests.bots.test_bots_legality import random_rules


def test_the_pool_has_at_least_six_styles_none_of_them_a_level() -> None:
    assert len(POOL) >= 6
    assert all(name.startswith("pool:") and name not in LEVELS for name in POOL)
    for name in POOL:
        assert make_bot(name, random.Random(0)).level == name
    with pytest.raises(ValueError, match="unknown pool member"):
        make_bot("pool:nobody", random.Random(0))


@pytest.mark.parametrize("name", sorted(POOL))
def test_every_member_plays_only_legal_actions_under_random_rules(name: str) -> None:
    rng = random.Random(f"pool-legality/{name}")
    kinds: Counter[str] = Counter()
    others = [*LEVELS, *POOL]
    for game in range(25):
        rules = random_rules(rng)
        seats = rng.choice([2, 3, 4])
        names = [name] + [rng.choice(others) for _ in range(seats - 1)]
        bots = [make_bot(n, random.Random(f"{name}/{game}/{s}")) for s, n in enumerate(names)]

        def player(
            view: SeatView, _rng: random.Random, bots: list[Bot] = bots, rules: RuleSet = rules
        ) -> Action:
            legal = view.legal_actions()
            action = bots[view.seat].decide(view, legal)
            assert action in legal, f"{bots[view.seat].level} played {action} under {rules}"
            if view.seat == 0:
                kinds[type(action).__name__] += 1
            return action

        record = play_game(rules, seats, [player] * seats, random.Random(game))
        assert record.winner in range(seats)
    assert kinds["Raise"] > 20
    assert kinds["Dudo"] + kinds["Calzo"] + kinds["Matar"] > 5


def _signature(name: str) -> tuple[float, float, float, float]:
    """(share of calls that are ¡Calzo!, calls per decision, mean raise jump, share of opening
    bids on a face the bidder holds) of ``name`` in seat 0 of seeded duels against normal."""
    calls = calzos = decisions = openings = on_hand = 0
    jumps: list[int] = []
    for game in range(30):
        bots = [make_bot(name, random.Random(game)), make_bot("normal", random.Random(-game))]

        def player(view: SeatView, _rng: random.Random, bots: list[Bot] = bots) -> Action:
            nonlocal calls, calzos, decisions, openings, on_hand
            legal = view.legal_actions()
            action = bots[view.seat].decide(view, legal)
            if view.seat == 0 and isinstance(action, Raise | Dudo | Calzo):
                decisions += 1
                calls += isinstance(action, Dudo | Calzo)
                calzos += isinstance(action, Calzo)
                if isinstance(action, Raise):
                    low = next(a for a in legal if isinstance(a, Raise)
                               and a.bid.face == action.bid.face)
                    jumps.append(action.bid.count - low.bid.count)
                    if view.state.standing_bid is None and view.own_dice:
                        openings += 1
                        on_hand += action.bid.face in view.own_dice
            return action

        play_game(RuleSet(), 2, [player, player], random.Random(500 + game))
    return (calzos / max(1, calls), calls / decisions, sum(jumps) / len(jumps),
            on_hand / max(1, openings))


def test_the_styles_are_distinct() -> None:
    sig = {name: _signature(name) for name in POOL}
    # the calzo-happy player calls exact far more often than the binomial caller or the liar
    assert sig["pool:calzo"][0] > 0.3 > sig["pool:liar"][0]
    assert sig["pool:calzo"][0] > 2 * sig["pool:binomial"][0]
    # the loose raiser jumps above the minimum; the minimum-raise liar and binomial never do
    assert sig["pool:loose"][2] >= 1.0
    assert sig["pool:liar"][2] == 0.0 and sig["pool:binomial"][2] == 0.0
    # the tight caller calls more than the loose raiser
    assert sig["pool:tight"][1] > 1.5 * sig["pool:loose"][1]
    # and no two members leave the same signature
    assert len({tuple(round(x, 3) for x in s) for s in sig.values()}) == len(sig)


def test_the_binomial_caller_ignores_its_own_aces_for_other_faces() -> None:
    sight = Sight(known=(1, 1, 1, 4, 4), unseen=5, wild=True, standing=Bid(5, 4), bidder=1)
    assert sight.held(4) == 5 and sight.held(4, aces_count=False) == 2
    assert sight.p_hold(Bid(5, 4)) == 1.0
    assert sight.p_hold(Bid(5, 4), aces_count=False) < BinomialCaller.threshold
