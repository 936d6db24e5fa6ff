"""GameState on the default table: D1–D16, Remove, views, errors, determinism."""

from __future__ import annotations

import pytest
from rules_helpers import bid, hands, play, started, with_counts

from dudo_p2p.errors import IllegalAction, InvalidValue
from dudo_p2p.rules import (
    Bid,
    Calzo,
    ChooseDirection,
    ChoosePalifico,
    DoubtClaim,
    Dudo,
    GameState,
    Matar,
    OpenerDraw,
    Pasar,
    Phase,
    Raise,
    Remove,
    Reveal,
    RuleSet,
    Spin,
)


@pytest.mark.parametrize("n", [1, 7, 0])
def test_new_game_refuses_a_seat_count_outside_two_to_six(n: int) -> None:
    with pytest.raises(InvalidValue):
        GameState.new(RuleSet(), n)


def test_new_game_gives_every_seat_the_starting_dice_and_waits_for_the_opener_draw() -> None:
    state = GameState.new(RuleSet(), 4)
    assert state.dice_counts == (5, 5, 5, 5)
    assert state.phase is Phase.DRAW_OPENER and state.needs() == "opener_draw"
    assert state.to_act is None and state.legal_actions(0) == [] and state.round_no == 0


def test_opener_draw_ties_redraw_among_the_tied_seats_only() -> None:
    state = GameState.new(RuleSet(), 4).apply(OpenerDraw((6, 2, 6, 6)))
    assert state.phase is Phase.DRAW_OPENER and state.draw_seats == (0, 2, 3)
    with pytest.raises(IllegalAction, match=r"\[0, 2, 3\]"):
        state.apply(OpenerDraw((1, 2, 3, 4)))
    state = state.apply(OpenerDraw((3, 5, 4)))  # seats 0, 2, 3: seat 2 wins
    assert state.opener == 2 and state.to_act == 2 and state.round_no == 1


def test_first_opener_chooses_the_direction_once_for_the_game() -> None:
    state = GameState.new(RuleSet(), 3).apply(OpenerDraw((1, 6, 2)))
    assert state.phase is Phase.SETUP
    assert state.legal_actions() == [ChooseDirection(1, True), ChooseDirection(1, False)]
    with pytest.raises(IllegalAction, match="direction"):
        state.apply(bid(1, "2x3"))
    state = state.apply(ChooseDirection(1, False))
    assert state.phase is Phase.BIDDING and not state.clockwise
    state = state.apply(bid(1, "2x3"))
    assert state.to_act == 0  # counter-clockwise from seat 1
    state = play(state, Dudo(0), Reveal(hands((5, 5, 5))))
    assert state.phase is Phase.BIDDING  # no direction choice in round 2 (D2)
    assert not state.clockwise


def test_the_opener_must_bid_and_may_not_call() -> None:
    state = started()
    assert {type(a) for a in state.legal_actions()} == {Raise}
    with pytest.raises(IllegalAction, match="no bid yet"):
        state.apply(Dudo(0))


def test_only_the_seat_to_act_may_play() -> None:
    state = started()
    with pytest.raises(IllegalAction, match="seat 0's turn"):
        state.apply(bid(1, "2x3"))
    assert not state.may_act(1) and state.may_act(0)


def test_turn_passes_clockwise_to_the_next_seat() -> None:
    state = play(started(n=4, opener=3), bid(3, "2x3"))
    assert state.to_act == 0


def test_raise_messages_name_the_minimum() -> None:
    state = play(started(), bid(0, "5x5"), bid(1, "3x1"))
    with pytest.raises(IllegalAction, match="after 3x1 the lowest bid on another face is 7x"):
        state.apply(bid(2, "6x6"))
    state = play(started(), bid(0, "3x3"))
    with pytest.raises(IllegalAction, match="lowest bid on twos is 4x2"):
        state.apply(bid(1, "3x2"))


def test_a_bid_may_not_exceed_the_dice_on_the_table() -> None:
    state = started(n=2)
    assert state.is_legal(bid(0, "10x6"))
    with pytest.raises(IllegalAction, match="only 10 dice"):
        state.apply(bid(0, "11x6"))
    raises = [a for a in state.legal_actions() if isinstance(a, Raise)]
    assert max(a.bid.count for a in raises) == 10
    assert len(raises) == 5 * 10  # five faces (no aces at the opening), counts 1..10


def test_legal_actions_after_a_bid_list_raises_dudo_and_calzo_only() -> None:
    state = play(started(), bid(0, "2x3"))
    kinds = {type(a) for a in state.legal_actions()}
    assert kinds == {Raise, Dudo, Calzo}
    assert Raise(1, Bid(2, 4)) in state.legal_actions()
    assert Raise(1, Bid(2, 2)) not in state.legal_actions()
    assert Raise(1, Bid(1, 1)) in state.legal_actions()  # ceil(2/2) = 1 ace


