"""How fast a bot plays when a person watches: think times a human can follow.

In a game with a human, a bot that acts within milliseconds of the player's bid is never
seen playing, and once the player is out ten rounds flash past in a second (issue 15). A
:class:`Pacer` makes each of the bot's decisions wait a think time drawn from the bot's own
seeded RNG (:data:`THINK_S`: 0.7 to 2 s, not a fixed delay), and the first decision after a
round was revealed waits :data:`REVEAL_READ_S` more, so the reveal can be read before the
next round moves. :meth:`Pacer.hurry` (the player's "skip to the end") drops every wait from
then on. Headless tables (``sim``, ``tournament``, ``bench``, tests) use no pacer: bots stay
instant there.

Pure: the caller passes ``now`` (the node's clock); nothing here reads a clock or sleeps.
"""

from __future__ import annotations

import random
from collections.abc import Hashable

THINK_S = (0.7, 2.0)  # a bot in a human game thinks this long (uniform, its own RNG)
REVEAL_READ_S = 4.0  # ... and this much longer on its first decision after a reveal


class Pacer:
    """When a paced bot may act (module docstring). ``think``: the (lowest, highest) think
    time in seconds; ``reveal_read``: the extra wait after a reveal."""

    def __init__(self, rng: random.Random, think: tuple[float, float] = THINK_S,
                 reveal_read: float = REVEAL_READ_S) -> None:
        lo, hi = think
        if not 0 <= lo <= hi:
            raise ValueError(f"a think time is 0 <= lowest <= highest, not {think}")
        self.rng = rng
        self.think = (lo, hi)
        self.reveal_read = reveal_read
        self.hurried = False
        self._decision: Hashable | None = None
        self._act_at = 0.0
        self._revealed = False

    def revealed(self) -> None:
        """A round was just revealed: the next decision waits for the players to read it."""
        self._revealed = True

    def hurry(self) -> None:
        """No more waiting, for the rest of the game (the player skipped to the end)."""
        self.hurried = True

    def ready(self, decision: Hashable, now: float) -> bool:
        """May the bot act on ``decision`` (anything that names the decision: a new value
        starts a new think time) at ``now``?"""
        if self.hurried:
            return True
        if decision != self._decision:
            self._decision = decision
            wait = self.rng.uniform(*self.think)
            if self._revealed:
                wait += self.reveal_read
                self._revealed = False
            self._act_at = now + wait
        return now >= self._act_at

    def act_at(self) -> float:
        """When the decision in hand may be acted on (the last :meth:`ready` drew it)."""
        return self._act_at


def parse_think(text: str) -> tuple[float, float]:
    """``"0.7-2"`` (seconds, lowest-highest) or ``"1.5"`` (always that) as a pair;
    ValueError for anything else (argparse turns it into a usage message)."""
    lo, sep, hi = text.partition("-")
    pair = (float(lo), float(hi) if sep else float(lo))
    if not 0 <= pair[0] <= pair[1] <= 60:
        raise ValueError(text)
    return pair
