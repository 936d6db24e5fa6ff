"""Which seat a spectator asks (protocol.md §4.9 "Watching", rotation).

A spectator is served by one seat at a time. The one it joined hands it the genesis; once it
holds the genesis it *enlists* at every other seat: one ``watch`` in the game's context each
(the seat counts it for the table's cap and remembers where to link back, and sends
nothing), so that any seat can serve it and the seat it joined can leave, crash or be
removed without the spectator losing the table. This module is the bookkeeping of that,
and nothing else:

- the seat asked is **not** the one it joined but one of the others, chosen by the
  spectator's key (:func:`preferred`): spectators all join the same seat (the host, whom
  everyone dials), and that seat would otherwise serve every one of them, paying for each
  (its links back, the asks it checks, the sends) on top of its seat (issue 20: +0.2 ms of
  the host's CPU per action with 4 spectators). Spread by key, each seat serves about its
  share, the host only introduces them. The spectator asks nothing until its enlisting
  watch to that seat is queued (its link is up), and asks the seat it joined if that takes
  over :data:`PREFER_WITHIN`;
- the seat it joined is the one whose link brought the genesis (the sender is the link's
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

from dudo_p2p.crypto.hashing import tag, tagged_hash

ENLIST_EVERY = 0.5  # an enlisting watch not queued yet (its link still coming up) again
ENLIST_SOON = 0.05  # ... to the seat preferred, while the first ask waits for it
PREFER_WITHIN = 1.0  # the first ask goes to the seat joined if the preferred is not up by then


def preferred(me: bytes, seats: tuple[bytes, ...]) -> bytes | None:
    """The seat of ``seats`` spectator ``me`` asks: one picked by a hash of its key, so
    spectators spread evenly over the seats without anyone assigning them."""
    if not seats:
        return None
    pick = int.from_bytes(tagged_hash(tag("watch-seat"), me)[:8], "big")
    return seats[pick % len(seats)]


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
        self.prefer: bytes | None = None  # the seat to ask first, once enlisted there
        self.prefer_until = -1e9  # ... waited for until then (then: the seat joined)

    def seated(self, pubs: tuple[bytes, ...], now: float = 0.0) -> None:
        """The genesis is verified: these are the seats. The one it came from (the link
        whose sender it claimed; None: no frame claimed a seat's id, the link we joined) is
        asked only if the one :func:`preferred` among the others is not up within
        PREFER_WITHIN (:meth:`waiting`)."""
        self.pubs = tuple(p for p in pubs if p != self.me)
        self.current = next((p for p in self.pubs if p in self.heard), None)
        if self.current is not None:
            self.enlisted.add(self.current)  # it took us: it gave us the genesis
            self.prefer = preferred(self.me, tuple(p for p in self.pubs if p != self.current))
            self.prefer_until = now + PREFER_WITHIN

    def stay(self) -> None:
        """Ask the seat we joined, not another (a test whose other seats serve nobody)."""
        self.prefer = None

    def waiting(self, now: float) -> bool:
        """The first ask waits: our enlisting watch to the seat preferred is not queued yet
        and PREFER_WITHIN has not passed. Once it is queued, that seat is the one asked."""
        prefer = self.prefer
        if prefer is None:
            return False
        if prefer in self.enlisted:
            self.current, self.prefer = prefer, None
            return False
        if now >= self.prefer_until:
            self.prefer = None  # its link is not up: the seat we joined serves us
            return False
        return True

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
        # soon again while the first ask waits for the seat preferred (its link comes up
        # in milliseconds on a LAN), else every ENLIST_EVERY
        self.next_enlist = now + (ENLIST_SOON if self.prefer is not None else ENLIST_EVERY)
        return [p for p in self.pubs if p not in self.enlisted]

    def queued(self, pub: bytes) -> None:
        """Our enlisting watch to ``pub`` is queued on an open link: not again."""
        self.enlisted.add(pub)
