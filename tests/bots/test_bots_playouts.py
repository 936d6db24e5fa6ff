"""The expert's Monte Carlo play-outs: right answers in constructed rounds, bounded, seeded."""

from __future__ import annotations

import random

import pytest

from dudo_p2p.bots import Bot, make_bot
from dudo_p2p.bots.expert import ExpertBot
from dudo_p2p.bots.knowledge import Knowledge
from dudo_p2p.bots.playouts import PlayoutConfig, PlayoutEvaluator, supported
from dudo_p2p.rules import (
    Action,
    Bid,
    Calzo,
    Dudo,
    GameState,
    OpenerDraw,
    Raise,
    RuleSet,
    SeatView,
)


def bidding_state(n_seats: int, rules: RuleSet | None = None) -> GameState:
    """A fresh game in its first BIDDING phase, seat 0 opening clockwise."""
    state = GameState.new(rules or RuleSet(), n_seats)
    state = state.apply(OpenerDraw((6,) + (2,) * (n_seats - 1)))
    while state.needs() is None and state.phase.name == "SETUP":
        state = state.apply(state.legal_actions()[0])  # clockwise first
    assert state.to_act == 0 and state.clockwise
    return state


def evaluator(view: SeatView) -> PlayoutEvaluator:
    return PlayoutEvaluator(view, Knowledge.from_view(view), {}, 0.9)


def test_doubting_an_impossible_bid_beats_every_raise_and_calzo() -> None:
    # 2 seats, 5 dice each; seat 0 opens 6x6 (legal: the count is at most the 10 dice).
    # Seat 1 holds no six and no ace, so at most 5 sixes can exist: the bid is impossible.
    state = bidding_state(2).apply(Raise(0, Bid(6, 6)))
    view = state.view(1, (2, 3, 4, 5, 2))
    legal = view.legal_actions()
    assert supported(view, legal)
    candidates: list[Action] = [a for a in legal if isinstance(a, Dudo | Calzo)]
    candidates += [a for a in legal if isinstance(a, Raise)][:6]
    values = evaluator(view).values(candidates, random.Random(1))
    best = candidates[values.index(max(values))]
    assert best == Dudo(1)
    assert values[candidates.index(Dudo(1))] == 1.0  # the bidder loses in every world
    assert values[candidates.index(Calzo(1))] == -1.0  # exactly six sixes: never


def test_raising_on_the_face_we_hold_beats_a_bluff_and_a_doubt() -> None:
    # seat 1 holds four fives and an ace against an opening 2x2: raising 3x5 (already true
    # from its own dice alone) must be worth more than doubting a likely bid or bluffing 3x3.
    state = bidding_state(2).apply(Raise(0, Bid(2, 2)))
    view = state.view(1, (5, 5, 5, 5, 1))
    candidates: list[Action] = [Raise(1, Bid(3, 5)), Raise(1, Bid(3, 3)), Dudo(1)]
    for a in candidates:
        assert a in view.legal_actions()
    values = evaluator(view).values(candidates, random.Random(2))
    assert values[0] > values[1]
    assert values[0] > values[2]


def test_values_are_deterministic_for_a_seed_and_bounded() -> None:
    state = bidding_state(4).apply(Raise(0, Bid(3, 4)))
    view = state.view(1, (4, 1, 6, 2, 3))
    candidates = [a for a in view.legal_actions() if isinstance(a, Raise)][:5]
    ev = evaluator(view)
    first = ev.values(candidates, random.Random(9))
    assert first == evaluator(view).values(candidates, random.Random(9))
    assert all(-1.0 <= v <= 1.0 for v in first)


def test_play_outs_are_off_when_the_model_does_not_cover_the_decision() -> None:
    # pasar (V18) puts a claim among the legal actions: the expert then plays as hard
    state = bidding_state(2, RuleSet(pasar=True)).apply(Raise(0, Bid(2, 3)))
    view = state.view(1, (1, 2, 3, 4, 5))
    assert not supported(view, view.legal_actions())
    assert supported(state.view(1, (1, 2, 3, 4, 6)), [Dudo(1), Raise(1, Bid(3, 3))])


def test_expert_uses_play_outs_in_real_games() -> None:
    from dudo_p2p.bots import as_player
    from dudo_p2p.rules.runner import play_game

    expert = make_bot("expert", random.Random(4))
    assert isinstance(expert, ExpertBot)
    others = [make_bot("normal", random.Random(10 + s)) for s in range(2)]
    play_game(RuleSet(), 3, [as_player(expert)] + [as_player(b) for b in others],
              random.Random(4))
    assert expert.playout_hits > 0


