"""When a finished seat may leave (protocol.md §4.6 "Told, always"; issue 19: the node asked
the machine's state and decided itself, now the machine says it).

:func:`settled` and :func:`settle_deadline` read the collaborators of a
:class:`~dudo_p2p.consensus.machine.TableMachine` (:meth:`TableMachine.settled`,
:meth:`TableMachine.settle_deadline`); ``over_at`` is when the game ended for us, by the
node's clock (it counts from the moment it carried out the ending event). Pure: no I/O.
"""

from __future__ import annotations

import math

from dudo_p2p.consensus.catchup import CatchUp
from dudo_p2p.consensus.context import SeatContext
from dudo_p2p.consensus.removal import Removals

SETTLE_GRACE = 3.0  # after the game ends, serve lagging peers at most this long
TELL_LINGER = 10.0  # ... and wait at most this long for a removed seat to hear of it (§4.6)


def settled(ctx: SeatContext, removals: Removals, catchup: CatchUp, over_at: float,
            now: float) -> bool:
    """Our game ended at ``over_at`` and leaving at ``now`` strands no one: the last heartbeat
    of every other seat still at the table (not removed, dice or not) shows our head, or we
    were removed (or the table is gone), or :data:`SETTLE_GRACE` ran out; and every seat we
    removed (or whose silence abandoned the game) has shown it heard so (told, then silent
    for two heartbeat intervals: ``CatchUp.untold``), or :data:`TELL_LINGER` ran out (it
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
    if removals.outcome is None:
        return False
    if removals.removed_me or removals.table_gone:
        return True
    if catchup.untold(now) and now - over_at <= TELL_LINGER:
        return False
    if now - over_at > SETTLE_GRACE:
        return True
    head = ctx.replica.head
    gone = {target for _, target in removals.votes.certificates} | removals.expelled
    if removals.abandoned_by is not None:
        gone.add(removals.abandoned_by)
    others = [s for s in range(ctx.seating.n) if s != ctx.seat and s not in gone]
    return all(catchup.peer_heads.get(s) == head for s in others)


def settle_deadline(removals: Removals, catchup: CatchUp, over_at: float, now: float) -> float:
    """When :func:`settled` may next turn true by the clock alone (a heartbeat that shows
    our head wakes the node anyway): the end of :data:`SETTLE_GRACE` or :data:`TELL_LINGER`,
    or two heartbeat intervals after we told a removed seat (``SyncPacer.heard_of_it``);
    ``inf`` when only a frame can settle us."""
    if removals.outcome is None or removals.removed_me or removals.table_gone:
        return math.inf
    due = [over_at + SETTLE_GRACE, over_at + TELL_LINGER]
    pacer = catchup.pacer
    for seat in catchup.untold(now):
        told = pacer.told_at.get(seat)
        if told is not None:
            due.append(told + 2 * pacer.heartbeat)
    # a microsecond past each (the graces compare strictly); those passed already are
    # decided by frames now, not by the clock
    return min((t + 1e-6 for t in due if t + 1e-6 > now), default=math.inf)
