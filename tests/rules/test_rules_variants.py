"""Each variant V1–V20 shown in a played-out situation."""

from __future__ import annotations

import pytest
from rules_helpers import bid, hands, play, started, with_counts

from dudo_p2p.errors import IllegalAction
from dudo_p2p.rules import (
    Bid,
    Calzo,
    ChooseDirection,
    ChoosePalifico,
    DoubtClaim,
    Dudo,
    GameState,
    Matar,
    Pasar,
    Phase,
    Picado,
    Raise,
    Reveal,
    RuleSet,
    Spin,
)

NO_FIVES = Reveal(hands((5, 5, 5)))


def test_v1_three_starting_dice() -> None:
    state = started(RuleSet(starting_dice=3), n=4)
    assert state.dice_counts == (3, 3, 3, 3) and state.total_dice == 12


def test_v2_half_plus_one_after_six_fives_needs_four_aces() -> None:
    state = play(started(RuleSet(aces_conversion="half_plus_one")), bid(0, "6x5"))
    with pytest.raises(IllegalAction, match=r"lowest bid on aces is 4x1 \(half plus one\)"):
        state.apply(bid(1, "3x1"))
    assert state.apply(bid(1, "4x1")).standing_bid == Bid(4, 1)
    default = play(started(), bid(0, "6x5"))
    assert default.is_legal(bid(1, "3x1"))


def test_v3_calzo_only_when_the_count_reaches_half_the_dice_on_the_table() -> None:
    rules = RuleSet(calza_threshold=True)
    low = play(started(rules), bid(0, "7x5"))  # 15 dice: 7 is under half
    with pytest.raises(IllegalAction, match="a count of 8 or more"):
        low.apply(Calzo(1))
    assert Calzo(1) not in low.legal_actions()
    high = play(started(rules), bid(0, "8x5"))
    assert Calzo(1) in high.legal_actions()


def _right_calzo_at_full_hand(rules: RuleSet) -> GameState:
    return play(started(rules), bid(0, "2x5"), Calzo(1),
                Reveal(hands((5, 5, 5), s0=(5, 5, 4, 4, 4))))


def test_v4_nothing_right_calzo_at_full_hand_changes_nothing_and_caller_opens() -> None:
    state = _right_calzo_at_full_hand(RuleSet())
    assert state.dice_counts == (5, 5, 5) and state.bank == (0, 0, 0) and state.opener == 1
    assert state.results[-1].gains == {} and state.results[-1].losses == {}


def test_v4_bidder_loses_right_calzo_at_full_hand_costs_the_bidder_a_die() -> None:
    state = _right_calzo_at_full_hand(RuleSet(calza_full_hand="bidder_loses"))
    assert state.dice_counts == (4, 5, 5) and state.opener == 0
    assert state.results[-1].losses == {0: 1}


def test_v4_bank_keeps_a_die_that_absorbs_the_next_loss() -> None:
    rules = RuleSet(calza_full_hand="bank")
    state = play(started(rules), bid(0, "2x5"), Calzo(1),
                 Reveal(hands((5, 5, 5), s0=(5, 5, 4, 4, 4))))
    assert state.bank == (0, 1, 0) and state.results[-1].banked == {1: 1}
    assert state.total_dice == 15  # a banked die is not on the table
    # seat 1 (the opener) now loses a dudo: the bank pays, its hand stays at 5
    state = play(state, bid(1, "3x5"), Dudo(2), NO_FIVES)
    assert state.dice_counts == (5, 5, 5) and state.bank == (0, 0, 0)
    assert state.results[-1].banked == {1: -1} and state.results[-1].losses == {}
    # the next loss costs a real die
    state = play(state, bid(1, "3x5"), Dudo(2), NO_FIVES)
    assert state.dice_counts == (5, 4, 5)


def test_v4_forbidden_no_calzo_with_all_starting_dice() -> None:
    rules = RuleSet(calza_full_hand="forbidden")
    state = play(started(rules), bid(0, "2x5"))
    with pytest.raises(IllegalAction, match="all their starting dice"):
        state.apply(Calzo(1))
    short = play(with_counts(started(rules), (5, 4, 5)), bid(0, "2x5"))
    assert Calzo(1) in short.legal_actions()


def test_v5_anyone_but_the_bidder_may_calzo_out_of_turn() -> None:
    rules = RuleSet(calza_anyone=True)
    state = play(started(rules, n=4), bid(0, "2x5"))
    assert state.to_act == 1
    assert state.may_act(2) and state.may_act(3) and not state.may_act(0)
    assert state.legal_actions(2) == [Calzo(2)]
    assert state.legal_actions(0) == []
    with pytest.raises(IllegalAction, match="own bid"):
        state.apply(Calzo(0))
    state = play(state, Calzo(3), Reveal(hands((5, 5, 5, 5), s0=(5, 5, 4, 4, 4))))
    assert state.results[-1].caller == 3 and state.results[-1].kind == "calzo"
    default = play(started(n=4), bid(0, "2x5"))
    assert not default.may_act(2) and default.legal_actions(2) == []