def test_dudo_when_the_bid_holds_costs_the_caller_one_die_and_nobody_else() -> None:
    state = play(started(), bid(0, "2x5"), Dudo(1))
    assert state.phase is Phase.REVEAL and state.needs() == "reveal" and state.to_act is None
    state = state.apply(Reveal(hands((5, 5, 5), s2=(5, 1, 2, 3, 4))))
    assert state.dice_counts == (5, 4, 5)
    assert state.results[-1].kind == "dudo" and state.results[-1].held == 2


def test_dudo_when_the_bid_fails_costs_the_bidder_one_die() -> None:
    state = play(started(), bid(0, "3x5"), Dudo(1), Reveal(hands((5, 5, 5), s2=(5, 1, 2, 3, 4))))
    assert state.dice_counts == (4, 5, 5)


def test_reveal_must_match_every_seats_dice_count() -> None:
    state = play(started(), bid(0, "3x5"), Dudo(1))
    with pytest.raises(IllegalAction, match="seat 1 holds 5 dice, not 4"):
        state.apply(Reveal(((4,) * 5, (4,) * 4, (4,) * 5)))
    with pytest.raises(IllegalAction, match="all 3 seats"):
        state.apply(Reveal(((4,) * 5, (4,) * 5)))
    with pytest.raises(InvalidValue):
        Reveal(((7,),))


def test_wrong_calzo_costs_the_caller_a_die_either_way() -> None:
    two_fives = Reveal(hands((5, 5, 5), s0=(5, 5, 4, 4, 4)))
    too_many = play(started(), bid(0, "1x5"), Calzo(1), two_fives)
    too_few = play(started(), bid(0, "3x5"), Calzo(1), two_fives)
    assert too_many.dice_counts == too_few.dice_counts == (5, 4, 5)


def test_loser_opens_the_next_round() -> None:
    state = play(started(), bid(0, "3x5"), Dudo(1), Reveal(hands((5, 5, 5))))
    assert state.opener == 0 and state.to_act == 0 and state.round_no == 2
    assert state.results[-1].next_opener == 0


def test_right_calzo_caller_opens_the_next_round() -> None:
    state = with_counts(started(), (5, 3, 5))
    state = play(state, bid(0, "1x5"), bid(1, "2x6"), Calzo(2),
                 Reveal(hands((5, 3, 5), s2=(6, 6, 4, 4, 4))))
    assert state.results[-1].gains == {} and state.opener == 2


def test_eliminated_loser_hands_the_opening_to_the_next_live_seat_in_the_direction() -> None:
    state = with_counts(started(n=4, opener=0, clockwise=False), (5, 5, 5, 1))
    # counter-clockwise: 0 -> 3 -> 2 -> 1
    state = play(state, bid(0, "2x5"), Dudo(3), Reveal(hands((5, 5, 5, 1), s0=(5, 5, 4, 4, 4))))
    assert state.alive == (True, True, True, False)
    assert state.results[-1].eliminated == (3,)
    assert state.opener == 2


def test_palifico_round_locks_the_face_aces_not_wild_opening_on_aces_allowed() -> None:
    state = with_counts(started(), (5, 2, 5))
    state = play(state, bid(0, "2x5"), Dudo(1), Reveal(hands((5, 2, 5), s0=(5, 5, 4, 4, 4))))
    assert state.dice_counts == (5, 1, 5)
    assert state.palifico_round is not None and state.palifico_round.seat == 1
    assert state.to_act == 1 and state.results[-1].next_opener == 1
    assert state.is_legal(bid(1, "2x1"))
    state = state.apply(bid(1, "2x4"))
    assert state.palifico_round is not None and state.palifico_round.face == 4
    with pytest.raises(IllegalAction, match="locked"):
        state.apply(bid(2, "3x5"))
    assert {a.bid.face for a in state.legal_actions() if isinstance(a, Raise)} == {4}
    # aces do not count: 2 fours needed, only aces and one four shown
    state = play(state, Dudo(2), Reveal(hands((5, 1, 5), s0=(1, 1, 1, 2, 2), s1=(4,),
                                              s2=(2, 2, 2, 2, 2))))
    assert state.results[-1].held == 1 and state.results[-1].losses == {1: 1}
    assert state.alive == (True, False, True)


