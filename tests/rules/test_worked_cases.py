"""Every worked case of rules.md §3, by the pure legality functions and through the engine."""

from __future__ import annotations

import pytest
from rules_helpers import bid, play, started, with_counts

from dudo_p2p.errors import IllegalAction
from dudo_p2p.rules import (
    Bid,
    Calzo,
    Dudo,
    Phase,
    RaiseContext,
    Reveal,
    RuleSet,
    count_showing,
    is_legal_raise,
)

V2 = RaiseContext(RuleSet(aces_conversion="half_plus_one"))
TABLE = (1, 1, 5, 5, 3)


def test_seven_fours_to_four_aces_is_legal_but_three_aces_is_not() -> None:
    assert is_legal_raise(Bid(7, 4), Bid(4, 1))
    assert not is_legal_raise(Bid(7, 4), Bid(3, 1))


def test_five_fives_to_three_aces_is_legal_by_d7_and_by_v2() -> None:
    assert is_legal_raise(Bid(5, 5), Bid(3, 1))
    assert is_legal_raise(Bid(5, 5), Bid(3, 1), V2)


def test_six_fives_to_three_aces_is_legal_by_d7_illegal_by_v2_which_needs_four() -> None:
    assert is_legal_raise(Bid(6, 5), Bid(3, 1))
    assert not is_legal_raise(Bid(6, 5), Bid(3, 1), V2)
    assert is_legal_raise(Bid(6, 5), Bid(4, 1), V2)


def test_three_aces_to_seven_twos_is_legal_six_sixes_is_not() -> None:
    assert is_legal_raise(Bid(3, 1), Bid(7, 2))
    assert not is_legal_raise(Bid(3, 1), Bid(6, 6))


def test_three_aces_to_four_aces_is_legal() -> None:
    assert is_legal_raise(Bid(3, 1), Bid(4, 1))


def test_three_threes_to_three_fives_legal_three_twos_illegal_four_twos_legal() -> None:
    assert is_legal_raise(Bid(3, 3), Bid(3, 5))
    assert not is_legal_raise(Bid(3, 3), Bid(3, 2))
    assert is_legal_raise(Bid(3, 3), Bid(4, 2))


def test_opening_two_aces_is_illegal_outside_palifico_and_legal_in_palifico() -> None:
    assert not is_legal_raise(None, Bid(2, 1))
    assert is_legal_raise(None, Bid(2, 1), RaiseContext(palifico=True))
    state = started()
    with pytest.raises(IllegalAction, match="opening bid may not be on aces"):
        state.apply(bid(0, "2x1"))


def test_palifico_opened_two_fives_three_fives_legal_three_sixes_illegal() -> None:
    assert is_legal_raise(Bid(2, 5), Bid(3, 5), RaiseContext(palifico=True))
    assert not is_legal_raise(Bid(2, 5), Bid(3, 6), RaiseContext(palifico=True))


DICE = ((1, 1, 5), (5, 3))


def test_the_table_holds_four_fives_with_wilds() -> None:
    assert count_showing(TABLE, 5, wild=True) == 4
    assert count_showing(TABLE, 1, wild=True) == 2
    assert count_showing(TABLE, 5, wild=False) == 2


def test_dudo_on_four_fives_with_that_table_the_caller_loses() -> None:
    state = with_counts(started(RuleSet(starting_dice=3), n=2), (3, 2))
    state = play(state, bid(0, "4x5"), Dudo(1), Reveal(DICE))
    result = state.results[-1]
    assert result.held == 4
    assert result.losses == {1: 1}
    assert state.dice_counts == (3, 1)


def test_dudo_on_three_aces_with_that_table_the_bidder_loses() -> None:
    state = with_counts(started(RuleSet(starting_dice=3), n=2), (3, 2))
    state = play(state, bid(0, "2x5"), bid(1, "3x1"), Dudo(0), Reveal(DICE))
    assert state.results[-1].held == 2
    assert state.results[-1].losses == {1: 1}


def test_dudo_on_three_fives_in_palifico_only_real_fives_count_so_the_bidder_loses() -> None:
    # seat 1 drops from 2 dice to 1 (its first time): the next round is its palifico round.
    state = with_counts(started(RuleSet(starting_dice=3), n=2), (3, 2))
    state = play(state, bid(0, "2x2"), Dudo(1), Reveal(((2, 2, 4), (6, 6))))
    assert state.dice_counts == (3, 1) and state.palifico_round is not None
    assert state.to_act == 1  # the palifico player opens
    # now play the §3 table in palifico: seat 0 holds 1,1,5 and seat 1 holds 5 (wilds off)
    state = play(state, bid(1, "2x5"), bid(0, "3x5"), Dudo(1), Reveal(((1, 1, 5), (5,))))
    result = state.results[-1]
    assert result.held == 2
    assert result.losses == {0: 1}


def test_calzo_on_four_fives_exact_regains_a_die_capped_at_the_starting_number() -> None:
    state = with_counts(started(RuleSet(starting_dice=3), n=2), (3, 2))
    state = play(state, bid(0, "4x5"), Calzo(1), Reveal(DICE))
    assert state.results[-1].gains == {1: 1}
    assert state.dice_counts == (3, 3)
    # the same call by a player already at the starting number gains nothing
    again = play(state, bid(1, "4x5"), Calzo(0), Reveal(((1, 1, 5), (5, 3, 4))))
    assert again.results[-1].held == 4
    assert again.dice_counts == (3, 3)
    assert again.results[-1].gains == {} and again.results[-1].losses == {}
    assert again.phase is Phase.BIDDING
