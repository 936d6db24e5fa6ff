"""The expert's decisions are pinned: speed-ups must not change a single choice.

The hash below is of every expert decision in a few seeded games (four experts as in the
decision-time bench, an expert among hard / normal / pool:liar, an expert against pool:liar
with palifico off, an expert against the binomial and tight callers). It was computed on the
expert before the session-9 speed-ups (a8d7908) and is unchanged by them. Change it only
with a change meant to alter the expert's play, measured on the ladder.
"""

from __future__ import annotations

import hashlib
import random

from dudo_p2p.bots import Bot, make_bot
from dudo_p2p.bots.expert import ExpertBot
from dudo_p2p.bots.opponents import DoubtModel
from dudo_p2p.bots.playout_tables import PlayoutShare, offset_rows
from dudo_p2p.bots.playouts import PlayoutEvaluator
from dudo_p2p.bots.prob import convolve
from dudo_p2p.rules import Action, Raise, RuleSet, SeatView
from dudo_p2p.rules.runner import play_game

#: (rules, the level in each seat, game seed)
GAMES: tuple[tuple[RuleSet, tuple[str, ...], int], ...] = (
    (RuleSet(), ("expert",) * 4, 7),
    (RuleSet(), ("expert", "hard", "normal", "pool:liar"), 11),
    (RuleSet(palifico=False), ("expert", "pool:liar"), 12),
    (RuleSet(), ("expert", "pool:binomial", "pool:tight"), 13),
)

#: sha256 of the expert decisions of GAMES (see the module docstring), and their number.
DECISIONS_SHA256 = "eb0608951c4c7fda"
DECISIONS = 194


def expert_decisions() -> tuple[str, int]:
    """(the first 16 hex digits of the sha256 of every expert decision in GAMES, count)."""
    digest = hashlib.sha256()
    count = 0
    for k, (rules, levels, seed) in enumerate(GAMES):
        bots = [make_bot(lv, random.Random(100 * seed + s)) for s, lv in enumerate(levels)]

        def player(
            view: SeatView, _rng: random.Random, k: int = k, bots: list[Bot] = bots
        ) -> Action:
            nonlocal count
            bot = bots[view.seat]
            action = bot.decide(view, view.legal_actions())
            if isinstance(bot, ExpertBot):
                digest.update(f"{k}:{view.seat}:{action!r};".encode())
                count += 1
            return action

        play_game(rules, len(levels), [player] * len(levels), random.Random(seed))
    return digest.hexdigest()[:16], count


def test_the_experts_decisions_in_seeded_games_are_the_pinned_ones() -> None:
    assert expert_decisions() == (DECISIONS_SHA256, DECISIONS)


def test_offset_rows_give_the_chance_of_every_bid_for_every_hand() -> None:
    # _move reads P(bid holds) as rows[face - 1][count + offset - matches]: the same float
    # as chance() (1.0 when the seat's own dice make the bid, 0.0 past the belief's end)
    for seed in range(4):
        _, evaluator = _decision(seed)
        total = evaluator.total
        for viewer in range(len(evaluator.order)):
            belief = evaluator.belief(viewer, 3)
            rows = offset_rows(belief, total, total)
            for m in range(min(6, total) + 1):
                matches = (m, max(0, m - 1), m, 0, 1, m)
                for count in range(1, total + 1):
                    for face in range(1, 7):
                        want = PlayoutEvaluator.chance(matches, belief, (count, face))
                        assert rows[face - 1][count + total - matches[face - 1]] == want


