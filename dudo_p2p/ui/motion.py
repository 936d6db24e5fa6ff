"""When things move on the table: durations, easing, and the reveal's timeline.

Pure functions of the injected clock (no pygame). Every animation is a progress from 0 to 1
that reaches exactly 1 at its end, and at 1 the picture is the one drawn without animation:
so skipping (:class:`Motion.skip`), reduced motion and simply waiting all end in the same
state. ``Motion`` holds the two switches: reduced motion (every progress is 1 at once) and the
time of the last skip (everything started before it is done).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SHAKE_S = 1.1  # the cups rattle at the start of a round
ROLL_S = 0.5  # then our dice tumble to a stop (faces flicker, the tilt dies down)
LIFT_S = 0.45  # one cup rising at a reveal
LIFT_STAGGER_S = 0.22  # the next cup starts rising this long after the one before
PULSE_S = 1.5  # the dice that counted pulse this long once every cup is up
FLY_S = 0.7  # a lost die flies off the table, a won one flies in
SLIDE_S = 0.35  # a new bid slides from its bidder's seat to the centre
SHOT_DELAY_S = 0.4  # the revolver is spun this long after the dice fly


def ease_out(t: float) -> float:
    """Fast start, soft landing (cubic)."""
    t = max(0.0, min(1.0, t))
    return 1 - (1 - t) ** 3


def lerp(a: tuple[int, int], b: tuple[int, int], t: float) -> tuple[int, int]:
    """The point ``t`` of the way from ``a`` to ``b``."""
    return int(a[0] + (b[0] - a[0]) * t), int(a[1] + (b[1] - a[1]) * t)


class Motion:
    """The scene's clockwork: reduced motion and skipping. See the module docstring."""

    def __init__(self, *, reduced: bool) -> None:
        self.reduced = reduced
        self.skip_at = -math.inf

    def skip(self, now: float) -> None:
        """Finish every animation that began before ``now`` (a key or click asked to get on
        with it)."""
        self.skip_at = now

    def progress(self, now: float, start: float | None, duration: float) -> float:
        """0..1 of the animation that began at ``start`` (None: never began, so done)."""
        # strictly before: what the skipping key itself started (a call that opens a reveal)
        # plays
        if start is None or self.reduced or start < self.skip_at or duration <= 0:
            return 1.0
        return max(0.0, min(1.0, (now - start) / duration))

    def running(self, now: float, start: float | None, duration: float) -> bool:
        """True while that animation is still moving."""
        return self.progress(now, start, duration) < 1.0


@dataclass(frozen=True)
class RevealTimeline:
    """The reveal as a little film: the cups lift one by one in ``order``, then the dice that
    counted pulse while lost dice fly out and won ones fly in, then the revolver is spun."""

    started: float
    order: tuple[int, ...]  # seats whose cups lift, first to last

    def lift_start(self, seat: int) -> float:
        """When ``seat``'s cup starts to rise."""
        at = self.order.index(seat) if seat in self.order else 0
        return self.started + at * LIFT_STAGGER_S

    @property
    def all_up(self) -> float:
        """When the last cup is up: the count can be read, the dice fly."""
        return self.started + max(0, len(self.order) - 1) * LIFT_STAGGER_S + LIFT_S

    @property
    def shots_at(self) -> float:
        """When the revolver is heard."""
        return self.all_up + SHOT_DELAY_S

    @property
    def ends(self) -> float:
        """When nothing of the reveal moves any more."""
        return self.all_up + max(PULSE_S, FLY_S)


def lift_order(seats_with_dice: list[int], first: int | None, n_seats: int) -> tuple[int, ...]:
    """The cups lift starting from ``first`` (the challenged bidder) round the table in seat
    order; only seats that showed dice."""
    start = first if first is not None else 0
    return tuple(sorted(seats_with_dice, key=lambda s: (s - start) % n_seats))


def pulse_scale(progress: float) -> float:
    """The size factor of a pulsing counted die: three beats that die away, 1.0 at the end."""
    if progress >= 1.0:
        return 1.0
    return 1.0 + 0.16 * abs(math.sin(progress * 3 * math.pi)) * (1 - progress)
