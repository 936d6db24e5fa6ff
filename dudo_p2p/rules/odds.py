"""The probability guide of seeds 001 and 003: how likely a bid holds, given one's own dice.

Each unseen die counts for a face with probability 1/3 (the face or a wild ace) or 1/6 (a bid
on aces, or a round without wilds); exact binomial tails, no sampling. Shared by the table's
probability hint and the bots, so both say the same thing. Pure, standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from dudo_p2p.rules.legality import count_showing


def match_probability(face: int, *, wild: bool) -> float:
    """Chance that one unseen die counts for a bid on ``face``."""
    return 1.0 / 3.0 if wild and face != 1 else 1.0 / 6.0


def chance_at_least(
    count: int, face: int, own: Iterable[int], unseen: int, *, wild: bool
) -> float:
    """P(the table holds at least ``count`` dice for ``face``) knowing our dice ``own`` and
    that ``unseen`` other dice are hidden; 1.0 when our own dice already cover the bid."""
    need = count - count_showing(own, face, wild=wild)
    if need <= 0:
        return 1.0
    if need > unseen:
        return 0.0
    p = match_probability(face, wild=wild)
    return sum(
        math.comb(unseen, k) * p**k * (1 - p) ** (unseen - k) for k in range(need, unseen + 1)
    )


def expected_total(face: int, own: Iterable[int], unseen: int, *, wild: bool) -> float:
    """Our dice that count for ``face`` plus the expected matches among the unseen ones."""
    return count_showing(own, face, wild=wild) + unseen * match_probability(face, wild=wild)
