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

from dudo_p2p.consensus.acts import ActRace
from dudo_p2p.consensus.context import SeatContext
from dudo_p2p.consensus.presence import REACHED_WAIT, Presence
from dudo_p2p.consensus.removal import Removals
from dudo_p2p.consensus.replica import EpochPhase
from dudo_p2p.consensus.timers import Timers, awaited

EPS = 1e-6  # past a strict timeout's boundary: the first instant its comparison holds


def _past(boundary: float, now: float) -> float:
    """The first time after ``now`` at which ``t - base > limit`` holds, for a ``boundary``
    of ``base + limit`` not yet crossed at ``now``."""
    return max(boundary + EPS, now + EPS)


def next_deadline(ctx: SeatContext, timers: Timers, presence: Presence, removals: Removals,
                  race: ActRace, now: float) -> float:
    """The earliest time at which the machine's ``tick`` has something to do (see the
    module docstring); ``now`` when something is due already."""
    due = [timers.next_heartbeat]
    if removals.outcome is not None:
        return min(due)
    hb = ctx.timeouts.heartbeat
    due.append(max(timers.progress_at + hb, timers.next_resend))
    due.extend(_suspicion(ctx, timers, presence, removals, race, now))
    return min(due)


def _suspicion(ctx: SeatContext, timers: Timers, presence: Presence, removals: Removals,
               race: ActRace, now: float) -> list[float]:
    """The deadlines of ``Removals.suspect``, in its order."""
    rep = ctx.replica
    silence = ctx.timeouts.silence
    parts = rep.epoch.participants
    epoch = rep.epoch.number
    out: list[float] = []
    for seat in parts:
        if seat == ctx.seat:
            continue
        last = timers.last_heard[seat]
        if seat in presence.away:
            if now - last <= silence:
                out.append(now)  # heard again: SeatReconnected is due
            elif removals.may_vote(seat) and not removals.link_doubt(epoch, seat):
                grace_end = presence.away[seat]
                out.append(now if now > grace_end else _past(grace_end, now))
        else:
            out.append(now if now - last > silence else _past(last + silence, now))
    mine = race.slot.mine
    acked: set[int] | None = None
    if rep.phase in (EpochPhase.SETUP, EpochPhase.BIDDING) and mine is not None:
        acked = race.acks(mine, epoch)
    waiting, limit = awaited(rep, acked, ctx.seating.turn_timer_ms, ctx.timeouts)
    if len(parts) == 2:
        limit += presence.grace
    for seat in waiting:
        if seat == ctx.seat or seat in presence.away or not removals.may_vote(seat):
            continue
        if acked is not None and removals.link_doubt(epoch, seat):
            continue
        start = max(timers.progress_at, presence.back_at.get(seat, -1e9))
        stuck = timers.stuck_past(limit, now) and not presence.back_within(seat, limit, now)
        out.append(now if stuck else _past(start + limit, now))
    for seat in removals.expelled & set(parts):
        if removals.may_vote(seat):
            out.append(now)
    me = ctx.seat
    others = [t for s, t in timers.last_heard.items() if s != me]
    if others and removals.outcome is None:
        # every other seat silent past the delay, and no link of ours to one up within
        # REACHED_WAIT (a link that came up holds "table gone" off)
        boundary = max([max(others) + presence.gone_after]
                       + [at + REACHED_WAIT for s, at in presence.reached.items() if s != me])
        gone = presence.table_gone(timers.last_heard, me, now)
        out.append(now if gone else _past(boundary, now))
    return out
