"""What a consensus machine asks its node to do: effect values, carried out in order.

Every pure machine of this package (:class:`~dudo_p2p.consensus.machine.TableMachine`, the
lobby) returns a list of these from each call; only the node performs them. The order is
part of the contract: a :class:`Persist` reaches the journal (and, when ``durable``, the disk)
before any :class:`Send` that follows it in the same list, because what is sent may depend on
what was written (protocol.md §4.7).
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

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

# The machine's collaborators yield their effects as they make them, in order, and the
# public call collects them: a step that raises part-way (a peer's bad item in a sync reply)
# keeps the effects of what it did before (list.extend keeps what the iterator gave), as the
# state they describe has changed.
Effects = Iterator[Effect]
_R = TypeVar("_R")
# effects, and a value when done (``value = yield from step()``)
EffectsThen = Generator[Effect, None, _R]


class EffectSink(Protocol):
    """What carries effects out: a node (journal, links, session, logging) or FakeNet
    (lists and a scheduled network). :func:`carry_out` calls it in the contract's order."""

    def persist(self, records: list[Persist]) -> None:
        """Append ``records`` to the journal, in order; when one is ``durable``, make them
        all reach the disk (one fsync) before returning."""

    def send(self, frame: bytes, to: int | None) -> None:
        """Send ``frame`` to seat ``to`` (None: every other seat)."""

    def emit(self, event: ev.Event) -> None:
        """Hand ``event`` to the session."""

    def log(self, level: str, text: str) -> None:
        """Tell the operator."""

    def other(self, effect: object) -> Sequence[object]:
        """An effect of another machine (the lobby's, the spectator desk's): carry it out;
        returns the effects it led to, carried out after this batch."""


def carry_out(batch: Sequence[object], sink: EffectSink) -> None:
    """The one interpreter of effects (the node's and FakeNet's): every :class:`Persist` of
    the batch first (one durable write for all: what the batch sends may depend on any of
    them), then every other effect in order; the effects those led to form the next batch."""
    effects = list(batch)
    while effects:
        persisted = [e for e in effects if isinstance(e, Persist)]
        if persisted:
            sink.persist(persisted)
        follow: list[object] = []
        for effect in effects:
            match effect:
                case Persist():
                    pass  # written above
                case Send(frame=frame, to=to):
                    sink.send(frame, to)
                case Emit(event=event):
                    sink.emit(event)
                case Log(level=level, text=text):
                    sink.log(level, text)
                case _:
                    follow.extend(sink.other(effect))
        effects = follow
