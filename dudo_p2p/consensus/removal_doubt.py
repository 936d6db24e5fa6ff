"""Whether our silence from a seat tells anything about it (protocol.md §4.6, "Nobody else
heard either").

A peer that hears no other seat cannot tell the others' silence from its own cut (its cable
pulled, the switch down). Before, a total loss of a few seconds made every seat vote every
other out as silent: valid majorities stood against every seat, the removals completed in
other orders at different seats, and tables forked, ended abandoned or never ended (FakeNet,
``python -m tests.consensus.fault_sweep 0 3 --total-loss 8 --seats N``). So with three seats
or more in the epoch a seat is voted out on our own for its silence only when another seat
was heard well after it last was (:func:`heard_after`), and a seat heard again gives those
still disconnected, that nobody else was heard after, a silence and a grace from then
(:func:`silent_since`): else the two seats that heard each other first when the loss ended
voted out at once the third, whose frames came a few milliseconds behind.

Pure: no I/O, no clock (the time is given).
"""

from __future__ import annotations

from collections.abc import Collection

from dudo_p2p.consensus.presence import Presence


def heard_after(last_heard: dict[int, float], me: int, seat: int, silence: float,
                but: Collection[int] = ()) -> bool:
    """A seat other than us, ``seat`` and ``but`` was heard later than half a ``silence``
    after ``seat`` last was: our link worked while ``seat`` was silent."""
    since = last_heard[seat] + silence / 2
    return any(at > since for s, at in last_heard.items()
               if s != me and s != seat and s not in but)


def silent_since(presence: Presence, last_heard: dict[int, float], me: int,
                 back: Collection[int], now: float) -> dict[int, float]:
    """Seats ``back`` are heard again: each seat still disconnected that no other seat was
    heard after is silent to us only from ``now``; its grace runs out no sooner than a
    silence and a grace from ``now``. Returns the seats whose grace now ends later, with its
    new end: the player was told the old one (``SeatDisconnected.until``) and is told again."""
    end = now + presence.silence + presence.grace
    moved: dict[int, float] = {}
    for seat, until in presence.away.items():
        if end > until and not heard_after(last_heard, me, seat, presence.silence, back):
            presence.away[seat] = moved[seat] = end
    return moved
