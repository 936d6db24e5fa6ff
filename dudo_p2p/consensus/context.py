"""Who we are at the table, and how our seat seals and opens entries.

:class:`SeatContext` is what every collaborator of
:class:`~dudo_p2p.consensus.machine.TableMachine` reads and none owns alone: our identity and
seat, the seating, the replica of the log, the RNG and the timeouts; and the three
primitives on them: sealing our envelopes, sealing our ack of an entry, and opening entries
through a bounded cache of verified signatures. It holds no effect and sends nothing.
"""

from __future__ import annotations

from dudo_p2p.consensus.bindings import ack_context
from dudo_p2p.consensus.replica import Replica, Seating
from dudo_p2p.consensus.secrets import RandomBytes
from dudo_p2p.consensus.timers import Timeouts
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.errors import IllegalAction
from dudo_p2p.protocol.envelope import Envelope, open_envelope, seal_envelope
from dudo_p2p.protocol.kinds import Ack
from dudo_p2p.protocol.messages import Message

VERIFIED_CACHE = 1024  # a window of frames (an entry comes back in acks within ms): memory
VERIFIED_MAX_FRAME = 4096  # larger frames (sync replies) are rare and not kept: memory bound


class SeatContext:
    """Our seat at one table: identity, seating, the log's replica, RNG and timeouts.
    Raises IllegalAction when ``identity`` has no seat."""

    def __init__(self, identity: Identity, seating: Seating, rng: RandomBytes,
                 timeouts: Timeouts) -> None:
        me = seating.seat_of(identity.public_key)
        if me is None:
            raise IllegalAction("this identity has no seat at the table")
        self.identity = identity
        self.seating = seating
        self.seat = me
        self.rng = rng
        self.timeouts = timeouts
        self.replica = Replica(seating)
        self.verified: dict[bytes, Envelope] = {}

    def open(self, data: bytes) -> Envelope:
        """Authenticate a frame (every frame the machine receives, and the entries inside
        acks); one that we authenticated or sealed before (every entry comes back in n - 2
        acks, ours in n - 1) is taken from a bounded cache instead of decoding it and
        verifying its signature again, the dominant cost of a round."""
        env = self.verified.get(data)
        if env is None:
            env = open_envelope(
                data, expect_game=self.seating.game_id, known_authors=self.seating.pubs
            )
            self._remember(data, env)
        return env

    def _remember(self, data: bytes, env: Envelope) -> None:
        if len(data) > VERIFIED_MAX_FRAME:
            return
        if len(self.verified) >= VERIFIED_CACHE:
            self.verified.clear()
        self.verified[data] = env

    def seal(self, seq: int, body: Message) -> Envelope:
        """Sign ``body`` as our seat's message of the current epoch. It joins the cache of
        verified frames: our own entry comes back inside every other seat's ack of it."""
        env = seal_envelope(
            self.identity, self.seating.game_id, self.replica.epoch.number, seq, body
        )
        self._remember(env.to_bytes(), env)
        return env

    def ack(self, entry: Envelope) -> bytes | None:
        """Our ack of ``entry``, signed in its context (its epoch and seq, §4.4); None when we
        are not a seat of the epoch: an eliminated seat acks nothing (its ack would count for
        nothing, §4.3)."""
        if self.seat not in self.replica.epoch.participants:
            return None
        round_no, seq = ack_context(entry)
        body = Ack(entry.to_bytes())
        env = seal_envelope(self.identity, self.seating.game_id, round_no, seq, body)
        self._remember(env.to_bytes(), env)  # a seat cut off from us relays it back (cuts.py)
        return env.to_bytes()

    def seat_of(self, pub: bytes) -> int:
        """The seat of an author already checked to be seated (AssertionError otherwise)."""
        seat = self.seating.seat_of(pub)
        assert seat is not None  # checked entries have seated authors
        return seat
