"""Faults and removal, the machine's side (protocol.md §4.5, §4.6): proofs, suspicion, votes.

:class:`Removals` is the collaborator of :class:`~dudo_p2p.consensus.machine.TableMachine`
that acts on faults; the bookkeeping is :mod:`~dudo_p2p.consensus.faults` (votes,
certificates, evidence) and :mod:`~dudo_p2p.consensus.presence` (disconnected seats, the
grace). It owns the seats expelled, the proofs and votes, and how the game ended for us
(removed, abandoned, table gone); every method yields the effects it makes, in order, and
what a removal does to the rest of the log (journalling it, forgetting our secrets of a
voided epoch, chaining on, our next entry) is the machine's ``on_removed`` step, which
:meth:`Removals.maybe_remove` calls right after the removal:

- a second, different entry for a taken slot, a ``proof`` from a peer, a nonce or reveal
  that does not open its commitment: checked, kept for the record, broadcast once, and its
  author expelled and voted out (:mod:`~dudo_p2p.consensus.removal_cheats`);
- each tick, a seat silent past the silence timeout is shown as disconnected, and the table
  waits for it (its turn, its reveal) until the reconnect grace runs out; then it gets our
  signed ``vote`` for ``silent``; a connected seat the log waits for past its limit
  (:func:`~dudo_p2p.consensus.timers.awaited`) gets one for ``timeout``, an expelled one for
  ``expelled`` (one vote per target and epoch);
- when the votes of a strict majority of the epoch's other live seats are held, the target
  is removed: the replica voids the epoch, the removal and its certificate are journalled
  durably, our secrets of the voided epoch are forgotten and the next epoch starts (unless it
  races the call we ack: then it is held, :mod:`~dudo_p2p.consensus.removal_hold`);
- **two seats**: one vote is a majority of one, so it removes only with the target's own
  vote (it quit) or evidence of its cheat; otherwise it is a claim and the game ends
  *abandoned*, with no winner, for the claimant and for the seat it names alike (a seat never
  accepts its own removal on one peer's word);
- a peer that voted and sees the others go on without the removal (they relay the target's
  entries it refused) withdraws its vote instead of waiting for ever; a seat removed in
  the epoch counts no more there, as in the tally (:mod:`~dudo_p2p.consensus.withdrawal`);
- when no other seat at all is heard for the table-gone delay, the table is gone.
"""

from __future__ import annotations

from collections.abc import Callable, Container

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus import journal
from dudo_p2p.consensus.acts import ActRace
from dudo_p2p.consensus.bindings import ReplayGuard, check_vote
from dudo_p2p.consensus.context import SeatContext
from dudo_p2p.consensus.effects import Effects, Emit, Log, Persist, Send
from dudo_p2p.consensus.evidence import proves_cheat
from dudo_p2p.consensus.faults import VoteBook, majority_removed, remaining, removed_in
from dudo_p2p.consensus.presence import Presence
from dudo_p2p.consensus.reasons import Outcome, Reason
from dudo_p2p.consensus.removal_cheats import Cheats
from dudo_p2p.consensus.removal_doubt import heard_after, silent_since
from dudo_p2p.consensus.removal_hold import Hold
from dudo_p2p.consensus.replica import EpochPhase
from dudo_p2p.consensus.timers import NO_LAG, Lag, Timers, awaited, patience
from dudo_p2p.consensus.withdrawal import Withdrawal
from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.protocol.kinds import Vote

# the machine's step after a removal of ``epoch`` (``voided``: it voided the epoch)
OnRemoved = Callable[[int, bool, float], Effects]
OnHeld = Callable[[float], Effects]  # a removal was held: try to agree the call (removal_hold)


