"""§4.9 "Names" written from the text alone agrees with protocol/names.py: the fold table
code point by code point, `clean`, and which names collide. Two peers that clean or fold
differently make geneses the other's joiners refuse."""

from __future__ import annotations

import functools
import re
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st
from spec_tables import plain, section, spec_text, tables

from dudo_p2p.protocol import names


def test_the_name_fold_table_is_the_fold_names_py_applies() -> None:
    """§4.9's fold, code point by code point (peers that fold differently disagree on which
    names collide, and a genesis one host makes fails the other's check)."""
    text = section(spec_text(), "4.9 ")
    doc = fold_table()
    assert doc == {k: v for k, v in names._FOLD.items()}
    said_dead = {int(cp, 16) for cp in re.findall(r"U\+([0-9A-F]{4}) \(Greek lunate sigma\) is "
                                                  r"case folded", " ".join(text.split()))}
    dead = {cp for cp, latin in doc.items()  # entries skeleton() never applies
            if names.skeleton(f"x{chr(cp)}x") != names.skeleton(f"x{latin}x")}
    assert dead == said_dead == {0x03F2}


def clean_as_written(raw: str) -> str:
    """§4.9's `clean`, written from the text alone (not from names.py)."""
    while True:
        kept: list[str] = []
        marks = 0
        for ch in unicodedata.normalize("NFC", raw):
            category = unicodedata.category(ch)
            if category in ("Cc", "Cf", "Cs", "Co"):
                continue
            if category.startswith("Z") or ch.isspace():
                if kept and kept[-1] != " ":
                    kept.append(" ")
                marks = 0
            elif category in ("Mn", "Mc", "Me"):
                if kept and kept[-1] != " " and marks < 2:
                    kept.append(ch)
                    marks += 1
            else:
                kept.append(ch)
                marks = 0
        once = unicodedata.normalize("NFC", "".join(kept)).strip()[:32].rstrip()
        if once == raw:
            return once
        raw = once


# any text, and text dense in what clean() decides on: marks (Mn, Me, Mc), separators and
# white space, format and control characters, letters that NFC composes with a mark
_NAMEISH = st.text(st.characters(codec="utf-8"), max_size=40) | st.text(st.sampled_from(
    "aA\u0301\u0302\u0303\u0489\u0903 \u2028\u3000\u200b\u202e\t\n#\u030a\ufeff"),
    max_size=40)


@settings(derandomize=True, max_examples=400)
@given(_NAMEISH)
def test_clean_is_what_section_4_9_says(raw: str) -> None:
    assert names.clean(raw) == clean_as_written(raw)


@functools.cache
def fold_table() -> dict[int, str]:
    """§4.9's fold table: code point -> the Latin text it is folded to."""
    table = next(t for t in tables(section(spec_text(), "4.9 ")) if plain(t[0][0]) == "folded to")
    return {int(cp[2:], 16): plain(row[0]) for row in table[1:] for cp in plain(row[1]).split(", ")}


def skeleton_as_written(name: str) -> str:
    """§4.9's skeleton from the text and its fold table alone (not from names.py)."""
    text = unicodedata.normalize("NFKD", name)
    text = "".join(ch for ch in text if unicodedata.combining(ch) == 0).casefold()
    text = text.translate(fold_table())
    return "".join(ch for ch in text if ch.isalnum())


@settings(derandomize=True, max_examples=300)
@given(_NAMEISH, _NAMEISH)
def test_two_names_collide_as_section_4_9_says(a: str, b: str) -> None:
    a, b = names.clean(a) or "x", names.clean(b) or "y"
    written = (skeleton_as_written(a) or a) == (skeleton_as_written(b) or b)
    assert (names.problem([a, b]) == "two names look alike") == (written and a != b) or a == b
    assert names.skeleton(a) == skeleton_as_written(a)