def test_v6_calzo_only_after_losing_a_die_even_if_regained() -> None:
    rules = RuleSet(calza_after_loss=True)
    state = play(started(rules), bid(0, "2x5"))
    with pytest.raises(IllegalAction, match="already lost a die"):
        state.apply(Calzo(1))
    # seat 1 loses a die, then regains it with a right calzo: it may still call
    state = play(state, Dudo(1), Reveal(hands((5, 5, 5), s0=(5, 5, 4, 4, 4))))
    state = play(state, bid(1, "1x5"), bid(2, "2x5"), bid(0, "3x5"), Calzo(1),
                 Reveal(hands((5, 4, 5), s0=(5, 5, 5, 4, 4))))
    assert state.dice_counts == (5, 5, 5)
    state = play(state, bid(1, "1x5"), bid(2, "2x5"), bid(0, "3x5"))
    assert Calzo(1) in state.legal_actions()
    assert Calzo(2) not in play(state, bid(1, "4x5")).legal_actions()


def test_v7_no_calzo_at_all() -> None:
    state = play(started(RuleSet(calza=False)), bid(0, "2x5"))
    assert {type(a) for a in state.legal_actions()} == {Raise, Dudo}
    with pytest.raises(IllegalAction, match="V7"):
        state.apply(Calzo(1))


def test_v8_aces_not_wild_are_the_lowest_plain_face() -> None:
    rules = RuleSet(aces_wild=False)
    state = started(rules)
    assert state.is_legal(bid(0, "2x1"))  # opening on aces
    state = play(state, bid(0, "2x1"), bid(1, "2x2"))  # no doubling out of aces
    assert not state.is_legal(bid(2, "2x1")) and state.is_legal(bid(2, "3x1"))
    state = play(state, bid(2, "3x5"), Dudo(0), Reveal(hands((5, 5, 5), s1=(1, 1, 5, 5, 4))))
    assert state.results[-1].held == 2 and state.results[-1].losses == {2: 1}


def _palifico_for_seat_1(rules: RuleSet, n: int = 3) -> GameState:
    counts = tuple(2 if s == 1 else 5 for s in range(n))
    state = with_counts(started(rules, n=n), counts)
    return play(state, bid(0, "1x5"), Dudo(1), Reveal(hands(counts, s0=(5, 4, 4, 4, 4))))


def test_v9_aces_stay_wild_in_palifico() -> None:
    state = _palifico_for_seat_1(RuleSet(palifico_wilds=True))
    state = play(state, bid(1, "3x5"), Dudo(2),
                 Reveal(hands((5, 1, 5), s0=(1, 1, 5, 4, 4))))
    assert state.results[-1].held == 3 and state.results[-1].losses == {2: 1}


def test_v10_another_one_die_player_may_change_the_face_with_a_higher_count() -> None:
    rules = RuleSet(palifico_face_change=True)
    state = with_counts(started(rules, n=4), (5, 2, 1, 5))
    state = play(state, bid(0, "1x5"), Dudo(1), Reveal(hands((5, 2, 1, 5), s0=(5, 4, 4, 4, 4))))
    assert state.palifico_round is not None and state.palifico_round.seat == 1
    state = state.apply(bid(1, "2x3"))
    assert state.is_legal(bid(2, "3x6"))  # seat 2 holds one die too
    assert not state.is_legal(bid(2, "2x6"))  # a change needs a higher count
    state = state.apply(bid(2, "3x6"))
    assert state.palifico_round is not None and state.palifico_round.face == 6
    assert not state.is_legal(bid(3, "4x5"))  # seat 3 holds 5 dice: face locked
    assert state.is_legal(bid(3, "4x6"))
    off = play(with_counts(started(n=4), (5, 2, 1, 5)), bid(0, "1x5"), Dudo(1),
               Reveal(hands((5, 2, 1, 5), s0=(5, 4, 4, 4, 4))), bid(1, "2x3"))
    assert not off.is_legal(bid(2, "3x6"))


def test_v11_open_palifico_hides_own_dice_and_shows_the_others() -> None:
    rules = RuleSet(palifico_open_closed=True)
    state = _palifico_for_seat_1(rules)
    assert state.phase is Phase.SETUP
    assert state.legal_actions() == [ChoosePalifico(1, "open"),
                                     ChoosePalifico(1, "closed")]
    opened = state.apply(ChoosePalifico(1, "open"))
    view = opened.view(2, (3, 3, 3, 3, 3), others={0: (1, 1, 1, 1, 1), 1: (6,), 2: (3,) * 5})
    assert view.own_dice is None and dict(view.others) == {0: (1,) * 5, 1: (6,)}
    closed = state.apply(ChoosePalifico(1, "closed"))
    assert closed.view(2, (3,) * 5).own_dice is None
    assert closed.view(1, (6,)).own_dice == (6,)
    assert dict(closed.view(2, (3,) * 5, others={0: (1,) * 5}).others) == {}