class Removals:
    """Equivocation proofs, suspicion, votes and removals (see the module docstring)."""

    def __init__(self, ctx: SeatContext, timers: Timers, presence: Presence, race: ActRace,
                 replays: ReplayGuard, on_removed: OnRemoved, on_held: OnHeld) -> None:
        self.ctx = ctx
        self.timers = timers
        self.presence = presence
        self.race = race  # read: the acks of the act we ack (who the log awaits)
        self.replays = replays
        self.on_removed = on_removed
        self.on_held = on_held
        self.hold = Hold(ctx.seat, race)  # removals held while the call may be agreed
        self.votes = VoteBook()
        self.cheats = Cheats(ctx, self.votes, self.vote)  # proofs, bad openings, bad deals
        self.withdrawal = Withdrawal(ctx, self.votes, timers, self.hold)
        self.removed_me = False
        self.abandoned: list[bytes] = []  # the claims that ended the game abandoned (§4.6)
        self.abandoned_by: int | None = None  # the seat the claims were about
        self.table_gone = False
        self.gone = ev.TableGone()  # which case of a table gone (presence.gone_why)

    @property
    def expelled(self) -> set[int]:
        """The seats caught cheating (removal_cheats.py)."""
        return self.cheats.expelled

    @property
    def proofs(self) -> list[tuple[bytes, bytes]]:
        """The equivocation proofs we hold, for the record."""
        return self.cheats.proofs

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended for our seat, or None while it runs."""
        if self.removed_me:
            return Outcome.REMOVED
        if self.abandoned:
            return Outcome.ABANDONED
        if self.table_gone:
            return Outcome.TABLE_GONE
        if self.ctx.replica.phase is EpochPhase.OVER:
            return Outcome.FINISHED
        return None

    # ---- suspicion --------------------------------------------------------------------------

    def suspect(self, now: float, lag: Lag = NO_LAG) -> Effects:
        """Tell who is disconnected or back; vote out, in this order, the connected seats the
        log awaits past their limit (``timers.awaited``, ``patience``: ``lag`` matters), the
        disconnected ones past their grace, the expelled ones; notice a table gone."""
        ctx, timers, presence = self.ctx, self.timers, self.presence
        away = timers.woke(now)
        if away is not None:
            yield Log("warning", f"we were stopped {away:.1f} s: nobody is suspected for our "
                                 "own absence")
        rep = ctx.replica
        parts = rep.epoch.participants
        back = set()
        for seat in parts:
            if seat != ctx.seat:
                event = presence.observe(seat, timers.last_heard[seat], now, len(parts),
                                         timers.heard_at(seat))
                if event is not None:
                    yield Emit(event)
                    if isinstance(event, ev.SeatReconnected):
                        back.add(seat)
        if back:  # a countdown that starts again is told again (the UI shows its end)
            for seat, until in silent_since(presence, timers.last_heard, ctx.seat, back,
                                            now).items():
                yield Emit(ev.SeatDisconnected(seat, until))
        mine, acked = self.race.slot.mine, None
        if rep.phase in (EpochPhase.SETUP, EpochPhase.BIDDING) and mine is not None:
            acked = self.race.acks(mine, rep.epoch.number)
        waiting, limit = awaited(rep, acked, ctx.seating.turn_timer_ms, ctx.timeouts, lag.behind)
        # a two-seat stall: the grace too, floored as a silence there is (presence.grace_at)
        limit += presence.grace_at(2) if len(parts) == 2 else 0.0
        epoch = rep.epoch.number
        for seat in waiting:
            if seat == ctx.seat or seat in presence.away or self.hold.active(epoch):
                # a disconnected seat is waited for until its grace runs out; while a removal
                # is held, a missing ack alone removes nobody (removal_hold.py)
                continue
            if acked is not None and self.link_doubt(epoch, seat):
                continue  # its ack may reach the others and not us
            wait = patience(seat, limit, lag.ahead, ctx.timeouts)
            if timers.stuck_past(wait, now) and not presence.back_within(seat, wait, now):
                yield from self.vote(seat, Reason.TIMEOUT, now)
        for seat in parts:
            if (seat != ctx.seat and presence.gone(seat, now)
                    and not self.link_doubt(epoch, seat)):
                yield from self.vote(seat, Reason.SILENT, now)
        for seat in self.expelled & set(rep.epoch.participants):
            yield from self.vote(seat, Reason.EXPELLED, now)
        gone = None if self.outcome is not None else presence.gone_why(
            timers.last_heard, ctx.seat, now, parts, removed_in(rep, epoch), lag.behind,
            timers.progress_at)
        if gone is not None:
            self.table_gone, self.gone = True, gone
            yield Emit(gone)
            yield Log("warning", "no seat heard for long: the table is gone" if gone.why ==
                      "nobody" else f"the table is gone ({gone.why}: silent "
                                    f"{list(gone.silent)}, behind {list(gone.behind)})")

    def link_doubt(self, epoch: int, seat: int) -> bool:
        """Our silence from ``seat`` says more about our link than about it, and no other
        seat votes it out now (then it is really gone): we once withdrew a vote against it
        (the table heard it when we did not: a one-way cut made us vote it out, stall and
        withdraw every round), or, with three seats or more in the epoch, no other seat was
        heard well after it last was (:mod:`~dudo_p2p.consensus.removal_doubt`)."""
        me = self.ctx.seat
        if self.votes.seconded(epoch, seat, me):
            return False
        if seat in self.votes.disputed:
            return True
        if len(self.ctx.replica.epoch.participants) <= 2:
            return False  # two seats: a claim, which ends the game abandoned (§4.6)
        return not heard_after(self.timers.last_heard, me, seat, self.ctx.timeouts.silence)

    def may_vote(self, target: int) -> bool:
        """:meth:`vote` would sign a vote against ``target`` in the current epoch now."""
        me = self.ctx.seat
        epoch = self.ctx.replica.epoch
        parts = epoch.participants
        if target not in parts or target == me or me not in parts:
            return False
        return (not self.votes.voted(epoch.number, target, me)
                and (epoch.number, target) not in self.votes.withdrawn)

    # ---- votes and removals -----------------------------------------------------------------

    def vote(self, target: int, reason: Reason, now: float) -> Effects:
        """Sign and send our vote against ``target`` in the current epoch, once (never again
        in an epoch where we withdrew it). Only a seat of the epoch votes: an eliminated seat
        signs nothing (§4.3); its vote would not count, and having voted it would ignore the
        target's entries of the epoch, even those that catch-up brings it from a table that
        never removed the target (soak seed 1152)."""
        ctx = self.ctx
        epoch = ctx.replica.epoch.number
        parts = ctx.replica.epoch.participants
        if target not in parts or target == ctx.seat or ctx.seat not in parts:
            return
        box = self.votes.box(epoch, target)
        if ctx.seat in box or (epoch, target) in self.votes.withdrawn:
            return
        # seq = the target's seat: the vote's signature names its epoch and its target (§4.6)
        env = ctx.seal(target, Vote(ctx.seating.pubs[target], reason.value))
        box[ctx.seat] = env.to_bytes()
        yield Send(env.to_bytes())
        yield from self.maybe_remove(epoch, target, now)

    def consent(self) -> Effects:
        """We leave for good: our own signed vote against our seat (reason quit) is our
        consent, the evidence a two-seat forfeit needs (§4.6)."""
        ctx = self.ctx
        ep = ctx.replica.epoch
        if ctx.seat not in ep.participants or self.outcome is not None:
            return
        env = ctx.seal(ctx.seat, Vote(ctx.identity.public_key, Reason.QUIT.value))
        self.votes.box(ep.number, ctx.seat)[ctx.seat] = env.to_bytes()
        yield Send(env.to_bytes())

    def take_vote(self, voter: int, env: Envelope, now: float) -> Effects:
        """Hold ``voter``'s signed vote ``env`` and remove its target once a strict majority
        voted (a claim against us of the epoch before, at two seats: abandoned)."""
        ctx = self.ctx
        target = check_vote(env, ctx.seating)
        assert isinstance(env.body, Vote)
        if target == ctx.seat and voter != ctx.seat:
            yield Log("info", f"seat {voter} votes to remove us: {env.body.reason}")
        if ctx.replica.removal_epoch(env.round_no) is None:
            if target == ctx.seat and self._claim_of_last_epoch(voter, env):
                yield from self.abandon(target, Reason.parse(env.body.reason), [env.to_bytes()])
            return
        self.replays.take(env)
        self.votes.box(env.round_no, target)[voter] = env.to_bytes()
        yield from self.maybe_remove(env.round_no, target, now)

    def _claim_of_last_epoch(self, voter: int, env: Envelope) -> bool:
        """Two seats, and the other one claims us silent in the epoch before ours, which had
        the same two seats (we finished it; our last signature never reached it): the game
        is abandoned all the same. The epoch's result signatures say who took part in it."""
        ctx = self.ctx
        rep = ctx.replica
        parts = rep.epoch.participants
        if len(parts) != 2 or voter not in parts or rep.epoch.voided is not None:
            return False
        if env.round_no != rep.epoch.number - 1 or self.outcome is not None:
            return False
        signers = {
            ctx.open(item.data).author for item in rep.chain
            if item.epoch == env.round_no and item.data
            and ctx.open(item.data).kind == "result-sign"
        }
        return signers == {ctx.seating.pubs[s] for s in parts}

    def maybe_remove(self, epoch: int, target: int, now: float) -> Effects:
        """Remove ``target`` in ``epoch`` if that removal may still be applied, is not yet,
        and the votes held make a strict majority (with two seats: with its consent or
        evidence; a lone claim abandons the game instead); then the machine's step."""
        ctx = self.ctx
        rep = ctx.replica
        state = rep.removal_epoch(epoch)
        if state is None or target not in state.participants or self.outcome is not None:
            return
        if target in state.withheld or any(
            item.epoch == epoch and item.removed_seat == target
            for item in rep.chain[state.anchor_index :]
        ):
            return  # already removed in that epoch
        held = self.hold.held(epoch)  # removed, but where is not known yet (removal_hold)
        if target in held:
            return
        verdict = self.votes.tally(epoch, target, state.participants, ctx.open,
                                   removed_in(rep, epoch) | held)
        if verdict is None:
            return
        if not verdict.remove:
            yield from self.abandon(target, verdict.reason, verdict.cert)
            return
        if self.hold.holds(rep, epoch, target):
            yield Log("info", f"the removal of seat {target} waits: the call may be agreed")
            yield from self._recount(epoch, target, now)
            yield from self.on_held(now)
            return
        reason, cert = verdict.reason, verdict.cert
        rep.remove(target, reason, epoch)
        yield Persist(journal.removal_record(epoch, target, reason, cert), durable=True)
        yield Emit(ev.PlayerLeft(target, reason))
        if target == ctx.seat:
            self.removed_me = True
        voided = rep.epoch.number != epoch
        if not voided and rep.phase is EpochPhase.SIGN:
            # resolved as if the removed seat had revealed (withheld.py)
            yield Emit(ev.RoundResolved(rep.engine.results[-1]))
        yield from self.on_removed(epoch, voided, now)
        yield from self._recount(epoch, target, now)

    def _recount(self, epoch: int, target: int, now: float) -> Effects:
        """The removal of ``target`` took a seat out of the count: the votes held against
        another seat of that epoch may now be a strict majority of those left."""
        for held_epoch, other in list(self.votes.votes):
            if held_epoch == epoch and other != target:
                yield from self.maybe_remove(epoch, other, now)

    def ignores(self, epoch: int, seat: int) -> bool:
        """We voted ``seat`` out of ``epoch`` and our vote may still remove it: we take none
        of its entries of that epoch (completing it while the others void it would split
        the table) and wait for the certificate. Not when we are the only seat left to vote:
        two seats left of an epoch that began with more, where a lone vote removes nobody
        (each had voted the other out, and each ignored the other for ever). While a removal
        is held (removal_hold.py) its target is counted out, and so are the votes that can
        no longer come: those of seats that showed they voided the epoch, which we lack."""
        rep = self.ctx.replica
        state = rep.removal_epoch(epoch)
        if not self.votes.voted(epoch, seat, self.ctx.seat) or state is None:
            return False
        held = self.hold.held(epoch)
        others = remaining(state.participants, removed_in(rep, epoch) | held, seat)
        box = self.votes.votes.get((epoch, seat), {})
        able = [v for v in others if v in box or not held or v not in self.hold.left]
        return len(others) >= 2 and len(able) * 2 > len(others)

    def release(self, now: float) -> Effects:
        """The log moved, or we void: apply the held removals where they land now."""
        epoch = self.hold.epoch
        for target in self.hold.released():
            if epoch is not None:
                yield from self.maybe_remove(epoch, target, now)

    def shown_void(self, seat: int, now: float) -> Effects:
        """``seat`` showed that it left our epoch: void on its word if we may (removal_hold)."""
        rep = self.ctx.replica
        if not self.hold.active(rep.epoch.number):
            return
        self.hold.saw_left(rep.epoch.number, seat)
        if self.hold.shows_void(rep, seat, self.ignores(rep.epoch.number, seat)):
            yield Log("warning", f"seat {seat} voided epoch {rep.epoch.number}: so do we")
            yield from self.release(now)

    def abandon(self, seat: int, reason: Reason, claims: list[bytes]) -> Effects:
        """Two seats left and one claims the other silent or stalled: the game ends with no
        winner, for both (the claim is kept for the record and journalled durably)."""
        if self.abandoned:
            return
        self.abandoned = list(claims)
        self.abandoned_by = seat
        self.timers.beat_at_once()
        yield Persist(journal.abandoned_record(seat, reason, claims), durable=True)
        yield Emit(ev.GameAbandoned(seat, reason))
        yield Log("warning", f"two seats left, seat {seat} {reason}: abandoned")

    # ---- withdrawing a vote the table went on without (withdrawal.py) ----------------------

    def observe_relay(self, relayer: int, env: Envelope, seen: Container[bytes],
                      now: float) -> Effects:
        """:meth:`~dudo_p2p.consensus.withdrawal.Withdrawal.observe_relay`."""
        return self.withdrawal.observe_relay(relayer, env, seen, now)

    def observe_chain(self, peer: int, entries: tuple[bytes, ...], seen: Container[bytes],
                      now: float) -> Effects:
        """:meth:`~dudo_p2p.consensus.withdrawal.Withdrawal.observe_chain`."""
        return self.withdrawal.observe_chain(peer, entries, seen, now)

    # ---- what a sync reply's removal certificates carry ---------------------------------

    def take_evidence(self, envs: list[Envelope]) -> None:
        """Entries a removal certificate carries besides its votes: evidence that their
        author cheated (a two-seat removal needs it, §4.6); kept when it proves so."""
        seating = self.ctx.seating
        for seat, pub in enumerate(seating.pubs):
            own = [e for e in envs if e.author == pub]
            if len(own) >= 2 and seat not in self.votes.evidence and proves_cheat(
                seating, seat, own
            ):
                self.votes.evidence[seat] = (own[0].to_bytes(), own[1].to_bytes())

    def accept_own_removal(self, votes: list[Envelope]) -> Effects:
        """The table removed us in an epoch our log has already left (we finished that
        epoch, it never saw our last signature): the certificate cannot be chained here any
        more, but it is the table's word. Signed votes against us from a strict majority of
        the other seats still in our game mean we have left the table: stop."""
        if self.removed_me:
            return
        ctx = self.ctx
        ep = ctx.replica.epoch  # a seat removed in our epoch is no longer in our game
        others = set(remaining(ep.participants, removed_in(ctx.replica, ep.number), ctx.seat))
        if not majority_removed(votes, ctx.seat, others, ctx.replica.epoch.number, ctx.seating):
            return
        self.removed_me = True
        yield Emit(ev.PlayerLeft(ctx.seat, Reason.REMOVED))
        yield Log("warning", "the table removed us in an epoch we had left")
