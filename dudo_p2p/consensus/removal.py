"""Faults and removal, the machine's side (protocol.md §4.5, §4.6): proofs, suspicion, votes.

:class:`RemovalMixin` is the layer of :class:`~dudo_p2p.consensus.machine.TableMachine` that
acts on faults; the bookkeeping is :mod:`~dudo_p2p.consensus.faults` (votes, certificates,
evidence) and :mod:`~dudo_p2p.consensus.presence` (disconnected seats, the grace):

- a second, different entry for a taken slot, or a ``proof`` from a peer, is checked
  (:func:`~dudo_p2p.consensus.evidence.check_proof`), kept for the record, broadcast once,
  and its author is expelled and voted out; so is the author of a nonce or reveal that does
  not open its commitment (its commit and the opening are kept as evidence);
- each tick, a seat silent past the silence timeout is shown as disconnected, and the table
  waits for it (its turn, its reveal) until the reconnect grace runs out; then it gets our
  signed ``vote`` for ``silent``; a connected seat the log waits for past its limit
  (:func:`~dudo_p2p.consensus.timers.awaited`) gets one for ``timeout``, an expelled one for
  ``expelled`` (one vote per target and epoch);
- when the votes of a strict majority of the epoch's other live seats are held, the target
  is removed: the replica voids the epoch, the removal and its certificate are journalled
  durably, our secrets of the voided epoch are forgotten and the next epoch starts;
- **two seats**: one vote is a majority of one, so it removes only with the target's own
  vote (it quit) or evidence of its cheat; otherwise it is a claim and the game ends
  *abandoned*, with no winner, for the claimant and for the seat it names alike (a seat never
  accepts its own removal on one peer's word);
- a peer that voted and sees the others go on without the removal (they relay the target's
  entries it refused) withdraws its vote instead of waiting for ever;
- when no other seat at all is heard for the table-gone delay, the table is gone.
"""

from __future__ import annotations

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus import journal
from dudo_p2p.consensus.act_certs import agreed_item
from dudo_p2p.consensus.bindings import check_vote
from dudo_p2p.consensus.core import MachineCore
from dudo_p2p.consensus.dealing import bad_deal_evidence, proves_bad_deal, received_share
from dudo_p2p.consensus.effects import Emit, Log, Persist, Send
from dudo_p2p.consensus.evidence import bad_opening, check_proof
from dudo_p2p.consensus.reasons import CheatKind, Outcome, Reason
from dudo_p2p.consensus.replica import EpochPhase
from dudo_p2p.consensus.sync import removal_certificate
from dudo_p2p.consensus.timers import awaited
from dudo_p2p.errors import RemoteProtocolError
from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.protocol.kinds import BadDeal, Commit, Proof, Vote


