"""The bid composer's logic (legal only when the table offers it, the minimum named when
short) and the probability hint."""

from __future__ import annotations

import math

from dudo_p2p.rules import Bid, RaiseContext, RuleSet, min_raise
from dudo_p2p.rules import odds as prob
from dudo_p2p.ui.composer import Composer, legal_bids, lowest_on_face
from dudo_p2p.ui.i18n import Tr


def _bids_after(previous: Bid, total: int = 20) -> set[Bid]:
    rules = RuleSet()
    out = set()
    for face in range(1, 7):
        low = min_raise(previous, face, RaiseContext(rules))
        if low is not None:
            out |= {Bid(c, face) for c in range(low.count, total + 1)}
    return out


def test_help_names_the_minimum_raise_when_the_bid_is_short() -> None:
    bids = _bids_after(Bid(7, 4))
    comp = Composer(count=3, face=1)
    text = comp.help_text(Tr("es"), bids, True, None)
    assert "cuatro ases" in text  # D7: from seven fours, half rounded up
    assert Bid(3, 1) not in bids
    comp.count = 4
    assert comp.help_text(Tr("en"), bids, True, None) == "Valid bid: four aces"


def test_help_when_not_our_turn_uses_the_rules_preview() -> None:
    comp = Composer(count=2, face=5)
    text = comp.help_text(Tr("es"), set(), False, Bid(3, 5))
    assert "tres quinas" in text


def test_face_with_no_legal_bid_says_so() -> None:
    comp = Composer(count=2, face=1)
    bids = {Bid(1, f) for f in range(2, 7)}  # an opening: no aces
    assert comp.help_text(Tr("en"), bids, True, None) == "You cannot bid on aces now"


def test_start_turn_presets_the_lowest_raise_on_the_standing_face() -> None:
    comp = Composer()
    comp.start_turn(_bids_after(Bid(3, 5)), Bid(3, 5))
    assert comp.bid == Bid(4, 5)

def test_changing_the_face_moves_the_count_to_that_faces_lowest_legal_count() -> None:
    # issue 17: from four quinas to aces is two aces (down), back to sixes is three (up)
    bids = _bids_after(Bid(3, 5))
    comp = Composer()
    comp.start_turn(bids, Bid(3, 5))
    assert comp.bid == Bid(4, 5)
    comp.set_face(1, lowest_on_face(bids, 1))
    assert comp.bid == Bid(2, 1)
    comp.set_face(6, lowest_on_face(bids, 6))
    assert comp.bid == Bid(3, 6)
    comp.change_face(-1, lambda f: lowest_on_face(bids, f))  # the arrow keys do the same
    assert comp.bid == Bid(4, 5)
    comp.set_face(3, None)  # a face with no legal bid: the count stays
    assert comp.bid == Bid(4, 3)


def test_not_our_turn_says_so_instead_of_blaming_the_face() -> None:
    comp = Composer(count=2, face=2)
    assert comp.help_text(Tr("es"), set(), False, None) == "No es tu turno: espera"
    assert "tontos" not in comp.help_text(Tr("es"), set(), False, None)


def test_count_and_face_stay_in_range() -> None:
    comp = Composer(count=1, face=6)
    comp.change_count(-3)
    comp.change_face(1)
    assert (comp.count, comp.face) == (1, 1)
    comp.change_count(100)
    comp.change_face(-1)
    assert (comp.count, comp.face) == (30, 6)


def test_lowest_on_face_and_legal_bids() -> None:
    assert lowest_on_face({Bid(5, 3), Bid(4, 3), Bid(2, 2)}, 3) == Bid(4, 3)
    assert lowest_on_face({Bid(2, 2)}, 6) is None
    assert legal_bids([]) == set()


def test_probability_matches_the_binomial_guide() -> None:
    # no own matches, 3 unseen dice, need 1 of fives (wild): 1 - (2/3)^3
    assert math.isclose(prob.chance_at_least(1, 5, (2, 3), 3, wild=True), 1 - (2 / 3) ** 3)
    # aces: 1/6 per die
    assert math.isclose(prob.chance_at_least(1, 1, (), 2, wild=True), 1 - (5 / 6) ** 2)
    assert prob.chance_at_least(2, 5, (5, 1), 10, wild=True) == 1.0
    assert prob.chance_at_least(2, 5, (5, 1), 10, wild=False) < 1.0
    assert prob.chance_at_least(9, 5, (), 3, wild=True) == 0.0
    assert math.isclose(prob.expected_total(4, (4, 1, 2), 15, wild=True), 2 + 5.0)
