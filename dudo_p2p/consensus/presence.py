"""Who is connected (protocol.md §4.6): the silence timeout, the reconnect grace, table gone.

Pure bookkeeping on the times the machine is given. A seat not heard for the silence timeout
is **disconnected** (the session is told at once, with the end of its grace); the table waits
for it until the table's reconnect grace (genesis ``grace_ms``) has run out too, and only then
is it voted out for ``silent`` (with two seats left: the game is abandoned). A seat heard
again within the grace is **reconnected**; the step timeouts it owes count from then, not from
the last move of the log (it must have the time to catch up before it is suspected). When no
other seat at all is heard for the table-gone delay, or the seats heard are too few to
remove any of those silent that long, and none of our links to them came up in the last
:data:`REACHED_WAIT` seconds, the table is gone. With two seats left a silence is a claim
that ends the game abandoned, so there the grace is at least what makes the silence
:data:`TWO_SEAT_SILENCE` long (:meth:`Presence.grace_at`).
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
# With two seats left a seat silent past its grace gets a claim, and the game ends abandoned
# for both (§4.6): at a table with no grace (bots) that was 4.5 s of silence, and a lossy
# link goes that long unheard while both seats live (tests/lan/link_gaps.py at 25 % loss: the
# doubling retransmission timer stalls the TCP stream, the ZMTP heartbeat closes it after
# 3 s, the redial and handshake take 1-5 s more under the same loss: 2-5 such silences in
# 5 minutes; lan_sweep --hard seeds 18, 20, 34, 44, 51 ended abandoned so). So with two seats
# the silence before a claim is at least this long: the time we already give a link to come
# up at the start (``Timeouts.link_setup``), which a redialled link needs again; a table that
# chose a longer grace keeps it.
TWO_SEAT_SILENCE = 15.0


class Presence:
    """Disconnected seats and the end of their grace, and when seats came back."""

    def __init__(self, silence: float, grace: float) -> None:
        self.silence = silence
        self.grace = grace
        self.away: dict[int, float] = {}  # seat -> end of its grace
        self.back_at: dict[int, float] = {}  # seat -> when it was last heard again
        self.reached: dict[int, float] = {}  # seat -> when our link to it last came up
        self.relinks: set[tuple[int, int]] = set()  # (seat, epoch) counted back on a relink

    def grace_at(self, seats: int) -> float:
        """The reconnect grace in an epoch of ``seats`` seats: the table's, but with two seats
        at least enough for a silence of :data:`TWO_SEAT_SILENCE` (there a silence is a
        claim: the game ends abandoned)."""
        if seats == 2:
            return max(self.grace, TWO_SEAT_SILENCE - self.silence)
        return self.grace

    def grace_end(self, last_heard: float, seats: int, heard_at: float | None = None) -> float:
        """When the grace of a seat last heard at ``last_heard`` runs out (``seats``: the
        epoch's; ``heard_at``: when it was really heard, our start for a seat never heard,
        whose ``last_heard`` is link_setup after it: the two-seat floor counts from then)."""
        end = last_heard + self.silence + self.grace
        if seats == 2:
            end = max(end, (last_heard if heard_at is None else heard_at) + TWO_SEAT_SILENCE)
        return end

    def observe(self, seat: int, last_heard: float, now: float, seats: int = 0,
                heard_at: float | None = None) -> ev.Event | None:
        """Update ``seat``'s state from when it was last heard (``seats``, ``heard_at``: as
        :meth:`grace_end` takes them); the event to tell, if any: disconnected (again, with
        a later end, when the epoch came down to two seats while it was away), or back."""
        silent = now - last_heard > self.silence
        end = self.grace_end(last_heard, seats, heard_at)
        if silent and (seat not in self.away or self.extends(seat, end, seats)):
            self.away[seat] = end
            return ev.SeatDisconnected(seat, end)
        if not silent and seat in self.away:
            del self.away[seat]
            self.back_at[seat] = now
            return ev.SeatReconnected(seat)
        return None

    def extends(self, seat: int, end: float, seats: int) -> bool:
        """``seat`` is away in an epoch of two ``seats`` and its grace ends before ``end``
        (its :meth:`grace_end` now): it went away when the epoch had more seats, and two
        have the floor."""
        return seats == 2 and seat in self.away and self.away[seat] < end

    def relinked(self, seat: int, last_heard: float, now: float, epoch: int,
                 heartbeat: float) -> None:
        """Our link to ``seat`` came up after more than two heartbeats without hearing it (a
        restarted process, a redial): it counts as back now, its step timeouts restart, once
        per seat and epoch (a seat that relinks again and again must not stall the table).
        A restart heard again before the silence ran out was never away, so never back: it
        had a second of the step timeout left to restore and catch up, and was voted out for
        ``timeout`` within a 30 s grace (tests/node/test_node_faults.py, 1 run in 5 at load)."""
        if now - last_heard > 2 * heartbeat and (seat, epoch) not in self.relinks:
            self.relinks.add((seat, epoch))
            self.back_at[seat] = max(self.back_at.get(seat, -1e9), now)

    def waiting_for(self, seat: int, now: float) -> bool:
        """``seat`` is disconnected and its grace has not run out: the table waits for it."""
        return seat in self.away and now <= self.away[seat]

    def gone(self, seat: int, now: float) -> bool:
        """``seat`` is disconnected and its grace has run out."""
        return seat in self.away and now > self.away[seat]

    def back_within(self, seat: int, limit: float, now: float) -> bool:
        """``seat`` came back less than ``limit`` seconds ago (its step timeouts restart)."""
        return now - self.back_at.get(seat, -1e9) <= limit

    def gone_after(self, seats: int = 0) -> float:
        """Seconds with no other seat heard before the table is gone (``seats``: the epoch's;
        with two, past the two-seat floor, so that a dead seat's claim comes first)."""
        return self.silence + self.grace_at(seats) + TABLE_GONE_AFTER

    def table_gone(self, last_heard: dict[int, float], me: int, now: float,
                   parts: Collection[int] = (), removed: Container[int] = (),
                   behind: Container[int] = (), progress_at: float = math.inf) -> bool:
        """:meth:`gone_why` says the table is gone."""
        return self.gone_why(last_heard, me, now, parts, removed, behind, progress_at) is not None

    def gone_why(self, last_heard: dict[int, float], me: int, now: float,
                 parts: Collection[int] = (), removed: Container[int] = (),
                 behind: Container[int] = (), progress_at: float = math.inf
                 ) -> ev.TableGone | None:
        """The table is gone, and which case (None: it is not). ``"nobody"``: no seat but
        ours heard for :meth:`gone_after` seconds. ``"too-few"``: (``parts``: our epoch's
        seats, those ``removed`` in it left out) the seats heard within that delay, ours
        with them, are no strict majority of a silent seat's others: they can remove none
        of the silent seats, the table can never move again (FakeNet: three of five seats
        crashed at once, the two left heard each other and waited for ever). ``"behind"``:
        the same once a seat ``behind`` (its heartbeat short of our epoch's start) is
        counted out, as it is when our log has not moved (since ``progress_at``) for that
        delay: it votes in our epoch no more than a silent one, it is stuck in an epoch
        before ours (FakeNet: three seats, one dead, one held in SIGN by a vote, ours in the
        next epoch, for ever). Each only while no link of ours to a seat came up in the
        last :data:`REACHED_WAIT` seconds (it may be about to tell us)."""
        others = [t for s, t in last_heard.items() if s != me]
        if any(now - at <= REACHED_WAIT for s, at in self.reached.items() if s != me):
            return None
        after = self.gone_after(len(parts))
        if others and all(now - t > after for t in others):
            return ev.TableGone()
        live = [s for s in parts if s not in removed]
        silent = [s for s in live if s != me and now - last_heard[s] > after]
        if me not in live or not silent:
            return None
        heard = [s for s in live if s not in silent]
        if len(heard) * 2 <= len(live) - 1:
            return ev.TableGone("too-few", tuple(silent))
        stuck = [s for s in heard if s != me and s in behind]
        if now - progress_at > after and stuck and (len(heard) - len(stuck)) * 2 <= len(live) - 1:
            return ev.TableGone("behind", tuple(silent), tuple(stuck))
        return None
