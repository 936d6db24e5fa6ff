"""Taking entries into the log (protocol.md §4.3, §4.4): checks, agreement on acts, relays.

:class:`LogIntake` is the collaborator of :class:`~dudo_p2p.consensus.machine.TableMachine`
through which every log entry passes, ours and our peers', live or from a sync reply:

- :meth:`LogIntake.consider` checks an entry against the log: a rival of an entry held for
  its slot is an equivocation proof, an entry that may fit later is buffered
  (:data:`MAX_BUFFERED`), one by a seat we voted out of its epoch waits for the certificate;
  a concurrent entry is held until its phase completes, an act becomes a candidate;
- agreement on acts (the bookkeeping is :class:`~dudo_p2p.consensus.acts.ActRace`): we ack
  (relay) the first candidate we see, switch to the winner of a race, and chain the act
  every live seat acked, with its certificate;
- :meth:`LogIntake.chained`: the head moved: the new items are journalled, per-slot state
  reset, the buffer retried; then our seat sends what it owes the new position
  (:meth:`LogIntake.advance`, through :class:`~dudo_p2p.consensus.phases.Phases`);
- lost frames: while the log is stuck, our entry, our ack and our votes go again, and every
  concurrent entry of the epoch is relayed (:meth:`LogIntake.resend`).

It owns the entries by slot, the digests in the log, the buffer, what we relayed, the act
certificates and how much of the chain is journalled. Every method yields the effects it
makes, in order (:data:`~dudo_p2p.consensus.effects.Effects`).
"""

from __future__ import annotations

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus import journal
from dudo_p2p.consensus.act_certs import checked_certificate, signed_acks
from dudo_p2p.consensus.acts import ActRace
from dudo_p2p.consensus.context import SeatContext
from dudo_p2p.consensus.effects import Effects, Emit, Log, Persist, Send
from dudo_p2p.consensus.faults import EntryBook
from dudo_p2p.consensus.phases import Phases
from dudo_p2p.consensus.removal import Removals
from dudo_p2p.consensus.replica import NotYet, Stale
from dudo_p2p.consensus.timers import Timers
from dudo_p2p.errors import (
    CommitmentMismatch,
    DecodeError,
    DecryptError,
    DudoError,
    RemoteProtocolError,
)
from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.protocol.kinds import Act, Commit

MAX_BUFFERED = 512