def test_a_fitted_seat_reads_and_doubts_on_the_scale_it_was_fitted_on() -> None:
    # Seat 0 bid 2x5 then seat 1 3x5; seat 0 (us, four fives) weighs raises. In the play-outs
    # seat 1 follows its fitted model: with reading 0 it ignores our bid of fives (its belief
    # is the binomial, whatever we bid), with reading 0.5 it reads it (0.9: as by default);
    # and it doubts exactly when the bid holds, on that scale, with a chance below its
    # threshold.
    state = bidding_state(2).apply(Raise(0, Bid(2, 5))).apply(Raise(1, Bid(3, 5)))
    view = state.view(0, (5, 5, 5, 5, 2))
    know = Knowledge.from_view(view)
    plain = PlayoutEvaluator(view, know, {}, 0.9, fitted={1: (0.0, 0.5)})
    reading = PlayoutEvaluator(view, know, {}, 0.9, fitted={1: (0.5, 0.5)})
    default = PlayoutEvaluator(view, know, {}, 0.9)
    binomial = plain.belief(1, 0)
    assert plain.belief(1, 5) == binomial  # our raise on fives moves nothing
    assert reading.belief(1, 5)[4] != binomial[4]  # it moves the reader's fives
    assert reading.belief(1, 5) != default.belief(1, 5)  # public_tau 0.9 reads more
    assert PlayoutEvaluator(view, know, {}, 0.9, fitted={1: (0.9, 0.5)}).belief(
        1, 5
    ) == default.belief(1, 5)
    # seat 1 holds one five: 4x5 needs three of our five dice on the binomial scale
    ones = (1, 0, 0, 0, 1, 0)
    p = plain.chance(ones, binomial, (4, 5))
    assert 0.2 < p < 0.5
    assert plain.policy(ones, binomial, (4, 5), (0.0, p + 0.01)) is None
    assert plain.policy(ones, binomial, (4, 5), (0.0, p - 0.01)) is not None


def test_an_opponent_raises_on_its_best_face_as_often_as_its_fitted_truthfulness() -> None:
    # Seat 1's raise in a play-out is its best-face raise when the draw falls below its
    # fitted truthfulness, else the minimum raise on the face the second draw picks: a
    # bidder fitted as truthless (pool:liar) is not played out as naming its best face.
    state = bidding_state(2).apply(Raise(0, Bid(2, 5))).apply(Raise(1, Bid(3, 5)))
    view = state.view(0, (5, 5, 5, 5, 2))
    know = Knowledge.from_view(view)
    config = PlayoutConfig(random_faces=True)
    truthless = PlayoutEvaluator(view, know, {1: 0.0}, 0.9, config)
    truthful = PlayoutEvaluator(view, know, {1: 1.0}, 0.9, config)
    options = truthless.min_raises((4, 5))
    assert len(options) >= 3
    best = (5, 5)
    picked = {truthless.face_choice(1, (4, 5), best, 0.5, k / 10) for k in range(10)}
    assert picked == set(options)  # every face's minimum raise, the best one included
    assert {truthful.face_choice(1, (4, 5), best, u / 10, 0.0) for u in range(10)} == {best}
    half = PlayoutEvaluator(view, know, {1: 0.5}, 0.9, config)
    assert half.face_choice(1, (4, 5), best, 0.4, 0.0) == best
    assert half.face_choice(1, (4, 5), best, 0.6, 0.0) == options[0]
    # the draws change the values only against a seat that is not fully truthful
    raises = [a for a in state.legal_actions() if isinstance(a, Raise)][:6]
    plain = PlayoutEvaluator(view, know, {1: 1.0}, 0.9)
    assert truthful.values(raises, random.Random(3)) != truthless.values(
        raises, random.Random(3)
    )
    assert plain.values(raises, random.Random(3)) != truthless.values(raises, random.Random(3))


