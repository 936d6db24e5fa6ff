"""The opponent models the expert fits from reveals: doubt thresholds and opening truthfulness."""

from __future__ import annotations

import random

from dudo_p2p.bots import Bot, as_player, make_bot
from dudo_p2p.bots.knowledge import informative_faces
from dudo_p2p.bots.opponents import READINGS, DoubtModel, TruthModel, seen_chance
from dudo_p2p.bots.playouts import DEFAULT_CONFIG
from dudo_p2p.rules import Action, Calzo, Dudo, RuleSet, SeatView
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


class _Facing:
    """Wraps a bot; at each decision where it faces a bid it may doubt, notes the chance the
    bid holds as it sees it on every reading of :data:`READINGS`, and whether it doubted."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.level = bot.level
        self.rows: list[tuple[dict[float, float], bool]] = []

    def decide(self, view: SeatView, legal: list[Action]) -> Action:
        action = self.bot.decide(view, legal)
        state = view.state
        bid = state.standing_bid
        can_doubt = any(isinstance(a, Dudo) for a in legal)
        if bid is not None and can_doubt and view.own_dice and not isinstance(action, Calzo):
            faces = informative_faces(view)
            sizes = list(state.dice_counts)
            chances = {
                r: seen_chance(view.own_dice, view.seat, sizes, faces, bid, r, wild=state.wild)
                for r in READINGS
            }
            self.rows.append((chances, isinstance(action, Dudo)))
        return action


def _held_out(opponent: str, games: int = 6) -> list[tuple[dict[float, float], bool]]:
    """The opponent's doubt decisions in games (seeds) the fit of :func:`_fit` never saw."""
    rows: list[tuple[dict[float, float], bool]] = []
    for g in range(games):
        facing = _Facing(make_bot(opponent, random.Random(500 + g)))
        seats = [as_player(make_bot("normal", random.Random(0))), as_player(facing)]
        play_game(RuleSet(), 2, seats, random.Random(900 + g))
        rows += facing.rows
    return rows


def _accuracy(rows: list[tuple[dict[float, float], bool]], reading: float, t: float) -> float:
    """Share of decisions where 'doubt iff the chance on ``reading`` is below ``t``' is right."""
    return sum((chances[reading] < t) == doubted for chances, doubted in rows) / len(rows)


def test_doubts_are_fitted_and_predicted_on_the_scale_the_seat_reads_bids() -> None:
    # tight judges a bid from its own dice and the binomial of the rest; normal reads the
    # faces others bid. The model finds which, and its threshold predicts held-out doubts on
    # that scale; the threshold fitted on the binomial scale but compared with chances that
    # read bids (the play-outs' default reading: what they did before) predicts them worse.
    cases = (("pool:tight", 0.0, 0.95, 0.1), ("normal", 0.9, 0.93, 0.02))
    for opponent, reads, floor, gain in cases:
        model = DoubtModel()
        _fit(opponent, model)
        assert model.observed(1) > 30
        assert model.reading(1) == reads
        rows = _held_out(opponent)
        assert len(rows) > 50
        fitted = _accuracy(rows, reads, model.threshold(1, reads))
        mixed = _accuracy(rows, DEFAULT_CONFIG.public_tau, model.threshold(1, 0.0))
        assert fitted >= floor
        assert fitted >= mixed + gain


def test_reading_shares_are_even_before_any_reveal_and_sharpen_with_reveals() -> None:
    model = DoubtModel()
    assert model.reading_weights(1) == {r: 1 / len(READINGS) for r in READINGS}
    _fit("pool:tight", model)  # tight reads no bid: its own dice and the binomial
    shares = model.reading_weights(1)
    assert abs(sum(shares.values()) - 1.0) < 1e-9
    assert max(shares, key=lambda r: shares[r]) == model.reading(1) == 0.0
    assert shares[0.0] > 0.5
