"""When a node whose game ended may leave without stranding anyone (protocol.md §4.6).

Pure questions about a finished :class:`~dudo_p2p.consensus.machine.TableMachine` and the
time it ended for us (:func:`ended_us`); the node asks :func:`settled` before it lets its
session close, and sleeps until :func:`settle_deadline` when only the clock can settle it.
"""

from __future__ import annotations

import math

from dudo_p2p.consensus.events import Event, GameAbandoned, GameOver, PlayerLeft, TableGone
from dudo_p2p.consensus.machine import TableMachine

SETTLE_GRACE = 3.0  # after the game ends, serve lagging peers at most this long
TELL_LINGER = 10.0  # ... and wait at most this long for a removed seat to hear of it (§4.6)


def ended_us(event: Event, machine: TableMachine | None) -> bool:
    """Whether ``event`` ends the game for us: a winner, an abandoned game, a table gone,
    or our own removal (what :func:`settled` counts from)."""
    return isinstance(event, GameOver | GameAbandoned | TableGone) or (
        isinstance(event, PlayerLeft) and machine is not None and machine.removed_me
    )


def settled(machine: TableMachine, over_at: float, now: float) -> bool:
    """Our game ended at ``over_at`` and leaving at ``now`` strands no one: the last heartbeat
    of every other seat still at the table (not removed, dice or not) shows our head, or we
    were removed (or the table is gone), or :data:`SETTLE_GRACE` ran out; and every seat we
    removed (or whose silence abandoned the game) has shown it heard so (told, then silent
    for two heartbeat intervals: ``TableMachine.untold``), or :data:`TELL_LINGER` ran out (it
    was down when the votes went round and may come back: it must not wait for nobody,
    protocol.md §4.6 "Told, always").

    Our *head*, not only our length: a peer still in an epoch a removal voided holds that
    epoch's entries, so its log may be longer than ours while it lacks the removal that
    ended the game (soak seed 1229). Counting it settled on its length let us leave at the
    heartbeat that triggers our telling it the removal (catchup.py), with that frame still
    queued (links close with linger 0) or lost, and nobody left to tell it again. Equal
    heads mean equal logs (the head hashes the whole chain); after the end nothing more is
    chained, so a peer that holds our log reports exactly our head.

    Every seat, not only the ones with dice: at the end only the winner has dice, so
    waiting for the "live" seats let the winner leave at once and left everyone else
    waiting for a heartbeat from a peer that was gone (the whole grace, 3 s, on every
    game). Each node sends a heartbeat the moment its game ends (``Timers.beat_at_once``),
    so all of them settle within a round trip of the last entry."""
    if not machine.over:
        return False
    if machine.removed_me or machine.table_gone:
        return True
    if machine.untold(now) and now - over_at <= TELL_LINGER:
        return False
    if now - over_at > SETTLE_GRACE:
        return True
    head = machine.replica.head
    gone = {target for _, target in machine.certificates} | machine.expelled
    if machine.abandoned_by is not None:
        gone.add(machine.abandoned_by)
    others = [s for s in range(machine.seating.n) if s != machine.seat and s not in gone]
    return all(machine.peer_heads.get(s) == head for s in others)


def settle_deadline(machine: TableMachine, over_at: float, now: float) -> float:
    """When :func:`settled` may next turn true by the clock alone (a heartbeat that shows
    our head wakes the node anyway): the end of :data:`SETTLE_GRACE` or :data:`TELL_LINGER`,
    or two heartbeat intervals after we told a removed seat (``SyncPacer.heard_of_it``);
    ``inf`` when only a frame can settle us."""
    if not machine.over or machine.removed_me or machine.table_gone:
        return math.inf
    due = [over_at + SETTLE_GRACE, over_at + TELL_LINGER]
    pacer = machine.pacer
    for seat in machine.untold(now):
        told = pacer.told_at.get(seat)
        if told is not None:
            due.append(told + 2 * pacer.heartbeat)
    # a microsecond past each (the graces compare strictly); those passed already are
    # decided by frames now, not by the clock
    return min((t + 1e-6 for t in due if t + 1e-6 > now), default=math.inf)