def test_the_policy_memo_changes_no_value_of_any_decision_in_seeded_games(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The memo of PlayoutEvaluator.play_out is a speed-up only: every value of every expert
    # decision in seeded games (2 and 4 seats, palifico on and off, a pool style, hard and
    # normal among the opponents) is the same float with and without it, so the games are
    # the same too.
    from dudo_p2p.bots import as_player
    from dudo_p2p.rules.runner import play_game

    seen: list[list[float]] = []
    original = PlayoutEvaluator.values

    def values(self: PlayoutEvaluator, cands: list[Action], rng: random.Random) -> list[float]:
        out = original(self, cands, rng)
        seen.append(out)
        return out

    monkeypatch.setattr(PlayoutEvaluator, "values", values)

    def record(memo: bool, players: int, others: str, rules: RuleSet) -> list[list[float]]:
        seen.clear()
        monkeypatch.setattr(PlayoutEvaluator, "memo", memo)
        expert = make_bot("expert", random.Random(7))
        assert isinstance(expert, ExpertBot)
        expert.deviate_after = 0  # play out from the first decision: more values compared
        bots: list[Bot] = [expert]
        bots += [make_bot(others, random.Random(8 + s)) for s in range(players - 1)]
        play_game(rules, players, [as_player(b) for b in bots], random.Random(players))
        return list(seen)

    for players, others, rules in (
        (2, "pool:liar", RuleSet(palifico=False)),
        (2, "hard", RuleSet()),
        (4, "normal", RuleSet()),
    ):
        memoised = record(True, players, others, rules)
        assert len(memoised) > 10
        assert memoised == record(False, players, others, rules)


def test_the_expert_plays_hards_raise_until_every_opponent_is_fitted() -> None:
    # A fresh expert has fitted no opponent: its play-outs would run on a guessed model, so
    # it plays hard's best raise without playing out; with deviate_after 0 it plays out.
    state = bidding_state(2).apply(Raise(0, Bid(2, 3)))
    view = state.view(1, (3, 3, 5, 6, 2))
    legal = view.legal_actions()
    assert supported(view, legal)
    raises = 0
    for seed in range(6):
        expert = make_bot("expert", random.Random(seed))
        assert isinstance(expert, ExpertBot)
        scored = expert.score(view, legal)
        if not isinstance(expert.pick(scored), Raise):
            continue
        raises += 1
        ranked = sorted(range(len(scored)), key=lambda i: scored[i][0])
        hard_first = next(scored[i][1] for i in ranked if isinstance(scored[i][1], Raise))
        assert not expert.models_fitted(view)
        assert expert.playout_choice(view, scored) == hard_first
        assert expert.playout_hits == 0
        expert.deviate_after = 0
        assert expert.models_fitted(view)
        expert.playout_choice(view, scored)
        assert expert.playout_hits == 1
    assert raises > 0


class _ModelValues:
    """A stand-in evaluator whose values depend only on the doubt models it was given."""

    def __init__(self, table: dict[float, list[float]], fitted: dict[int, tuple[float, float]]):
        self.row = table[fitted[1][0]]

    def values(self, candidates: list[Action], rng: random.Random) -> list[float]:
        full = {a: v for a, v in zip(CANDIDATES, self.row, strict=True)}
        return [full[a] for a in candidates]


CANDIDATES: list[Action] = [Raise(0, Bid(2, 3)), Raise(0, Bid(2, 4)), Raise(0, Bid(3, 3))]


def _expert_with_readings(
    monkeypatch: pytest.MonkeyPatch, shares: dict[float, float], table: dict[float, list[float]]
) -> tuple[ExpertBot, SeatView]:
    """An expert whose only opponent (seat 1) was fitted with these reading shares (0.9 the
    likeliest), valuing CANDIDATES by ``table[reading of seat 1]``."""
    expert = make_bot("expert", random.Random(3))
    assert isinstance(expert, ExpertBot)
    view = bidding_state(2).view(0, (3, 3, 5, 6, 2))
    doubts = expert._doubts
    monkeypatch.setattr(doubts, "reading_weights", lambda seat: dict(shares))
    monkeypatch.setattr(doubts, "threshold", lambda seat, reading=0.0: 0.3 + reading / 10)
    monkeypatch.setattr(expert, "doubt_models", lambda know: {1: (0.9, 0.39)})

    def fake(view: SeatView, fitted: dict[int, tuple[float, float]] | None = None) -> object:
        return _ModelValues(table, fitted if fitted is not None else {1: (0.9, 0.39)})

    monkeypatch.setattr(expert, "evaluator", fake)
    return expert, view


def test_a_deviation_must_win_under_every_doubt_model_the_reveals_allow(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Under the likeliest reading (0.9: the opponent believes our faces) the bluff 2x4 looks
    # 0.6 better than the baseline 2x3; under reading 0 (plausible: share 0.3) it is worse.
    # That is the expert's old loss to pool:liar: a liar's doubts rarely tell its readings
    # apart, and a raise chosen for a reader was doubted by a non-reader.
    table = {0.9: [0.0, 0.6, -0.2], 0.5: [0.0, 0.5, -0.2], 0.0: [0.0, -0.3, -0.2]}
    shares = {0.0: 0.3, 0.5: 0.25, 0.9: 0.45}
    expert, view = _expert_with_readings(monkeypatch, shares, table)
    assert [m[1][0] for m in expert.plausible_models(view)] == [0.0, 0.5]
    assert expert.plausible_models(view)[0][1] == (0.0, 0.3)  # threshold on its own scale
    assert expert.best_deviation(view, CANDIDATES, 0.25) == CANDIDATES[0]
    assert expert.robust_vetoes == 1
    # reading 0 ruled out (share below plausible_share): the deviation is played
    expert, view = _expert_with_readings(monkeypatch, {0.0: 0.1, 0.5: 0.3, 0.9: 0.6}, table)
    assert expert.best_deviation(view, CANDIDATES, 0.25) == CANDIDATES[1]
    # the likeliest model alone (plausible_share None) deviates whatever the others say
    expert, view = _expert_with_readings(monkeypatch, shares, table)
    expert.plausible_share = None
    assert expert.plausible_models(view) == []
    assert expert.best_deviation(view, CANDIDATES, 0.25) == CANDIDATES[1]
    # a deviation every plausible model agrees on is played
    agreed = {r: [0.0, 0.6, -0.2] for r in table}
    expert, view = _expert_with_readings(monkeypatch, shares, agreed)
    assert expert.best_deviation(view, CANDIDATES, 0.25) == CANDIDATES[1]
    assert expert.robust_vetoes == 0
    # no candidate beats the baseline by the margin under the likeliest model: baseline
    expert, view = _expert_with_readings(monkeypatch, shares, agreed)
    assert expert.best_deviation(view, CANDIDATES, 0.7) == CANDIDATES[0]
