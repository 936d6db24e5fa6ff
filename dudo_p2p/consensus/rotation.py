"""Which seat a spectator asks (protocol.md §4.9 "Watching", rotation).

A spectator is served by one seat at a time: the one it joined, which handed it the genesis
(so the genesis and the history come from one seat, not from every seat). Once it holds
the genesis it also *enlists* at every other seat: one ``watch`` in the game's context each
(the seat counts it for the table's cap and remembers where to link back, and sends
nothing), so that the seat it joined can leave, crash or be removed without the spectator
losing the table. This module is the bookkeeping of that, and nothing else:

- the seat asked is the seat whose link brought the genesis (the sender is the link's
  *claimed* id: good enough to choose whom to ask, never trusted for what the frames say:
  every item is verified on its own);
- an enlisting ``watch`` that could not be queued (the link to that seat is still coming
  up) is tried again every :data:`ENLIST_EVERY`, until it is queued once;
- after an ask left unanswered, or one that could not even be sent (its link is down), the
  next seat in seat order is asked (wrapping), after a ``watch`` in the game's context to
  it once more (:meth:`Rotation.take_fresh`: it may have restarted and forgotten us): a seat
  that left costs one poll, or less when its link is down.

Pure: ``now`` is passed in; the spectator (watch_spectator.py) owns one.
"""

from __future__ import annotations

ENLIST_EVERY = 0.5  # an enlisting watch not queued yet (its link still coming up) again


class Rotation:
    """The seat asked now and the seats enlisted at (see the module docstring)."""

    def __init__(self, me: bytes = b"") -> None:
        self.me = me  # our key: a seat that left the game watches the rest, never itself
        self.pubs: tuple[bytes, ...] = ()  # the other seats, once the genesis is verified
        self.heard: set[bytes] = set()  # link senders heard from (claimed ids)
        self.current: bytes | None = None  # the seat asked now (None: the link we joined)
        self.enlisted: set[bytes] = set()  # seats our enlisting watch was queued for
        self.fresh: bytes | None = None  # a seat we moved to: a watch is due before the ask
        self.next_enlist = -1e9
        self.moves = 0  # times we moved to another seat (a figure for tests and logs)

    def seated(self, pubs: tuple[bytes, ...]) -> None:
        """The genesis is verified: these are the seats. The one asked is the one whose link
        brought the genesis (None: no frame claimed a seat's id, the link we joined)."""
        self.pubs = tuple(p for p in pubs if p != self.me)
        self.current = next((p for p in self.pubs if p in self.heard), None)
        if self.current is not None:
            self.enlisted.add(self.current)  # it took us: it gave us the genesis

    def heard_from(self, sender: bytes) -> None:
        """A frame came on the link of ``sender`` (claimed)."""
        self.heard.add(sender)
        if self.pubs and self.current is None and sender in self.pubs:
            self.current = sender

    def target(self) -> bytes | None:
        """The seat to ask now: a key, or None for the link we joined (no seat known yet)."""
        return self.current

    def advance(self) -> None:
        """The current seat left an ask unanswered or unsent: the next seat in seat order,
        after a watch to it (:meth:`take_fresh`)."""
        if not self.pubs:
            return
        at = self.pubs.index(self.current) if self.current in self.pubs else -1
        nxt = self.pubs[(at + 1) % len(self.pubs)]
        if nxt != self.current:
            self.moves += 1
            self.current = nxt
            self.fresh = nxt

    def take_fresh(self) -> bytes | None:
        """The seat we just moved to, once: say ``watch`` to it before asking it."""
        fresh, self.fresh = self.fresh, None
        return fresh

    def enlist(self, now: float) -> list[bytes]:
        """The seats to say an enlisting ``watch`` to now: each one not queued yet, every
        ENLIST_EVERY (the Watcher tells :meth:`queued` which went out)."""
        if not self.pubs or now < self.next_enlist:
            return []
        self.next_enlist = now + ENLIST_EVERY
        return [p for p in self.pubs if p not in self.enlisted]

    def queued(self, pub: bytes) -> None:
        """Our enlisting watch to ``pub`` is queued on an open link: not again."""
        self.enlisted.add(pub)