def test_evaluators_sharing_a_decision_value_exactly_as_alone() -> None:
    # The expert values one decision under several doubt models with one PlayoutShare (the
    # worlds, beliefs and moves of the seats whose model is the same): every value is the
    # float a lone evaluator computes, and the RNG ends where a lone evaluator leaves it.
    for seed in range(4):
        view, alone = _decision(seed)
        candidates: list[Action] = [a for a in view.legal_actions() if isinstance(a, Raise)]
        candidates = candidates[:: max(1, len(candidates) // 8)][:8]
        know = alone.know
        share = PlayoutShare()
        models: list[dict[int, tuple[float, float]] | None] = [
            None, {s: (0.0, 0.3) for s, _ in know.hidden}, {know.hidden[0][0]: (0.5, 0.4)}
        ]
        for fitted in models:
            rngs = [random.Random(seed), random.Random(seed)]
            lone = PlayoutEvaluator(view, know, {}, 0.8, fitted=fitted).values(candidates, rngs[0])
            shared = PlayoutEvaluator(view, know, {}, 0.8, fitted=fitted, share=share)
            assert shared.values(candidates, rngs[1]) == lone
            assert rngs[0].random() == rngs[1].random()
        assert share.worlds  # drawn once, reused by the other models
        # an evaluator of another decision does not use a bound share
        other, _ = _decision(seed + 10)
        stranger = PlayoutEvaluator(other, alone.know, {}, 0.8, share=share)
        assert stranger._share is not share


def test_convolve_adds_in_the_same_order_as_the_textbook_loop() -> None:
    def textbook(a: list[float], b: list[float]) -> list[float]:
        out = [0.0] * (len(a) + len(b) - 1)
        for i, pa in enumerate(a):
            if pa == 0.0:
                continue
            for j, pb in enumerate(b):
                out[i + j] += pa * pb
        return out

    rng = random.Random(5)
    for _ in range(2000):
        a = [rng.random() if rng.random() < 0.8 else 0.0 for _ in range(rng.randint(1, 12))]
        b = [rng.random() for _ in range(rng.randint(1, 7))]
        assert convolve(a, b) == textbook(a, b)


def _decision(seed: int) -> tuple[SeatView, PlayoutEvaluator]:
    """A mid-round decision of a seeded 4-seat game (the third bid of the first round)."""
    from dudo_p2p.rules import GameState, OpenerDraw

    rng = random.Random(seed)
    state = GameState.new(RuleSet(), 4).apply(OpenerDraw((6, 2, 2, 2)))
    while state.needs() is None and state.phase.name == "SETUP":
        state = state.apply(state.legal_actions()[0])
    for _ in range(2):
        raises = [a for a in state.legal_actions() if isinstance(a, Raise)]
        state = state.apply(raises[rng.randrange(min(6, len(raises)))])
    seat = state.to_act
    assert seat is not None
    view = state.view(seat, tuple(rng.randint(1, 6) for _ in range(5)))
    from dudo_p2p.bots.knowledge import Knowledge

    return view, PlayoutEvaluator(view, Knowledge.from_view(view), {}, 0.8)


def test_the_doubt_models_cached_thresholds_follow_every_new_fit() -> None:
    # DoubtModel caches each seat's posterior and thresholds until that seat is fitted
    # again: a model asked at every step answers as one that was never asked before.
    from dudo_p2p.bots.opponents import READINGS

    views: list[SeatView] = []
    bots = [make_bot("hard", random.Random(40 + s)) for s in range(3)]

    def player(view: SeatView, _rng: random.Random) -> Action:
        if view.seat == 0:
            views.append(view)
        return bots[view.seat].decide(view, view.legal_actions())

    play_game(RuleSet(), 3, [player] * 3, random.Random(41))
    asked = DoubtModel()
    fitted = 0
    fresh = DoubtModel()
    for i, view in enumerate(views):
        asked.observe(view)
        fresh.observe(view)
        if i % 3:
            continue
        for seat in (1, 2):
            fitted += asked.observed(seat)
            assert asked.threshold(seat) == asked.threshold(seat, READINGS[0])
            assert asked.reading_weights(seat) == _unasked(fresh).reading_weights(seat)
            for reading in READINGS:
                assert asked.threshold(seat, reading) == _unasked(fresh).threshold(seat, reading)
    assert fitted > 0


def _unasked(model: DoubtModel) -> DoubtModel:
    """A copy of ``model`` with nothing cached (as if never asked)."""
    import copy

    out = copy.deepcopy(model)
    out._posteriors.clear()
    out._thresholds.clear()
    return out
