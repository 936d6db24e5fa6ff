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

This module is the top layer: the public API, receiving, agreement on acts, re-sends. The
layers under it and the bookkeeping each have a module and a contract:
:mod:`~dudo_p2p.consensus.core` (the state, shared primitives, the hooks between layers),
:mod:`~dudo_p2p.consensus.phases` (concurrent phases, our automatic entries, their events),
:mod:`~dudo_p2p.consensus.removal` (proofs, suspicion, votes, removals),
:mod:`~dudo_p2p.consensus.catchup` (sync, telling peers removals);
:mod:`~dudo_p2p.consensus.acts` (candidates, acks, racing calls),
:mod:`~dudo_p2p.consensus.faults` (entries by slot, votes, certificates),
:mod:`~dudo_p2p.consensus.sync` (sync chunks, removal items, pacing),
:mod:`~dudo_p2p.consensus.timers` (timeouts and deadlines),
:mod:`~dudo_p2p.consensus.journal` (journal records) and
:mod:`~dudo_p2p.consensus.effects` (the effect values, re-exported here).

Effects are values the node carries out in order: :class:`Persist` (write to the journal
durably *before* the sends that follow it), :class:`Send`, :class:`Emit` (a session event)
and :class:`Log` (a rejection worth telling the operator). Nothing from the wire raises out
of :meth:`TableMachine.receive`: bad input becomes a ``Log`` effect and changes nothing.
"""

from __future__ import annotations

from dudo_p2p.consensus import deadlines, journal
from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus.actions_wire import action_fields
from dudo_p2p.consensus.bindings import check_ack, check_vote
from dudo_p2p.consensus.catchup import CatchUpMixin
from dudo_p2p.consensus.core import VERIFIED_CACHE
from dudo_p2p.consensus.effects import Effect, Emit, Log, Persist, Send
from dudo_p2p.consensus.liveness import check_addressed
from dudo_p2p.consensus.phases import PhasesMixin
from dudo_p2p.consensus.reasons import Reason
from dudo_p2p.consensus.record import encode_record
from dudo_p2p.consensus.removal import RemovalMixin
from dudo_p2p.consensus.replica import ChainItem, EpochPhase, NotYet, Seating, Stale
from dudo_p2p.consensus.secrets import EpochSecrets, RandomBytes
from dudo_p2p.consensus.sync import SYNC_BUDGET
from dudo_p2p.consensus.timers import DEFAULT_TIMEOUTS, Timeouts
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.errors import (
    CommitmentMismatch,
    DecryptError,
    DudoError,
    IllegalAction,
    RemoteProtocolError,
)
from dudo_p2p.protocol.envelope import Envelope, peek
from dudo_p2p.protocol.kinds import (
    Ack,
    Act,
    BadDeal,
    Bye,
    Commit,
    Heartbeat,
    Proof,
    SyncReply,
    SyncRequest,
    Talk,
    Vote,
)
from dudo_p2p.rules import PlayerAction, SeatView

__all__ = [
    "MAX_BUFFERED", "SYNC_BUDGET", "VERIFIED_CACHE",
    "Effect", "Emit", "Log", "Persist", "Send", "TableMachine", "Timeouts",
]

MAX_BUFFERED = 512


class TableMachine(CatchUpMixin, RemovalMixin, PhasesMixin):
    """One seat's live consensus. See the module docstring for the protocol it runs.

    ``TableMachine(identity, seating, rng, now, timeouts=...)`` (the constructor is
    :class:`~dudo_p2p.consensus.core.MachineCore`'s) raises IllegalAction when the identity
    has no seat; :meth:`restore` rebuilds one from its journal."""

    # ---- public API ---------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """The game is over for our seat: it ended, the table removed us, it was abandoned
        or the table is gone (:attr:`outcome` says which)."""
        return self.outcome is not None

    @property
    def certificates(self) -> dict[tuple[int, int], list[bytes]]:
        """The removal certificates we hold, by (epoch, removed seat): the votes of each."""
        return self.votes.certificates

    @property
    def next_heartbeat(self) -> float:
        """When our next heartbeat is due (the machine schedules its own: at once when the
        game ends for us or a link came up, ``Timers.beat_at_once``)."""
        return self.timers.next_heartbeat

    def next_deadline(self, now: float) -> float:
        """When :meth:`tick` next has something to do (``now``: at once); ticking earlier
        is a wasted call, never a change (:mod:`~dudo_p2p.consensus.deadlines`). A node sleeps
        until then or until a frame arrives."""
        if self._deadline is None:
            self._deadline = deadlines.next_deadline(self, now)
        return self._deadline

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
        engine = self.replica.engine
        cached = self._legal
        if cached is None or cached[0] is not engine:
            # the engine is immutable and replaced by every change of the game: its legal
            # actions are enumerated once (every bid there is), not on every call of a
            # session's loop
            cached = self._legal = (engine, [
                a for a in engine.legal_actions(self.seat) if isinstance(a, PlayerAction)])
        return list(cached[1])

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
            # through the cache of verified frames: an entry opened here comes back inside
            # the first ack of it, and is not verified a second time then (core._open_entry)
            env = self._open(frame)
        except RemoteProtocolError as exc:
            self._out.append(Log("warning", f"rejected frame: {type(exc).__name__}: {exc}"))
            return self._flush(now)
        author = self.seating.seat_of(env.author)
        assert author is not None  # known_authors guarantees it
        if author == self.seat:
            return self._flush(now)  # our own message relayed back
        if isinstance(env.body, Vote):
            self._note_cut(author, env.body, now)
        try:
            self._check_context(env)
        except RemoteProtocolError as exc:
            # refused before it counts for anything, a sign of life included (§6)
            self._out.append(Log("info", f"refused {env.kind} of seat {author}: {exc}"))
            return self._flush(now)
        # no "heard" here: a signed frame may come from anyone holding a copy (liveness.py)
        try:
            self._dispatch(author, env, now)
        except DudoError as exc:  # remote faults, and illegal actions a peer signed
            self._out.append(Log("warning", f"rejected {env.kind} from seat {author}: {exc}"))
            return self._flush(now)
        for seat in self.cuts.relay_to(author, env.kind, env.digest()):  # cuts.py
            self._out.append(Send(frame, to=seat))
        return self._flush(now)

    def _note_cut(self, voter: int, vote: Vote, now: float) -> None:
        """A signed vote, even one of an epoch we left (stale for the tally, it still says
        what its author hears): a seat we hear voted out for silence is cut off from its
        voter, and we relay its entries to it from now on (:mod:`~dudo_p2p.consensus.cuts`)."""
        target = self.seating.seat_of(vote.target)
        if target is None:
            return
        heard = not self.timers.silent(target, now)
        if self.cuts.note(voter, target, Reason.parse(vote.reason), heard):
            self._out.append(Log("info", f"seat {voter} votes seat {target} out, which we "
                                         "hear: we relay that seat's entries to it"))

    def heard(self, seat: int, now: float) -> None:
        """A fresh frame from ``seat`` arrived on its own proven connection (the node's call,
        made before ``receive``; :mod:`~dudo_p2p.consensus.liveness`): the only input that
        resets its silence clock."""
        if 0 <= seat < self.seating.n and seat != self.seat:
            self.timers.heard(seat, now)
            self._deadline = None

    def reached(self, seat: int, now: float) -> None:
        """Our link to ``seat`` just came up (the node saw its handshake with that seat's
        process; nothing from it is heard yet): the table is not gone while it may still
        speak (:data:`~dudo_p2p.consensus.presence.REACHED_WAIT`), and our heartbeat is due
        at once, so that it proves the new link and shows our log without waiting a whole
        interval (a seat removed while out of reach is told within a round trip)."""
        if 0 <= seat < self.seating.n and seat != self.seat:
            self.presence.reached[seat] = now
            self.timers.next_heartbeat = min(self.timers.next_heartbeat, now)
            self._deadline = None  # next_deadline: the heartbeat is due now

    def tick(self, now: float) -> list[Effect]:
        """Timers: heartbeats, suspicion votes. Call at least a few times a second. A seat
        that knows it was removed beats no more: its silence is what shows the seats that
        told it that it heard (:meth:`untold`), even while a window still shows the end."""
        if self.timers.heartbeat_due(now) and not self.removed_me:
            head, length = self.replica.head, len(self.replica.chain)
            for seat, body in self.beats.round(head, length, self.seating, self.seat):
                self._out.append(Send(self._seal(0, body).to_bytes(), to=seat))
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
            genesis, signatures, self.replica.chain, self.votes.certificates, self.proofs,
            self.abandoned,
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
                case journal.Agreed(data, acks):
                    rep.replay([ChainItem(rep.epoch.number, b"", data)], machine._open)
                    machine.act_certs[rep.chain[-1].digest] = acks
                case journal.Removal(epoch, target, reason, votes):
                    machine.votes.certificates[(epoch, target)] = votes
                    # at the epoch it names: a removal joined to the epoch just voided by
                    # another (§4.6) would otherwise be chained as one of the next epoch
                    rep.remove(target, reason, epoch)
                case journal.Secrets(fields):
                    machine.secrets = EpochSecrets.from_record(fields)
                case journal.Own(data):
                    own.append(data)
                case journal.Abandoned(seat, _, claims):
                    machine.abandoned, machine.abandoned_by = claims, seat
        machine.persisted_len = len(rep.chain)
        rep.spilled = []  # in the journal already
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
        machine._ask_everyone(now)
        return machine

    def talk(self, phrase: int, now: float) -> list[Effect]:
        """Say quick phrase ``phrase`` to the table (signed, not in the log); nothing when we
        spoke less than a second ago (``consensus.talk``)."""
        if not self.talk_book.may_send(now):
            return []
        self._out.append(Send(self._seal(self.talk_book.counter, Talk(phrase)).to_bytes()))
        return self._flush(now)

    def leave(self, now: float) -> list[Effect]:
        """Tell the table we leave for good (and consent to our removal: §4.6)."""
        self._consent()
        self._out.append(Send(self._seal(0, Bye("quit")).to_bytes()))
        return self._flush(now)

    # ---- receiving ----------------------------------------------------------------------

    def _duplicate_relay(self, frame: bytes) -> bool:
        """An ack relaying a commit, nonce, reveal or result-sign we already hold changes
        nothing, so it is dropped before its signature is checked (n - 2 of every n - 1
        relays are such duplicates). Acks of acts always count: they are votes."""
        peeked = peek(frame, body=True)
        if peeked is None or peeked.kind != "ack":
            return False
        body = peeked.body
        entry = body.get("entry") if isinstance(body, dict) else None
        held = self._verified.get(entry) if isinstance(entry, bytes) else None
        return held is not None and not isinstance(held.body, Act) and held.digest() in self.seen

    def _check_context(self, env: Envelope) -> None:
        """RemoteProtocolError for an ack or a vote not bound to what it is about, of an
        epoch we have left, or taken before (a replay; :mod:`~dudo_p2p.consensus.bindings`),
        and for a proof, sync or bye with a seq other than 0 (protocol.md §4.10)."""
        rep = self.replica
        if isinstance(env.body, Proof | BadDeal | SyncRequest | SyncReply | Bye) and env.seq != 0:
            raise RemoteProtocolError(f"a {env.kind} travels with seq 0, not {env.seq}")
        if isinstance(env.body, Ack):
            inner = self._open(env.body.entry)
            check_ack(env, inner)
            if env.round_no < rep.epoch.number or (
                isinstance(inner.body, Act) and env.round_no == rep.epoch.number
                and env.seq < rep.epoch.acts
            ):
                raise RemoteProtocolError(f"stale: an ack of ({env.round_no}, {env.seq})")
        elif isinstance(env.body, Vote):
            check_vote(env, self.seating)
            if rep.removal_epoch(env.round_no) is None:
                raise RemoteProtocolError(f"stale: a vote of epoch {env.round_no}")
        else:
            return
        if self.replays.replayed(env):
            raise RemoteProtocolError("a replay of a frame already taken")

    def _dispatch(self, author: int, env: Envelope, now: float) -> None:
        body = env.body
        match body:
            case Ack(entry=entry):
                epoch = self.replica.epoch.number
                inner = self._open(entry)
                inner_author = self.seating.seat_of(inner.author)
                if inner_author is not None and inner_author != self.seat:
                    self._observe_relay(author, inner, now)
                    self._consider(inner, now)
                if isinstance(inner.body, Act) and inner.round_no == epoch:
                    ep = self.replica.epoch
                    self.race.record_ack(inner, author, ep.number, ep.acts, env.to_bytes())
                    self.replays.take(env)
                    self._settle_race()
                    self._try_finalize(now)
                elif inner.round_no == epoch and inner.digest() in self.seen:
                    self.replays.take(env)
            case Vote():
                self._take_vote(author, env, now)
            case Proof(first=first, second=second):
                self._take_proof(first, second, now)
            case BadDeal():
                self._take_bad_deal(author, env, now)
            case Heartbeat(head=head, length=length):
                check_addressed(body, self.identity.public_key)
                self._take_heartbeat(author, head, length, now)
            case SyncRequest(have=have):
                self._answer_sync(author, have, now)
            case SyncReply(start=start, entries=entries, more=more):
                self._take_reply(author, start, entries, more, now)
            case Bye():
                self._vote(author, Reason.QUIT, now)
            case Talk(phrase=phrase):  # table talk: shown or dropped, never in the log
                why = self.talk_book.take(author, env, self.replica.epoch.number, now)
                self._out.append(Emit(ev.TalkHeard(author, phrase)) if why is None
                                 else Log("info", f"dropped talk of seat {author}: {why}"))
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
        if self.abandoned:
            # the game ended abandoned for us (§4.6): an entry chained now could still
            # finish it with a winner (the last result signature of a seat we claimed
            # silent), so the log stays where the claim found it
            return
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
            self._bad_opening(env, author, str(exc), now)
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
            if isinstance(env.body, Commit) and author != self.seat and env.body.vss_cs:
                self._check_deal(env, author, now)  # before the seed: §3.7
            self._after_concurrent(env, now)

    def _relay(self, env: Envelope, author: int) -> None:
        """Ack a peer's entry to everyone, once (our own entries were sent already)."""
        digest = env.digest()
        if author == self.seat or digest in self.relayed:
            return
        self.relayed.add(digest)
        ack = self._ack(env)
        if ack is not None:
            ep = self.replica.epoch
            self.race.record_ack(env, self.seat, ep.number, ep.acts, ack)  # for its certificate
            self._out.append(Send(ack))

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
            ack = self._ack(env) if env.author != self.identity.public_key else None
            if ack is not None:
                self._out.append(Send(ack))
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
                ack = self._ack(env)
                if ack is not None:
                    self._out.append(Send(ack))

    # ---- acts: candidates, acks, racing calls (the bookkeeping is acts.ActRace) ---------

    def _candidate(self, env: Envelope, author: int, now: float) -> None:
        if self.race.offer(env, author, self.replica.epoch.number):
            # the step timeout for the acks of the act we now ack counts from here, not from
            # the last move of the log: a seat may think as long as its turn allows (no turn
            # timer: for ever), and a log stuck that long made us vote out, at our next tick,
            # every seat whose ack had not arrived within it (a human's 8 s think, then one
            # peer 200 ms slow under load, was removed for 'timeout')
            self.timers.progress_at = now
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
        author = self.seating.seat_of(env.author)
        assert author is not None  # a checked candidate
        self.act_certs[env.digest()] = self.race.certificate(env, author, ep.participants)
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

    def _chained(self, now: float) -> None:
        """The head moved: journal the new items, reset per-slot state, retry the buffer."""
        for data in self.replica.spilled:  # reveals a void after a withhold dropped
            self._out.append(Persist(journal.item_record(data)))
        self.replica.spilled = []
        for item in self.replica.chain[self.persisted_len :]:
            if item.removed_seat is None:
                cert = self.act_certs.get(item.digest)
                record = journal.item_record(item.data) if cert is None else (
                    journal.agreed_record(item.data, cert))
                self._out.append(Persist(record))
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
