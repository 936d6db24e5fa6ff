"""Decision-time benchmark: ``decision_times(level, n)`` for the lead's p99 check.

Plays seeded in-process games (the level in every seat of a 4-seat default table, so
views range from 20 dice early to endgames) and times each ``decide`` call with
``time.perf_counter`` *around* the bot — the bot itself never reads a clock.
"""

from __future__ import annotations

import random
import time

from dudo_p2p.bots import Bot, make_bot
from dudo_p2p.rules import Action, RuleSet, SeatView
from dudo_p2p.rules.runner import play_game


def decision_times(level: str, n: int, *, seed: int = 7, players: int = 4) -> list[float]:
    """Milliseconds of ``n`` decisions by ``level`` bots (n >= 1), in the order taken."""
    times: list[float] = []
    game = 0
    while len(times) < n:
        bots = [make_bot(level, random.Random(seed * 100 + game * 10 + s)) for s in range(players)]

        def timed(view: SeatView, _rng: random.Random, bots: list[Bot] = bots) -> Action:
            bot = bots[view.seat]
            legal = view.legal_actions()
            start = time.perf_counter()
            action = bot.decide(view, legal)
            times.append((time.perf_counter() - start) * 1000.0)
            return action

        play_game(RuleSet(), players, [timed] * players, random.Random(seed + game))
        game += 1
    return times[:n]


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (0..100) by nearest rank."""
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[k]


if __name__ == "__main__":
    for lv in ("easy", "normal", "hard", "expert"):
        t = decision_times(lv, 500)
        print(f"{lv:<7} p50 {percentile(t, 50):6.2f} ms  p99 {percentile(t, 99):6.2f} ms")
