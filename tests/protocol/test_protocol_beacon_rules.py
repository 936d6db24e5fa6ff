"""A table's rules in the beacon (protocol.md §5.3 "Variants"): every rule set round-trips
through (dice, variants word), the default table is the word 0, the layout is the spec's
table, and a word or dice that make no rule set are refused as DecodeError."""

from __future__ import annotations

import random

import pytest
from spec_tables import plain, section, spec_text, tables

from dudo_p2p.errors import DecodeError, InvalidRuleSet
from dudo_p2p.net.beacon import Beacon, TableState, decode, encode
from dudo_p2p.protocol.beacon_rules import BITS, CHOICES, LAYOUT, VARIANT_BITS, pack, unpack
from dudo_p2p.rules import VARIANTS, RuleSet


def random_rules(rng: random.Random) -> RuleSet:
    """A valid rule set drawn field by field (refused combinations drawn again)."""
    while True:
        try:
            return RuleSet.from_dict({f: rng.choice(v.allowed) for f, v in VARIANTS.items()})
        except InvalidRuleSet:
            continue


def test_the_default_table_is_five_dice_and_the_word_zero() -> None:
    assert pack(RuleSet()) == (5, 0)
    assert unpack(5, 0) == RuleSet()


def test_every_rule_set_round_trips_and_through_a_real_beacon() -> None:
    rng = random.Random(2026)
    for _ in range(500):
        rules = random_rules(rng)
        dice, word = pack(rules)
        assert 0 <= word < 1 << VARIANT_BITS
        assert unpack(dice, word) == rules
        beacon = Beacon(b"\x01" * 32, 4000, "K7QXM", TableState.OPEN, 1, 4, "Ana", dice, word)
        got = decode(encode(beacon))
        assert unpack(got.dice, got.variants) == rules


def test_a_bit_is_set_exactly_for_each_variant_off_the_default() -> None:
    house = RuleSet()
    for field in LAYOUT:
        for value in CHOICES[field][1:]:
            options = house.to_dict() | {field: value}
            try:
                rules = RuleSet.from_dict(options)
            except InvalidRuleSet:
                continue  # a lone change the rules refuse (pasar_no_consecutive alone)
            first, width = BITS[field]
            _, word = pack(rules)
            assert word != 0 and word >> first << first == word  # nothing below its bits
            assert word >> (first + width) == 0, field  # nor above


def test_the_layout_is_the_table_of_protocol_md() -> None:
    (table,) = [t for t in tables(section(spec_text(), "5.3 The beacon")) if t[0][1] == "field"
                and t[0][0] == "bits"]
    rows = {plain(cells[1]): cells for cells in table[1:]}
    assert list(rows) == list(LAYOUT)
    for field, (bits, _, values) in rows.items():
        first, width = BITS[field]
        assert plain(bits) == (str(first) if width == 1 else f"{first}–{first + width - 1}")
        assert [plain(v) for v in values.split(",")] == [
            str(c).lower() if isinstance(c, bool) else str(c) for c in CHOICES[field]]
    assert VARIANT_BITS == 22 and "Bits 22–31 are 0" in section(spec_text(), "5.3 The beacon")


@pytest.mark.parametrize(("dice", "word", "why"), [
    (5, 1 << 22, "past the 22"),  # a bit past the layout
    (5, 1 << 31, "past the 22"),
    (6, 0, "starting_dice"),  # dice the rules do not allow
    (0, 0, "starting_dice"),
    (255, 0, "starting_dice"),
    (5, 1 << BITS["calza"][0] | 1 << BITS["calza_anyone"][0], "calza_anyone"),  # refused pair
    (5, 1 << BITS["pasar_no_consecutive"][0], "pasar_no_consecutive"),
    (5, 1 << BITS["revolver"][0] | 1 << BITS["siciliana"][0], "siciliana"),
])
def test_a_word_or_dice_that_make_no_rule_set_is_a_decode_error(
    dice: int, word: int, why: str
) -> None:
    with pytest.raises(DecodeError, match=why):
        unpack(dice, word)
