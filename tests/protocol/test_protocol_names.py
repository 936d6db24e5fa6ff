"""Names are text (protocol/names.py): cleaned, compared by skeleton, made distinct, and
printed escaped so a name can never forge a log line."""

from __future__ import annotations

import logging
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dudo_p2p.crypto.identity import fingerprint
from dudo_p2p.protocol.names import MAX_NAME, clean, distinct, problem, shown, skeleton

KEYS = [bytes([i]) * 32 for i in range(6)]


@pytest.mark.parametrize(("raw", "expected"), [
    ("Ana", "Ana"),
    ("  Ana   María ", "Ana María"),
    ("A\u200bna", "Ana"),  # zero-width space (Cf)
    ("\u202eanA", "anA"),  # right-to-left override (Cf)
    ("\u2066Ana\u2069", "Ana"),  # bidi isolates
    ("\x1b[2K\rhost: bot1 left (silent)\n", "[2Khost: bot1 left (silent)"),
    ("Ana\u2028Bea", "Ana Bea"),  # a line separator is a space, not a new line
    ("e\u0301", "\u00e9"),  # NFC
    ("a" + "\u0301" * 30, "\u00e1\u0301\u0301"),  # á and at most two more marks
    ("\u0301Ana", "Ana"),  # a mark on nothing
    ("\ue000Ana\udfff", "Ana"),  # private use, a lone surrogate
    ("x" * 40, "x" * MAX_NAME),
    ("\u200b\u200d\x00 ", ""),
])
def test_clean(raw: str, expected: str) -> None:
    assert clean(raw) == expected


@given(st.text(max_size=80))
def test_clean_is_idempotent_printable_and_bounded(raw: str) -> None:
    name = clean(raw)
    assert clean(name) == name
    assert len(name) <= MAX_NAME
    assert not any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co") for ch in name)
    assert all(ch.isprintable() for ch in shown(name))


@pytest.mark.parametrize(("a", "b"), [
    ("Bob", "B\u043eb"),  # Cyrillic o
    ("Ana", "\u0410na"),  # Cyrillic A
    ("paypal", "\u0440\u0430\u0443\u0440\u0430l"),  # Cyrillic р а у р а
    ("kappa", "\u03ba\u03b1pp\u03b1"),  # Greek κ α
    ("BOB", "bob"),
    ("\uff22\uff4f\uff42", "Bob"),  # fullwidth
    ("bot1", "botl"),
    ("Jose", "Jos\u00e9"),
    ("Ana Bea", "AnaBea"),
])
def test_look_alikes_share_a_skeleton(a: str, b: str) -> None:
    assert skeleton(a) == skeleton(b)


@pytest.mark.parametrize(("a", "b"), [
    ("bot5", "bots"), ("Ana", "Ada"), ("nico", "\u03bd\u03b9c\u03bf"),
])
def test_different_names_keep_different_skeletons(a: str, b: str) -> None:
    assert skeleton(a) != skeleton(b)  # the Greek nu is a v: a fold of look-alikes only


def test_distinct_suffixes_every_member_of_a_collision_and_only_them() -> None:
    names = distinct(["Ana", "\u0410na", "Bea"], KEYS[:3])
    assert names == (f"Ana #{fingerprint(KEYS[0])}", f"\u0410na #{fingerprint(KEYS[1])}", "Bea")
    assert problem(names) is None


def test_a_name_typed_to_look_like_a_suffixed_one_cannot_pass_for_it() -> None:
    forged = f"Ana #{fingerprint(KEYS[0])}"
    names = distinct(["Ana", "Ana", forged], KEYS[:3])
    assert problem(names) is None
    assert len({skeleton(n) for n in names}) == 3
    assert names[0] != forged or names[2] != forged


def test_a_long_name_keeps_its_suffix_within_the_limit() -> None:
    names = distinct(["x" * 32, "X" * 32], KEYS[:2])
    assert all(len(n) <= MAX_NAME and n.endswith(fingerprint(k))
               for n, k in zip(names, KEYS[:2], strict=True))


def test_problem_names_unclean_empty_and_colliding_lists() -> None:
    assert problem(["Ana", "Bea"]) is None
    assert problem(["Ana", ""]) is not None
    assert problem(["Ana", "Be\u200ba"]) is not None
    assert problem(["Ana", "ANA"]) is not None


def test_a_name_printed_in_a_log_line_cannot_forge_another_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    evil = "bot\x1b[2K\r\nhost: bot1 left (silent)\u202e"
    with caplog.at_level(logging.INFO):
        logging.getLogger("t").info("seat 1: %s", shown(evil))
    text = caplog.text
    assert "\x1b" not in text and "\r" not in text and "\u202e" not in text
    assert text.count("\n") == 1  # the one line the record ends with
    assert "\\x1b[2K\\r\\nhost" in text
