"""Table talk on screen: quick phrases as bubbles at the seats, and muted players.

Keys 1-8 say phrase 0-7 (``TALK_KEYS`` in the catalogue). A phrase is shown as a bubble at
its seat for ``BUBBLE_S`` seconds; never in the table's log. A player may be muted (a click on
their plate): their phrases are not shown nor heard. Our own phrases keep the wire's pace
(one a second, ``consensus.talk.TALK_GAP_S``), so what we see of ours is what the others see.
Pure: no pygame; the clock is the scene's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dudo_p2p.ui.i18n import TALK_KEYS

BUBBLE_S = 3.0  # a phrase stays this long at its seat
GAP_S = 1.0  # our own pace: as the wire's (consensus.talk.TALK_GAP_S)


@dataclass
class TalkBoard:
    """The bubbles up now and who is muted. See the module docstring."""

    bubbles: dict[int, tuple[int, float]] = field(default_factory=dict)  # seat -> phrase, at
    muted: set[int] = field(default_factory=set)
    said_at: float | None = None  # when we last spoke

    def may_say(self, now: float) -> bool:
        """True (and counted) when our last phrase is ``GAP_S`` old."""
        if self.said_at is not None and now - self.said_at < GAP_S:
            return False
        self.said_at = now
        return True

    def heard(self, seat: int, phrase: int, now: float) -> bool:
        """Seat ``seat`` said ``phrase``; True when it is shown (known phrase, not muted)."""
        if seat in self.muted or not 0 <= phrase < len(TALK_KEYS):
            return False
        self.bubbles[seat] = (phrase, now)
        return True

    def toggle_mute(self, seat: int) -> None:
        """Mute ``seat`` (its bubble goes at once) or unmute it."""
        if seat in self.muted:
            self.muted.discard(seat)
        else:
            self.muted.add(seat)
            self.bubbles.pop(seat, None)

    def shown(self, now: float) -> dict[int, str]:
        """The catalogue key of each seat's bubble still up at ``now``."""
        return {seat: TALK_KEYS[phrase] for seat, (phrase, at) in self.bubbles.items()
                if now - at < BUBBLE_S}

    def expire(self, now: float) -> bool:
        """Forget bubbles that are over; True when one went (the screen must be redrawn)."""
        gone = [seat for seat, (_, at) in self.bubbles.items() if now - at >= BUBBLE_S]
        for seat in gone:
            del self.bubbles[seat]
        return bool(gone)
