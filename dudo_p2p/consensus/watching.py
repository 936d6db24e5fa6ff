"""Spectators (protocol.md §4.9 "Watching"): the seat's desk and the spectator's verifier.

A *spectator* is a peer with its own identity that holds no seat (or a seat that left the
game: removed, or out of dice, watching the rest with its own key). It says ``watch`` (a
signed lobby-context frame: zero game id, round 0, seq 0) to a seated peer, which links
back to it and hands it the genesis and every seat's signature, exactly the frames a seat
that missed them gets (§4.9 step 6). The spectator then pulls the log with the ordinary
``sync-request``/``sync-reply`` of §4.7 and checks every item as ``verify`` does.

- :class:`Desk` is the seat's side: at most :data:`MAX_SPECTATORS` keys, a refusal
  (``refused``, reason ``full``) for the next one, answers to a spectator's sync requests
  within the per-asker bounds catch-up uses (:class:`~dudo_p2p.consensus.sync.SyncPacer`,
  a pacer of its own: a spectator's requests never spend a seat's tokens), and a *push*:
  every :data:`PUSH_EVERY` at most, the log's new items in one signed chunk, the same frame
  to every spectator that asked it lately (so a spectator costs a seat no signature check
  per move, and nothing on the step that carries a bid, :meth:`Desk.push`). It only
  *reads* the machine's chain and removal votes: no consensus state of a seat depends on a
  spectator, which is never acked, voted on, counted as heard or waited for.
- :class:`Spectator` is the spectator's side: it asks (to catch up, then once a second to
  keep the pushes coming), takes replies and pushes, and feeds items to a
  :class:`~dudo_p2p.consensus.record.RecordVerifier` (the loop of ``verify``, one item at a
  time). A reply that disagrees with what it verified is either the table voiding the
  current epoch (a removal: the chain went back to the epoch's anchor) or a lie; it asks
  again from the anchor once, and an item that still does not verify is *flagged*
  (:attr:`Spectator.flagged`): never counted as verified.

Pure: no I/O, no clock (``now`` is passed in); the node carries out the effects.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from dudo_p2p.consensus.act_certs import agreed_item
from dudo_p2p.consensus.events import Event
from dudo_p2p.consensus.genesis import seating_from
from dudo_p2p.consensus.lobby import LOBBY_GAME_ID, Connect, SendTo
from dudo_p2p.consensus.machine import TableMachine
from dudo_p2p.consensus.record import RecordVerifier, RecordViolation
from dudo_p2p.consensus.replica import ChainItem, EpochPhase, NotYet, Seating, Stale
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
ANSWERED_KEPT = 4 * MAX_SPECTATORS  # watch senders remembered (for GENESIS_EVERY), at most
WATCH_EVERY = 0.2  # the spectator's watch, until it holds the genesis (as a hello)
POLL_EVERY = 1.0  # the spectator's sync-request once caught up: it renews the push (below)
POLL_SOON = 0.3  # ... after a push that did not fit what we hold (a gap)
UNSENT_RETRY = 0.1  # ... after an ask whose seat's link was down (the next seat's turn)
# polls without an answer before asking from the epoch's anchor: a seat answers nothing from
# a length its chain no longer has (a removal voided what we verified past the anchor)
ASK_ANCHOR_AFTER = 3
REPLY_CACHE = 8  # replies kept for spectators asking what another just asked
IDLE_ASKER = 2.5  # a spectator silent this long asks another seat (over 2 polls of 1 s)
# a seat pushes the log as it grows to each spectator that asked it within IDLE_ASKER, at
# most this often, one signed chunk for all of them (a spectator costs a seat no signature
# check per move, only its renewal ask once a second): see Desk.push
PUSH_EVERY = 0.25
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
        # (have, log state) -> (the signed reply, its entry count): see _chunk
        self._replies: dict[tuple[object, ...], tuple[bytes, int]] = {}
        self._digests: list[bytes] = []  # the chain's item digests as we last saw it (_track)
        self.next_push = -1e9
        self._quiet_after = -1e9  # no spectator asked us within IDLE_ASKER after this
        self._changes = 0  # bumped when an ask or a send moves what a spectator holds
        self._memo: tuple[tuple[int, int], float, list[bytes]] | None = None  # _behind's
        self.pushed = 0  # frames pushed (a figure for tests and the bench)
        self.answered_asks = 0  # sync-requests answered (each one signature check)

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
        out: list[DeskEffect] = [Connect(key, host, body.port)]
        if reason is not None:
            self.refused += 1
            refusal = Refusal(seating.table, key, reason.value)
            sealed = seal_envelope(self.identity, LOBBY_GAME_ID, 0, 0, refusal)
            return [*out, SendTo(key, sealed.to_bytes()),
                    Note("info", f"refused a spectator: {reason.value}")]
        if key not in self.spectators:
            self.spectators[key] = len(self.spectators) + 1000  # never a seat number
            out.append(Note("info", f"spectator {key[:4].hex()} watches "
                                    f"({len(self.spectators)} of {MAX_SPECTATORS})"))
        genesis_frame, signatures = genesis
        out.append(SendTo(key, genesis_frame))
        out.extend(SendTo(key, s) for s in signatures)
        return out

    def _answer(self, key: bytes, have: int, machine: TableMachine, now: float) -> list[DeskEffect]:
        """One chunk from ``have`` (an empty one when ``have`` is our length: the spectator is
        caught up and renews its push), within the catch-up bounds per asker (sync.py);
        nothing when ``have`` is past our length (its log holds an epoch a removal voided:
        it asks again from the anchor). The ask also subscribes it to :meth:`push` for
        IDLE_ASKER seconds."""
        chain = machine.replica.chain
        self._track(chain)
        self.asked_at[key] = now
        self._changes += 1
        if have > len(chain) or not self.pacer.may_answer(self.spectators[key], have, now):
            return []
        self.answered_asks += 1
        # never back: an ask crossing a push in flight names less than the push brings, and
        # spectators at one place share one signed push (a voided tail is _track's)
        self.reached[key] = max(self.reached.get(key, 0), have)
        self._quiet_after = max(self._quiet_after, now + IDLE_ASKER)
        return self._send_chunk(key, have, machine)

    def push(self, machine: TableMachine | None, now: float, busy: bool = False) -> list[SendTo]:
        """The log's new items for every spectator that asked us within IDLE_ASKER and is
        behind our log, at most every PUSH_EVERY: one chunk from where it is, signed once
        and the same frame for all at the same place (_chunk). ``busy``: this step carried
        the table's own frames (a bid on its way): the push waits for a quieter step, up to
        one more PUSH_EVERY, so it never delays what the seats wait for. The seat's loop
        does not wake for a push: it goes out on a step the seat takes anyway (a frame, a
        heartbeat), so spectators add no wake-up to a seat."""
        if machine is None or now < self.next_push or now > self._quiet_after:
            return []  # (on every step of the seat's loop: the common case returns here)
        chain = machine.replica.chain
        behind = self._behind(len(chain), now)
        if not behind or (busy and now < self.next_push + PUSH_EVERY):
            return []
        self._track(chain)
        self.next_push = now + PUSH_EVERY
        out: list[SendTo] = []
        for key in self._behind(len(chain), now):  # again: _track may have moved some back
            for effect in self._send_chunk(key, self.reached.get(key, 0), machine):
                assert isinstance(effect, SendTo)
                out.append(effect)
        self.pushed += len(out)
        return out

    def push_due(self, length: int, now: float) -> float | None:
        """When :meth:`push` has something to send (a spectator asked us lately and is behind
        a log of ``length`` items), or None."""
        if now > self._quiet_after:
            return None
        return self.next_push if self._behind(length, now) else None

    def _behind(self, length: int, now: float) -> list[bytes]:
        """The spectators asking us lately that lack some of a log of ``length`` items. Asked
        on many steps of the seat's loop: kept until the log, an ask or a send changes it,
        or the first of them stops counting as asking (``_memo``)."""
        memo = self._memo
        if memo is not None and memo[0] == (length, self._changes) and now <= memo[1]:
            return memo[2]
        keys = [key for key in self.spectators
                if now - self.asked_at.get(key, -1e9) <= IDLE_ASKER
                and self.reached.get(key, 0) < length]
        until = min((self.asked_at[key] + IDLE_ASKER for key in keys), default=math.inf)
        self._memo = ((length, self._changes), until, keys)
        return keys

    def _track(self, chain: Sequence[ChainItem]) -> None:
        """Notice a removal that voided part of the log we sent: a spectator holding more
        than what is left of it holds only that much of our log now (the next push starts
        there, and the spectator rebuilds from it)."""
        seen = self._digests
        common = min(len(seen), len(chain))
        while common and chain[common - 1].digest != seen[common - 1]:
            common -= 1
        if common < len(seen):
            del seen[common:]
            for key, reached in self.reached.items():
                self.reached[key] = min(reached, common)
            self._changes += 1
        seen.extend(item.digest for item in chain[len(seen):])

    def _send_chunk(self, key: bytes, have: int, machine: TableMachine) -> list[DeskEffect]:
        frame, entries = self._chunk(have, machine)
        self.reached[key] = max(self.reached.get(key, 0), have + entries)
        self._changes += 1
        return [SendTo(key, frame)]

    def _chunk(self, have: int, machine: TableMachine) -> tuple[bytes, int]:
        """The signed sync-reply from ``have`` (up to a chunk; none at our length) and its
        entry count. A reply names no asker, so it is the same frame for every spectator at
        the same place of the same log: built and signed once (``_replies``). Acts travel
        without their acks (a spectator checks the entries, not the certificates)."""
        chain = machine.replica.chain
        state = (have, len(chain), machine.replica.head, machine.replica.epoch.number,
                 len(machine.votes.certificates))
        cached = self._replies.get(state)
        if cached is None:
            reply = sync_chunk(chain, have, machine.votes.certificates)
            if reply is None:
                reply = SyncReply(have, (), False)  # caught up: the renewal's answer
            sealed = seal_envelope(self.identity, machine.seating.game_id,
                                   machine.replica.epoch.number, 0, reply)
            cached = (sealed.to_bytes(), len(reply.entries))
            if len(self._replies) >= REPLY_CACHE:
                del self._replies[next(iter(self._replies))]  # the oldest
            self._replies[state] = cached
        return cached


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
        self.tell_from = 0  # items before this one are verified without being told

    # ---- what to send ----------------------------------------------------------------------

    def due(self, now: float) -> list[Outgoing]:
        """The frames to send now. Before the genesis: a watch to the seat we joined every
        WATCH_EVERY. After it: a watch to each seat not serving us yet (rotation.py), and a
        sync-request to the seat the rotation names: at once after a chunk with more to
        come, else every POLL_EVERY (caught up, the seat pushes the log to us meanwhile:
        the ask only renews that, and its empty answer says the seat is there); an ask left
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
        """An answer to our ask (``start`` is its ``have``) or a push (Desk.push: any other
        reply). A push that does not start at our length is a gap (we ask soon) or, when it
        starts inside what we hold and differs from it, the table voiding what we verified
        (we ask from its start, and the answer rebuilds); only an answer rebuilds."""
        solicited = self.asked is not None and reply.start == self.asked
        start = reply.start
        if not solicited and start > len(self.items):
            self.next_poll = min(self.next_poll, now + POLL_SOON)  # we missed a push: ask
            return []
        if solicited:
            self.asked, self.empty_polls = None, 0
            # the next chunk at once; once caught up, the renewal a poll later (pushes carry
            # the log meanwhile)
            self.next_poll = now if reply.more else now + POLL_EVERY
        incoming = [record_item(d) for d in reply.entries]
        # what we hold from `start` must agree with the reply; a difference is the epoch
        # voided by a removal (the chain went back to its anchor) or a lie: rebuild up to it
        common = 0
        while (common < len(incoming) and start + common < len(self.items)
               and incoming[common] == self.items[start + common]):
            common += 1
        if start + common < len(self.items) and common < len(incoming):
            if not solicited:  # a push says the log changed there: ask, and rebuild then
                self.retried_from = start
                self.next_poll = now
                return []
            self._rebuild(start + common)
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
        if solicited:
            self.retried_from = None
        return []

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
        tell = tell and len(self.items) > self.tell_from
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
