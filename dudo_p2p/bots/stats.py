"""Statistics the tournament reports: Wilson score intervals and Elo differences.

Pure functions, standard library only. A win rate measured over ``n`` games is a binomial
proportion; the Wilson interval is used rather than the normal approximation because it
stays inside [0, 1] and is honest at small ``n`` and near 0 or 1 (a smoke test of 40
games, a 95 % win rate).
"""

from __future__ import annotations

import math

#: z for a two-sided 95 % interval.
Z95 = 1.959963984540054


def wilson_interval(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Return the Wilson score interval ``(lo, hi)`` for ``wins`` successes in ``n`` trials.

    ``wins`` may be fractional (a shared win counts as a fraction). ``n == 0`` returns
    ``(0.0, 1.0)``: nothing is known. Raises ``ValueError`` when ``wins`` is outside [0, n].
    """
    if n < 0 or wins < 0 or wins > n:
        raise ValueError(f"need 0 <= wins <= n, got wins={wins}, n={n}")
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def elo_difference(score: float) -> float:
    """Elo difference implied by an expected score ``score`` in (0, 1) against the field.

    ``400 * log10(s / (1 - s))``; clamps to ±800 at the extremes (a 100 % or 0 % score says
    "much stronger", not "infinitely").
    """
    clamped = min(max(score, 1e-3), 1 - 1e-3)
    value = 400.0 * math.log10(clamped / (1.0 - clamped))
    return max(-800.0, min(800.0, value))


def fair_share_score(win_rate: float, players: int) -> float:
    """Map a win rate in a ``players``-seat game to a head-to-head style score in [0, 1].

    With ``players`` seats a level that is exactly as strong as the field wins ``1/players``
    of the games; this maps that fair share to 0.5 so the Elo difference of a 4-player
    table reads like a 2-player one: score = w / (w + (1 - w) / (players - 1)).
    """
    if players < 2:
        raise ValueError("players must be >= 2")
    others = (1.0 - win_rate) / (players - 1)
    total = win_rate + others
    return 0.5 if total <= 0 else win_rate / total
