"""When the game ended for a node (protocol.md §4.6): :func:`ended_us`, the event its
``over_at`` counts from. Whether it may then leave without stranding anyone is the
machine's to say (:meth:`TableMachine.settled`, :meth:`TableMachine.settle_deadline`,
consensus/settling.py, whose graces are re-exported here for the node's callers).
"""

from __future__ import annotations

from dudo_p2p.consensus.events import Event, GameAbandoned, GameOver, PlayerLeft, TableGone
from dudo_p2p.consensus.machine import TableMachine
from dudo_p2p.consensus.settling import SETTLE_GRACE, TELL_LINGER

__all__ = ["SETTLE_GRACE", "TELL_LINGER", "ended_us"]


def ended_us(event: Event, machine: TableMachine | None) -> bool:
    """Whether ``event`` ends the game for us: a winner, an abandoned game, a table gone,
    or our own removal (what ``TableMachine.settled`` counts from)."""
    return isinstance(event, GameOver | GameAbandoned | TableGone) or (
        isinstance(event, PlayerLeft) and machine is not None and machine.removed_me
    )
