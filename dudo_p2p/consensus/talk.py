"""Table talk: quick phrases between seats, signed, rate-limited, never in the log.

A ``talk`` message carries a phrase index (no free text, so nothing to sanitize or
moderate). It is signed like every message (§2.5) but not chained: it changes no state but
this book. Envelope ``round_no`` is the sender's epoch, ``seq`` its talk counter.

Receiving (:meth:`TalkBook.take`): a talk more than one epoch away from ours (peers cross
epoch boundaries a few milliseconds apart), or whose ``seq`` is not above the author's last
one taken (the counter never restarts within a game), is stale or a replay and refused;
one that comes
less than ``TALK_GAP_S`` after the author's last one shown is a flood and dropped. Sending
(:meth:`TalkBook.may_send`) keeps our own seat to the same pace, so an honest peer is never
the one dropped. Pure: time is the ``now`` the machine is given.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.protocol.kinds import Talk

TALK_GAP_S = 1.0  # at most one phrase a second per seat


@dataclass
class TalkBook:
    """Who last talked when, and our own counter. See the module docstring."""

    counter: int = 0  # our talk messages so far (the next one's seq is counter + 1)
    sent_at: float | None = None
    last: dict[int, int] = field(default_factory=dict)  # seat -> seq of its last talk taken
    shown_at: dict[int, float] = field(default_factory=dict)
    dropped: int = 0  # floods and replays refused (for the log and tests)

    def may_send(self, now: float) -> bool:
        """True (and the send counted) when our last phrase is ``TALK_GAP_S`` old."""
        if self.sent_at is not None and now - self.sent_at < TALK_GAP_S:
            return False
        self.sent_at = now
        self.counter += 1
        return True

    def take(self, seat: int, env: Envelope, epoch: int, now: float) -> str | None:
        """Take ``seat``'s signed talk; None when it is to be shown, else why it was not."""
        assert isinstance(env.body, Talk)
        if abs(env.round_no - epoch) > 1:
            return self._drop(f"a talk of epoch {env.round_no}, ours is {epoch}")
        if env.seq <= self.last.get(seat, 0):
            return self._drop(f"a replayed talk (seq {env.seq})")
        self.last[seat] = env.seq
        at = self.shown_at.get(seat)
        if at is not None and now - at < TALK_GAP_S:
            return self._drop(f"a flood: {now - at:.2f} s after the last")
        self.shown_at[seat] = now
        return None

    def _drop(self, why: str) -> str:
        self.dropped += 1
        return why
