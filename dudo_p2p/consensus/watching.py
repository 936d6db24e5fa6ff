"""Spectators (protocol.md §4.9 "Watching"): the seat's desk and the spectator's verifier.

A *spectator* is a peer with its own identity that holds no seat (or a seat that left the
game: removed, or out of dice, watching the rest with its own key). It says ``watch`` (a
signed lobby-context frame: zero game id, round 0, seq 0) to a seated peer, which links
back to it and hands it the genesis and every seat's signature, exactly the frames a seat
that missed them gets (§4.9 step 6). The spectator then pulls the log with the ordinary
``sync-request``/``sync-reply`` of §4.7 and checks every item as ``verify`` does.

- :class:`Desk` is the seat's side: at most :data:`MAX_SPECTATORS` keys, a refusal
  (``refused``, reason ``full``) for the next one, and answers to a spectator's sync
  requests within the per-asker bounds catch-up uses (:class:`~dudo_p2p.consensus.sync.SyncPacer`,
  a pacer of its own: a spectator's requests never spend a seat's tokens). It only *reads*
  the machine's chain and certificates: no consensus state of a seat depends on a
  spectator, which is never acked, voted on, counted as heard or waited for.
- :class:`Spectator` is the spectator's side: it asks, takes replies, and feeds items to a
  :class:`~dudo_p2p.consensus.record.RecordVerifier` (the loop of ``verify``, one item at a
  time). A reply that disagrees with what it verified is either the table voiding the
  current epoch (a removal: the chain went back to the epoch's anchor) or a lie; it asks
  again from the anchor once, and an item that still does not verify is *flagged*
  (:attr:`Spectator.flagged`): never counted as verified.

Pure: no I/O, no clock (``now`` is passed in); the node carries out the effects.
"""

from __future__ import annotations

from dataclasses import dataclass

from dudo_p2p.consensus.act_certs import agreed_item
from dudo_p2p.consensus.events import Event
from dudo_p2p.consensus.genesis import seating_from
from dudo_p2p.consensus.lobby import LOBBY_GAME_ID, Connect, SendTo
from dudo_p2p.consensus.machine import TableMachine
from dudo_p2p.consensus.record import RecordVerifier, RecordViolation
from dudo_p2p.consensus.replica import EpochPhase, NotYet, Seating, Stale
from dudo_p2p.consensus.rotation import Rotation
from dudo_p2p.consensus.sync import SyncPacer, sync_chunk
from dudo_p2p.consensus.watch_events import Before, item_events
from dudo_p2p.crypto.identity import Identity, KeyPin
from dudo_p2p.errors import DecodeError, DudoError
from dudo_p2p.protocol.codec import decode
from dudo_p2p.protocol.envelope import Envelope, open_envelope, peek_kind, seal_envelope
from dudo_p2p.protocol.kinds import (
    Genesis,
    GenesisSign,
    Refusal,
    SyncReply,
    SyncRequest,
    Watch,
)
from dudo_p2p.protocol.refusals import RefusalReason

MAX_SPECTATORS = 16  # per seat: a table of six serves at most 96 pulls, each bounded
GENESIS_EVERY = 0.25  # a spectator re-sending watch gets the genesis again at most this often
WATCH_EVERY = 0.2  # the spectator's watch, until it holds the genesis (as a hello)
POLL_EVERY = 1.0  # the spectator's sync-request when the last reply brought nothing new
POLL_SOON = 0.3  # ... after a reply that moved us (within the seat's 4 a second)
UNSENT_RETRY = 0.1  # ... after an ask whose seat's link was down (the next seat's turn)
# polls without an answer before asking from the epoch's anchor: a seat answers nothing from
# a length its chain no longer has (a removal voided what we verified past the anchor)
ASK_ANCHOR_AFTER = 3
REPLY_CACHE = 8  # replies kept for spectators asking what another just asked
IDLE_ASKER = 2.5  # a spectator silent this long asks another seat (over 2 polls of 1 s)
WATCH_KINDS = frozenset({"watch"})


@dataclass(frozen=True)
class Note:
    """A line for the spectator's log (``level``: info, warning)."""

    level: str
    text: str