def test_v12_the_one_die_player_may_decline_the_palifico_round_once_for_all() -> None:
    state = _palifico_for_seat_1(RuleSet(palifico_optional=True))
    assert state.legal_actions() == [ChoosePalifico(1, "normal"),
                                     ChoosePalifico(1, "decline")]
    state = state.apply(ChoosePalifico(1, "decline"))
    assert state.palifico_round is None and state.phase is Phase.BIDDING
    assert not state.is_legal(bid(1, "1x1"))  # an ordinary round: no opening on aces
    assert 1 in state.palifico_used


def test_v13_any_opener_may_force_one_palifico_round_per_game() -> None:
    rules = RuleSet(obligar_anytime=True)
    state = started(rules)
    assert state.phase is Phase.SETUP
    assert state.legal_actions() == [ChoosePalifico(0, "obligar"), ChoosePalifico(0, "none")]
    state = state.apply(ChoosePalifico(0, "obligar"))
    assert state.palifico_round is not None and state.palifico_round.mode == "obligar"
    state = play(state, bid(0, "2x1"), Dudo(1), NO_FIVES)  # seat 0 loses and opens again
    assert state.opener == 0 and state.phase is Phase.BIDDING  # no second obligar for seat 0
    state = play(state, bid(0, "2x5"), Dudo(1), Reveal(hands((4, 5, 5), s0=(5, 5, 4, 4))))
    assert state.opener == 1 and state.phase is Phase.SETUP  # seat 1 still may


def test_v14_every_rounds_opener_chooses_the_direction() -> None:
    rules = RuleSet(direction_each_round=True)
    state = started(rules, n=3, opener=0, clockwise=True)
    state = play(state, bid(0, "3x5"), Dudo(1), NO_FIVES)
    assert state.phase is Phase.SETUP and state.opener == 0
    state = state.apply(ChooseDirection(0, False))
    assert state.apply(bid(0, "2x2")).to_act == 2


def test_v15_siciliana_dudo_on_the_opening_bid_costs_two_dice() -> None:
    rules = RuleSet(siciliana=True)
    state = play(started(rules), bid(0, "3x5"), Dudo(1), NO_FIVES)
    assert state.dice_counts == (3, 5, 5) and state.results[-1].losses == {0: 2}
    later = play(started(rules), bid(0, "3x5"), bid(1, "4x5"), Dudo(2), NO_FIVES)
    assert later.dice_counts == (5, 4, 5)


def test_v16_matar_exact_costs_the_bidder_otherwise_the_killer() -> None:
    rules = RuleSet(matar=True)
    two_fives = Reveal(hands((5, 5, 5), s0=(5, 5, 4, 4, 4)))
    exact = play(started(rules), bid(0, "2x5"), Matar(1), two_fives)
    assert exact.results[-1].kind == "matar" and exact.dice_counts == (4, 5, 5)
    above = play(started(rules), bid(0, "1x5"), Matar(1), two_fives)
    assert above.dice_counts == (5, 4, 5)
    below = play(started(rules), bid(0, "3x5"), Matar(1), two_fives)
    assert below.dice_counts == (5, 4, 5)


def test_v17_picado_reverses_the_direction_and_can_be_doubted() -> None:
    rules = RuleSet(picado=True)
    state = play(started(rules, n=4), bid(0, "2x5"))
    assert Picado(1, Bid(3, 5)) in state.legal_actions()
    state = state.apply(Picado(1, Bid(3, 5)))
    assert state.to_act == 0 and not state.clockwise  # reversed: 1 -> 0
    assert DoubtClaim(0) in state.legal_actions()
    assert Picado(0, Bid(4, 5)) not in state.legal_actions()  # once per round for the table
    true_claim = play(state, DoubtClaim(0), Reveal(hands((5,) * 4, s1=(1, 1, 4, 4, 4))))
    assert true_claim.results[-1].kind == "picado" and true_claim.results[-1].held == 2
    assert true_claim.results[-1].losses == {0: 1}
    assert true_claim.clockwise  # the reversal lasted one round
    bluff = play(state, DoubtClaim(0), Reveal(hands((5,) * 4, s1=(1, 4, 4, 4, 4))))
    assert bluff.results[-1].losses == {1: 1}
    played_on = play(state, bid(0, "4x5"))
    assert played_on.to_act == 3 and DoubtClaim(3) not in played_on.legal_actions()


