"""Every level plays only legal actions under random rule sets (every variant of rules.md)."""

from __future__ import annotations

import random

import pytest

from dudo_p2p.bots import LEVELS, Bot, make_bot
from dudo_p2p.errors import InvalidRuleSet
from dudo_p2p.rules import VARIANTS, Action, RuleSet, SeatView
from dudo_p2p.rules.runner import play_game


def random_rules(rng: random.Random) -> RuleSet:
    """A valid rule set with each option drawn from its allowed values (retry if refused)."""
    while True:
        options = {name: rng.choice(info.allowed) for name, info in VARIANTS.items()}
        options["starting_dice"] = rng.choice([3, 4])  # short games keep the test bounded
        try:
            return RuleSet.from_dict(options)
        except InvalidRuleSet:
            continue


@pytest.mark.parametrize("level", LEVELS)
def test_every_decision_is_one_of_the_legal_actions_under_random_rules(level: str) -> None:
    rng = random.Random(f"legality/{level}")
    decisions = 0
    kinds: set[str] = set()
    for game in range(20):
        rules = random_rules(rng)
        seats = rng.choice([2, 3, 4])
        # the level under test in seat 0, the other seats mixed
        levels = [level] + [rng.choice(LEVELS) for _ in range(seats - 1)]
        bots = [make_bot(lv, random.Random(f"{level}/{game}/{s}")) for s, lv in enumerate(levels)]

        def player(
            view: SeatView,
            _rng: random.Random,
            bots: list[Bot] = bots,
            levels: list[str] = levels,
            rules: RuleSet = rules,
        ) -> Action:
            nonlocal decisions
            legal = view.legal_actions()
            action = bots[view.seat].decide(view, legal)
            assert action in legal, f"{levels[view.seat]} played {action} under {rules}"
            decisions += 1
            kinds.add(type(action).__name__)
            return action

        record = play_game(rules, seats, [player] * seats, random.Random(game))
        assert record.winner in range(seats)
    assert decisions > 100
    assert {"Raise", "ChooseDirection"} <= kinds
    if level != "easy":  # easy doubts little, but the others must both raise and call
        assert kinds & {"Dudo", "Calzo", "Matar"}


def test_make_bot_refuses_an_unknown_level() -> None:
    with pytest.raises(ValueError, match="unknown bot level"):
        make_bot("grandmaster", random.Random(0))


def test_same_seed_same_decisions() -> None:
    def game(seed: int) -> tuple[Action, ...]:
        bots = [make_bot("hard", random.Random(seed + s)) for s in range(3)]
        players = [lambda v, _r, b=b: b.decide(v, v.legal_actions()) for b in bots]
        return play_game(RuleSet(), 3, players, random.Random(seed)).actions

    assert game(5) == game(5)
