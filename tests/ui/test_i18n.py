"""The message catalogue: both languages complete, every key the code uses exists, and the
default font draws the Spanish letters."""

from __future__ import annotations

import ast
import pathlib

import pygame
import pytest

from dudo_p2p.ui import i18n, rule_texts
from dudo_p2p.ui.i18n import CATALOGUE, Tr, default_lang

UI_DIR = pathlib.Path(i18n.__file__).parent
CATALOGUE_FILES = {"i18n.py", "catalogue_es.py", "catalogue_en.py"}


def _string_literals_used_as_keys() -> set[str]:
    """Every string literal in the UI code that looks like a catalogue key ("a.b")."""
    keys: set[str] = set()
    known_prefixes = {k.split(".")[0] for k in CATALOGUE["es"]}
    for path in UI_DIR.glob("*.py"):
        if path.name in CATALOGUE_FILES:  # the catalogue itself, not a use of it
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
                head, dot, tail = text.partition(".")
                if dot and head in known_prefixes and tail and " " not in text:
                    keys.add(text)
    return keys


def test_spanish_and_english_have_exactly_the_same_keys() -> None:
    assert set(CATALOGUE["es"]) == set(CATALOGUE["en"])


def test_every_key_used_in_the_code_exists_in_both_languages() -> None:
    used = _string_literals_used_as_keys()
    assert len(used) > 50  # the scan really found the keys
    for lang in ("es", "en"):
        missing = used - set(CATALOGUE[lang])
        assert not missing, f"{lang} lacks {sorted(missing)}"


def test_keys_picked_at_run_time_exist() -> None:
    tables: list[object] = [i18n.FACE_KEYS, rule_texts.HOUSE_RULE_KEYS]
    dicts = [i18n.LEVEL_KEYS, i18n.LEFT_REASON_KEYS, i18n.CHEAT_KEYS, i18n.KIND_KEYS,
             i18n.REFUSAL_KEYS, i18n.OUTCOME_KEYS,
             i18n.PALIFICO_MODE_KEYS, i18n.VALUE_KEYS, rule_texts.VARIANT_KEYS]
    keys = {k for t in tables for k in t} | {v for d in dicts for v in d.values()}  # type: ignore[attr-defined]
    for lang in ("es", "en"):
        assert keys <= set(CATALOGUE[lang])


def test_placeholders_match_between_languages() -> None:
    import string

    def fields(template: str) -> set[str]:
        return {f for _, f, _, _ in string.Formatter().parse(template) if f}

    for key, es in CATALOGUE["es"].items():
        assert fields(es) == fields(CATALOGUE["en"][key]), key


def test_unknown_key_shows_the_key_instead_of_raising() -> None:
    assert Tr("es")("no.such.key") == "no.such.key"
    assert Tr("en")("table.round") == "Round {n}"  # missing argument: template, no crash


def test_default_language_is_spanish_unless_the_locale_says_english() -> None:
    assert default_lang({"LANG": "en_GB.UTF-8"}) == "en"
    assert default_lang({"LANG": "es_CL.UTF-8"}) == "es"
    assert default_lang({"LANG": "C.UTF-8"}) == "es"
    assert default_lang({}) == "es"
    assert default_lang({"LC_ALL": "es_ES", "LANG": "en_US"}) == "es"


def test_default_font_draws_spanish_letters() -> None:
    font = pygame.font.Font(None, 40)
    missing = pygame.image.tobytes(font.render("\U0010fffd", True, (0, 0, 0), (255, 255, 255)),
                                   "RGB")
    for ch in "¡¿ñÑáéíóúü«»·×":
        drawn = pygame.image.tobytes(font.render(ch, True, (0, 0, 0), (255, 255, 255)), "RGB")
        assert drawn != missing, f"{ch!r} renders as a missing glyph"


def test_every_character_the_table_shows_has_a_glyph_in_the_default_font() -> None:
    """The catalogue, the rules' variant texts included (shown on the rules screen and in the
    lobby), draws with no missing-glyph box: "→" in a rule once rendered as a tofu square."""
    from dudo_p2p.rules import FACE_NAMES

    font = pygame.font.Font(None, 40)

    def pixels(text: str) -> bytes:
        return pygame.image.tobytes(font.render(text, True, (0, 0, 0), (255, 255, 255)), "RGB")

    missing = pixels("\U0010fffd")
    texts = [t for lang in CATALOGUE.values() for t in lang.values()]
    texts += [name for names in FACE_NAMES.values() for name in names.values()]
    chars = {ch for t in texts for ch in t if not ch.isspace()}
    assert len(chars) > 60  # the scan really saw the texts
    boxes = sorted(ch for ch in chars if pixels(ch) == missing)
    assert not boxes, f"no glyph for {boxes}"


def test_the_rules_screen_names_option_values_in_the_players_language() -> None:
    """Active variants read "V2 (mitad + 1)", not the rule set's own "half_plus_one"."""
    from dudo_p2p.rules import VARIANTS, RuleSet
    from dudo_p2p.ui.overlays import active_variant_lines

    default = RuleSet()
    checked = 0
    for name, info in VARIANTS.items():
        for value in info.allowed:
            if not isinstance(value, str) or value == getattr(default, name):
                continue
            assert value in i18n.VALUE_KEYS, f"{name}={value} has no translation"
            rules = default.with_option(name, value)
            for lang in ("es", "en"):
                tr = Tr(lang)
                line = next(x for x in active_variant_lines(tr, rules) if x.startswith(info.rule))
                label = line[len(info.rule) + 2:line.index("): ")]
                assert label == tr(i18n.VALUE_KEYS[value])
                assert lang == "en" or label != value  # Spanish never shows the raw value
            checked += 1
    assert checked >= 4


def test_every_rule_set_field_has_its_line_in_both_languages() -> None:
    from dudo_p2p.rules import VARIANTS

    assert set(rule_texts.VARIANT_KEYS) == set(VARIANTS)
    for lang in ("es", "en"):
        for key in rule_texts.VARIANT_KEYS.values():
            assert CATALOGUE[lang].get(key), f"{lang} lacks {key}"


def test_the_active_variants_are_only_the_changed_fields_in_the_language_asked() -> None:
    """(RuleSet.describe did this in the rules package with texts of its own; the one
    catalogue's texts are the UI's now, and so is the listing.)"""
    from dudo_p2p.rules import RuleSet
    from dudo_p2p.ui.overlays import active_variant_lines

    assert active_variant_lines(Tr("en"), RuleSet()) == []
    lines = active_variant_lines(Tr("es"), RuleSet(siciliana=True))
    assert lines == ["V15 (sí): " + Tr("es")("variant.siciliana")]
    with pytest.raises(ValueError):
        Tr("de")
