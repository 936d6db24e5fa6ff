"""Player names are text, never terminal commands (protocol.md §4.9, "Names").

One module for every place a name is made, checked or shown: the CLI and the lobby clean
what a person typed (:func:`clean`), the host refuses a hello whose name is empty once
cleaned and makes the table's names distinct (:func:`distinct`), every joiner and ``verify``
check the genesis holds only clean, distinct names (:func:`problem`), and every printer
escapes what it prints (:func:`shown`), so a name can neither rewrite a terminal line nor
pass for another seat's.

- **Clean**: Unicode NFC; control (Cc), format (Cf: zero-width characters, bidirectional
  overrides and isolates), surrogate and private-use code points removed; runs
  of whitespace and separators (line and paragraph ones too) made one space and trimmed; at most
  :data:`MAX_MARKS` combining marks on one letter; at most :data:`MAX_NAME` characters.
- **Skeleton** (what two names are compared by): NFKD (folds width and compatibility forms:
  a fullwidth ``Ａ`` is ``A``), combining marks dropped, case folded, look-alike Latin,
  Cyrillic and Greek letters and digits folded to one Latin letter (:data:`_FOLD`), and
  everything but letters and digits dropped. Two names with one skeleton *collide*.
- **Distinct**: every name of a colliding group gets its seat's fingerprint appended
  (``"Ana #K7QF-2M9A"``); what still collides (a name typed to look like another seat's
  suffixed one) falls back to the fingerprint alone, then to 24 hex digits of the key.

The fold is deliberately small (the scripts a Latin-script table is spoofed with), not
Unicode's whole TR39 table: a false collision costs only a fingerprint suffix, and the
fingerprint is shown beside every name anyway. No I/O, no clock.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from dudo_p2p.crypto.identity import fingerprint

MAX_NAME = 32  # characters, the wire's limit on hello, welcome and genesis names
MAX_MARKS = 2  # combining marks kept on one letter ("Zalgo" text stacks dozens)
# Not Cn (unassigned): what is unassigned depends on the Python's Unicode version, and a name
# one peer keeps must be clean for every other peer too.
_DROPPED = frozenset({"Cc", "Cf", "Cs", "Co"})

# Look-alikes folded to one Latin letter (after NFKD, mark removal and casefold). Cyrillic
# and Greek letters that render like Latin ones in the table's font, and the digits and
# letters people confuse (0/o, 1/l/i, 5/s are not folded: "bot5" and "bots" are different).
_FOLD = str.maketrans({
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "һ": "h", "і": "l", "ї": "l", "ј": "j", "к": "k",
    "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s",
    "ԁ": "d", "ԛ": "q", "ԝ": "w", "ь": "b", "г": "r", "п": "n", "и": "u", "л": "n", "ӏ": "l",
    "ɡ": "g", "ɑ": "a", "ı": "l", "ȷ": "j",
    # Greek
    "α": "a", "β": "b", "γ": "y", "ε": "e", "η": "n", "ι": "l", "κ": "k", "ν": "v", "ο": "o",
    "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ω": "w", "ζ": "z", "μ": "u", "ϲ": "c", "ϳ": "j",
    # Latin and digits that pass for each other
    "0": "o", "1": "l", "i": "l", "|": "l", "ß": "ss", "æ": "ae", "œ": "oe", "ø": "o",
    "đ": "d", "ħ": "h", "ł": "l",
})


def clean(raw: str) -> str:
    """``raw`` as a name may hold it (module docstring); ``""`` when nothing printable is
    left (the caller refuses it). Idempotent: ``clean(clean(x)) == clean(x)``."""
    name = _clean_once(raw)
    for _ in range(4):  # re-composing or cutting can leave one more thing to do
        again = _clean_once(name)
        if again == name:
            break
        name = again
    return name


def _clean_once(raw: str) -> str:
    kept: list[str] = []
    marks = 0
    for ch in unicodedata.normalize("NFC", raw):
        category = unicodedata.category(ch)
        if category in _DROPPED:
            continue
        if category.startswith("Z") or ch.isspace():
            if kept and kept[-1] != " ":
                kept.append(" ")
            marks = 0
            continue
        if category in ("Mn", "Me", "Mc"):
            if not kept or kept[-1] == " " or marks >= MAX_MARKS:
                continue  # a mark on nothing, or one too many on this letter
            marks += 1
        else:
            marks = 0
        kept.append(ch)
    name = unicodedata.normalize("NFC", "".join(kept)).strip()
    return name[:MAX_NAME].rstrip()


def skeleton(name: str) -> str:
    """What ``name`` looks like, for collisions only (module docstring); never shown."""
    folded = unicodedata.normalize("NFKD", name)
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch)).casefold()
    folded = folded.translate(_FOLD)
    return "".join(ch for ch in folded if ch.isalnum())


def problem(names: Sequence[str]) -> str | None:
    """Why ``names`` cannot be a table's names (one unclean, empty or two colliding), or
    None. The genesis check: the host sends only names :func:`distinct` made."""
    for name in names:
        if not name or clean(name) != name:
            return f"the name {shown(name)} is not clean text"
    skeletons = [skeleton(n) or n for n in names]
    if len(set(skeletons)) != len(skeletons):
        return "two names look alike"
    return None


def distinct(names: Sequence[str], pubs: Sequence[bytes]) -> tuple[str, ...]:
    """``names`` (clean) made pairwise distinct by skeleton, seat by seat (module docstring).
    Names that collide with no other are returned unchanged. ``pubs`` are distinct keys."""
    levels = [0] * len(names)

    def render(i: int) -> str:
        fp = fingerprint(pubs[i])
        match levels[i]:
            case 0:
                return names[i]
            case 1:
                suffix = f" #{fp}"
                return f"{names[i][:MAX_NAME - len(suffix)].rstrip()}{suffix}"
            case 2:
                return f"#{fp}"
            case _:
                return f"#{pubs[i].hex()[:24]}"

    while True:
        shown_names = [render(i) for i in range(len(names))]
        skeletons = [skeleton(n) or n for n in shown_names]
        clash = [i for i, s in enumerate(skeletons) if skeletons.count(s) > 1 and levels[i] < 3]
        if not clash:
            return tuple(shown_names)
        for i in clash:
            levels[i] += 1


def shown(text: str) -> str:
    """``text`` safe to print on a terminal or in a log line: every character that is not
    printable (controls, format and bidirectional characters, separators, line breaks) and
    the backslash are written as Python escapes (``\\x1b``, ``\\u202e``), so what a peer
    chose can never move the cursor, clear a line or start a new log line."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == " " or (ch.isprintable() and unicodedata.category(ch) not in _DROPPED):
            out.append(ch)
        else:
            out.append(ch.encode("unicode_escape").decode("ascii"))
    return "".join(out)
