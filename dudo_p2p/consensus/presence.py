"""Who is connected (protocol.md §4.6): the silence timeout, the reconnect grace, table gone.

Pure bookkeeping on the times the machine is given. A seat not heard for the silence timeout
is **disconnected** (the session is told at once, with the end of its grace); the table waits
for it until the table's reconnect grace (genesis ``grace_ms``) has run out too, and only then
is it voted out for ``silent`` (with two seats left: the game is abandoned). A seat heard
again within the grace is **reconnected**; the step timeouts it owes count from then, not from
the last move of the log (it must have the time to catch up before it is suspected). When no
other seat at all is heard for the table-gone delay, or the seats heard are too few to
remove any of those silent that long, and none of our links to them came up in the last
:data:`REACHED_WAIT` seconds, the table is gone.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Container

from dudo_p2p.consensus import events as ev

TABLE_GONE_AFTER = 10.0  # seconds past silence + grace with no seat heard: the table is gone
# A link of ours that came up (the node saw its handshake with that seat's process) holds off
# "table gone" this long: a seat removed while out of reach counted the table-gone delay from
# its own last hearing, which ran out 2.6 s after its cable was back, while the links were
# still coming up and the seats that would tell it of its removal were reachable again.
REACHED_WAIT = 5.0
HUMAN_GRACE = 30.0  # the reconnect grace a host offers by default at a table with a person


class Presence:
    """Disconnected seats and the end of their grace, and when seats came back."""

    def __init__(self, silence: float, grace: float) -> None:
        self.silence = silence
        self.grace = grace
        self.away: dict[int, float] = {}  # seat -> end of its grace
        self.back_at: dict[int, float] = {}  # seat -> when it was last heard again
        self.reached: dict[int, float] = {}  # seat -> when our link to it last came up

    def observe(self, seat: int, last_heard: float, now: float) -> ev.Event | None:
        """Update ``seat``'s state from when it was last heard; the event to tell, if any."""
        silent = now - last_heard > self.silence
        if silent and seat not in self.away:
            self.away[seat] = last_heard + self.silence + self.grace
            return ev.SeatDisconnected(seat, self.away[seat])
        if not silent and seat in self.away:
            del self.away[seat]
            self.back_at[seat] = now
            return ev.SeatReconnected(seat)
        return None

    def waiting_for(self, seat: int, now: float) -> bool:
        """``seat`` is disconnected and its grace has not run out: the table waits for it."""
        return seat in self.away and now <= self.away[seat]

    def gone(self, seat: int, now: float) -> bool:
        """``seat`` is disconnected and its grace has run out."""
        return seat in self.away and now > self.away[seat]

    def back_within(self, seat: int, limit: float, now: float) -> bool:
        """``seat`` came back less than ``limit`` seconds ago (its step timeouts restart)."""
        return now - self.back_at.get(seat, -1e9) <= limit

    @property
    def gone_after(self) -> float:
        """Seconds with no other seat heard before the table is gone."""
        return self.silence + self.grace + TABLE_GONE_AFTER

    def table_gone(self, last_heard: dict[int, float], me: int, now: float,
                   parts: Collection[int] = (), removed: Container[int] = (),
                   behind: Container[int] = (), progress_at: float = math.inf) -> bool:
        """No seat but ours heard for :attr:`gone_after` seconds, or (``parts``: our epoch's
        seats, those ``removed`` in it left out) the seats heard within that delay, ours
        with them, are no strict majority of a silent seat's others: they can remove none
        of the silent seats, the table can never move again (FakeNet: three of five seats
        crashed at once, the two left heard each other and waited for ever). A seat
        ``behind`` (its heartbeat short of our epoch's start) votes in our epoch no more
        than a silent one once our log has not moved (since ``progress_at``) for that
        delay: it is stuck in an epoch before ours (FakeNet: three seats, one dead, one
        held in SIGN by a vote, ours in the next epoch, for ever). Either way only while no
        link of ours to a seat came up in the last :data:`REACHED_WAIT` seconds (it may be
        about to tell us)."""
        others = [t for s, t in last_heard.items() if s != me]
        if any(now - at <= REACHED_WAIT for s, at in self.reached.items() if s != me):
            return False
        if others and all(now - t > self.gone_after for t in others):
            return True
        live = [s for s in parts if s not in removed]
        silent = [s for s in live if s != me and now - last_heard[s] > self.gone_after]
        stuck = now - progress_at > self.gone_after
        voters = [s for s in live if s not in silent and (s == me or not stuck or s not in behind)]
        return me in live and bool(silent) and len(voters) * 2 <= len(live) - 1
