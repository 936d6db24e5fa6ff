"""Spectators (protocol.md §4.9 "Watching"): what a seat's desk and a spectator share.

A *spectator* is a peer with its own identity that holds no seat (or a seat that left the
game: removed, or out of dice, watching the rest with its own key). It says ``watch`` (a
signed lobby-context frame: zero game id, round 0, seq 0) to a seated peer, which links
back to it and hands it the genesis and every seat's signature, exactly the frames a seat
that missed them gets (§4.9 step 6). The spectator then pulls the log with the ordinary
``sync-request``/``sync-reply`` of §4.7, is pushed it as it grows, and checks every item as
``verify`` does. The two sides live in their own modules:

- :mod:`~dudo_p2p.consensus.watch_desk` — the seat's side (:class:`Desk`): the cap, the
  genesis handout, answers to asks and the pushes, reading the machine and never changing
  it (no consensus state of a seat depends on a spectator);
- :mod:`~dudo_p2p.consensus.watch_spectator` — the spectator's side (:class:`Spectator`):
  what to send when, and the verification of every item it is given;
- :mod:`~dudo_p2p.consensus.rotation` — which seat a spectator asks;
- :mod:`~dudo_p2p.consensus.watch_events` — the events a spectator is told from what it
  verified.

This module holds what both sides agree on: the frames routed to a desk, the renewal
timing that keeps pushes coming, and the note both log. Pure: no I/O, no clock.
"""

from __future__ import annotations

from dataclasses import dataclass

WATCH_KINDS = frozenset({"watch"})  # routed to the desk whoever sends them (node.py)
POLL_EVERY = 1.0  # the spectator's sync-request once caught up: it renews the push ...
RENEW_EVERY = 4.0  # ... or this often while pushes keep coming (they say the seat is there)
IDLE_ASKER = 5.0  # a spectator silent this long asks another seat: not pushed to any more


@dataclass(frozen=True)
class Note:
    """A line for the operator's log (``level``: info, warning)."""

    level: str
    text: str