class LogIntake:
    """Entries into the log, agreement on acts, journalling and re-sends (module docstring)."""

    def __init__(self, ctx: SeatContext, timers: Timers, race: ActRace, phases: Phases,
                 removals: Removals) -> None:
        self.ctx = ctx
        self.timers = timers
        self.race = race
        self.phases = phases
        self.removals = removals
        self.entries = EntryBook()
        self.seen: set[bytes] = set()  # digests of the entries in our log (or held for it)
        self.relayed: set[bytes] = set()
        self.buffer: list[Envelope] = []
        self.act_certs: dict[bytes, list[bytes]] = {}  # chained act digest -> its acks
        self.persisted_len = 0  # how much of the chain is journalled
        self.spilled: list[bytes] = []  # the reveals a void after the call dropped, last

    def consider(self, env: Envelope, now: float) -> Effects:
        """Check a log entry (ours or a peer's) and take it into the log if it fits."""
        ctx, removals = self.ctx, self.removals
        digest = env.digest()
        if digest in self.seen:
            return
        author = ctx.seating.seat_of(env.author)
        if author is None:
            raise RemoteProtocolError("entry by an unknown author")
        if removals.abandoned:
            # the game ended abandoned for us (§4.6): an entry chained now could still
            # finish it with a winner (the last result signature of a seat we claimed
            # silent), so the log stays where the claim found it
            return
        if self.entries.rivals(env, digest):
            first = self.entries.first(env)
            if first is not None:
                yield from removals.cheats.take_proof(first, env.to_bytes(), now)
            return
        if author in removals.expelled:
            return
        if removals.ignores(env.round_no, author):
            # we voted this seat out of this epoch: taking its late entries now could let us
            # complete the epoch while the others void it by the removal (a split); we wait
            # for the certificate instead
            return
        try:
            if isinstance(env.body, Act):
                ctx.replica.check_act(env)
            else:
                ctx.replica.check_concurrent(env)
        except NotYet:
            if env.round_no > ctx.replica.epoch.number:
                yield from removals.shown_void(author, now)  # it left our epoch
            if len(self.buffer) < MAX_BUFFERED:
                self.buffer.append(env)
            return
        except Stale:
            return
        except CommitmentMismatch as exc:
            yield from removals.cheats.bad_opening(env, author, str(exc), now)
            return
        self.entries.accept(env, digest)
        self.seen.add(digest)
        if isinstance(env.body, Act):
            # an act is acked (and so relayed) only when it is the candidate we choose
            yield from self._candidate(env, author, now)
            return
        # concurrent entries are relayed only when the log is stuck (relay_epoch)
        if isinstance(env.body, Commit) and author != ctx.seat and env.body.sealed:
            secrets = yield from self.phases.ensure_secrets()
            try:
                secrets.take_sealed(ctx.replica, ctx.seat, author, env.body, ctx.identity)
            except DecryptError as exc:
                yield Log("warning", f"seat {author} sealed a bad share: {exc}")
        if isinstance(env.body, Commit) and author != ctx.seat and env.body.vss_cs:
            yield from removals.cheats.check_deal(env, author, now)  # before the seed: §3.7
        yield from self._after_concurrent(env, now)

    def _after_concurrent(self, env: Envelope, now: float) -> Effects:
        """Hold a checked concurrent entry; if it completes the phase, chain it and go on."""
        rep = self.ctx.replica
        before = rep.phase
        if not rep.add_concurrent(env):
            return
        # the entries held back (result signatures that came before the last reveal) are
        # taken only once this phase's events are out: taken first, they could complete the
        # next phase too, and this one's events would be read off the phase after it (the
        # last RoundResolved lost, GameOver told twice)
        yield from self.chained(now, retry=False)
        yield from self.phases.completed(before, now)
        yield from self.advance(now)
        yield from self.retry_buffer(now)

    def advance(self, now: float) -> Effects:
        """Send what our seat owes the current phase, once, and take it into our log."""
        env = yield from self.phases.owed()
        if env is not None:
            yield from self.consider(env, now)

    # ---- acts: candidates, acks, racing calls ---------------------------------------------

    def relay(self, env: Envelope, author: int) -> Effects:
        """Ack a peer's entry to everyone, once (our own entries were sent already)."""
        digest = env.digest()
        if author == self.ctx.seat or digest in self.relayed:
            return
        self.relayed.add(digest)
        ack = self.ctx.ack(env)
        if ack is None:
            return
        ep = self.ctx.replica.epoch
        self.race.record_ack(env, self.ctx.seat, ep.number, ep.acts, ack)  # for its certificate
        yield Send(ack)

    def _candidate(self, env: Envelope, author: int, now: float) -> Effects:
        if self.race.offer(env, author, self.ctx.replica.epoch.number):
            # the step timeout for the acks of the act we now ack counts from here, not from
            # the last move of the log: a seat may think as long as its turn allows (no turn
            # timer: for ever), and a log stuck that long made us vote out, at our next tick,
            # every seat whose ack had not arrived within it (a human's 8 s think, then one
            # peer 200 ms slow under load, was removed for 'timeout')
            self.timers.progress_at = now
            yield from self.relay(env, author)
        yield from self._settle_race()
        yield from self.try_finalize(now)

    def take_ack(self, acker: int, ack: Envelope, inner: Envelope, now: float) -> Effects:
        """``acker``'s signed ``ack`` of the act ``inner`` of the current epoch: count it,
        settle a race, chain the act once every live seat acked it."""
        ep = self.ctx.replica.epoch
        self.race.record_ack(inner, acker, ep.number, ep.acts, ack.to_bytes())
        yield from self._settle_race()
        yield from self.try_finalize(now)

    def _settle_race(self) -> Effects:
        rep = self.ctx.replica
        winner = self.race.settle(rep.epoch.number, rep.engine, self.ctx.seating)
        if winner is None:
            return
        yield from self.relay(winner, self.ctx.seat_of(winner.author))

    def try_finalize(self, now: float) -> Effects:
        """Chain the act every live seat acked; while a removal is held, the call we ack
        once every seat not removed acked it (removal_hold.py)."""
        rep = self.ctx.replica
        ep = rep.epoch
        parts = ep.participants
        env = self.race.agreed(ep.number, parts)
        if env is None:
            held = self.removals.hold.agreed(rep)
            if held is None:
                if self.removals.hold.stale(rep):  # we ack no call (any more): void
                    yield from self.removals.release(now)
                return
            env, parts = held
        author = self.ctx.seat_of(env.author)  # a checked candidate
        self.act_certs[env.digest()] = self.race.certificate(env, author, parts)
        yield from self._chain_act(env, now)

    def _chain_act(self, env: Envelope, now: float) -> Effects:
        """Chain the agreed act ``env`` and tell it, then whose turn it is, before the
        entries held back are taken: the next act may be held already (its acks came first)
        and, taken first, it was told before this one (a call before the bid it answers;
        FakeNet seed 12: 6 of 3 seats' events out of the log's order). The session must
        hear the acts in the log's order."""
        action = self.ctx.replica.chain_act(env)
        yield from self.chained(now, retry=False)
        yield Emit(ev.ActionTaken(action))
        yield from self.phases.turn(now)
        yield from self.advance(now)
        yield from self.retry_buffer(now)
        yield from self.removals.release(now)  # a removal held for this call follows it

    def take_agreed(self, env: Envelope, acks: list[bytes], now: float) -> Effects:
        """An act with its certificate from a sync reply: chain it if it fits our log and
        every live seat but its author acked it; a rival of the entry we hold for its slot
        is an equivocation proof; without a valid certificate it is only a live candidate."""
        ctx, removals = self.ctx, self.removals
        if not isinstance(env.body, Act):
            raise DecodeError("an act item holds an act")
        digest = env.digest()
        if self.entries.rivals(env, digest):
            yield from self.consider(env, now)  # it finds the rival: the proof, and our vote
            return
        author = ctx.seating.seat_of(env.author)
        if digest != self.race.slot.mine and (
            author in removals.expelled or removals.ignores(env.round_no, author or 0)
        ):
            # as consider: never complete an epoch we are voiding (a split); but the act we
            # ack is ours already, and a removal held for it waits for it (removal_hold.py)
            return
        try:
            ctx.replica.check_act(env)
        except (NotYet, Stale):
            return
        ep = ctx.replica.epoch
        cert = checked_certificate(env, acks, ep.participants, ctx.seating, ctx.open)
        if cert is None:
            yield Log("warning", "an act came without the acks that made it final")
            # its acks still count, each checked: a call agreed without a removed seat
            # carries every ack but that seat's (removal_hold.py)
            for seat, ack in signed_acks(env, acks, ctx.seating, ctx.open).items():
                self.race.record_ack(env, seat, ep.number, ep.acts, ack)
            yield from self.consider(env, now)
            if digest == self.race.slot.mine:  # taken before: consider did not count again
                yield from self.try_finalize(now)
            return
        if digest not in self.seen:
            self.entries.accept(env, digest)
            self.seen.add(digest)
        self.act_certs[digest] = cert
        yield from self._chain_act(env, now)  # told as a live one is (it was not, before)

    # ---- the head moved -------------------------------------------------------------------

    def chained(self, now: float, *, retry: bool = True) -> Effects:
        """The head moved: journal the new items, reset per-slot state, retry the buffer
        (``retry`` False: the caller does, once it told what this move means)."""
        rep = self.ctx.replica
        for data in rep.spilled:  # reveals a void after a withhold dropped
            yield Persist(journal.item_record(data))
        if rep.spilled:
            self.spilled = list(rep.spilled)  # for the members that lack them (catchup.py)
        rep.spilled = []
        for item in rep.chain[self.persisted_len :]:
            if item.removed_seat is None:
                cert = self.act_certs.get(item.digest)
                record = journal.item_record(item.data) if cert is None else (
                    journal.agreed_record(item.data, cert))
                yield Persist(record)
        self.persisted_len = len(rep.chain)
        self.timers.progress_at = now
        self.phases.own_current = None
        self.race.next_slot()
        if retry:
            yield from self.retry_buffer(now)

    def retry_buffer(self, now: float) -> Effects:
        """Consider again every entry held back because it did not fit yet. A buffered entry
        is not in :attr:`seen`; one that is has been taken since from another copy (it came
        twice: its own frame and inside an ack), and stays there: the withdrawal reads
        ``seen`` to tell an entry we refused from one we hold (dropping it here made us
        withdraw a vote on a relay of our own log: fault_sweep --held-call seed 156)."""
        pending, self.buffer = self.buffer, []
        for env in pending:
            try:
                yield from self.consider(env, now)
            except DudoError as exc:
                yield Log("warning", f"dropped buffered {env.kind}: {exc}")

    def removed(self, epoch: int, voided: bool, now: float) -> Effects:
        """After a removal in ``epoch`` (:meth:`Removals.maybe_remove`): a void's removal
        record replays it; after the call (withheld.py) the epoch goes on from where REVEAL
        began (reveals chained since are journalled already, those chained just now are not,
        and :meth:`chained` journals them). Our secrets of a voided epoch are forgotten
        before :meth:`chained` retries buffered entries of the next epoch, which can take us
        into its COMMIT and draw (and send) new secrets."""
        rep = self.ctx.replica
        self.persisted_len = (
            len(rep.chain) if voided else min(self.persisted_len, len(rep.chain))
        )
        self.phases.forget(epoch, voided=voided)
        yield from self.chained(now)
        yield from self.phases.game_over()
        yield from self.phases.turn(now)
        yield from self.advance(now)

    # ---- lost frames: re-sends while the log is stuck ------------------------------------

    def resend(self, now: float) -> Effects:
        """Frames get lost (a peer restarting, a full queue): while the log is stuck, send our
        entry for the current position and our ack again, once per heartbeat interval."""
        if not self.timers.resend_due(now):
            return
        if self.phases.own_current is not None:
            yield Send(self.phases.own_current)
        mine = self.race.slot.mine
        if mine is not None:
            env = self.race.slot.candidates[mine]
            ack = self.ctx.ack(env) if env.author != self.ctx.identity.public_key else None
            if ack is not None:
                yield Send(ack)
        yield from self._relay_epoch()
        # a lost vote must not leave a peer behind
        for vote in self.removals.votes.own(self.ctx.replica.epoch.number, self.ctx.seat):
            yield Send(vote)

    def _relay_epoch(self) -> Effects:
        """Relay every concurrent entry of this epoch we hold (chained or pending, ours too).
        Only when the log is stuck: in an honest round every seat sends its own entry to all
        and relays would be pure overhead; but a frame may be lost after its sender moved on
        (it no longer re-sends it), and if a seat sent different entries to different peers,
        the peers end up on different heads and stall — and then these relays put the two
        versions side by side, which is the proof (§4.5)."""
        ctx = self.ctx
        ep = ctx.replica.epoch
        held = [item.data for item in ctx.replica.chain[ep.anchor_index :] if item.data]
        held += [env.to_bytes() for env in ep.pending.values()]
        for data in held:
            env = ctx.open(data)
            if isinstance(env.body, Act):
                continue
            if env.author == ctx.identity.public_key:
                # ours, already chained here: a peer that lost it cannot move on without it
                yield Send(data)
            else:
                ack = ctx.ack(env)
                if ack is not None:
                    yield Send(ack)