DeskEffect = Connect | SendTo | Note


class Desk:
    """A seated peer's spectators (see the module docstring). ``receive`` takes a ``watch``
    from anyone and a ``sync-request`` from a spectator it took; returns effects."""

    def __init__(self, identity: Identity, heartbeat: float = 1.0) -> None:
        self.identity = identity
        self.spectators: dict[bytes, int] = {}  # key -> its asker number in the pacer
        self.pacer = SyncPacer(heartbeat)
        self.answered: dict[bytes, float] = {}  # key -> when we last sent it the genesis
        self.refused = 0  # watch frames refused (the cap)
        self.reached: dict[bytes, int] = {}  # key -> the log length it holds, as far as we know
        self.asked_at: dict[bytes, float] = {}  # key -> when it last asked us
        # (have, log state) -> (the signed reply, its entry count): see _answer
        self._replies: dict[tuple[object, ...], tuple[bytes, int]] = {}

    def caught_up(self, length: int, now: float) -> bool:
        """Every spectator that pulls from us holds the log up to ``length`` (as far as our
        replies and its asks tell): a seat whose game ended lingers for this within its
        settle grace, never longer (node.py). A spectator that has not asked us for
        IDLE_ASKER seconds pulls from another seat (rotation.py): not waited for."""
        return all(self.reached.get(key, 0) >= length
                   or now - self.asked_at.get(key, -1e9) > IDLE_ASKER
                   for key in self.spectators)

    def is_spectator(self, key: bytes) -> bool:
        """``key`` is a spectator we took (its sync requests are ours to answer)."""
        return key in self.spectators

    def receive(
        self, frame: bytes, address: str | None, machine: TableMachine | None,
        genesis: tuple[bytes, tuple[bytes, ...]] | None, now: float,
    ) -> list[DeskEffect]:
        """One ``watch`` or spectator ``sync-request``; ``machine``/``genesis`` None: we are
        not seated yet (the spectator's watch is ignored: it says it again)."""
        if machine is None or genesis is None:
            return []
        seating = machine.seating
        try:
            env = open_envelope(frame)
            if isinstance(env.body, Watch):
                alive = machine.replica.engine.alive
                return self._watch(env, env.body, address, seating, alive, genesis, now)
            if isinstance(env.body, SyncRequest) and env.author in self.spectators:
                if env.game_id != seating.game_id or env.seq != 0:
                    raise DecodeError("a spectator's sync-request is for this game, seq 0")
                return self._answer(env.author, env.body.have, machine, now)
            raise DecodeError(f"a spectator sends watch or sync-request, not {env.kind}")
        except DudoError as exc:
            return [Note("warning", f"spectator frame refused: {exc}")]

    def _watch(
        self, env: Envelope, body: Watch, address: str | None, seating: Seating,
        alive: tuple[bool, ...], genesis: tuple[bytes, tuple[bytes, ...]], now: float,
    ) -> list[DeskEffect]:
        if env.game_id != LOBBY_GAME_ID or env.round_no != 0 or env.seq != 0:
            raise DecodeError("watch travels with a zero game id, round 0 and seq 0")
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
        self.answered[key] = now
        reason = None
        if body.table not in ("", seating.table):
            reason = RefusalReason.UNKNOWN_TABLE
        elif key not in self.spectators and len(self.spectators) >= MAX_SPECTATORS:
            reason = RefusalReason.FULL
        out: list[DeskEffect] = [Connect(key, host, body.port)]
        if reason is not None:
            self.refused += 1
            refusal = Refusal(seating.table, key, reason.value)
            sealed = seal_envelope(self.identity, LOBBY_GAME_ID, 0, 0, refusal)
            return [*out, SendTo(key, sealed.to_bytes()),
                    Note("info", f"refused a spectator: {reason.value}")]
        if key not in self.spectators:
            self.spectators[key] = len(self.answered) + 1000  # never a seat number
            out.append(Note("info", f"spectator {key[:4].hex()} watches "
                                    f"({len(self.spectators)} of {MAX_SPECTATORS})"))
        genesis_frame, signatures = genesis
        out.append(SendTo(key, genesis_frame))
        out.extend(SendTo(key, s) for s in signatures)
        return out

    def _answer(self, key: bytes, have: int, machine: TableMachine, now: float) -> list[DeskEffect]:
        """One chunk from ``have``, within the catch-up bounds per asker (sync.py). A reply
        is the same frame for every spectator asking the same ``have`` of the same log (it
        names no asker): it is built and signed once (``_replies``), so spectators moving
        together cost the seat one signature per chunk, not one each."""
        chain = machine.replica.chain
        self.asked_at[key] = now
        self.reached[key] = max(self.reached.get(key, 0), min(have, len(chain)))
        if have >= len(chain) or not self.pacer.may_answer(self.spectators[key], have, now):
            return []
        state = (have, len(chain), machine.replica.head, machine.replica.epoch.number,
                 len(machine.act_certs), len(machine.votes.certificates))
        cached = self._replies.get(state)
        if cached is None:
            reply = sync_chunk(chain, have, machine.votes.certificates, machine.act_certs)
            if reply is None:
                return []
            sealed = seal_envelope(self.identity, machine.seating.game_id,
                                   machine.replica.epoch.number, 0, reply)
            cached = (sealed.to_bytes(), len(reply.entries))
            if len(self._replies) >= REPLY_CACHE:
                del self._replies[next(iter(self._replies))]  # the oldest
            self._replies[state] = cached
        frame, entries = cached
        self.reached[key] = max(self.reached.get(key, 0), have + entries)
        return [SendTo(key, frame)]


