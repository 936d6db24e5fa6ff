"""Every word the table shows, in Spanish and English, under the same keys: the words in
``catalogue_es.py`` and ``catalogue_en.py``, the rule texts in ``rule_texts.py``, the resume
prompt's in ``resume_texts.py``; here, the one :data:`CATALOGUE` of them all, the keys picked
from a value at run time, and :class:`Tr`.

``Tr(lang)(key, **args)`` formats one message with ``str.format``. Keys are plain string
literals in the code (never built with f-strings), so a test can check that every key used
exists in both languages. Game terms follow rules.md: pinta, As, Tonto, Tren, Cuadra, Quina,
Sexto, cacho, apuesta, ¡Dudo!, ¡Calzo!, palifico.
"""

from __future__ import annotations

from collections.abc import Mapping

from dudo_p2p.rules.actions import PalificoMode
from dudo_p2p.session import CheatKind, Outcome, Reason
from dudo_p2p.ui import catalogue_en, catalogue_es, resume_texts, rule_texts

LANGS = ("es", "en")

# Keys picked from a value at run time are listed here, so the catalogue test sees them.
FACE_KEYS = ("face.1", "face.2", "face.3", "face.4", "face.5", "face.6")
LEVEL_KEYS = {"easy": "level.easy", "normal": "level.normal", "hard": "level.hard",
              "expert": "level.expert"}
TALK_KEYS = ("talk.1", "talk.2", "talk.3", "talk.4", "talk.5", "talk.6", "talk.7", "talk.8")
# one key per removal reason and cheat kind the table can emit (their enums say which), and
# the older names some callers still use
LEFT_REASON_KEYS = {r.value: r.key for r in Reason} | {
    "forfeit": "left.forfeit",
    "eliminated": "left.eliminated",
}
CHEAT_KEYS = {c.value: c.key for c in CheatKind} | {
    "bad_reveal": "cheat.bad_reveal",
    "bad_signature": "cheat.bad_signature",
}
OUTCOME_KEYS = {o.value: o.key for o in Outcome}
# why a join stopped: the lobby's refusal reasons (protocol/refusals.py), by wire value
REFUSAL_KEYS = {
    "full": "refused.full", "started": "refused.started",
    "unknown_table": "refused.unknown_table", "bad_name": "refused.bad_name",
    "wrong_host": "refused.wrong_host", "ambiguous": "refused.ambiguous",
    "no_open_table": "refused.no_open_table", "other": "refused.other",
    "removed": "refused.removed", "gone": "refused.gone", "closed": "refused.closed",
    "version": "refused.version",
}
KIND_KEYS = {
    "dudo": "reveal.kind.dudo",
    "calzo": "reveal.kind.calzo",
    "matar": "reveal.kind.matar",
    "pasar": "reveal.kind.pasar",
    "picado": "reveal.kind.picado",
}
VALUE_KEYS = {
    "ceil_half": "value.ceil_half",
    "half_plus_one": "value.half_plus_one",
    "nothing": "value.nothing",
    "bidder_loses": "value.bidder_loses",
    "bank": "value.bank",
    "forbidden": "value.forbidden",
}


def value_label(tr: Tr, value: bool | int | str) -> str:
    """A rule field's value in words: sí/no, a named value ("mitad"), or the number."""
    if isinstance(value, bool):
        return tr("common.yes") if value else tr("common.no")
    if isinstance(value, str):
        return tr(VALUE_KEYS.get(value, value))
    return str(value)


PALIFICO_MODE_KEYS: dict[str, str] = {mode: f"palifico.{mode.value}" for mode in PalificoMode}


# the one catalogue: the words, the rule texts (rule_texts.py) and the resume prompt's
CATALOGUE: Mapping[str, Mapping[str, str]] = {
    "es": {**catalogue_es.ES, **rule_texts.ES, **resume_texts.ES},
    "en": {**catalogue_en.EN, **rule_texts.EN, **resume_texts.EN},
}


def default_lang(environ: Mapping[str, str]) -> str:
    """Pick the language from the locale variables: English when they say so, else Spanish."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANGUAGE", "LANG"):
        value = environ.get(var, "").lower()
        if value.startswith("en"):
            return "en"
        if value.startswith("es"):
            return "es"
    return "es"


class Tr:
    """A translator bound to one language; unknown keys show as the key itself, never crash."""

    def __init__(self, lang: str) -> None:
        if lang not in CATALOGUE:
            raise ValueError(f"unknown language {lang!r}; expected one of {LANGS}")
        self.lang = lang

    def __call__(self, key: str, /, **args: object) -> str:
        """The message ``key`` formatted with ``args``."""
        template = CATALOGUE[self.lang].get(key, key)
        try:
            return template.format(**args)
        except (KeyError, IndexError):
            return template

    def has(self, key: str) -> bool:
        """True when ``key`` is in the catalogue."""
        return key in CATALOGUE[self.lang]

    def dice(self, n: int) -> str:
        """"1 dado" / "3 dados" in the current language."""
        return self("common.dice_one") if n == 1 else self("common.dice_many", n=n)

    def face(self, face: int) -> str:
        """The name of a face (As, Tonto, ... / Ace, Two, ...)."""
        return self(FACE_KEYS[face - 1])
