"""Which sound marks which game event, and when: the table's cue sheet.

Pure (no pygame): ``action_sound`` names the sound of a move, ``reveal_cues`` lays out a
reveal's sounds on its timeline, and :class:`Cues` holds sounds due later (the cup slammed down
when the shaking stops, the die lost once every cup is up) until the scene's clock reaches
them. Sounds are not motion: reduced motion keeps them, at the same moments.
"""

from __future__ import annotations

from collections.abc import Callable

from dudo_p2p.rules import (
    Action,
    Calzo,
    DoubtClaim,
    Dudo,
    Matar,
    Pasar,
    Picado,
    Raise,
    RoundResult,
)
from dudo_p2p.ui.motion import RevealTimeline

HURRY_TICK_S = 5  # the timer ticks each of our turn's last seconds


def action_sound(action: Action) -> str | None:
    """The sound of a move at the table (None: a setup choice, heard as nothing)."""
    match action:
        case Raise() | Picado() | Pasar():
            return "bid"
        case Dudo() | DoubtClaim() | Matar():
            return "dudo"
        case Calzo():
            return "calzo"
    return None


def reveal_cues(result: RoundResult, timeline: RevealTimeline) -> list[tuple[float, str]]:
    """The reveal's sounds: the cups at once, then the dice lost and won as they fly, then
    each revolver spin (a click, or the bang)."""
    cues = [(timeline.started, "reveal")]
    if result.losses:
        cues.append((timeline.all_up, "lose"))
    if result.gains:
        cues.append((timeline.all_up, "gain"))
    for i, (_seat, fired) in enumerate(result.shots):
        cues.append((timeline.shots_at + 0.5 * i, "bang" if fired else "click"))
    return cues


class Cues:
    """Sounds due at given times; ``play`` is called for each when its time comes."""

    def __init__(self, play: Callable[[str], None]) -> None:
        self._play = play
        self.pending: list[tuple[float, str]] = []

    def now(self, name: str) -> None:
        """Play ``name`` at once."""
        self._play(name)

    def at(self, when: float, name: str) -> None:
        """Play ``name`` when the clock reaches ``when``."""
        self.pending.append((when, name))
        self.pending.sort()

    def run(self, now: float) -> None:
        """Play every cue that is due."""
        while self.pending and self.pending[0][0] <= now:
            self._play(self.pending.pop(0)[1])

    def flush(self) -> None:
        """Play every pending cue now (the player skipped ahead: the news is still heard)."""
        pending, self.pending = self.pending, []
        for _, name in pending:
            self._play(name)
