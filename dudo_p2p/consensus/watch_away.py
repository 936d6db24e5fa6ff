"""Disconnections told to spectators (protocol.md §4.9 "Watching", the ``away`` kind).

Whom a seat shows disconnected is no log entry: each seat infers it from its own clock and
links (presence.py), and a spectator, which hears no seat's heartbeats, cannot. So the seat
serving a spectator tells it: an ``away`` frame (the seats it shows disconnected, each with
the milliseconds of its reconnect grace left) whenever that changes, signed once for every
spectator, and once to a spectator that starts asking it (watch_desk.py). The spectator
turns each frame into the events a seat is told (:class:`SeatDisconnected` with the end of
the grace on its own clock, :class:`SeatReconnected`) by comparing it with the last one
(:class:`AwayBoard`).

It is the word of one seat, as a seat's own screen is: signed by a seat of the table (a
stranger cannot forge one), newer than the last one from that seat (a copy replayed later is
refused), but not checked against the others' views. Pure: ``now`` is passed in.
"""

from __future__ import annotations

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus.replica import Seating
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.errors import DecodeError
from dudo_p2p.protocol.envelope import Envelope, seal_envelope
from dudo_p2p.protocol.kinds import Away

MAX_LEFT_MS = 2**31 - 1


def away_frame(identity: Identity, seating: Seating, epoch: int, seq: int,
               away: dict[int, float], now: float) -> bytes:
    """Our ``away`` frame: the seats in ``away`` (seat -> end of its grace on our clock)."""
    seats = tuple(sorted(away))
    left = tuple(min(MAX_LEFT_MS, max(0, round((away[s] - now) * 1000))) for s in seats)
    return seal_envelope(identity, seating.game_id, epoch, seq, Away(seats, left)).to_bytes()


class AwayBoard:
    """The seats a spectator shows disconnected, from the ``away`` frames it is told."""

    def __init__(self) -> None:
        self.away: dict[int, float] = {}  # seat -> end of its grace, on our clock
        self.last_seq: dict[bytes, int] = {}  # the highest seq taken from each seat

    def take(self, env: Envelope, seating: Seating, now: float) -> list[ev.Event]:
        """The events of one opened ``away`` frame (DecodeError when it is not a well-formed
        one of a seat of this game); nothing for one not newer than the last of its author."""
        body = env.body
        if not isinstance(body, Away):
            raise DecodeError("not an away frame")
        if env.author not in seating.pubs or env.game_id != seating.game_id:
            raise DecodeError("an away frame from someone not seated at this game")
        seats = list(body.seats)
        if (len(seats) != len(body.left_ms) or seats != sorted(set(seats))
                or any(s >= len(seating.pubs) for s in seats)):
            raise DecodeError("an away frame names each seat once, in order, with its time left")
        if env.seq <= self.last_seq.get(env.author, 0):
            return []  # a replay, or overtaken by a newer one
        self.last_seq[env.author] = env.seq
        told = {seat: now + ms / 1000 for seat, ms in zip(seats, body.left_ms, strict=True)}
        out: list[ev.Event] = [ev.SeatReconnected(s) for s in sorted(self.away) if s not in told]
        out.extend(ev.SeatDisconnected(s, until) for s, until in told.items()
                   if s not in self.away)
        self.away = told
        return out