def record_item(data: bytes) -> object:
    """A sync item as a record item (§4.8): an act's envelope without its acks, a removal
    decoded, a concurrent entry's envelope as it is. DecodeError on a malformed one."""
    agreed = agreed_item(data)
    if agreed is not None:
        return agreed[0]
    try:
        decoded = decode(data)
    except DecodeError:
        return data
    if isinstance(decoded, list) and decoded and decoded[0] == "removal":
        return decoded  # the verifier checks its shape and votes
    return data


@dataclass(frozen=True)
class Outgoing:
    """A frame for a seat: ``to`` its key, or None for the link we joined at; ``poll``: a
    sync-request (tell :meth:`Spectator.unsent` when it could not be sent)."""

    to: bytes | None
    frame: bytes
    poll: bool


@dataclass(frozen=True)
class Verified:
    """Progress: ``items`` of the log verified, ``moves`` of them players' acts."""

    items: int
    moves: int
    head: str
    finished: bool


class Spectator:
    """The spectator's state (see the module docstring): what to send, what it verified."""

    def __init__(self, identity: Identity, table: str, host: str, port: int,
                 pin: KeyPin | None = None) -> None:
        self.identity = identity
        self.watch = Watch(table, host, port)
        self.pin = pin  # the host chosen (CODE@FINGERPRINT): seat 0 of the genesis must be it
        self.seating: Seating | None = None
        self.genesis: bytes | None = None
        self.signatures: dict[bytes, bytes] = {}
        self.verifier: RecordVerifier | None = None
        self.items: list[object] = []  # the record items verified, in order
        self.moves = 0
        self.flagged: RecordViolation | None = None
        self.refused: RefusalReason | None = None
        self.next_watch = -1e9
        self.next_poll = -1e9
        self.asked: int | None = None  # the `have` of our open request
        self.retried_from: int | None = None  # asked again from the anchor after a misfit
        self.empty_polls = 0
        self.rebuilds = 0  # times a removal voided items we had verified
        self.rotation = Rotation(identity.public_key)  # which seat we ask (rotation.py)
        # the events of the items verified (watch_events.py), each with the moves verified
        # when it happened; the session takes them (take_told)
        self.told: list[tuple[Event, int]] = []

    # ---- what to send ----------------------------------------------------------------------

    def due(self, now: float) -> list[Outgoing]:
        """The frames to send now. Before the genesis: a watch to the seat we joined every
        WATCH_EVERY. After it: a watch to each seat not serving us yet (rotation.py), and a
        sync-request to the seat the rotation names at most every POLL_EVERY (at once after
        a chunk with more to come, POLL_SOON after a last chunk that moved us); an ask left
        unanswered moves the rotation to the next serving seat."""
        if self.flagged is not None or self.refused is not None:
            return []
        if self.seating is None:
            if now < self.next_watch:
                return []
            self.next_watch = now + WATCH_EVERY
            return [Outgoing(None, self._watch_frame(), poll=False)]
        out: list[Outgoing] = []
        if not self.finished:
            enlist = self.rotation.enlist(now)
            if enlist:
                frame = self._watch_frame()
                out.extend(Outgoing(pub, frame, poll=False) for pub in enlist)
        if now < self.next_poll or self.finished:
            return out
        self.next_poll = now + POLL_EVERY
        have = len(self.items) if self.retried_from is None else self.retried_from
        if self.asked is not None:  # the last ask brought nothing: the next seat's turn
            self.empty_polls += 1
            self.rotation.advance()
        if self.empty_polls >= ASK_ANCHOR_AFTER:  # our log may hold an epoch since voided
            self.empty_polls, have = 0, min(have, self._anchor())
        self.asked = have
        env = seal_envelope(self.identity, self.seating.game_id, 0, 0, SyncRequest(have))
        return [*out, Outgoing(self.rotation.target(), env.to_bytes(), poll=True)]

    def unsent(self, now: float) -> None:
        """The last ask could not be sent (its seat's link is down: the seat left, or the
        link is still coming up): ask the next serving seat shortly, not a poll later."""
        self.asked = None
        self.rotation.advance()
        self.next_poll = min(self.next_poll, now + UNSENT_RETRY)

    def _watch_frame(self) -> bytes:
        return seal_envelope(self.identity, LOBBY_GAME_ID, 0, 0, self.watch).to_bytes()

    def addresses(self) -> list[tuple[bytes, str, int]]:
        """Where each seat's link is, from the genesis: (key, host, port); host "" when the
        genesis does not say (the host binds every interface: the address we joined at)."""
        if self.genesis is None or self.seating is None:
            return []
        body = open_envelope(self.genesis).body
        assert isinstance(body, Genesis)
        return [(pub, host if host not in ("0.0.0.0", "::") else "", port)
                for pub, host, port in zip(body.pubs, body.hosts, body.ports, strict=True)]

    @property
    def finished(self) -> bool:
        """The log verified so far ends the game: the rules engine is over and the last
        round's result signatures are chained (the winner is known one phase earlier)."""
        return self.verifier is not None and self.verifier.replica.phase is EpochPhase.OVER

    def progress(self) -> Verified | None:
        """What is verified so far (None before the genesis)."""
        if self.verifier is None:
            return None
        return Verified(len(self.items), self.moves, self.verifier.replica.head.hex(),
                        self.finished)

    # ---- what comes back ---------------------------------------------------------------------

    def receive(self, frame: bytes, now: float, sender: bytes | None = None) -> list[Note]:
        """One frame from a seat: the genesis, a signature, a refusal or a sync-reply;
        ``sender`` is the link's claimed id (the rotation learns who serves us from it).
        Bad frames are refused with a note; an item that does not verify flags the log."""
        if sender is not None:
            self.rotation.heard_from(sender)
        try:
            env = open_envelope(frame)
            body = env.body
            match body:
                case Refusal() if body.to == self.identity.public_key:
                    self.refused = RefusalReason.from_wire(body.reason)
                    return [Note("warning", f"refused: {self.refused.text}")]
                case Genesis() | GenesisSign() if self.seating is None:
                    return self._genesis_part(env, frame)
                case SyncReply() if self.seating is not None and self.flagged is None:
                    if env.author not in self.seating.pubs or env.game_id != self.seating.game_id:
                        raise DecodeError("a sync-reply from someone not seated at this game")
                    return self._reply(body, now)
            return []
        except DudoError as exc:
            return [Note("warning", f"frame refused: {exc}")]

    def _genesis_part(self, env: Envelope, frame: bytes) -> list[Note]:
        if isinstance(env.body, Genesis):
            self.genesis = frame
        else:
            self.signatures[env.author] = frame
        if self.genesis is None:
            return []
        genesis_env = open_envelope(self.genesis)
        assert isinstance(genesis_env.body, Genesis)
        pubs = genesis_env.body.pubs
        if not all(p in self.signatures for p in pubs):
            return []
        seating = seating_from(self.genesis, [self.signatures[p] for p in pubs])
        if self.pin is not None and not self.pin.matches(seating.pubs[0]):
            self.refused = RefusalReason.WRONG_HOST
            return [Note("warning", f"refused: {self.refused.text} (host {self.pin} chosen)")]
        self.seating = seating
        self.verifier = RecordVerifier(self.seating)
        self.rotation.seated(self.seating.pubs)
        self.next_poll = -1e9
        return [Note("info", f"watching table {self.seating.table}: genesis and "
                             f"{len(pubs)} signatures verified")]

    def _reply(self, reply: SyncReply, now: float) -> list[Note]:
        if reply.start != self.asked:
            return []  # not what we asked (a late or a replayed reply)
        self.asked, self.empty_polls = None, 0
        start, incoming = reply.start, [record_item(d) for d in reply.entries]
        # what we hold from `start` must agree with the reply; a difference is the epoch
        # voided by a removal (the chain went back to its anchor) or a lie: rebuild up to it
        common = 0
        while (common < len(incoming) and start + common < len(self.items)
               and incoming[common] == self.items[start + common]):
            common += 1
        if start + common < len(self.items) and common < len(incoming):
            self._rebuild(start + common)
        before = len(self.items)
        notes: list[Note] = []
        for item in incoming[common:]:
            try:
                self._add(item)
            except RecordViolation as exc:
                # an entry that does not follow ours (NotYet, Stale) may be the table voiding
                # the epoch: ask again from its anchor once; anything else is a lie at once
                fits_later = isinstance(exc.__cause__, NotYet | Stale)
                if fits_later and self.retried_from is None and start > self._anchor():
                    self.retried_from = self._anchor()  # the table may have voided the epoch
                    self.next_poll = now
                    return [Note("info", f"item {exc.index} does not follow our log; "
                                         f"asking again from item {self.retried_from}")]
                self.flagged = exc
                return [Note("warning", f"FORGED or inconsistent: {exc}")]
        self.retried_from = None
        if len(self.items) > before:
            # the next chunk at once; after a last chunk, soon (the table is moving, and a
            # new `have` is not the seat's once-a-heartbeat repeat)
            self.next_poll = now if reply.more else min(self.next_poll, now + POLL_SOON)
        return notes

    def _anchor(self) -> int:
        """Where the log may still change: the current epoch's anchor (a removal voids back
        to it), or the voided epoch's when removals started this one (another removal of
        it joins them, in seat order)."""
        assert self.verifier is not None
        epoch = self.verifier.replica.epoch
        return epoch.voided[0].anchor_index if epoch.voided is not None else epoch.anchor_index

    def take_told(self) -> list[tuple[Event, int]]:
        """The events of the items verified since the last call (watch_events.py), each
        with the number of moves verified when it happened; a removal's rebuild tells
        nothing again of the items it re-verifies."""
        told, self.told = self.told, []
        return told

    def _add(self, item: object, *, tell: bool = True) -> None:
        verifier = self.verifier
        assert verifier is not None
        before = Before.of(verifier.replica)
        verifier.add(item)
        self.items.append(item)
        entry = None
        if isinstance(item, bytes) and peek_kind(item) == "act":  # verified just above
            self.moves += 1
            entry = verifier.open_entry(item) if tell else None
        if tell:
            self.told.extend((event, self.moves)
                             for event in item_events(before, verifier.replica, item, entry))

    def _rebuild(self, upto: int) -> None:
        """Verify ``items[:upto]`` again from the genesis (a removal voided what follows)."""
        assert self.seating is not None
        self.rebuilds += 1
        kept, self.items, self.moves = self.items[:upto], [], 0
        self.verifier = RecordVerifier(self.seating)
        for item in kept:
            self._add(item, tell=False)  # told already
