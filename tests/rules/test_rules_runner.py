"""The in-process runner: whole games, seeded determinism, bounds and refusals."""

from __future__ import annotations

import random

import pytest

from dudo_p2p.errors import IllegalAction, InvalidValue
from dudo_p2p.rules import (
    Action,
    Bid,
    ChoosePalifico,
    Dudo,
    OpenerDraw,
    Phase,
    Raise,
    Reveal,
    RuleSet,
    SeatView,
)
from dudo_p2p.rules.runner import StepLimitExceeded, play_game, random_legal_player


def test_a_default_game_of_four_random_players_ends_with_one_winner() -> None:
    record = play_game(RuleSet(), 4, [random_legal_player] * 4, random.Random(7))
    assert record.final.phase is Phase.OVER and record.final.winner == record.winner
    # three seats lose all their 5 dice, at most one die per round on the default table
    assert record.rounds == len(record.final.results) >= 15
    assert isinstance(record.actions[0], OpenerDraw)
    assert sum(isinstance(a, Reveal) for a in record.actions) == record.rounds


def test_same_seed_same_game_different_seed_different_game() -> None:
    players = [random_legal_player] * 3
    a = play_game(RuleSet(), 3, players, random.Random(11))
    b = play_game(RuleSet(), 3, players, random.Random(11))
    c = play_game(RuleSet(), 3, players, random.Random(12))
    assert a == b
    assert a.actions != c.actions


def test_player_count_must_match_the_seats() -> None:
    with pytest.raises(InvalidValue):
        play_game(RuleSet(), 3, [random_legal_player] * 2, random.Random(1))


def test_an_illegal_action_from_a_player_is_refused() -> None:
    def opens_on_aces(view: SeatView, rng: random.Random) -> Action:
        if view.phase is Phase.SETUP:
            return view.legal_actions()[0]
        return Raise(view.seat, Bid(1, 1))

    with pytest.raises(IllegalAction, match="opening bid may not be on aces"):
        play_game(RuleSet(), 2, [opens_on_aces] * 2, random.Random(1))


def test_the_step_bound_stops_a_game_that_does_not_end() -> None:
    with pytest.raises(StepLimitExceeded):
        play_game(RuleSet(), 2, [random_legal_player] * 2, random.Random(1), max_steps=10)


def test_players_see_their_own_dice_in_bidding_and_open_palifico_shows_the_others() -> None:
    seen: list[tuple[int, tuple[int, ...] | None, dict[int, tuple[int, ...]], str | None]] = []

    def watcher(view: SeatView, rng: random.Random) -> Action:
        pal = view.palifico_round
        seen.append((view.seat, view.own_dice, dict(view.others), pal.mode if pal else None))
        options = view.legal_actions()
        if ChoosePalifico(view.seat, "open") in options:
            return ChoosePalifico(view.seat, "open")
        calls = [a for a in options if isinstance(a, Dudo)]
        return calls[0] if calls else random_legal_player(view, rng)

    play_game(RuleSet(palifico_open_closed=True), 3, [watcher] * 3, random.Random(5))
    bidding = [s for s in seen if s[3] is None and s[1] is not None]
    assert bidding and all(len(own or ()) > 0 and not others for _, own, others, _ in bidding)
    opened = [s for s in seen if s[3] == "open"]
    assert opened, "the game never reached an open palifico round"
    for seat, own, others, _ in opened:
        assert own is None and seat not in others and len(others) >= 1
