"""RuleSet: defaults, validation naming the field, dict and command-line conversions."""

from __future__ import annotations

from dataclasses import fields

import pytest

from dudo_p2p.errors import InvalidRuleSet
from dudo_p2p.rules import VARIANTS, RuleSet


def test_defaults_are_the_default_table() -> None:
    rules = RuleSet()
    assert rules.starting_dice == 5 and rules.calza and rules.aces_wild and rules.palifico
    assert rules.aces_conversion == "ceil_half" and rules.calza_full_hand == "nothing"
    assert not any(
        getattr(rules, f.name) for f in fields(rules)
        if f.name not in ("starting_dice", "calza", "aces_wild", "palifico", "aces_conversion",
                          "calza_full_hand")
    )


def test_every_field_has_a_variants_entry_with_its_rule_and_values() -> None:
    # (its line in both languages is the UI catalogue's: tests/ui/test_i18n.py)
    names = {f.name for f in fields(RuleSet)}
    assert set(VARIANTS) == names
    for info in VARIANTS.values():
        assert info.rule and info.allowed
    numbers = {info.rule for info in VARIANTS.values()}
    for v in range(1, 21):
        assert any(f"V{v}" in rule for rule in numbers), f"V{v} has no rule-set field"


@pytest.mark.parametrize(("name", "value"), [
    ("starting_dice", 6), ("starting_dice", 2), ("starting_dice", True), ("starting_dice", "5"),
    ("aces_conversion", "half"), ("calza_full_hand", "maybe"), ("calza", 1), ("revolver", "yes"),
])
def test_bad_value_is_refused_naming_the_field(name: str, value: object) -> None:
    with pytest.raises(InvalidRuleSet, match=name):
        RuleSet(**{name: value})  # type: ignore[arg-type]


@pytest.mark.parametrize(("options", "named"), [
    ({"calza": False, "calza_anyone": True}, "calza_anyone"),
    ({"calza": False, "calza_threshold": True}, "calza_threshold"),
    ({"calza": False, "calza_after_loss": True}, "calza_after_loss"),
    ({"calza": False, "calza_full_hand": "bank"}, "calza_full_hand"),
    ({"palifico": False, "palifico_wilds": True}, "palifico_wilds"),
    ({"palifico": False, "obligar_anytime": True}, "obligar_anytime"),
    ({"aces_wild": False, "aces_conversion": "half_plus_one"}, "aces_conversion"),
    ({"aces_wild": False, "juego_sucio": True}, "juego_sucio"),
    ({"pasar_no_consecutive": True}, "pasar_no_consecutive"),
    ({"revolver": True, "calza_full_hand": "bank"}, "calza_full_hand"),
    ({"revolver": True, "siciliana": True}, "siciliana"),
    ({"revolver": True, "calza_after_loss": True}, "calza_after_loss"),
])
def test_impossible_combination_is_refused_naming_the_field(
    options: dict[str, object], named: str
) -> None:
    with pytest.raises(InvalidRuleSet, match=named):
        RuleSet(**options)  # type: ignore[arg-type]


def test_to_dict_from_dict_round_trip_and_missing_keys_default() -> None:
    rules = RuleSet(starting_dice=4, calza_anyone=True, calza_full_hand="bank", revolver=False)
    d = rules.to_dict()
    assert set(d) == set(VARIANTS)
    assert RuleSet.from_dict(d) == rules
    assert RuleSet.from_dict({"matar": True}) == RuleSet(matar=True)


def test_from_dict_refuses_unknown_key_naming_it() -> None:
    with pytest.raises(InvalidRuleSet, match="colour"):
        RuleSet.from_dict({"colour": "red"})


def test_from_dict_refuses_wrongly_typed_value() -> None:
    with pytest.raises(InvalidRuleSet, match="matar"):
        RuleSet.from_dict({"matar": "true"})


@pytest.mark.parametrize(("text", "value"), [
    ("true", True), ("YES", True), ("1", True), ("on", True),
    ("false", False), ("no", False), ("0", False), ("Off", False),
])
def test_with_option_parses_booleans(text: str, value: bool) -> None:
    assert RuleSet().with_option("matar", text).matar is value


def test_parse_options_applies_name_value_strings_in_order() -> None:
    rules = RuleSet.parse_options(["starting_dice=3", "calza_full_hand=bank", "pasar=on",
                                   "pasar_no_consecutive=yes"])
    assert rules == RuleSet(starting_dice=3, calza_full_hand="bank", pasar=True,
                            pasar_no_consecutive=True)


@pytest.mark.parametrize("option", ["matar", "matar=perhaps", "starting_dice=five",
                                    "nonsense=1", "starting_dice=7"])
def test_parse_options_refuses_bad_options(option: str) -> None:
    with pytest.raises(InvalidRuleSet):
        RuleSet.parse_options([option])


def test_rulesets_are_hashable_values() -> None:
    assert hash(RuleSet(matar=True)) == hash(RuleSet(matar=True))
