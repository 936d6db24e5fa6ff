"""Bots for every seat a human does not fill: easy, normal, hard, expert (and random).

The sparring pool (``pool:binomial``, ``pool:tight``, ...) are outside styles the tournament
seats to test the levels against; they are not levels.

``make_bot(level, rng)`` returns a fresh :class:`Bot` (one per seat per game: hard and
expert learn about their opponents during the game). ``bot.decide(view, legal)`` reads only
the seat's ``SeatView`` — its own dice, dice the view carries in an open palifico round, and
the public history — and returns one element of ``legal``. Bots take an injected
``random.Random``; they never call the global ``random`` or read a clock.

``as_player(bot)`` adapts a bot to ``rules.runner.play_game``'s player signature.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from dudo_p2p.bots.expert import ExpertBot
from dudo_p2p.bots.levels import Bot, EasyBot, RandomBot, ScoringBot
from dudo_p2p.bots.pool import POOL, PREFIX, make_pool_bot
from dudo_p2p.rules import Action, SeatView

__all__ = ["LEVELS", "POOL", "Bot", "as_player", "make_bot"]

#: Every level ``make_bot`` knows, weakest first.
LEVELS = ("random", "easy", "normal", "hard", "expert")


def make_bot(level: str, rng: random.Random) -> Bot:
    """A new bot of ``level`` drawing its randomness from ``rng``; ``ValueError`` if unknown.

    ``level`` is one of :data:`LEVELS` or a sparring-pool member ``pool:<style>`` (see
    :mod:`dudo_p2p.bots.pool`; the tournament seats those, the lobby never offers them).
    """
    if level.startswith(PREFIX):
        return make_pool_bot(level, rng)
    if level == "random":
        return RandomBot(rng)
    if level == "easy":
        return EasyBot(rng)
    if level in ("normal", "hard"):
        return ScoringBot(rng, level)
    if level == "expert":
        return ExpertBot(rng)
    raise ValueError(f"unknown bot level {level!r}; choose one of {', '.join(LEVELS)}")


def as_player(bot: Bot) -> Callable[[SeatView, random.Random], Action]:
    """``play_game`` player calling ``bot.decide`` with the view's legal actions."""

    def play(view: SeatView, _rng: random.Random) -> Action:
        return bot.decide(view, view.legal_actions())

    return play