def test_palifico_comes_once_per_game_per_player() -> None:
    state = with_counts(started(), (5, 2, 5))
    state = play(state, bid(0, "2x5"), Dudo(1), Reveal(hands((5, 2, 5), s0=(5, 5, 4, 4, 4))))
    assert state.palifico_round is not None and state.palifico_round.seat == 1
    # seat 1 climbs back to 2 dice with a right calzo inside its palifico round
    state = play(state, bid(1, "1x6"), bid(2, "2x6"), bid(0, "3x6"), Calzo(1),
                 Reveal(hands((5, 1, 5), s1=(6,), s2=(6, 6, 4, 4, 4))))
    assert state.dice_counts == (5, 2, 5) and state.palifico_round is None
    assert state.opener == 1
    # and drops to one die again: no second palifico round
    state = play(state, bid(1, "1x6"), Dudo(2), Reveal(hands((5, 2, 5))))
    assert state.dice_counts == (5, 1, 5) and state.opener == 1
    assert state.palifico_round is None and state.palifico_pending is None


def test_game_ends_with_the_last_seat_holding_dice() -> None:
    state = with_counts(started(n=2), (5, 1))
    state = play(state, bid(0, "1x5"), Dudo(1), Reveal(((5, 4, 4, 4, 4), (2,))))
    assert state.phase is Phase.OVER and state.winner == 0 and state.to_act is None
    assert state.legal_actions(0) == [] and state.results[-1].next_opener is None
    with pytest.raises(IllegalAction, match="over"):
        state.apply(bid(0, "1x2"))


def test_remove_voids_the_round_and_deals_again_without_the_seat() -> None:
    state = play(started(n=3), bid(0, "2x5"), bid(1, "3x5"))
    assert state.round_no == 1
    state = state.apply(Remove(1))
    assert state.round_no == 2 and state.bids == () and state.standing_bid is None
    assert state.alive == (True, False, True) and state.dice_counts == (5, 0, 5)
    assert state.opener == 0 and state.to_act == 0 and state.results == ()


def test_remove_of_the_opener_passes_the_opening_on_and_during_reveal_voids_the_call() -> None:
    state = play(started(n=3), bid(0, "2x5"), Dudo(1))
    state = state.apply(Remove(0))
    assert state.phase is Phase.BIDDING and state.opener == 1 and state.results == ()


def test_remove_leaving_one_seat_ends_the_game() -> None:
    state = started(n=2).apply(Remove(0))
    assert state.phase is Phase.OVER and state.winner == 1


def test_remove_during_the_opener_draw_leaves_the_draw() -> None:
    state = GameState.new(RuleSet(), 3).apply(OpenerDraw((6, 6, 1)))
    state = state.apply(Remove(0))
    assert state.opener == 1 and state.phase is Phase.SETUP


def test_remove_refuses_a_seat_not_in_the_game() -> None:
    state = started(n=3).apply(Remove(2))
    with pytest.raises(IllegalAction, match="not in the game"):
        state.apply(Remove(2))
    with pytest.raises(IllegalAction, match="not in the game"):
        state.apply(Remove(5))


def test_environment_actions_are_refused_outside_their_phase() -> None:
    state = started()
    for action in (Reveal(()), Spin(3), OpenerDraw((1, 2, 3))):
        assert not state.is_legal(action)
    with pytest.raises(IllegalAction, match="waits for the dice"):
        play(state, bid(0, "2x5"), Dudo(1)).apply(bid(2, "3x5"))


def test_variant_actions_are_refused_on_the_default_table() -> None:
    state = play(started(), bid(0, "2x5"))
    for action, word in ((Matar(1), "matar"), (Pasar(1), "pasar"),
                         (DoubtClaim(1), "no pass or picado"),
                         (ChoosePalifico(1, "obligar"), "before the bidding")):
        with pytest.raises(IllegalAction, match=word):
            state.apply(action)


def test_round_numbers_increase_with_every_deal() -> None:
    state = play(started(), bid(0, "3x5"), Dudo(1), Reveal(hands((5, 5, 5))))
    assert state.round_no == 2
    state = state.apply(Remove(2))
    assert state.round_no == 3


def test_apply_is_pure_and_states_are_equal_hashable_values() -> None:
    a = play(started(), bid(0, "3x5"))
    b = play(started(), bid(0, "3x5"))
    assert a == b and hash(a) == hash(b)
    before = a
    with pytest.raises(IllegalAction):
        a.apply(bid(1, "1x2"))
    assert a == before and a.standing_bid == Bid(3, 5)


def test_view_carries_own_dice_and_public_state() -> None:
    state = play(started(), bid(0, "3x5"))
    view = state.view(1, (1, 2, 3, 4, 5))
    assert view.own_dice == (1, 2, 3, 4, 5) and view.is_my_turn
    assert view.standing_bid == Bid(3, 5) and view.total_dice == 15
    assert view.legal_actions() == state.legal_actions(1)
    assert dict(view.others) == {}
