"""Spectators (protocol.md §4.9 "Watching"): what a seat's desk and a spectator share.

A *spectator* is a peer with its own identity that holds no seat (or a seat that left the
game: removed, or out of dice, watching the rest with its own key). It says ``watch`` (a
signed lobby-context frame: zero game id, round 0, seq 0) to a seated peer, which links
back to it and hands it the genesis and every seat's signature, exactly the frames a seat
that missed them gets (§4.9 step 6). The spectator then pulls the log with the ordinary
``sync-request``/``sync-reply`` of §4.7, is pushed it as it grows (and kept alive while the
table is quiet, so a caught-up spectator does not ask), and checks every item as ``verify``
does. The two sides live in their own modules:

- :mod:`~dudo_p2p.consensus.watch_door` — who gets in at a seat (:class:`Door`): the cap,
  refusals, the genesis handout, watches kept until the seat is seated, links back;
- :mod:`~dudo_p2p.consensus.watch_desk` — the rest of the seat's side (:class:`Desk`, a
  Door): answers to asks and the pushes, reading the machine and never changing it (no
  consensus state of a seat depends on a spectator);
- :mod:`~dudo_p2p.consensus.watch_spectator` — the spectator's side (:class:`Spectator`):
  what to send when, and the verification of every item it is given;
- :mod:`~dudo_p2p.consensus.rotation` — which seat a spectator asks;
- :mod:`~dudo_p2p.consensus.watch_events` — the events a spectator is told from what it
  verified.

This module holds what both sides agree on: the frames routed to a desk, the timing of
pushes, keepalives and renewals, and the note both log. Pure: no I/O, no clock.
"""

from __future__ import annotations

from dataclasses import dataclass

WATCH_KINDS = frozenset({"watch"})  # routed to the desk whoever sends them (node.py)
POLL_EVERY = 1.0  # an ask nothing answered within this: the next seat's turn (rotation.py)
# A caught-up spectator does not ask while its seat keeps sending (pushes, or the keepalive a
# seat sends on a step it takes anyway: watch_desk.py): it renews its subscription this often
RENEW_EVERY = 20.0
QUIET_AFTER = 3.0  # ... and asks once nothing came from its seat for this long (a keepalive
# goes every KEEPALIVE on the seat's next step, which its 1 s heartbeat bounds)
IDLE_ASKER = 30.0  # a spectator that has not asked for this long is not pushed to any more
KEEPALIVE = 1.0  # a seat sends a caught-up subscriber its log's length at least this often


@dataclass(frozen=True)
class Note:
    """A line for the operator's log (``level``: info, warning)."""

    level: str
    text: str
