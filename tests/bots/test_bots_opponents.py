"""The opponent models the expert fits from reveals: doubt thresholds and opening truthfulness."""

from __future__ import annotations

import random

from dudo_p2p.bots import as_player, make_bot
from dudo_p2p.bots.opponents import DoubtModel, TruthModel
from dudo_p2p.rules import Action, RuleSet, SeatView
from dudo_p2p.rules.runner import play_game


class _Watcher:
    """normal in seat 0, feeding every view it gets to the models under test."""

    def __init__(self, *models: DoubtModel | TruthModel) -> None:
        self.bot = make_bot("normal", random.Random(0))
        self.level = "normal"
        self.models = models

    def decide(self, view: SeatView, legal: list[Action]) -> Action:
        for m in self.models:
            m.observe(view)
        return self.bot.decide(view, legal)


def _fit(opponent: str, *models: DoubtModel | TruthModel, games: int = 6) -> None:
    for g in range(games):
        watcher = _Watcher(*models)
        other = make_bot(opponent, random.Random(g))
        play_game(RuleSet(), 2, [as_player(watcher), as_player(other)], random.Random(40 + g))
        for m in models:  # one model per opponent seat across games: reset the round keys
            m._done.clear()


def test_doubt_thresholds_separate_a_tight_caller_from_a_loose_raiser() -> None:
    tight, loose = DoubtModel(), DoubtModel()
    _fit("pool:tight", tight)
    _fit("pool:loose", loose)
    assert DoubtModel().threshold(1) == 0.35  # nothing seen: the prior
    # tight doubts whatever exceeds its expectation (bids it sees as ~50 % true), loose only
    # long shots (below 10 %)
    assert tight.threshold(1) > 0.42
    assert loose.threshold(1) < 0.25


def test_opening_truthfulness_sees_through_a_random_opener() -> None:
    # the binomial caller opens on a random face but raises on its best one: the fit on
    # openings alone trusts its openings far less than the blended fit does
    blended = TruthModel(prior=0.8, sharpness=3.0)
    openings = TruthModel(prior=0.8, sharpness=3.0, openings_only=True)
    _fit("pool:binomial", blended, openings)
    assert openings.tau(1) < blended.tau(1) - 0.15
    # while a player that opens on its best face keeps its openings trusted
    honest = TruthModel(prior=0.8, sharpness=3.0, openings_only=True)
    _fit("pool:tight", honest)
    assert honest.tau(1) > openings.tau(1) + 0.15
