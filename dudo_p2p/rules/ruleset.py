"""The rule set a table plays: the default table D1–D16 plus one field per variant V1–V20.

``RuleSet()`` is the default table of ``rules.md``. Every field is checked in ``__post_init__``;
a bad value or a combination that cannot hold raises ``InvalidRuleSet`` naming the field.
``VARIANTS`` gives, per field, its rule number and the allowed values (the UI's rules screen
and ``--rule NAME=VALUE`` read it); the line explaining each field, in Spanish and English, is
in the UI's one catalogue (``ui/rule_texts.py``).

Decisions implemented here (the same words are in protocol.md §1):

- Refused rule sets (InvalidRuleSet naming the field): calza=false with any calza option on;
  palifico=false with any palifico option on (palifico_wilds, palifico_face_change,
  palifico_open_closed, palifico_optional, obligar_anytime); aces_wild=false with
  aces_conversion="half_plus_one", palifico_wilds or juego_sucio; pasar_no_consecutive without
  pasar; revolver with calza_full_hand other than "nothing", calza_after_loss or siciliana
  (under the revolver nobody loses dice).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, fields

from dudo_p2p.errors import InvalidRuleSet

__all__ = ["VARIANTS", "RuleSet", "VariantInfo"]

_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off"}


@dataclass(frozen=True, slots=True)
class VariantInfo:
    """One rule-set field: its rule number ("V3", "D15") and allowed values."""

    field: str
    rule: str
    allowed: tuple[bool | int | str, ...]


def _v(field: str, rule: str, *allowed: bool | int | str) -> VariantInfo:
    return VariantInfo(field, rule, allowed or (False, True))


#: Per RuleSet field: its rule number and the allowed values (the lines explaining each, in
#: Spanish and English, are the UI's: ui/rule_texts.py).
VARIANTS: dict[str, VariantInfo] = {
    v.field: v
    for v in (
        _v("starting_dice", "V1", 3, 4, 5),
        _v("aces_conversion", "V2", "ceil_half", "half_plus_one"),
        _v("calza", "V7"),
        _v("calza_threshold", "V3"),
        _v("calza_full_hand", "V4", "nothing", "bidder_loses", "bank", "forbidden"),
        _v("calza_anyone", "V5"),
        _v("calza_after_loss", "V6"),
        _v("aces_wild", "D10/V8"),
        _v("palifico", "D15"),
        _v("palifico_wilds", "V9"),
        _v("palifico_face_change", "V10"),
        _v("palifico_open_closed", "V11"),
        _v("palifico_optional", "V12"),
        _v("obligar_anytime", "V13"),
        _v("direction_each_round", "V14"),
        _v("siciliana", "V15"),
        _v("matar", "V16"),
        _v("picado", "V17"),
        _v("pasar", "V18"),
        _v("pasar_no_consecutive", "V18"),
        _v("juego_sucio", "V19"),
        _v("revolver", "V20"),
    )
}


@dataclass(frozen=True, slots=True)
class RuleSet:
    """A table's rules. Defaults are the default table D1–D16; each other value is a variant.

    Raises ``InvalidRuleSet`` (naming the field) for a bad value or a refused combination
    (listed in the module docstring).
    """

    starting_dice: int = 5
    aces_conversion: str = "ceil_half"
    calza: bool = True
    calza_threshold: bool = False
    calza_full_hand: str = "nothing"
    calza_anyone: bool = False
    calza_after_loss: bool = False
    aces_wild: bool = True
    palifico: bool = True
    palifico_wilds: bool = False
    palifico_face_change: bool = False
    palifico_open_closed: bool = False
    palifico_optional: bool = False
    obligar_anytime: bool = False
    direction_each_round: bool = False
    siciliana: bool = False
    matar: bool = False
    picado: bool = False
    pasar: bool = False
    pasar_no_consecutive: bool = False
    juego_sucio: bool = False
    revolver: bool = False

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            allowed = VARIANTS[f.name].allowed
            # Compare types too: True == 1 must not pass for starting_dice, nor 1 for a bool.
            if not any(type(value) is type(a) and value == a for a in allowed):
                shown = ", ".join(repr(a) for a in allowed)
                raise InvalidRuleSet(f"{f.name} must be one of {shown}, not {value!r}")
        self._check_combinations()

    def _check_combinations(self) -> None:
        def refuse(name: str, why: str) -> None:
            raise InvalidRuleSet(f"{name}: {why}")

        if not self.calza:
            for name in ("calza_threshold", "calza_anyone", "calza_after_loss"):
                if getattr(self, name):
                    refuse(name, "needs calza=true (there is no ¡Calzo! with calza=false)")
            if self.calza_full_hand != "nothing":
                refuse("calza_full_hand", "needs calza=true (there is no ¡Calzo! with calza=false)")
        if not self.palifico:
            for name in ("palifico_wilds", "palifico_face_change", "palifico_open_closed",
                         "palifico_optional", "obligar_anytime"):
                if getattr(self, name):
                    refuse(name, "needs palifico=true")
        if not self.aces_wild:
            if self.aces_conversion != "ceil_half":
                refuse("aces_conversion", "has no meaning when aces_wild=false (no conversion)")
            if self.palifico_wilds:
                refuse("palifico_wilds", "aces cannot stay wild when aces_wild=false")
            if self.juego_sucio:
                refuse("juego_sucio", "with aces_wild=false every round already plays aces plain")
        if self.pasar_no_consecutive and not self.pasar:
            refuse("pasar_no_consecutive", "needs pasar=true")
        if self.revolver:
            if self.calza_full_hand != "nothing":
                refuse("calza_full_hand", "must be 'nothing' with revolver (nobody loses dice)")
            if self.calza_after_loss:
                refuse("calza_after_loss", "cannot hold with revolver (nobody ever loses a die)")
            if self.siciliana:
                refuse("siciliana", "cannot hold with revolver (a lost challenge costs no dice)")

    # ---- conversions -------------------------------------------------------------------

    def to_dict(self) -> dict[str, bool | int | str]:
        """Every field by name (the value carried in the table log's rule-set entry)."""
        return dict(asdict(self))

    @classmethod
    def from_dict(cls, d: Mapping[str, object]) -> RuleSet:
        """Build from a mapping; unknown key -> ``InvalidRuleSet`` naming it; missing -> default."""
        if not isinstance(d, Mapping):
            raise InvalidRuleSet(f"a rule set is a mapping of option names, not {type(d).__name__}")
        for key in d:
            if key not in VARIANTS:
                raise InvalidRuleSet(f"unknown rule option {key!r}")
        return cls(**d)  # type: ignore[arg-type]  # __post_init__ checks every value's type

    def with_option(self, name: str, value: str) -> RuleSet:
        """A copy with ``name`` set from a command-line string, parsed by the field's type."""
        if name not in VARIANTS:
            raise InvalidRuleSet(f"unknown rule option {name!r}")
        current = getattr(self, name)
        text = value.strip().lower()
        parsed: bool | int | str
        if isinstance(current, bool):
            if text in _TRUE:
                parsed = True
            elif text in _FALSE:
                parsed = False
            else:
                raise InvalidRuleSet(
                    f"{name} takes true/false (yes/no, 1/0, on/off), not {value!r}"
                )
        elif isinstance(current, int):
            try:
                parsed = int(text)
            except ValueError:
                raise InvalidRuleSet(f"{name} takes a whole number, not {value!r}") from None
        else:
            parsed = text
        options = self.to_dict()
        options[name] = parsed
        return RuleSet.from_dict(options)

    @classmethod
    def parse_options(cls, options: Iterable[str]) -> RuleSet:
        """Apply ``NAME=VALUE`` strings in order to the default table."""
        rules = cls()
        for option in options:
            name, sep, value = option.partition("=")
            if not sep:
                raise InvalidRuleSet(f"a rule option is written NAME=VALUE, not {option!r}")
            rules = rules.with_option(name.strip(), value)
        return rules
