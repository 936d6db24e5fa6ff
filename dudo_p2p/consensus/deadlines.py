"""When the machine next needs the time (issue 19): :func:`next_deadline`.

:meth:`~dudo_p2p.consensus.machine.TableMachine.tick` acts on the clock in a fixed set of
places: the heartbeat, the re-send while the log is stuck, and the suspicion of
:meth:`~dudo_p2p.consensus.removal.Removals.suspect` (a seat silent, back, stalled past
its limit, past its grace, expelled; the table gone). This module mirrors each of those
conditions and says the earliest time one of them becomes true, so that the node can sleep
until then (or until a frame) instead of ticking the machine every few milliseconds, and
FakeNet can tick a machine only when it is due.

The contract: a tick at any time before :func:`next_deadline` does nothing a tick at that
deadline would not do (no effect, no change of state but the stopped-process clock of
``Timers.woke``), and a tick at the deadline may act. Early is allowed (a wasted wake-up),
late is a change of behaviour: ``tests/consensus/test_consensus_deadlines.py`` plays seeded
games both ways (ticked on every step, ticked only when due) and compares every effect.

A condition that holds at ``now`` already (input since the last tick made it true: a seat
heard again, a new epoch with an expelled seat in it) gives ``now``. The timeouts compare
strictly (``now - t > limit``), so their deadline is :data:`EPS` past ``t + limit``.
"""

from __future__ import annotations

import math

from dudo_p2p.consensus.acts import ActRace
from dudo_p2p.consensus.context import SeatContext
from dudo_p2p.consensus.faults import removed_in
from dudo_p2p.consensus.presence import REACHED_WAIT, Presence
from dudo_p2p.consensus.removal import Removals
from dudo_p2p.consensus.replica import EpochPhase
from dudo_p2p.consensus.timers import NO_LAG, Lag, Timers, awaited, patience

EPS = 1e-6  # past a strict timeout's boundary: the first instant its comparison holds


def _past(boundary: float, now: float) -> float:
    """The first time after ``now`` at which ``t - base > limit`` holds, for a ``boundary``
    of ``base + limit`` not yet crossed at ``now``."""
    return max(boundary + EPS, now + EPS)


def next_deadline(ctx: SeatContext, timers: Timers, presence: Presence, removals: Removals,
                  race: ActRace, now: float, lag: Lag = NO_LAG) -> float:
    """The earliest time at which the machine's ``tick`` has something to do (see the
    module docstring); ``now`` when something is due already. ``lag``: as
    ``Removals.suspect`` is given it."""
    due = timers.next_heartbeat
    if removals.outcome is not None:
        return due
    hb = ctx.timeouts.heartbeat
    return min(due, max(timers.progress_at + hb, timers.next_resend),
               _suspicion(ctx, timers, presence, removals, race, now, lag))


def _suspicion(ctx: SeatContext, timers: Timers, presence: Presence, removals: Removals,
               race: ActRace, now: float, lag: Lag) -> float:
    """The earliest deadline of ``Removals.suspect``'s conditions (``inf``: none).

    Each condition's deadline is ``now`` (due) or ``_past(boundary, now)``, never before
    ``now``: so the first one due answers at once, and otherwise the earliest is
    ``_past`` of the earliest boundary (``_past`` is monotone in its boundary). Computed
    after every frame a seat takes, hence a running minimum rather than a list of them all."""
    rep = ctx.replica
    silence = ctx.timeouts.silence
    parts = rep.epoch.participants
    epoch = rep.epoch.number
    me = ctx.seat
    last_heard, away = timers.last_heard, presence.away
    soonest = math.inf  # the earliest boundary not yet crossed
    for seat in parts:
        if seat == me:
            continue
        last = last_heard[seat]
        if seat in away:
            end = presence.grace_end(last, len(parts), timers.heard_at(seat))
            if now - last <= silence or presence.extends(seat, end, len(parts)):
                return now  # heard again: SeatReconnected is due (or a two-seat grace grows)
            if removals.may_vote(seat) and not removals.link_doubt(epoch, seat):
                grace_end = away[seat]
                if now > grace_end:
                    return now
                soonest = min(soonest, grace_end)
        elif now - last > silence:
            return now
        else:
            soonest = min(soonest, last + silence)
    mine = race.slot.mine
    acked: set[int] | None = None
    if rep.phase in (EpochPhase.SETUP, EpochPhase.BIDDING) and mine is not None:
        acked = race.acks(mine, epoch)
    waiting, limit = awaited(rep, acked, ctx.seating.turn_timer_ms, ctx.timeouts, lag.behind)
    if len(parts) == 2:
        limit += presence.grace_at(2)
    # a removal held: no step timeout at all (removal_hold); else each seat waited for
    if waiting and not removals.hold.active(epoch):
        progress_at, back_at = timers.progress_at, presence.back_at
        for seat in waiting:
            if seat == me or seat in away or not removals.may_vote(seat):
                continue
            if acked is not None and removals.link_doubt(epoch, seat):
                continue
            wait = patience(seat, limit, lag.ahead, ctx.timeouts)
            if timers.stuck_past(wait, now) and not presence.back_within(seat, wait, now):
                return now
            soonest = min(soonest, max(progress_at, back_at.get(seat, -1e9)) + wait)
    expelled = removals.expelled
    if expelled:
        for seat in expelled & set(parts):
            if removals.may_vote(seat):
                return now
    others = [t for s, t in last_heard.items() if s != me]
    if others and removals.outcome is None:
        # every other seat silent past the delay (or too many of the epoch's), and no link
        # of ours to one up within REACHED_WAIT (a link that came up holds "table gone" off)
        if presence.table_gone(last_heard, me, now, parts, removed_in(rep, epoch), lag.behind,
                               timers.progress_at):
            return now
        after = presence.gone_after(len(parts))
        boundary = max(others) + after
        for seat, at in presence.reached.items():
            if seat != me:
                boundary = max(boundary, at + REACHED_WAIT)
        soonest = min(soonest, boundary)
        # each seat of the epoch falling silent that long may leave too few to move the table,
        # and so may the log stuck that long with seats behind it (presence.table_gone)
        if now <= timers.progress_at + after < soonest:
            soonest = timers.progress_at + after
        for seat in parts:
            at = last_heard[seat] + after
            if seat != me and now <= at < soonest:
                soonest = at
        for seat, at in presence.reached.items():
            if seat != me and now <= at + REACHED_WAIT < soonest:
                soonest = at + REACHED_WAIT
    return soonest if soonest == math.inf else _past(soonest, now)
