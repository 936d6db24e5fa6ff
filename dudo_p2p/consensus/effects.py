"""What a consensus machine asks its node to do: effect values, carried out in order.

Every pure machine of this package (:class:`~dudo_p2p.consensus.machine.TableMachine`, the
lobby) returns a list of these from each call; only the node performs them. The order is
part of the contract: a :class:`Persist` reaches the journal (and, when ``durable``, the disk)
before any :class:`Send` that follows it in the same list, because what is sent may depend on
what was written (protocol.md §4.7).
"""

from __future__ import annotations

from dataclasses import dataclass

from dudo_p2p.consensus import events as ev


@dataclass(frozen=True)
class Send:
    """Send ``frame`` to seat ``to`` (None: to every other seat)."""

    frame: bytes
    to: int | None = None


@dataclass(frozen=True)
class Persist:
    """Write ``record`` to the journal before carrying out the effects after it; ``durable``
    records (our secrets, our own acts, removals) must also reach the disk (fsync) first,
    because what follows depends on them: a restart must re-send the very same entries.
    Chained entries of others need no fsync: a restarted peer fetches what it lost."""

    record: bytes
    durable: bool = False


@dataclass(frozen=True)
class Emit:
    """Hand a session event to the seat's session (UI, bot, headless peer)."""

    event: ev.Event


@dataclass(frozen=True)
class Log:
    """A line for the operator: a rejected frame, a fault seen, a restore."""

    level: str
    text: str


Effect = Send | Persist | Emit | Log
