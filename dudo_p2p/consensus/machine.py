"""The live table: ``receive(frame, now) -> effects``, ``submit``, ``tick``. No I/O, no clock.

A :class:`TableMachine` is one seat's consensus state machine. It wraps the deterministic
:class:`~dudo_p2p.consensus.replica.Replica` with what only a live peer needs:

- **Agreement.** Every entry a peer accepts from another author is relayed to everyone in an
  ``ack``. An ``act`` is chained only when every live seat has acked it (its author's own
  message counts as its ack), so the next action always builds on an action the whole table
  holds, and keys are revealed only after the call is agreed by all. Concurrent entries
  (commit, nonce, reveal, result-sign) are chained when the phase is complete.
- **Equivocation.** Two valid entries signed by one author for one slot (epoch, kind, seq)
  are a proof; the machine broadcasts it and votes to remove the author.
- **Racing calls (V5).** When the acks for one slot show two different candidates, every
  peer switches its ack to the same winner: a ¡Calzo! beats a raise; between calls, the seat
  nearest after the bidder in the direction of play wins. A seat acks a loser only if it saw
  it first, so a loser can never gather every ack once any seat acked the winner.
- **Liveness.** Heartbeats every second; a seat the log waits for past the step timeout (or
  past the human turn timer plus a grace), or one silent past the silence timeout, gets our
  signed ``vote``; a strict majority of the other live seats removes it, voiding the epoch.
- **Catch-up.** A heartbeat showing a longer log triggers a ``sync-request``; replies carry
  chain items, each checked like a live entry (removals carry their votes).

This module is the orchestration: it owns the state of one seat and decides the order of the
effects. The bookkeeping lives beside it, each piece pure and with its own contract:
:mod:`~dudo_p2p.consensus.acts` (candidates, acks, racing calls),
:mod:`~dudo_p2p.consensus.faults` (entries by slot, votes, certificates),
:mod:`~dudo_p2p.consensus.catchup` (sync chunks, removal items, pacing),
:mod:`~dudo_p2p.consensus.timers` (timeouts and deadlines),
:mod:`~dudo_p2p.consensus.journal` (journal records) and
:mod:`~dudo_p2p.consensus.effects` (the effect values, re-exported here).

Effects are values the node carries out in order: :class:`Persist` (write to the journal
durably *before* the sends that follow it), :class:`Send`, :class:`Emit` (a session event)
and :class:`Log` (a rejection worth telling the operator). Nothing from the wire raises out
of :meth:`TableMachine.receive`: bad input becomes a ``Log`` effect and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus import journal
from dudo_p2p.consensus.actions_wire import action_fields
from dudo_p2p.consensus.acts import ActRace
from dudo_p2p.consensus.catchup import (
    SYNC_BUDGET,
    SyncPacer,
    removal_certificate,
    removals_reply,
    sync_chunk,
)
from dudo_p2p.consensus.effects import Effect, Emit, Log, Persist, Send
from dudo_p2p.consensus.faults import EntryBook, VoteBook, majority_removed
from dudo_p2p.consensus.record import check_proof, encode_record
from dudo_p2p.consensus.replica import (
    ChainItem,
    EpochPhase,
    NotYet,
    Replica,
    Seating,
    Stale,
)
from dudo_p2p.consensus.secrets import EpochSecrets, RandomBytes
from dudo_p2p.consensus.timers import DEFAULT_TIMEOUTS, Timeouts, Timers, awaited
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.errors import (
    CommitmentMismatch,
    DecodeError,
    DecryptError,
    DudoError,
    IllegalAction,
    RemoteProtocolError,
)
from dudo_p2p.protocol.codec import decode
from dudo_p2p.protocol.envelope import Envelope, open_envelope, seal_envelope
from dudo_p2p.protocol.kinds import (
    Ack,
    Act,
    Bye,
    Commit,
    Heartbeat,
    Nonce,
    Proof,
    ResultSign,
    SyncReply,
    SyncRequest,
    Vote,
)
from dudo_p2p.protocol.messages import Message
from dudo_p2p.rules import PlayerAction, SeatView

__all__ = [
    "MAX_BUFFERED", "SYNC_BUDGET", "VERIFIED_CACHE",
    "Effect", "Emit", "Log", "Persist", "Send", "TableMachine", "Timeouts",
]

MAX_BUFFERED = 512
VERIFIED_CACHE = 4096


class TableMachine:
    """One seat's live consensus. See the module docstring for the protocol it runs."""

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
        self.proofs: list[tuple[bytes, bytes]] = []
        self.expelled: set[int] = set()
        self.timers = Timers(timeouts, seating.n, now)
        self.removed_me = False
        self.peer_lengths: dict[int, int] = {}
        self.pacer = SyncPacer(timeouts.heartbeat)
        self.own_current: bytes | None = None  # our entry for the current position
        self.persisted_len = 0
        self._verified: dict[bytes, Envelope] = {}
        self._out: list[Effect] = [Emit(ev.GameStarted(seating.names, seating.rules))]

    # ---- public API ---------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.replica.phase is EpochPhase.OVER or self.removed_me

    @property
    def certificates(self) -> dict[tuple[int, int], list[bytes]]:
        """The removal certificates we hold, by (epoch, removed seat): the votes of each."""
        return self.votes.certificates

    @property
    def next_heartbeat(self) -> float:
        """When our next heartbeat is due; the node sets it to now to beat at the next tick
        (at the end of a game, so the others see our final length at once)."""
        return self.timers.next_heartbeat

    @next_heartbeat.setter
    def next_heartbeat(self, at: float) -> None:
        self.timers.next_heartbeat = at

    def view(self) -> SeatView:
        """Our seat's view: public state plus the dice our secrets let us see."""
        own: tuple[int, ...] | None = None
        others: dict[int, tuple[int, ...]] = {}
        if self.secrets is not None and self.replica.phase is EpochPhase.BIDDING:
            own, others = self.secrets.visible_dice(self.replica, self.seat)
        return self.replica.engine.view(self.seat, own, others=others)

    def legal_actions(self) -> list[PlayerAction]:
        """What our seat may submit now ([] while the table has not agreed the last act)."""
        if not self._may_submit():
            return []
        return [
            a for a in self.replica.engine.legal_actions(self.seat) if isinstance(a, PlayerAction)
        ]

    def submit(self, action: PlayerAction, now: float) -> list[Effect]:
        """Sign and send our action. Raises IllegalAction (nothing changes) when not legal."""
        if not self._may_submit():
            raise IllegalAction("wait: the table has not agreed on the last action yet")
        if getattr(action, "seat", None) != self.seat:
            raise IllegalAction("an action for another seat")
        why = self.replica.engine.why_illegal(action)
        if why is not None:
            raise IllegalAction(why)
        kind, count, face, option = action_fields(action)
        body = Act(self.replica.head, kind, count, face, option)
        env = self._seal(self.replica.epoch.acts, body)
        self.own_current = env.to_bytes()
        self._out.append(Persist(journal.own_record(self.own_current), durable=True))
        self._out.append(Send(self.own_current))
        self._consider(env, now)
        return self._flush(now)

    def receive(self, frame: bytes, now: float) -> list[Effect]:
        """Handle one frame from the wire; bad input becomes a Log effect, never an exception."""
        if self._duplicate_relay(frame):
            return []
        try:
            env = open_envelope(
                frame, expect_game=self.seating.game_id, known_authors=self.seating.pubs
            )
        except RemoteProtocolError as exc:
            self._out.append(Log("warning", f"rejected frame: {type(exc).__name__}: {exc}"))
            return self._flush(now)
        author = self.seating.seat_of(env.author)
        assert author is not None  # known_authors guarantees it
        if author == self.seat:
            return self._flush(now)  # our own message relayed back
        self.timers.last_heard[author] = now
        try:
            self._dispatch(author, env, now)
        except DudoError as exc:  # remote faults, and illegal actions a peer signed
            self._out.append(Log("warning", f"rejected {env.kind} from seat {author}: {exc}"))
        return self._flush(now)

    def tick(self, now: float) -> list[Effect]:
        """Timers: heartbeats, suspicion votes. Call at least a few times a second."""
        if self.timers.heartbeat_due(now):
            body = Heartbeat(self.replica.head, len(self.replica.chain))
            self._out.append(Send(self._seal(0, body).to_bytes()))
        if not self.over:
            self._resend(now)
            self._suspect(now)
        return self._flush(now)

    def start(self, now: float) -> list[Effect]:
        """First effects after construction (our epoch-0 commitment)."""
        self._advance(now)
        return self._flush(now)

    def record(self, genesis: bytes, signatures: list[bytes]) -> bytes:
        """The game record of our chain so far (see :mod:`dudo_p2p.consensus.record`)."""
        return encode_record(
            genesis, signatures, self.replica.chain, self.votes.certificates, self.proofs
        )

    @classmethod
    def restore(
        cls,
        identity: Identity,
        seating: Seating,
        records: list[bytes],
        rng: RandomBytes,
        now: float,
        *,
        timeouts: Timeouts = DEFAULT_TIMEOUTS,
    ) -> TableMachine:
        """A machine rebuilt from its journal after a crash: the chain is replayed through the
        same checks as live entries, our secrets and our own unagreed act are taken back (so
        we re-send the very same entries, never different ones), then we ask the table for
        whatever we missed. Raises RemoteProtocolError on a journal that does not replay."""
        machine = cls(identity, seating, rng, now, timeouts=timeouts)
        rep = machine.replica
        own: list[bytes] = []
        for record in journal.read_journal(records):
            match record:
                case journal.Item(data):
                    rep.replay([ChainItem(rep.epoch.number, b"", data)], machine._open)
                case journal.Removal(epoch, target, reason, votes):
                    machine.votes.certificates[(epoch, target)] = votes
                    # at the epoch it names: a removal joined to the epoch just voided by
                    # another (§4.6) would otherwise be chained as one of the next epoch
                    rep.remove(target, reason, epoch)
                case journal.Secrets(fields):
                    machine.secrets = EpochSecrets.from_record(fields)
                case journal.Own(data):
                    own.append(data)
        machine.persisted_len = len(rep.chain)
        machine.seen = {item.digest for item in rep.chain}
        if machine.secrets is not None and machine.secrets.epoch != rep.epoch.number:
            machine.secrets = None
        machine._out = [Log("info", f"restored {len(rep.chain)} entries from the journal")]
        for data in own:
            env = machine._open(data)
            if env.round_no == rep.epoch.number and env.seq == rep.epoch.acts:
                machine.own_current = data
                machine._out.append(Send(data))
                machine._consider(env, now)
        machine._out.append(Send(machine._seal(0, SyncRequest(len(rep.chain))).to_bytes()))
        return machine

    def leave(self, now: float) -> list[Effect]:
        """Tell the table we leave for good."""
        self._out.append(Send(self._seal(0, Bye("quit")).to_bytes()))
        return self._flush(now)

    # ---- receiving ----------------------------------------------------------------------

    def _duplicate_relay(self, frame: bytes) -> bool:
        """An ack relaying a commit, nonce, reveal or result-sign we already hold changes
        nothing, so it is dropped before its signature is checked (n - 2 of every n - 1
        relays are such duplicates). Acks of acts always count: they are votes."""
        try:
            raw = decode(frame)
        except RemoteProtocolError:
            return False
        if not isinstance(raw, list) or len(raw) != 8 or raw[5] != "ack":
            return False
        body = raw[6]
        entry = body.get("entry") if isinstance(body, dict) else None
        held = self._verified.get(entry) if isinstance(entry, bytes) else None
        return held is not None and not isinstance(held.body, Act) and held.digest() in self.seen

    def _open_entry(self, data: bytes) -> Envelope:
        """Authenticate an entry; one that we authenticated before (every entry comes back
        in n - 2 acks) is taken from a bounded cache instead of verifying its signature
        again, the dominant cost of a round."""
        env = self._verified.get(data)
        if env is None:
            env = open_envelope(
                data, expect_game=self.seating.game_id, known_authors=self.seating.pubs
            )
            if len(self._verified) >= VERIFIED_CACHE:
                self._verified.clear()
            self._verified[data] = env
        return env

    def _dispatch(self, author: int, env: Envelope, now: float) -> None:
        body = env.body
        match body:
            case Ack(entry=entry):
                inner = self._open(entry)
                inner_author = self.seating.seat_of(inner.author)
                if inner_author is not None and inner_author != self.seat:
                    self._consider(inner, now)
                if isinstance(inner.body, Act) and inner.round_no == self.replica.epoch.number:
                    ep = self.replica.epoch
                    self.race.record_ack(inner, author, ep.number, ep.acts)
                    self._settle_race()
                    self._try_finalize(now)
            case Vote():
                self._take_vote(author, env, now)
            case Proof(first=first, second=second):
                self._take_proof(first, second, now)
            case Heartbeat(head=head, length=length):
                self.peer_lengths[author] = length
                ours = len(self.replica.chain)
                # as long as ours but another head: one of us holds a voided epoch's entries
                # (a removal we missed, seen from the other side of it): catch up
                if length > ours or (length == ours and head != self.replica.head):
                    self._ask_sync(author, now)
                    self._tell_voided(author, now)
                self._tell_removed(author, now)
            case SyncRequest(have=have):
                reply = sync_chunk(self.replica.chain, have, self.votes.certificates)
                if reply is not None:
                    self._out.append(Send(self._seal(0, reply).to_bytes(), to=author))
            case SyncReply(entries=entries, more=more):
                before = self.replica.head
                self._take_sync(entries, now)
                if more and self.replica.head != before:  # no progress: wait for a heartbeat
                    self.pacer.asked_at = now
                    req = SyncRequest(self._sync_have())
                    self._out.append(Send(self._seal(0, req).to_bytes(), to=author))
            case Bye():
                self._vote(author, "quit", now)
            case _:
                self._consider(env, now)

    def _consider(self, env: Envelope, now: float) -> None:
        """Check a log entry (ours or a peer's) and take it into the log if it fits."""
        digest = env.digest()
        if digest in self.seen:
            return
        author = self.seating.seat_of(env.author)
        if author is None:
            raise RemoteProtocolError("entry by an unknown author")
        if self.entries.rivals(env, digest):
            self._equivocation(env, now)
            return
        if author in self.expelled:
            return
        if self.votes.voted(env.round_no, author, self.seat):
            # we voted this seat out of this epoch: taking its late entries now could let us
            # complete the epoch while the others void it by the removal (a split); we wait
            # for the certificate instead
            return
        try:
            if isinstance(env.body, Act):
                self.replica.check_act(env)
            else:
                self.replica.check_concurrent(env)
        except NotYet:
            if len(self.buffer) < MAX_BUFFERED:
                self.buffer.append(env)
            return
        except Stale:
            return
        except CommitmentMismatch as exc:
            self._cheat(author, "bad-reveal", str(exc), now)
            return
        self.entries.accept(env, digest)
        self.seen.add(digest)
        if isinstance(env.body, Act):
            # an act is acked (and so relayed) only when it is the candidate we choose
            self._candidate(env, author, now)
        else:
            # concurrent entries are relayed only when the log is stuck (_relay_epoch)
            if isinstance(env.body, Commit) and author != self.seat and env.body.sealed:
                try:
                    self._ensure_secrets().take_sealed(
                        self.replica, self.seat, author, env.body, self.identity
                    )
                except DecryptError as exc:
                    self._out.append(Log("warning", f"seat {author} sealed a bad share: {exc}"))
            self._after_concurrent(env, now)

    def _relay(self, env: Envelope, author: int) -> None:
        """Ack a peer's entry to everyone, once (our own entries were sent already)."""
        digest = env.digest()
        if author == self.seat or digest in self.relayed:
            return
        self.relayed.add(digest)
        self._out.append(Send(self._seal(0, Ack(env.to_bytes())).to_bytes()))

    # ---- lost frames: re-sends while the log is stuck ------------------------------------

    def _resend(self, now: float) -> None:
        """Frames get lost (a peer restarting, a full queue): while the log is stuck, send our
        entry for the current position and our ack again, once per heartbeat interval."""
        if not self.timers.resend_due(now):
            return
        if self.own_current is not None:
            self._out.append(Send(self.own_current))
        mine = self.race.slot.mine
        if mine is not None:
            env = self.race.slot.candidates[mine]
            if env.author != self.identity.public_key:
                self._out.append(Send(self._seal(0, Ack(env.to_bytes())).to_bytes()))
        self._relay_epoch()
        # a lost vote must not leave a peer behind
        for vote in self.votes.own(self.replica.epoch.number, self.seat):
            self._out.append(Send(vote))

    def _relay_epoch(self) -> None:
        """Relay every concurrent entry of this epoch we hold (chained or pending, ours too).
        Only when the log is stuck: in an honest round every seat sends its own entry to all
        and relays would be pure overhead; but a frame may be lost after its sender moved on
        (it no longer re-sends it), and if a seat sent different entries to different peers,
        the peers end up on different heads and stall — and then these relays put the two
        versions side by side, which is the proof (§4.5)."""
        ep = self.replica.epoch
        held = [item.data for item in self.replica.chain[ep.anchor_index :] if item.data]
        held += [env.to_bytes() for env in ep.pending.values()]
        for data in held:
            env = self._open(data)
            if isinstance(env.body, Act):
                continue
            if env.author == self.identity.public_key:
                # ours, already chained here: a peer that lost it cannot move on without it
                self._out.append(Send(data))
            else:
                self._out.append(Send(self._seal(0, Ack(data)).to_bytes()))

    # ---- acts: candidates, acks, racing calls (the bookkeeping is acts.ActRace) ---------

    def _candidate(self, env: Envelope, author: int, now: float) -> None:
        if self.race.offer(env, author, self.replica.epoch.number):
            self._relay(env, author)
        self._settle_race()
        self._try_finalize(now)

    def _settle_race(self) -> None:
        epoch = self.replica.epoch.number
        winner = self.race.settle(epoch, self.replica.engine, self.seating)
        if winner is not None:
            author = self.seating.seat_of(winner.author)
            assert author is not None
            self._relay(winner, author)

    def _try_finalize(self, now: float) -> None:
        ep = self.replica.epoch
        env = self.race.agreed(ep.number, ep.participants)
        if env is None:
            return
        action = self.replica.chain_act(env)
        self._chained(now)
        self._out.append(Emit(ev.ActionTaken(action)))
        self._turn_event(now)
        self._advance(now)

    def _may_submit(self) -> bool:
        phase = self.replica.phase
        return (
            not self.over
            and phase in (EpochPhase.SETUP, EpochPhase.BIDDING)
            and self.race.slot.mine is None
            and (self.secrets is not None or phase is EpochPhase.SETUP)
        )

    # ---- concurrent phases and our automatic steps -----------------------------------------

    def _after_concurrent(self, env: Envelope, now: float) -> None:
        before = self.replica.phase
        completed = self.replica.add_concurrent(env)
        if completed:
            self._chained(now)
            self._phase_events(before, now)
            self._advance(now)

    def _phase_events(self, phase: EpochPhase, now: float) -> None:
        """Events for a concurrent phase that just completed (``phase``: the one before)."""
        rep = self.replica
        if phase is EpochPhase.NONCE and rep.phase is EpochPhase.BIDDING:
            info = rep.engine.palifico_round
            self._out.append(
                Emit(
                    ev.RoundStarted(
                        rep.epoch.number,
                        rep.engine.to_act,
                        rep.engine.dice_counts,
                        info.seat if info is not None else None,
                    )
                )
            )
            self._turn_event(now)
        if phase is EpochPhase.REVEAL and rep.engine.results:
            self._out.append(Emit(ev.RoundResolved(rep.engine.results[-1])))
        if rep.phase is EpochPhase.OVER and rep.engine.winner is not None:
            self._out.append(Emit(ev.GameOver(rep.engine.winner)))

    def _turn_event(self, now: float) -> None:
        to_act = self.replica.engine.to_act
        if to_act is None or self.replica.phase not in (EpochPhase.SETUP, EpochPhase.BIDDING):
            return
        timer = self.seating.turn_timer_ms / 1000
        self._out.append(Emit(ev.TurnTimer(to_act, now + timer if timer > 0 else None)))

    def _advance(self, now: float) -> None:
        """Send what our seat owes the current phase, once."""
        rep = self.replica
        ep = rep.epoch
        if self.seat not in ep.participants or rep.phase is EpochPhase.OVER:
            return
        key = (ep.number, rep.phase.value)
        if key in self.sent:
            return
        body: Message
        match rep.phase:
            case EpochPhase.COMMIT:
                body = self._ensure_secrets().commit_body(rep, self.seat, self.identity)
            case EpochPhase.NONCE:
                assert self.secrets is not None
                body = Nonce(rep.head, self.secrets.nonce)
            case EpochPhase.REVEAL:
                assert self.secrets is not None
                body = self.secrets.reveal_body(rep)
            case EpochPhase.SIGN:
                body = ResultSign(rep.head)
            case _:
                return
        self.sent.add(key)
        env = self._seal(0, body)
        self.own_current = env.to_bytes()
        self._out.append(Send(self.own_current))
        self._consider(env, now)

    def _ensure_secrets(self) -> EpochSecrets:
        """Our secrets for the current epoch, drawn (and journalled, durably, ahead of the
        commitment that will depend on them) the first time they are needed: to commit, or to
        keep the shares another seat sealed to us if its commit comes before ours goes."""
        number = self.replica.epoch.number
        if self.secrets is None or self.secrets.epoch != number:
            self.secrets = EpochSecrets.draw(number, self.replica, self.seat, self.rng)
            record = journal.secrets_record(self.secrets.to_record())
            self._out.append(Persist(record, durable=True))
        return self.secrets

    def _chained(self, now: float) -> None:
        """The head moved: journal the new items, reset per-slot state, retry the buffer."""
        for item in self.replica.chain[self.persisted_len :]:
            if item.removed_seat is None:
                self._out.append(Persist(journal.item_record(item.data)))
        self.persisted_len = len(self.replica.chain)
        self.timers.progress_at = now
        self.own_current = None
        self.race.next_slot()
        pending, self.buffer = self.buffer, []
        for env in pending:
            self.seen.discard(env.digest())
            try:
                self._consider(env, now)
            except DudoError as exc:
                self._out.append(Log("warning", f"dropped buffered {env.kind}: {exc}"))

    # ---- faults: equivocation, bad reveals, suspicion, removal -----------------------------

    def _equivocation(self, env: Envelope, now: float) -> None:
        first = self.entries.first(env)
        if first is None:
            return
        self._take_proof(first, env.to_bytes(), now)

    def _take_proof(self, first: bytes, second: bytes, now: float) -> None:
        a, b = self._open(first), self._open(second)
        check_proof(a, b)
        seat = self.seating.seat_of(a.author)
        assert seat is not None
        if seat in self.expelled:
            return
        self.expelled.add(seat)
        self.proofs.append((first, second))
        self._out.append(Send(self._seal(0, Proof(first, second)).to_bytes()))
        self._cheat(seat, "equivocation", f"two {a.kind} entries for one slot", now)

    def _cheat(self, seat: int, what: str, detail: str, now: float) -> None:
        self._out.append(Emit(ev.CheatDetected(seat, what, detail)))
        self._out.append(Log("warning", f"seat {seat} caught: {what}: {detail}"))
        self.expelled.add(seat)
        self._vote(seat, what, now)

    def _suspect(self, now: float) -> None:
        rep = self.replica
        mine = self.race.slot.mine
        acked: set[int] | None = None
        if rep.phase in (EpochPhase.SETUP, EpochPhase.BIDDING) and mine is not None:
            acked = self.race.acks(mine, rep.epoch.number)
        waiting, limit = awaited(rep, acked, self.seating.turn_timer_ms, self.timeouts)
        for seat in waiting:
            if seat != self.seat and self.timers.stuck_past(limit, now):
                self._vote(seat, "timeout", now)
        for seat in rep.epoch.participants:
            if seat != self.seat and self.timers.silent(seat, now):
                self._vote(seat, "silent", now)
        for seat in self.expelled & set(rep.epoch.participants):
            self._vote(seat, "expelled", now)

    def _vote(self, target: int, reason: str, now: float) -> None:
        epoch = self.replica.epoch.number
        if target not in self.replica.epoch.participants or target == self.seat:
            return
        box = self.votes.box(epoch, target)
        if self.seat in box:
            return
        env = self._seal(0, Vote(self.seating.pubs[target], reason[:16]))
        box[self.seat] = env.to_bytes()
        self._out.append(Send(env.to_bytes()))
        self._maybe_remove(epoch, target, now)

    def _take_vote(self, voter: int, env: Envelope, now: float) -> None:
        assert isinstance(env.body, Vote)
        target = self.seating.seat_of(env.body.target)
        if target is None or self.replica.removal_epoch(env.round_no) is None:
            return
        if target == self.seat:
            self._out.append(Log("info", f"seat {voter} votes to remove us: {env.body.reason}"))
        self.votes.box(env.round_no, target)[voter] = env.to_bytes()
        self._maybe_remove(env.round_no, target, now)

    def _maybe_remove(self, epoch: int, target: int, now: float) -> None:
        state = self.replica.removal_epoch(epoch)
        if state is None or target not in state.participants:
            return
        if any(item.epoch == epoch and item.removed_seat == target for item in
               self.replica.chain[state.anchor_index :]):
            return  # already removed in that epoch
        tally = self.votes.tally(epoch, target, state.participants, self._open)
        if tally is None:
            return
        reason, cert = tally
        self.replica.remove(target, reason, epoch)
        self._out.append(
            Persist(journal.removal_record(epoch, target, reason, cert), durable=True)
        )
        self.persisted_len = len(self.replica.chain)
        self._out.append(Emit(ev.PlayerLeft(target, reason)))
        if target == self.seat:
            self.removed_me = True
        # forget the voided epoch's secrets before _chained: it retries buffered entries of
        # the next epoch, which can take us into its COMMIT and draw (and send) new secrets
        self.sent = {k for k in self.sent if k[0] != epoch}
        self.secrets = None
        self._chained(now)
        if self.replica.phase is EpochPhase.OVER and self.replica.engine.winner is not None:
            self._out.append(Emit(ev.GameOver(self.replica.engine.winner)))
        self._turn_event(now)
        self._advance(now)

    # ---- catch-up (chunks, removal items and pacing are in catchup.py) ---------------------

    def _tell_removed(self, peer: int, now: float) -> None:
        """A seat we removed is still talking (it was down when the votes went round, and
        its own log may even be longer, holding the voided epoch): send it the removal with
        its votes, at most once a heartbeat interval, so it learns it left the table."""
        if self.replica.engine.alive[peer] or not self.pacer.may_tell("removed", peer, now):
            return
        if not any(i.removed_seat == peer for i in self.replica.chain):
            return  # eliminated by the dice, not removed: nothing to tell
        self.pacer.told_now("removed", peer, now)
        self._send_removals(peer)

    def _tell_voided(self, peer: int, now: float) -> None:
        """Our epoch was started by removals and a peer's heartbeat shows a longer log (or
        another head as long as ours): it may still be in the epoch we voided, waiting for
        the certificate (it voted too, so it ignores the target's late entries) while a vote
        it needs was lost and its sender, having moved on, no longer re-sends it. Its log
        holds the voided epoch's entries, so it is the longer one and never asks us to catch
        up: send it the removals with their votes, at most once a heartbeat interval, while
        we are in the epoch they started (soak seeds 505, 921)."""
        if self.replica.epoch.voided is None or not self.pacer.may_tell("voided", peer, now):
            return
        self.pacer.told_now("voided", peer, now)
        self._send_removals(peer)

    def _send_removals(self, peer: int) -> None:
        """Send ``peer`` every removal of our chain with its certificate."""
        reply = removals_reply(self.replica.chain, self.votes.certificates)
        self._out.append(Send(self._seal(0, reply).to_bytes(), to=peer))

    def _accept_own_removal(self, votes: list[Envelope]) -> None:
        """The table removed us in an epoch our log has already left (we finished that
        epoch, it never saw our last signature): the certificate cannot be chained here any
        more, but it is the table's word. Signed votes against us from a strict majority of
        the other seats still in our game mean we have left the table: stop."""
        if self.removed_me:
            return
        others = set(self.replica.epoch.participants) - {self.seat}
        if majority_removed(votes, self.seat, others, self.replica.epoch.number, self.seating):
            self.removed_me = True
            self._out.append(Emit(ev.PlayerLeft(self.seat, "removed")))
            self._out.append(Log("warning", "the table removed us in an epoch we had left"))

    def _ask_sync(self, peer: int, now: float) -> None:
        if not self.pacer.may_ask(now):
            return
        req = SyncRequest(self._sync_have())
        self._out.append(Send(self._seal(0, req).to_bytes(), to=peer))

    def _sync_have(self) -> int:
        return self.pacer.have(len(self.replica.chain), self.replica.epoch.anchor_index)

    def _take_sync(self, entries: tuple[bytes, ...], now: float) -> None:
        for data in entries:
            cert = removal_certificate(data)
            if cert is not None:
                votes: list[Envelope] = []
                for vote_bytes in cert:
                    if not isinstance(vote_bytes, bytes):
                        raise DecodeError("a removal certificate holds vote envelopes")
                    vote = self._open(vote_bytes)
                    voter = self.seating.seat_of(vote.author)
                    if isinstance(vote.body, Vote) and voter is not None:
                        votes.append(vote)
                        self._take_vote(voter, vote, now)
                self._accept_own_removal(votes)
                continue
            env = self._open(data)
            if isinstance(env.body, Act):
                try:
                    self.replica.chain_act(env)
                except (NotYet, Stale):
                    continue
                self._chained(now)
                self._advance(now)
            else:
                self._consider(env, now)

    # ---- helpers -------------------------------------------------------------------------------

    def _seal(self, seq: int, body: Message) -> Envelope:
        return seal_envelope(
            self.identity, self.seating.game_id, self.replica.epoch.number, seq, body
        )

    def _flush(self, now: float) -> list[Effect]:
        out, self._out = self._out, []
        return out
