"""In-process figures: the rules engine alone, the bots' decisions, one round's cryptography.

Nothing here starts a process or opens a socket; each function returns its figures as a dict
keyed by the JSON keys of :mod:`dudo_p2p.bench.main`.
"""

from __future__ import annotations

import random
import time

from dudo_p2p.bench.figures import percentile
from dudo_p2p.bots.bench import decision_times
from dudo_p2p.crypto.bench import round_cost
from dudo_p2p.rules import RuleSet
from dudo_p2p.rules.runner import play_game, random_legal_player

BOT_LEVELS = ("easy", "normal", "hard", "expert")


def inproc_games(seconds: float, *, players: int = 4, seed: int = 1) -> dict[str, float]:
    """Whole default-rules games of ``players`` random-legal players, played back to back for
    at least ``seconds`` (and at least 3 games). Keys: "inproc_games_per_s" and
    "inproc_actions_per_s" (applied actions, dice draws included)."""
    rules = RuleSet()
    seats = [random_legal_player] * players
    games = actions = 0
    start = time.perf_counter()
    while games < 3 or time.perf_counter() - start < seconds:
        record = play_game(rules, players, seats, random.Random(seed + games))
        games += 1
        actions += len(record.actions)
    elapsed = time.perf_counter() - start
    return {"inproc_games_per_s": games / elapsed, "inproc_actions_per_s": actions / elapsed}


def bot_decisions(decisions: int) -> dict[str, dict[str, float]]:
    """p50 and p99 milliseconds of ``decisions`` seeded decisions per bot level (4-seat games
    of that level, see ``bots.bench.decision_times``). Keys: "bot_decision_ms_p99" and
    "bot_decision_ms_p50", each {level: ms}."""
    p99: dict[str, float] = {}
    p50: dict[str, float] = {}
    for level in BOT_LEVELS:
        times = decision_times(level, decisions)
        p99[level] = percentile(times, 99)
        p50[level] = percentile(times, 50)
    return {"bot_decision_ms_p99": p99, "bot_decision_ms_p50": p50}


def crypto_round(repeats: int) -> dict[str, dict[str, float]]:
    """``crypto.bench.round_cost`` for a 6-seat table, as {"crypto_round_us": {step: us}}."""
    return {"crypto_round_us": round_cost(6, repeats)}
