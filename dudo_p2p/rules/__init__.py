"""The pure Dudo engine: bids, rule sets, legality, the game state machine, a runner.

Standard library only (plus ``dudo_p2p.errors``): no I/O, no clock, no global ``random``.
See ``rules.md`` for D1–D16 / V1–V20 and protocol.md §1 for every decision taken here.
"""

from dudo_p2p.rules.actions import (
    PALIFICO_MODES,
    Action,
    Calzo,
    ChooseDirection,
    ChoosePalifico,
    DoubtClaim,
    Dudo,
    EnvAction,
    Matar,
    OpenerDraw,
    PalificoMode,
    Pasar,
    Picado,
    PlayerAction,
    Raise,
    Remove,
    Reveal,
    Spin,
)
from dudo_p2p.rules.bid import FACE_NAMES, Bid, spell_count
from dudo_p2p.rules.legality import (
    RaiseContext,
    count_showing,
    is_legal_raise,
    is_pasar_hand,
    min_raise,
    why_not_raise,
)
from dudo_p2p.rules.results import PalificoInfo, Phase, RoundResult, SeatCounts
from dudo_p2p.rules.ruleset import VARIANTS, RuleSet, VariantInfo
from dudo_p2p.rules.state import GameState, SeatView

__all__ = [
    "FACE_NAMES",
    "PALIFICO_MODES",
    "VARIANTS",
    "Action",
    "Bid",
    "Calzo",
    "ChooseDirection",
    "ChoosePalifico",
    "DoubtClaim",
    "Dudo",
    "EnvAction",
    "GameState",
    "Matar",
    "OpenerDraw",
    "PalificoInfo",
    "PalificoMode",
    "Pasar",
    "Phase",
    "Picado",
    "PlayerAction",
    "Raise",
    "RaiseContext",
    "Remove",
    "Reveal",
    "RoundResult",
    "RuleSet",
    "SeatCounts",
    "SeatView",
    "Spin",
    "VariantInfo",
    "count_showing",
    "is_legal_raise",
    "is_pasar_hand",
    "min_raise",
    "spell_count",
    "why_not_raise",
]
