"""Bid: construction, parse/str round trip, spoken Spanish and English."""

from __future__ import annotations

import pytest

from dudo_p2p.errors import InvalidBid
from dudo_p2p.rules import Bid, spell_count


def test_parse_and_str_round_trip() -> None:
    assert Bid.parse("4x5") == Bid(4, 5)
    assert str(Bid(4, 5)) == "4x5"
    for count in (1, 7, 30):
        for face in range(1, 7):
            assert Bid.parse(str(Bid(count, face))) == Bid(count, face)


def test_parse_accepts_capital_x_and_spaces() -> None:
    assert Bid.parse(" 12 X 6 ") == Bid(12, 6)


@pytest.mark.parametrize("text", ["", "x", "4x", "x5", "4x7", "4x0", "0x5", "-1x5", "4y5",
                                  "4x5x", "4.0x5", "99999x5", "four fives"])
def test_parse_refuses_junk(text: str) -> None:
    with pytest.raises(InvalidBid):
        Bid.parse(text)


def test_parse_refuses_non_text() -> None:
    with pytest.raises(InvalidBid):
        Bid.parse(45)  # type: ignore[arg-type]


@pytest.mark.parametrize(("count", "face"), [(0, 5), (-1, 5), (1, 0), (1, 7), (True, 5),
                                             (2, True), (1.0, 5)])
def test_malformed_bid_is_invalid(count: object, face: object) -> None:
    with pytest.raises(InvalidBid):
        Bid(count, face)  # type: ignore[arg-type]


@pytest.mark.parametrize(("bid", "es", "en"), [
    (Bid(4, 5), "cuatro quinas", "four fives"),
    (Bid(1, 1), "un as", "one ace"),
    (Bid(3, 1), "tres ases", "three aces"),
    (Bid(1, 5), "una quina", "one five"),
    (Bid(1, 4), "una cuadra", "one four"),
    (Bid(1, 2), "un tonto", "one two"),
    (Bid(2, 3), "dos trenes", "two threes"),
    (Bid(7, 6), "siete sextos", "seven sixes"),
    (Bid(21, 5), "veintiuna quinas", "twenty-one fives"),
    (Bid(21, 2), "veintiún tontos", "twenty-one twos"),
    (Bid(30, 6), "treinta sextos", "thirty sixes"),
    (Bid(31, 6), "31 sextos", "31 sixes"),
])
def test_spoken_forms_agree_in_number_and_gender(bid: Bid, es: str, en: str) -> None:
    assert bid.spoken("es") == es
    assert bid.spoken("en") == en


def test_spoken_refuses_unknown_language() -> None:
    with pytest.raises(InvalidBid):
        Bid(2, 2).spoken("fr")
    with pytest.raises(InvalidBid):
        spell_count(2, "fr")


def test_bids_are_hashable_values() -> None:
    assert len({Bid(2, 3), Bid(2, 3), Bid(3, 2)}) == 2
