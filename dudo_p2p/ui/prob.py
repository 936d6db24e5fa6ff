"""The probability hint: how likely the standing bid holds, given our own dice.

Each unseen die counts for a face with probability 1/3 (the face or a wild ace) or 1/6 (a bid
on aces, or no wilds this round), the seed-003 guide; exact binomial tails, no sampling.
"""

from __future__ import annotations

import math
from collections.abc import Iterable


def match_chance(face: int, *, wild: bool) -> float:
    """Chance one unseen die counts for ``face``."""
    return 1.0 / 3.0 if wild and face != 1 else 1.0 / 6.0


def counted(dice: Iterable[int], face: int, *, wild: bool) -> int:
    """How many of ``dice`` count for ``face`` (aces too when ``wild`` and face is not 1)."""
    return sum(1 for d in dice if d == face or (wild and face != 1 and d == 1))


def chance_at_least(count: int, face: int, own: Iterable[int], unseen: int, *,
                    wild: bool) -> float:
    """P(the table holds at least ``count`` of ``face``) knowing our dice ``own`` and that
    ``unseen`` other dice are hidden. 1.0 when our own dice already cover the bid."""
    need = count - counted(own, face, wild=wild)
    if need <= 0:
        return 1.0
    if need > unseen:
        return 0.0
    p = match_chance(face, wild=wild)
    return sum(math.comb(unseen, k) * p**k * (1 - p) ** (unseen - k)
               for k in range(need, unseen + 1))


def expected_total(face: int, own: Iterable[int], unseen: int, *, wild: bool) -> float:
    """Our matching dice plus the expected matches among the ``unseen`` ones."""
    return counted(own, face, wild=wild) + unseen * match_chance(face, wild=wild)
