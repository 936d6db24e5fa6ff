"""The state one seat's consensus holds, and the primitives every part of it shares.

:class:`MachineCore` is the base of :class:`~dudo_p2p.consensus.machine.TableMachine`. It
owns the state (the replica, our secrets, the bookkeeping of :mod:`~dudo_p2p.consensus.acts`,
:mod:`~dudo_p2p.consensus.faults`, :mod:`~dudo_p2p.consensus.sync` and
:mod:`~dudo_p2p.consensus.timers`, and the effects not yet handed out) and the primitives:
sealing our envelopes, opening entries through a bounded cache of verified signatures, and
handing out the effects. The machine is assembled from layers over it, one module each:

    core.py      state, primitives, and the hooks below (abstract here)
    phases.py    concurrent phases, our automatic entries, events   (PhasesMixin)
    removal.py   suspicion, votes, removals, equivocation proofs   (RemovalMixin)
    catchup.py   sync requests and replies, telling peers removals  (CatchUpMixin)
    machine.py   the public API, receiving, acts, re-sends          (TableMachine)

The hooks are how the layers call each other: each is defined by exactly one layer, and the
abstract declaration here is its contract. Every method appends effects to ``_out`` in the
order the node must carry them out; only the public API hands them out (:meth:`_flush`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus.acts import ActRace
from dudo_p2p.consensus.bindings import ReplayGuard, ack_context
from dudo_p2p.consensus.cuts import Cuts
from dudo_p2p.consensus.effects import Effect, Emit
from dudo_p2p.consensus.faults import EntryBook, VoteBook
from dudo_p2p.consensus.liveness import Beats
from dudo_p2p.consensus.presence import Presence
from dudo_p2p.consensus.replica import Replica, Seating
from dudo_p2p.consensus.secrets import EpochSecrets, RandomBytes
from dudo_p2p.consensus.sync import SyncPacer
from dudo_p2p.consensus.talk import TalkBook
from dudo_p2p.consensus.timers import DEFAULT_TIMEOUTS, Timeouts, Timers
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.errors import IllegalAction
from dudo_p2p.protocol.envelope import Envelope, open_envelope, seal_envelope
from dudo_p2p.protocol.kinds import Ack
from dudo_p2p.protocol.messages import Message
from dudo_p2p.rules import GameState, PlayerAction

VERIFIED_CACHE = 1024  # a window of frames (an entry comes back in acks within ms): memory
VERIFIED_MAX_FRAME = 4096  # larger frames (sync replies) are rare and not kept: memory bound


class MachineCore(ABC):
    """One seat's consensus state and shared primitives (see the module docstring)."""

    def __init__(
        self,
        identity: Identity,
        seating: Seating,
        rng: RandomBytes,
        now: float,
        *,
        timeouts: Timeouts = DEFAULT_TIMEOUTS,
    ) -> None:
        me = seating.seat_of(identity.public_key)
        if me is None:
            raise IllegalAction("this identity has no seat at the table")
        self.identity = identity
        self.seating = seating
        self.seat = me
        self.rng = rng
        self.timeouts = timeouts
        self.replica = Replica(seating)
        self._open: Callable[[bytes], Envelope] = self._open_entry
        self.secrets: EpochSecrets | None = None
        self.entries = EntryBook()
        self.seen: set[bytes] = set()
        self.relayed: set[bytes] = set()
        self.race = ActRace(me)
        self.buffer: list[Envelope] = []
        self.sent: set[tuple[int, str]] = set()
        self.votes = VoteBook()
        self.cuts = Cuts(me)  # seats that cannot hear a seat we hear: we relay to them
        self.replays = ReplayGuard()  # acks and votes taken: the same frame again is a replay
        self.talk_book = TalkBook()  # table talk: pace and replays (never in the log)
        self.act_certs: dict[bytes, list[bytes]] = {}  # chained act digest -> its acks
        self.proofs: list[tuple[bytes, bytes]] = []
        self.expelled: set[int] = set()
        self.timers = Timers(timeouts, seating.n, now)
        self.beats = Beats()  # our heartbeats' counter and link nonces (liveness.py)
        self.removed_me = False
        self.abandoned: list[bytes] = []  # the claims that ended the game abandoned (§4.6)
        self.abandoned_by: int | None = None  # the seat the claims were about
        self.table_gone = False
        self.presence = Presence(timeouts.silence, seating.grace_ms / 1000)
        self.went_on: dict[tuple[int, int], set[int]] = {}  # (epoch, target) we voted -> seats
        self.peer_lengths: dict[int, int] = {}
        self.peer_heads: dict[int, bytes] = {}  # each seat's head, as its last heartbeat said
        self.pacer = SyncPacer(timeouts.heartbeat)
        self.own_current: bytes | None = None  # our entry for the current position
        self.persisted_len = 0
        self._verified: dict[bytes, Envelope] = {}
        # TableMachine.next_deadline, kept until the next public call changes the state
        # (every one ends in _flush; heard() clears it too): the node asks once or twice a
        # wake-up, and between public calls nothing becomes due before it
        self._deadline: float | None = None
        self._legal: tuple[GameState, list[PlayerAction]] | None = None  # legal_actions'
        self._out: list[Effect] = [Emit(ev.GameStarted(seating.names, seating.rules))]

    # ---- hooks: each defined by one layer ---------------------------------------------------

    @abstractmethod
    def _consider(self, env: Envelope, now: float) -> None:
        """Check a log entry (ours or a peer's) and take it into the log if it fits; one that
        may fit later is buffered (machine.py)."""

    @abstractmethod
    def _chained(self, now: float) -> None:
        """The head moved: journal the new items, reset per-slot state, retry the buffer
        (machine.py)."""

    @abstractmethod
    def _advance(self, now: float) -> None:
        """Send what our seat owes the current phase, once (phases.py)."""

    @abstractmethod
    def _turn_event(self, now: float) -> None:
        """Tell the session whose turn it is now, if anyone's (phases.py)."""

    @abstractmethod
    def _take_vote(self, voter: int, env: Envelope, now: float) -> None:
        """Hold ``voter``'s signed vote ``env`` and remove its target once a strict majority
        voted (removal.py)."""

    @abstractmethod
    def _tell_outcome(self, peer: int, now: float) -> None:
        """``peer``'s heartbeat was heard: if the game was abandoned, tell it so (paced;
        removal.py)."""

    @abstractmethod
    def _observe_chain(self, peer: int, entries: tuple[bytes, ...], now: float) -> None:
        """``entries`` come from ``peer``'s chain (a sync reply): if they show it went on
        without a removal we voted for, note it, and withdraw our vote once the removal can
        no longer win a majority (removal.py)."""

    # ---- primitives ---------------------------------------------------------------------------

    def _open_entry(self, data: bytes) -> Envelope:
        """Authenticate a frame (every frame :meth:`receive` takes, and the entries inside
        acks); one that we authenticated or sealed before (every entry comes back in n - 2
        acks, ours in n - 1) is taken from a bounded cache instead of decoding it and
        verifying its signature again, the dominant cost of a round."""
        env = self._verified.get(data)
        if env is None:
            env = open_envelope(
                data, expect_game=self.seating.game_id, known_authors=self.seating.pubs
            )
            self._remember(data, env)
        return env

    def open_frame(self, frame: bytes) -> Envelope:
        """``frame`` authenticated as a message of this table (RemoteProtocolError
        otherwise: ``open_envelope`` with our game and seats), through the cache of verified
        frames, so that a frame checked here before :meth:`receive` (the node's link proof
        of a heartbeat) is not verified twice."""
        return self._open(frame)

    def _remember(self, data: bytes, env: Envelope) -> None:
        if len(data) > VERIFIED_MAX_FRAME:
            return
        if len(self._verified) >= VERIFIED_CACHE:
            self._verified.clear()
        self._verified[data] = env

    def _seal(self, seq: int, body: Message) -> Envelope:
        """Sign ``body`` as our seat's message of the current epoch. It joins the cache of
        verified frames: our own entry comes back inside every other seat's ack of it."""
        env = seal_envelope(
            self.identity, self.seating.game_id, self.replica.epoch.number, seq, body
        )
        self._remember(env.to_bytes(), env)
        return env

    def _ack(self, entry: Envelope) -> bytes | None:
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

    def _flush(self, now: float) -> list[Effect]:
        """Hand out the effects gathered so far, in order (the end of every public call)."""
        out, self._out = self._out, []
        self._deadline = None  # the state moved: next_deadline computes it again
        return out