def test_v18_pasar_once_per_round_with_five_dice_doubt_checks_the_hand() -> None:
    rules = RuleSet(pasar=True)
    state = play(started(rules), bid(0, "2x5"), Pasar(1))
    assert state.standing_bid == Bid(2, 5) and state.standing_bidder == 0 and state.to_act == 2
    straight = play(state, DoubtClaim(2), Reveal(hands((5, 5, 5), s1=(1, 2, 3, 4, 6))))
    assert straight.results[-1].kind == "pasar" and straight.results[-1].losses == {2: 1}
    full = play(state, DoubtClaim(2), Reveal(hands((5, 5, 5), s1=(1, 1, 6, 6, 6))))
    assert full.results[-1].losses == {2: 1}
    junk = play(state, DoubtClaim(2), Reveal(hands((5, 5, 5), s1=(1, 1, 2, 3, 4))))
    assert junk.results[-1].losses == {1: 1}
    # the bid stands: the next player may also challenge it, or pass in turn
    assert Dudo(2) in state.legal_actions() and Pasar(2) in state.legal_actions()
    state = play(state, Pasar(2))
    # back to the bidder: may not doubt its own bid, may doubt the pass
    assert Dudo(0) not in state.legal_actions() and DoubtClaim(0) in state.legal_actions()
    state = play(state, bid(0, "3x5"))
    assert Pasar(1) not in state.legal_actions()  # once per round
    short = play(with_counts(started(rules), (5, 4, 5)), bid(0, "2x5"))
    with pytest.raises(IllegalAction, match="five dice"):
        short.apply(Pasar(1))


def test_v18_option_no_two_passes_in_a_row() -> None:
    rules = RuleSet(pasar=True, pasar_no_consecutive=True)
    state = play(started(rules), bid(0, "2x5"), Pasar(1))
    with pytest.raises(IllegalAction, match="right after another pass"):
        state.apply(Pasar(2))


def test_v19_juego_sucio_opening_on_aces_makes_aces_plain_and_lowest() -> None:
    rules = RuleSet(juego_sucio=True)
    state = started(rules).apply(bid(0, "2x1"))
    assert state.sucio
    assert state.is_legal(bid(1, "2x2"))  # same count, higher face: aces rank lowest
    assert not state.is_legal(bid(1, "1x4"))  # no halving either
    state = play(state, bid(1, "2x5"))
    assert not state.is_legal(bid(2, "1x1")) and not state.is_legal(bid(2, "2x1"))
    assert state.is_legal(bid(2, "3x1"))
    state = play(state, Dudo(2), Reveal(hands((5, 5, 5), s0=(1, 1, 5, 4, 4))))
    assert state.results[-1].held == 1 and state.results[-1].losses == {1: 1}
    assert not state.sucio  # the next round is an ordinary one
    assert not started().is_legal(bid(0, "2x1"))


def test_v20_revolver_a_lost_challenge_loads_a_bullet_and_spins() -> None:
    rules = RuleSet(revolver=True)
    state = play(started(rules), bid(0, "3x5"), Dudo(1), NO_FIVES)
    assert state.phase is Phase.SPIN and state.needs() == "spin"
    assert state.bullets == (1, 0, 0) and state.dice_counts == (5, 5, 5)
    survived = state.apply(Spin(2))
    assert survived.results[-1].shots == ((0, False),) and survived.opener == 0
    assert survived.alive == (True, True, True)
    fired = state.apply(Spin(1))
    assert fired.results[-1].shots == ((0, True),) and fired.results[-1].eliminated == (0,)
    assert fired.alive == (False, True, True) and fired.opener == 1
    # a right calzo removes one bullet
    after = play(survived, bid(0, "2x5"), Calzo(1), Reveal(hands((5, 5, 5), s2=(5, 5, 4, 4, 4))))
    assert after.bullets == (1, 0, 0)  # seat 1 had none to remove
    loaded = play(survived, bid(0, "2x5"), bid(1, "3x5"), bid(2, "4x5"), Calzo(0),
                  Reveal(hands((5, 5, 5), s2=(5, 5, 5, 5, 4))))
    assert loaded.bullets == (0, 0, 0) and loaded.phase is Phase.BIDDING


def test_v20_six_bullets_always_fire() -> None:
    rules = RuleSet(revolver=True)
    state = started(rules, n=2)
    for _ in range(5):
        state = play(state, bid(state.to_act or 0, "9x5"), Dudo(1 - (state.to_act or 0)))
        loser = state.standing_bidder
        state = play(state, Reveal(hands((5, 5))), Spin(6))
        assert loser is not None and state.alive[loser]
    assert max(state.bullets) == 5
    state = play(state, bid(0, "9x5"), Dudo(1), Reveal(hands((5, 5))))
    assert state.bullets[0] == 6
    assert state.apply(Spin(6)).winner == 1
