"""A table's rules as the discovery beacon carries them (protocol.md §5.3): the starting dice
in one byte, every other rule-set field packed in the 32-bit ``variants`` word.

The beacon is a hint (the rules a joiner plays are the genesis's, shown in the waiting room
from the ``welcome``), but the LAN list shows them before anyone joins: each table's dice and
the variants that differ from the default table. Pure: no I/O.

The word's layout, least significant bit first: the fields of :data:`LAYOUT` in that order,
each taking as many bits as its allowed values need (1 for a yes/no rule, 2 for
``calza_full_hand``), holding the index of its value in its :data:`CHOICES` list, whose first
value is the default. So the default table is the word 0, and a bit set is a variant on.
Bits past the layout must be 0.
"""

from __future__ import annotations

from typing import Final

from dudo_p2p.errors import DecodeError, InvalidRuleSet
from dudo_p2p.rules import VARIANTS, RuleSet

_DEFAULT: Final = RuleSet()

#: The packed fields, in bit order (every RuleSet field but starting_dice, which has its own
#: byte). A new rule-set field changes the beacon: it is appended here and the version bumps.
LAYOUT: Final = (
    "aces_conversion", "calza", "calza_threshold", "calza_full_hand", "calza_anyone",
    "calza_after_loss", "aces_wild", "palifico", "palifico_wilds", "palifico_face_change",
    "palifico_open_closed", "palifico_optional", "obligar_anytime", "direction_each_round",
    "siciliana", "matar", "picado", "pasar", "pasar_no_consecutive", "juego_sucio", "revolver",
)


def _choices(field: str) -> tuple[bool | int | str, ...]:
    default = getattr(_DEFAULT, field)
    return (default, *(v for v in VARIANTS[field].allowed if v != default))


#: Per packed field: its values, the default first (the index is what the bits hold).
CHOICES: Final = {field: _choices(field) for field in LAYOUT}
#: Per packed field: (first bit, number of bits).
BITS: Final[dict[str, tuple[int, int]]] = {}
_at = 0
for _field in LAYOUT:
    _width = max(1, (len(CHOICES[_field]) - 1).bit_length())
    BITS[_field] = (_at, _width)
    _at += _width
#: Bits the layout uses (22); the word's others are 0.
VARIANT_BITS: Final = _at
assert VARIANT_BITS <= 32 and set(LAYOUT) | {"starting_dice"} == set(VARIANTS)


def pack(rules: RuleSet) -> tuple[int, int]:
    """(starting dice, variants word) of ``rules``."""
    word = 0
    for field in LAYOUT:
        first, _ = BITS[field]
        word |= CHOICES[field].index(getattr(rules, field)) << first
    return rules.starting_dice, word


def unpack(dice: int, word: int) -> RuleSet:
    """The rule set a beacon's ``dice`` and ``word`` say. DecodeError (saying why) for bits
    past the layout, an index past a field's values, or values that do not make a rule set
    (starting dice not allowed, a refused combination)."""
    if not 0 <= word < 1 << VARIANT_BITS:
        raise DecodeError(f"variants word {word:#x} sets bits past the {VARIANT_BITS} known")
    options: dict[str, object] = {"starting_dice": dice}
    for field in LAYOUT:
        first, width = BITS[field]
        index = (word >> first) & ((1 << width) - 1)
        if index >= len(CHOICES[field]):
            raise DecodeError(f"variants word: {field} has no value {index}")
        options[field] = CHOICES[field][index]
    try:
        return RuleSet.from_dict(options)
    except InvalidRuleSet as exc:
        raise DecodeError(f"beacon rules: {exc}") from None

