"""Which seat a spectator asks next (protocol.md §4.9 "Watching", rotation).

A spectator joins one seat, but once it holds the genesis it says ``watch`` to every other
seat too (at the address the genesis gives), so that the seat it joined can leave, crash or
be removed without the spectator losing the table. This module is the bookkeeping of that,
and nothing else:

- a seat *serves* us once a frame of it reached us since we said ``watch`` (its desk took
  us and linked back: the genesis and signatures it sends prove the link works both ways).
  The sender is the link's *claimed* id: good enough to choose whom to ask, never trusted
  for what the frames say (every item is verified on its own);
- a seat that does not serve us yet is sent ``watch`` again every :data:`ENLIST_EVERY`
  (the first frame on a fresh link is dropped while it comes up: the reason the rotation of
  the last session stalled, its second try came 2 s later and a bot game lasts 1.5 s);
- we ask one serving seat as long as it answers, and move to the next one, in seat order,
  after an ask it left unanswered or could not even be sent (its link is down): a seat that
  left costs at most one poll, and a live table is never asked twice for the same thing;
- which seat first: the one our key *prefers* (a hash of our key picks a seat), as soon as
  it serves us, else the one we joined. Spectators who all joined the host (the lobby's
  Watch, a bench) so spread over the seats instead of all pulling from one.

Pure: ``now`` is passed in; the spectator (watch_spectator.py) owns one.
"""

from __future__ import annotations

import hashlib

ENLIST_EVERY = 0.5  # watch again to each seat not serving us yet (a fresh link drops it)


class Rotation:
    """The seats serving a spectator and the one asked now (see the module docstring)."""

    def __init__(self, me: bytes = b"") -> None:
        self.me = me  # our key: which seat we prefer
        self.preferred: bytes | None = None
        self.pubs: tuple[bytes, ...] = ()  # the seats, once the genesis is verified
        self.heard: set[bytes] = set()  # link senders heard from (claimed ids)
        self.current: bytes | None = None  # the seat asked now (None: the link we joined)
        self.next_enlist = -1e9
        self.moves = 0  # times we moved to another seat (a figure for tests and logs)

    def seated(self, pubs: tuple[bytes, ...]) -> None:
        """The genesis is verified: these are the seats. The one we prefer is asked first
        once it serves us; until then the one we joined (whose frames brought the genesis)."""
        self.pubs = pubs
        pick = int.from_bytes(hashlib.sha256(b"dudo-watch-seat" + self.me).digest()[:4], "big")
        self.preferred = pubs[pick % len(pubs)]
        if self.preferred in self.heard:
            self.current = self.preferred
        else:
            self.current = next((p for p in pubs if p in self.heard), None)

    def heard_from(self, sender: bytes) -> None:
        """A frame came on the link of ``sender`` (claimed): it serves us, if it is a seat."""
        first = sender not in self.heard
        self.heard.add(sender)
        if sender in self.pubs and (self.current is None
                                    or (first and sender == self.preferred)):
            self.current = sender

    @property
    def serving(self) -> list[bytes]:
        """The seats serving us, in seat order."""
        return [p for p in self.pubs if p in self.heard]

    def target(self) -> bytes | None:
        """The seat to ask now: a key, or None for the link we joined (no seat served yet)."""
        return self.current

    def advance(self) -> None:
        """The current seat left an ask unanswered or unsent: ask the next serving one."""
        serving = self.serving
        if not serving:
            self.current = None
            return
        at = self.pubs.index(self.current) if self.current in self.pubs else -1
        after = [p for p in serving if self.pubs.index(p) > at]
        nxt = (after or serving)[0]
        if nxt != self.current:
            self.moves += 1
        self.current = nxt

    def enlist(self, now: float) -> list[bytes]:
        """The seats to say ``watch`` to now: every seat not serving us, every ENLIST_EVERY."""
        if not self.pubs or now < self.next_enlist:
            return []
        self.next_enlist = now + ENLIST_EVERY
        return [p for p in self.pubs if p not in self.heard]
