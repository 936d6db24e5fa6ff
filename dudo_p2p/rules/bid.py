"""A bid: "at least `count` dice on the whole table show `face`" (D4).

``Bid`` is a frozen value that prints and parses back, as python-chess's ``Move`` does::

    >>> Bid.parse("4x5")
    Bid(count=4, face=5)
    >>> str(Bid(4, 5))
    '4x5'
    >>> Bid(4, 5).spoken("es"), Bid(1, 1).spoken("en")
    ('cuatro quinas', 'one ace')

A malformed bid (count below 1, face outside 1..6, text that is not ``<count>x<face>``) raises
``InvalidBid``. Whether a bid is *legal* now is another question, answered by ``legality``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dudo_p2p.errors import InvalidBid

__all__ = ["FACE_NAMES", "Bid", "spell_count"]

# Counts beyond a few digits are junk from the wire: no table holds more than 30 dice.
_BID_RE = re.compile(r"\s*([0-9]{1,4})\s*[xX]\s*([1-6])\s*")

# (singular, plural, feminine?) per face, Spanish table slang of the seeds.
_ES_FACES: dict[int, tuple[str, str, bool]] = {
    1: ("as", "ases", False),
    2: ("tonto", "tontos", False),
    3: ("tren", "trenes", False),
    4: ("cuadra", "cuadras", True),
    5: ("quina", "quinas", True),
    6: ("sexto", "sextos", False),
}
_EN_FACES: dict[int, tuple[str, str]] = {
    1: ("ace", "aces"),
    2: ("two", "twos"),
    3: ("three", "threes"),
    4: ("four", "fours"),
    5: ("five", "fives"),
    6: ("six", "sixes"),
}
#: Display names of the faces, per language (UI labels; plural form).
FACE_NAMES: dict[str, dict[int, str]] = {
    "es": {f: names[1] for f, names in _ES_FACES.items()},
    "en": {f: names[1] for f, names in _EN_FACES.items()},
}

_ES_NUMBERS = (
    "cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez",
    "once", "doce", "trece", "catorce", "quince", "dieciséis", "diecisiete", "dieciocho",
    "diecinueve", "veinte", "veintiuno", "veintidós", "veintitrés", "veinticuatro",
    "veinticinco", "veintiséis", "veintisiete", "veintiocho", "veintinueve", "treinta"
)
_EN_NUMBERS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen", "twenty", "twenty-one", "twenty-two", "twenty-three", "twenty-four",
    "twenty-five", "twenty-six", "twenty-seven", "twenty-eight", "twenty-nine", "thirty"
)


def spell_count(n: int, lang: str, *, feminine: bool = False) -> str:
    """Spell ``n`` in words up to 30 (digits beyond), agreeing in gender in Spanish."""
    if lang not in ("es", "en"):
        raise InvalidBid(f"unknown language {lang!r} (use 'es' or 'en')")
    if n < 0 or n > 30:
        return str(n)
    if lang == "en":
        return _EN_NUMBERS[n]
    word = _ES_NUMBERS[n]
    # "uno" is apocopated before a noun: un as, una quina, veintiún tontos, veintiuna quinas.
    if n == 1:
        return "una" if feminine else "un"
    if n == 21:
        return "veintiuna" if feminine else "veintiún"
    return word


@dataclass(frozen=True, slots=True)
class Bid:
    """``count`` dice showing ``face`` (1 = aces). Raises ``InvalidBid`` if malformed."""

    count: int
    face: int

    def __post_init__(self) -> None:
        # bool is an int subclass; True is not a count.
        if not isinstance(self.count, int) or isinstance(self.count, bool) or self.count < 1:
            raise InvalidBid(f"a bid's count must be a whole number from 1, not {self.count!r}")
        if not isinstance(self.face, int) or isinstance(self.face, bool) or not 1 <= self.face <= 6:
            raise InvalidBid(f"a bid's face must be 1..6, not {self.face!r}")

    @classmethod
    def parse(cls, text: str) -> Bid:
        """Parse ``"<count>x<face>"`` (e.g. ``"4x5"``); anything else raises ``InvalidBid``."""
        if not isinstance(text, str):
            raise InvalidBid(f"a bid is written like '4x5', not {text!r}")
        m = _BID_RE.fullmatch(text)
        if m is None:
            raise InvalidBid(f"a bid is written like '4x5', not {text!r}")
        return cls(int(m.group(1)), int(m.group(2)))

    def __str__(self) -> str:
        return f"{self.count}x{self.face}"

    def spoken(self, lang: str = "es") -> str:
        """The bid as a player says it: ``"cuatro quinas"``, ``"un as"``, ``"four fives"``."""
        if lang == "es":
            singular, plural, feminine = _ES_FACES[self.face]
            noun = singular if self.count == 1 else plural
            return f"{spell_count(self.count, 'es', feminine=feminine)} {noun}"
        if lang == "en":
            singular, plural = _EN_FACES[self.face]
            noun = singular if self.count == 1 else plural
            return f"{spell_count(self.count, 'en')} {noun}"
        raise InvalidBid(f"unknown language {lang!r} (use 'es' or 'en')")
