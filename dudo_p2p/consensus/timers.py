"""The protocol's timers (protocol.md §4.6): when to beat, re-send and suspect a seat.

Pure bookkeeping on the times the machine is given (``now`` always comes from the caller, the
node's clock or a test's fake one). :class:`Timeouts` holds the durations; :class:`Timers`
one machine's deadlines and what it last heard from each seat; :func:`awaited` says which
seats the log is waiting for and how long they may take before they are suspected.
"""

from __future__ import annotations

import math
from collections.abc import Container
from dataclasses import dataclass

from dudo_p2p.consensus.replica import EpochPhase, Replica


@dataclass(frozen=True)
class Timeouts:
    """Protocol timers in seconds (protocol.md §4.6)."""

    heartbeat: float = 1.0
    step: float = 5.0  # a commitment, nonce, reveal, result signature or ack we wait for
    silence: float = 4.5  # nothing heard from a live seat's own link (4 heartbeats missed)
    link_setup: float = 15.0  # a seat never heard at all is silent this long after the start
    turn_grace: float = 5.0  # past the human turn timer (the seat's own bot should have played)
    paused: float = 2.0  # no tick of ours for this long: *we* were away (SIGSTOP, sleep)
    # more patience with a seat whose heartbeat shows a longer log than ours: it holds what
    # we wait for, we are the one behind (removal.py, Removals.suspect)
    ahead: float = 15.0


DEFAULT_TIMEOUTS = Timeouts()


class Timers:
    """One machine's deadlines: the next heartbeat, the next re-send while the log is stuck,
    the last progress (``progress_at``: the log moved, or we took the act candidate we ack,
    so a long think on a turn does not count against the acks of the act that ends it) and
    the last time each seat was heard from."""

    def __init__(self, timeouts: Timeouts, seats: int, now: float) -> None:
        self.timeouts = timeouts
        # the silence clock starts when a seat is first heard (its link came up and proved
        # itself, liveness.py); one never heard is silent link_setup after the start
        self.last_heard = {s: now + timeouts.link_setup - timeouts.silence for s in range(seats)}
        self.started = now
        self.unheard = set(range(seats))  # never heard since our start (or counted heard)
        self.progress_at = now
        self.next_heartbeat = now
        self.next_resend = now
        self.last_tick = now

    def woke(self, now: float) -> float | None:
        """Called each tick: when our previous tick is more than ``paused`` seconds old, our
        process was stopped (SIGSTOP, a laptop asleep), not the others silent: every seat
        counts as heard and the log as moved just now, so we suspect no one for our own
        absence (we voted every other seat out on waking, then ignored the very entries
        that would have told us of our removal). Returns how long we were away, or None."""
        gap = now - self.last_tick
        self.last_tick = now
        if gap <= self.timeouts.paused:
            return None
        for seat in self.last_heard:
            self.last_heard[seat] = max(self.last_heard[seat], now)
        self.unheard.clear()
        self.progress_at = max(self.progress_at, now)
        return gap

    def heartbeat_due(self, now: float) -> bool:
        """True once per heartbeat interval (and schedules the next)."""
        if now < self.next_heartbeat:
            return False
        self.next_heartbeat = now + self.timeouts.heartbeat
        return True

    def beat_at_once(self) -> None:
        """Make the next heartbeat due at the next tick, whatever the time: the game ended
        for us, and the others leave as soon as every seat showed them it holds the whole
        log (``node.settled``), so they must not wait up to an interval for our final
        length (a peer that left before its next heartbeat made them wait the whole grace)."""
        self.next_heartbeat = -math.inf

    def resend_due(self, now: float) -> bool:
        """True once per heartbeat interval while the log has not moved for one (and
        schedules the next): lost frames are sent again only when they are missed."""
        if now - self.progress_at < self.timeouts.heartbeat or now < self.next_resend:
            return False
        self.next_resend = now + self.timeouts.heartbeat
        return True

    def stuck_past(self, limit: float, now: float) -> bool:
        """No progress (see the class docstring) for more than ``limit`` seconds."""
        return now - self.progress_at > limit

    def heard(self, seat: int, now: float) -> None:
        """A fresh frame from ``seat`` on its own proven link (liveness.py)."""
        self.last_heard[seat] = now
        self.unheard.discard(seat)

    def heard_at(self, seat: int) -> float:
        """When ``seat`` was really last heard: our start when never (``last_heard`` then
        says when it counts as silent, link_setup after the start)."""
        return self.started if seat in self.unheard else self.last_heard[seat]

    def silent(self, seat: int, now: float) -> bool:
        """Nothing heard from ``seat`` for longer than the silence timeout."""
        return now - self.last_heard[seat] > self.timeouts.silence


@dataclass(frozen=True)
class Lag:
    """What the other seats' last heartbeats say of their logs against ours (catchup.py):
    ``ahead``, longer than ours; ``behind``, short of where our epoch began."""

    ahead: frozenset[int] = frozenset()
    behind: frozenset[int] = frozenset()


NO_LAG = Lag()


def awaited(
    replica: Replica, acked: set[int] | None, turn_timer_ms: int, timeouts: Timeouts,
    behind: Container[int] = (),
) -> tuple[set[int], float]:
    """The seats the log waits for and how long the log may stay stuck before they are
    suspected. ``acked`` holds the acks of the act candidate we acked (None: we ack none);
    it matters only while acts are expected (SETUP, BIDDING). Then a candidate waits on the
    seats that have not acked it (step timeout); with no candidate, the seat to act has the
    human turn timer plus a grace, or, without a turn timer, all the time it likes, unless
    it is ``behind``: its heartbeat shows it has not reached this epoch, so it is not
    thinking on its turn but stuck before it (FakeNet sweep, 6 seats: one seat, held in the
    opener draw by its votes against seats it could not hear, was the next opener, and the
    table waited for its choice for ever); it gets the step and :attr:`Timeouts.ahead`."""
    limit = timeouts.step
    waiting = set(replica.waiting_for())
    if replica.phase in (EpochPhase.SETUP, EpochPhase.BIDDING):
        if acked is not None:
            waiting = set(replica.epoch.participants) - acked
        elif turn_timer_ms > 0:
            limit = turn_timer_ms / 1000 + timeouts.turn_grace
        else:  # a human may think as long as they like
            waiting = {s for s in waiting if s in behind}
            limit = timeouts.step + timeouts.ahead
    return waiting, limit


def patience(seat: int, limit: float, ahead: Container[int], timeouts: Timeouts) -> float:
    """How long the log may stay stuck on ``seat`` before it is voted out for ``timeout``:
    ``limit`` (:func:`awaited`), and :attr:`Timeouts.ahead` more when its last heartbeat
    showed a longer log than ours (``ahead``). Such a seat has moved past the entry we lack
    (a result signature, an ack): our copy was lost and catch-up brings it; a vote against
    it, the one seat that could have seconded it gone, left us waiting for a certificate
    that never came while it waited for us in the next epoch (issue 19: a call raced by a
    crash, 3 seats, heavy losses). Bounded: a seat that lies about its length and never
    answers a sync-request is voted out all the same, later."""
    return limit + timeouts.ahead if seat in ahead else limit
