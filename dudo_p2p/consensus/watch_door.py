"""Who gets to watch a seat, and the seat's links back to them (protocol.md §4.9
"Watching"; the rest of the seat's side: :mod:`~dudo_p2p.consensus.watch_desk`).

:class:`Door`, the part of a seat's :class:`~dudo_p2p.consensus.watch_desk.Desk` that lets
spectators in:

- **the cap**: at most :data:`MAX_SPECTATORS` keys; the next one is refused (``refused``,
  reason ``full``), over a link back closed after :data:`REFUSED_KEPT`, and at most
  :data:`REFUSED_LINKS` such links at once (a flood of fresh keys opens no more);
- **the genesis**: a ``watch`` in the lobby's context is answered with the genesis and every
  seat's signature (at most every :data:`GENESIS_EVERY` per key); one in the game's context
  (the spectator holds the genesis) only enlists it: nothing is sent;
- **watches before we are seated**, kept (up to :data:`EARLY_KEPT`) and answered the moment
  we are (:meth:`Door.waiting`), so a spectator may back off while the lobby gathers;
- **links back**, made when we send a spectator something and closed once it has not asked
  us for IDLE_ASKER, or after :data:`INTRODUCED_KEPT` when it never asked us: we handed it
  the genesis, another seat serves it (:class:`Unlink`).

Pure: no I/O, no clock (``now`` is passed in).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dudo_p2p.consensus.lobby import LOBBY_GAME_ID, Connect, SendTo
from dudo_p2p.consensus.machine import TableMachine
from dudo_p2p.consensus.replica import Seating
from dudo_p2p.consensus.watching import IDLE_ASKER, KEEPALIVE, WATCH_KINDS, Note
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.errors import DecodeError
from dudo_p2p.protocol.envelope import Envelope, seal_envelope
from dudo_p2p.protocol.kinds import Refusal, Watch
from dudo_p2p.protocol.refusals import RefusalReason

MAX_SPECTATORS = 16  # per seat, and as every spectator enlists at every seat, per table
GENESIS_EVERY = 0.25  # a spectator re-sending watch gets the genesis again at most this often
ANSWERED_KEPT = 4 * MAX_SPECTATORS  # watch senders remembered (for GENESIS_EVERY), at most
# a refused key's link back (its refusal on the way) is closed after this: longer than a
# young link holds a frame (net/transport.py, LINK_UP_GRACE 1 s), so the refusal goes out
REFUSED_KEPT = 2.0
# at most this many refused keys linked back at once: a flood of fresh keys opens no more
# links than this (one past it is refused when a link is free again: it says watch again)
REFUSED_LINKS = MAX_SPECTATORS
# a spectator we linked back to for the genesis that has not asked us within this is served
# by another seat (rotation.py: spectators spread over the seats): its link is closed
INTRODUCED_KEPT = 5.0
# watch frames that came before we were seated, kept (unchecked, by their bytes: a
# spectator's watch is the same frame each time) and taken once we are: see Door.waiting
EARLY_KEPT = MAX_SPECTATORS


@dataclass(frozen=True)
class Unlink:
    """Close our link back to spectator ``peer``: it has not asked us for IDLE_ASKER (it
    left, or watches from another seat), so it costs us nothing more (a link to a process
    gone is redialled for as long as it is kept)."""

    peer: bytes


DeskEffect = Connect | SendTo | Note
Genesis = tuple[bytes, tuple[bytes, ...]]  # the genesis frame and every seat's signature
Linked = tuple[bytes, bytes, str | None, bytes]  # from the links: sender, frame, address, conn
Taken = tuple[bytes, str | None]  # a frame for Desk.receive, and its address


class Door:
    """The spectators a seat took, and its links back to them (module docstring)."""

    def __init__(self, identity: Identity) -> None:
        self.identity = identity
        self.spectators: dict[bytes, int] = {}  # key -> its asker number in the pacer
        self.addresses: dict[bytes, tuple[str, int]] = {}  # key -> where to link back
        self.linked: dict[bytes, float] = {}  # spectators we linked back to -> since when
        self.refusing: dict[bytes, float] = {}  # refused keys linked back to -> since when
        self.next_lapse = -1e9  # the next look for links to unlink (_lapsed)
        self.answered: dict[bytes, float] = {}  # key -> when we last sent it the genesis
        self.refused = 0  # watch frames refused (the cap)
        self.early: dict[bytes, str | None] = {}  # watch frame -> its address (waiting)
        self.asked_at: dict[bytes, float] = {}  # key -> when it last asked us

    def is_spectator(self, key: bytes) -> bool:
        """``key`` is a spectator we took (its sync requests are ours to answer)."""
        return key in self.spectators

    def takes(self, kind: str, sender: bytes, coming: Sequence[Linked]) -> bool:
        """A frame of ``kind`` from link ``sender`` (claimed) is the desk's, not the table's:
        a ``watch`` from anyone, a ``sync-request`` from a spectator we took or one whose
        watch is among the frames ``coming`` this step, ahead of its ask (a spectator asks
        a seat it enlisted at just before: both may come in one read of the links)."""
        if kind in WATCH_KINDS:
            return True
        return kind == "sync-request" and (
            sender in self.spectators or any(c[0] == sender for c in coming))

    def _keep_early(self, frame: bytes, address: str | None) -> None:
        """A frame that came before we were seated: kept for :meth:`waiting` (up to
        EARLY_KEPT of them; past that it is dropped: its spectator says it again)."""
        if len(self.early) < EARLY_KEPT:
            self.early[frame] = address

    def waiting(self, machine: TableMachine | None, frames: Sequence[Linked]) -> list[Taken]:
        """The spectators' ``frames`` of a step (the links' (sender, frame, address, conn))
        to :meth:`receive` as (frame, address), after the watches kept from before we were
        seated once we are (``machine``): a spectator that said watch to a lobby is answered
        the moment the table is seated, not at its next watch (it backs off)."""
        out = [(frame, address) for _, frame, address, _ in frames]
        if machine is None or not self.early:
            return out
        early, self.early = self.early, {}
        return [*early.items(), *out]

    def _watch(
        self, env: Envelope, body: Watch, address: str | None, seating: Seating,
        alive: tuple[bool, ...], genesis: Genesis, now: float,
    ) -> list[DeskEffect]:
        """A ``watch`` in the lobby's context asks for the genesis (sent at once, at most
        every GENESIS_EVERY per key); in the game's context its author holds the genesis and
        enlists (for the cap, and to be served if it asks us): nothing is sent."""
        holds = env.game_id == seating.game_id
        if (not holds and env.game_id != LOBBY_GAME_ID) or env.round_no != 0 or env.seq != 0:
            raise DecodeError("watch travels with a zero game id or this game's, round 0 "
                              "and seq 0")
        key = env.author
        seat = seating.seat_of(key)
        if seat is not None and alive[seat]:
            # a seat removed or out of dice has left the game: it may watch the rest of it
            raise DecodeError("a seat still in the game does not watch it")
        host = body.host if body.host not in ("", "0.0.0.0", "::") else (address or "")
        if not host or body.port == 0:
            raise DecodeError("watch without an address to answer at")
        if now < self.answered.get(key, -1e9) + GENESIS_EVERY:
            return []
        if len(self.answered) >= ANSWERED_KEPT:
            # keys we did not take (refused, or strangers): forget the oldest, so a flood of
            # fresh keys cannot grow this without bound (ours stay: they are at most 16)
            stale = next((k for k in self.answered if k not in self.spectators), None)
            if stale is not None:
                del self.answered[stale]
        self.answered[key] = now
        reason = None
        if body.table not in ("", seating.table):
            reason = RefusalReason.UNKNOWN_TABLE
        elif key not in self.spectators and len(self.spectators) >= MAX_SPECTATORS:
            reason = RefusalReason.FULL
        if reason is not None:
            return self._refuse(key, host, body.port, seating.table, reason, now)
        out: list[DeskEffect] = []
        self.addresses[key] = (host, body.port)
        self.refusing.pop(key, None)  # (refused before for another table code: its link stays)
        if key not in self.spectators:
            self.spectators[key] = len(self.spectators) + 1000  # never a seat number
            out.append(Note("info", f"spectator {key[:4].hex()} watches "
                                    f"({len(self.spectators)} of {MAX_SPECTATORS})"))
        if holds:
            return out  # linked back only if it asks us (_answer)
        genesis_frame, signatures = genesis
        return [*out, *self._link(key, now), SendTo(key, genesis_frame),
                *(SendTo(key, s) for s in signatures)]

    def _refuse(self, key: bytes, host: str, port: int, table: str, reason: RefusalReason,
                now: float) -> list[DeskEffect]:
        """Link back to a refused key for REFUSED_KEPT, to say why (at most REFUSED_LINKS
        such links at once: past it, nothing is sent and the key says watch again)."""
        self.refused += 1
        note = Note("info", f"refused a spectator: {reason.value}")
        if key not in self.refusing and len(self.refusing) >= REFUSED_LINKS:
            return [note]
        self.refusing.setdefault(key, now)
        refusal = seal_envelope(self.identity, LOBBY_GAME_ID, 0, 0,
                                Refusal(table, key, reason.value))
        return [Connect(key, host, port), SendTo(key, refusal.to_bytes()), note]

    def _link(self, key: bytes, now: float) -> list[DeskEffect]:
        """Link back to spectator ``key`` once (at the address its watch gave)."""
        if key in self.linked:
            return []
        self.linked[key] = now
        host, port = self.addresses[key]
        return [Connect(key, host, port)]

    def _lapsed(self, now: float) -> list[Unlink]:
        """Our links back to spectators that have not asked us (nor been linked) for
        IDLE_ASKER, or never asked us within INTRODUCED_KEPT of the genesis (another seat
        serves them), and to refused keys told for REFUSED_KEPT, closed; looked for at most
        every KEEPALIVE. One that asks again is linked again (_answer)."""
        if now < self.next_lapse:
            return []
        self.next_lapse = now + KEEPALIVE
        asked = self.asked_at
        gone = [key for key, since in self.linked.items()
                if now - max(since, asked.get(key, -1e9)) > IDLE_ASKER
                or (key not in asked and now - since > INTRODUCED_KEPT)]
        for key in gone:
            del self.linked[key]
        told = [key for key, since in self.refusing.items() if now - since > REFUSED_KEPT]
        for key in told:
            del self.refusing[key]
        return [Unlink(key) for key in (*gone, *told)]