class RemovalMixin(MachineCore):
    """Equivocation proofs, suspicion, votes and removals (see the module docstring)."""

    def _equivocation(self, env: Envelope, now: float) -> None:
        """``env`` is a second, different entry for a slot already taken: take the proof."""
        first = self.entries.first(env)
        if first is None:
            return
        self._take_proof(first, env.to_bytes(), now)

    def _take_proof(self, first: bytes, second: bytes, now: float) -> None:
        """Check two entries as a proof (raises if they are not one); the first proof
        against a seat is kept, broadcast, and expels and votes out its author."""
        a, b = self._open(first), self._open(second)
        check_proof(a, b)
        seat = self.seating.seat_of(a.author)
        assert seat is not None
        if seat in self.expelled:
            return
        self.expelled.add(seat)
        self.proofs.append((first, second))
        self.votes.evidence.setdefault(seat, (first, second))
        self._out.append(Send(self._seal(0, Proof(first, second)).to_bytes()))
        self._cheat(seat, CheatKind.EQUIVOCATION, f"two {a.kind} entries for one slot", now)

    def _bad_opening(self, env: Envelope, seat: int, detail: str, now: float) -> None:
        """``env``, a nonce or reveal by ``seat``, does not open its commitment: keep the
        commit and the opening as evidence (a two-seat removal needs it), then tell, vote."""
        pair = bad_opening(self.replica, seat, env, self._open)
        if pair is not None:
            self.votes.evidence.setdefault(seat, pair)
        self._cheat(seat, CheatKind.BAD_REVEAL, detail, now)

    def _check_deal(self, commit: Envelope, dealer: int, now: float) -> None:
        """Check our share of ``dealer``'s dice key in its ``commit`` (§3.7, dealing.py): a
        share that does not check is proved to everyone (``bad-deal``) and the dealer is
        caught now, before the round seed exists."""
        rep = self.replica
        assert isinstance(commit.body, Commit)
        if self.seat not in rep.epoch.participants or dealer in self.expelled:
            return
        if received_share(rep, self.seat, dealer, commit.body, self.identity) is not None:
            return
        body = bad_deal_evidence(rep, self.seat, dealer, commit, self.identity)
        self._out.append(Send(self._seal(0, body).to_bytes()))
        self._cheat(dealer, CheatKind.BAD_REVEAL, "dealt us a key share that does not check", now)

    def _take_bad_deal(self, author: int, env: Envelope, now: float) -> None:
        """A seat proves a dealer dealt it a bad share: check the proof (the dealer's own
        signed commit, the box opened with the proved X25519 value), relay it once, and
        catch the dealer; a complaint that does not prove it changes nothing."""
        body = env.body
        assert isinstance(body, BadDeal)
        commit = self._open(body.commit)
        dealer = self.seating.seat_of(commit.author)
        if dealer is None or dealer == self.seat or dealer in self.expelled:
            return
        if not proves_bad_deal(self.replica, author, commit, body.proof):
            self._out.append(Log("warning", f"seat {author}'s complaint of seat {dealer}'s "
                                            "deal proves nothing"))
            return
        self._out.append(Send(env.to_bytes()))
        self._cheat(dealer, CheatKind.BAD_REVEAL,
                    f"dealt seat {author} a key share that does not check", now)

    def _cheat(self, seat: int, what: CheatKind, detail: str, now: float) -> None:
        """``seat`` is caught: tell, expel, vote."""
        self._out.append(Emit(ev.CheatDetected(seat, what, detail)))
        self._out.append(Log("warning", f"seat {seat} caught: {what}: {detail}"))
        self.expelled.add(seat)
        self._vote(seat, what.reason, now)

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended for our seat, or None while it runs."""
        if self.removed_me:
            return Outcome.REMOVED
        if self.abandoned:
            return Outcome.ABANDONED
        if self.table_gone:
            return Outcome.TABLE_GONE
        if self.replica.phase is EpochPhase.OVER:
            return Outcome.FINISHED
        return None

    def _suspect(self, now: float) -> None:
        """Tell who is disconnected or back; vote out, in this order, the connected seats the
        log awaits past their limit, the disconnected ones past their grace and the expelled
        ones (a vote may remove a seat and start the next epoch); notice a table gone."""
        away = self.timers.woke(now)
        if away is not None:
            self._out.append(Log("warning", f"we were stopped {away:.1f} s: nobody is "
                                            "suspected for our own absence"))
        rep = self.replica
        parts = rep.epoch.participants
        for seat in parts:
            if seat != self.seat:
                event = self.presence.observe(seat, self.timers.last_heard[seat], now)
                if event is not None:
                    self._out.append(Emit(event))
        mine = self.race.slot.mine
        acked: set[int] | None = None
        if rep.phase in (EpochPhase.SETUP, EpochPhase.BIDDING) and mine is not None:
            acked = self.race.acks(mine, rep.epoch.number)
        waiting, limit = awaited(rep, acked, self.seating.turn_timer_ms, self.timeouts)
        if len(parts) == 2:
            limit += self.presence.grace  # a stall ends a two-seat game: wait it out as long
        epoch = rep.epoch.number
        for seat in waiting:
            if seat == self.seat or seat in self.presence.away:
                continue  # a disconnected seat is waited for until its grace runs out
            if acked is not None and self._link_doubt(epoch, seat):
                continue  # its ack may reach the others and not us
            if self.timers.stuck_past(limit, now) and not self.presence.back_within(
                seat, limit, now
            ):
                self._vote(seat, Reason.TIMEOUT, now)
        for seat in parts:
            if (seat != self.seat and self.presence.gone(seat, now)
                    and not self._link_doubt(epoch, seat)):
                self._vote(seat, Reason.SILENT, now)
        for seat in self.expelled & set(rep.epoch.participants):
            self._vote(seat, Reason.EXPELLED, now)
        if self.outcome is None and self.presence.table_gone(
            self.timers.last_heard, self.seat, now
        ):
            self.table_gone = True
            self._out.append(Emit(ev.TableGone()))
            self._out.append(Log("warning", "no seat heard for long: the table is gone"))

    def _link_doubt(self, epoch: int, seat: int) -> bool:
        """We once withdrew a vote against ``seat`` (the table heard it when we did not) and
        no other seat votes it out now: our silence from it says more about our link than
        about it (a one-way cut made us vote it out, stall and withdraw every round)."""
        return seat in self.votes.disputed and not self.votes.seconded(epoch, seat, self.seat)

    def _vote(self, target: int, reason: Reason, now: float) -> None:
        """Sign and send our vote against ``target`` in the current epoch, once (never again
        in an epoch where we withdrew it). Only a seat of the epoch votes: an eliminated seat
        signs nothing (§4.3); its vote would not count, and having voted it would ignore the
        target's entries of the epoch, even those that catch-up brings it from a table that
        never removed the target (soak seed 1152)."""
        epoch = self.replica.epoch.number
        parts = self.replica.epoch.participants
        if target not in parts or target == self.seat or self.seat not in parts:
            return
        box = self.votes.box(epoch, target)
        if self.seat in box or (epoch, target) in self.votes.withdrawn:
            return
        # seq = the target's seat: the vote's signature names its epoch and its target (§4.6)
        env = self._seal(target, Vote(self.seating.pubs[target], reason.value))
        box[self.seat] = env.to_bytes()
        self._out.append(Send(env.to_bytes()))
        self._maybe_remove(epoch, target, now)

    def _consent(self) -> None:
        """We leave for good: our own signed vote against our seat (reason quit) is our
        consent, the evidence a two-seat forfeit needs (§4.6)."""
        ep = self.replica.epoch
        if self.seat not in ep.participants or self.outcome is not None:
            return
        env = self._seal(self.seat, Vote(self.identity.public_key, Reason.QUIT.value))
        self.votes.box(ep.number, self.seat)[self.seat] = env.to_bytes()
        self._out.append(Send(env.to_bytes()))

    def _take_vote(self, voter: int, env: Envelope, now: float) -> None:
        target = check_vote(env, self.seating)
        assert isinstance(env.body, Vote)
        if target == self.seat and voter != self.seat:
            self._out.append(Log("info", f"seat {voter} votes to remove us: {env.body.reason}"))
        if self.replica.removal_epoch(env.round_no) is None:
            if target == self.seat and self._claim_of_last_epoch(voter, env):
                self._abandon(target, Reason.parse(env.body.reason), [env.to_bytes()])
            return
        self.replays.take(env)
        self.votes.box(env.round_no, target)[voter] = env.to_bytes()
        self._maybe_remove(env.round_no, target, now)

    def _claim_of_last_epoch(self, voter: int, env: Envelope) -> bool:
        """Two seats, and the other one claims us silent in the epoch before ours, which had
        the same two seats (we finished it; our last signature never reached it): the game
        is abandoned all the same. The epoch's result signatures say who took part in it."""
        rep = self.replica
        parts = rep.epoch.participants
        if len(parts) != 2 or voter not in parts or rep.epoch.voided is not None:
            return False
        if env.round_no != rep.epoch.number - 1 or self.outcome is not None:
            return False
        signers = {
            self._open(item.data).author for item in rep.chain
            if item.epoch == env.round_no and item.data
            and self._open(item.data).kind == "result-sign"
        }
        return signers == {self.seating.pubs[s] for s in parts}

    def _maybe_remove(self, epoch: int, target: int, now: float) -> None:
        """Remove ``target`` in ``epoch`` if that removal may still be applied, is not yet,
        and the votes held make a strict majority (with two seats: with its consent or
        evidence; a lone claim abandons the game instead)."""
        state = self.replica.removal_epoch(epoch)
        if state is None or target not in state.participants or self.outcome is not None:
            return
        if target in state.withheld or any(
            item.epoch == epoch and item.removed_seat == target
            for item in self.replica.chain[state.anchor_index :]
        ):
            return  # already removed in that epoch
        verdict = self.votes.tally(epoch, target, state.participants, self._open)
        if verdict is None:
            return
        if not verdict.remove:
            self._abandon(target, verdict.reason, verdict.cert)
            return
        reason, cert = verdict.reason, verdict.cert
        self.replica.remove(target, reason, epoch)
        self._out.append(
            Persist(journal.removal_record(epoch, target, reason, cert), durable=True)
        )
        voided = self.replica.epoch.number != epoch
        # a void: the removal record replays it. After the call (withheld.py) the epoch
        # goes on from where REVEAL began: reveals chained since are journalled already,
        # those chained just now are not (and _chained journals them)
        self.persisted_len = (
            len(self.replica.chain) if voided
            else min(self.persisted_len, len(self.replica.chain))
        )
        self._out.append(Emit(ev.PlayerLeft(target, reason)))
        if target == self.seat:
            self.removed_me = True
        # forget the voided epoch's secrets before _chained: it retries buffered entries of
        # the next epoch, which can take us into its COMMIT and draw (and send) new secrets
        self.sent = {k for k in self.sent if k[0] != epoch}
        if voided:
            self.secrets = None  # (after the call, the epoch goes on: our reveal may be owed)
        elif self.replica.phase is EpochPhase.SIGN:
            # resolved as if the removed seat had revealed (withheld.py)
            self._out.append(Emit(ev.RoundResolved(self.replica.engine.results[-1])))
        self._chained(now)
        if self.replica.phase is EpochPhase.OVER and self.replica.engine.winner is not None:
            self._out.append(Emit(ev.GameOver(self.replica.engine.winner)))
            self.timers.beat_at_once()
        self._turn_event(now)
        self._advance(now)

    def _abandon(self, seat: int, reason: Reason, claims: list[bytes]) -> None:
        """Two seats left and one claims the other silent or stalled: the game ends with no
        winner, for both (the claim is kept for the record and journalled durably)."""
        if self.abandoned:
            return
        self.abandoned = list(claims)
        self.abandoned_by = seat
        self._out.append(Persist(journal.abandoned_record(seat, reason, claims), durable=True))
        self._out.append(Emit(ev.GameAbandoned(seat, reason)))
        self.timers.beat_at_once()
        self._out.append(Log("warning", f"two seats left, seat {seat} {reason}: abandoned"))

    def _tell_outcome(self, peer: int, now: float) -> None:
        """We abandoned the game and ``peer`` still beats: send it the claims (paced)."""
        if not self.abandoned or not self.pacer.may_tell("abandoned", peer, now):
            return
        self.pacer.told_now("abandoned", peer, now)
        for claim in self.abandoned:
            self._out.append(Send(claim, to=peer))

    def untold(self, now: float) -> set[int]:
        """Seats whose removal (or the abandonment naming them) we hold but that have not
        shown they heard it (:meth:`~dudo_p2p.consensus.sync.SyncPacer.heard_of_it`: told,
        then no heartbeat for two intervals): a finished node waits a while for them before
        leaving (they were down and may come back)."""
        seats = {i.removed_seat for i in self.replica.chain
                 if i.removed_seat is not None and i.reason != Reason.QUIT}  # it knows
        if self.abandoned_by is not None:
            seats.add(self.abandoned_by)
        return {s for s in seats if not self.pacer.heard_of_it(s, now)
                and s not in self.expelled} - {self.seat}

    def _observe_relay(self, relayer: int, env: Envelope, now: float) -> None:
        """``relayer`` holds ``env``, an entry we refused because we voted its author out
        of its epoch: it went on without the removal (see :meth:`_observe_chain`)."""
        author = self.seating.seat_of(env.author)
        if author is None or relayer == author or env.digest() in self.seen:
            return
        ep = self.replica.epoch
        key = (env.round_no, author)
        if env.round_no != ep.number or not self.votes.voted(ep.number, author, self.seat):
            return
        seen = self.went_on.setdefault(key, set())
        seen.add(relayer)
        others = set(ep.participants) - {author}
        if len(others - seen) * 2 > len(others):
            return  # the removal can still win a strict majority: keep waiting for it
        self.votes.withdraw(ep.number, author, self.seat)
        self.timers.last_heard[author] = max(self.timers.last_heard[author], now)
        self._out.append(Log("warning", f"withdrew our vote against seat {author}: "
                                        "the table went on without the removal"))

    def _observe_chain(self, peer: int, entries: tuple[bytes, ...], now: float) -> None:
        for data in entries:
            if removal_certificate(data) is not None:
                continue
            try:
                agreed = agreed_item(data)
                env = self._open(agreed[0] if agreed is not None else data)
            except RemoteProtocolError:
                continue
            self._observe_relay(peer, env, now)
