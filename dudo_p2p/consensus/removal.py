"""Faults and removal, the machine's side (protocol.md §4.5, §4.6): proofs, suspicion, votes.

:class:`RemovalMixin` is the layer of :class:`~dudo_p2p.consensus.machine.TableMachine` that
acts on faults; the bookkeeping is :mod:`~dudo_p2p.consensus.faults`:

- a second, different entry for a taken slot, or a ``proof`` from a peer, is checked
  (:func:`~dudo_p2p.consensus.record.check_proof`), kept for the record, broadcast once, and
  its author is expelled and voted out;
- each tick, a seat the log waits for past its limit (:func:`~dudo_p2p.consensus.timers.awaited`),
  a silent one, or an expelled one gets our signed ``vote`` (one per target and epoch);
- when the votes of a strict majority of the epoch's other live seats are held, the target
  is removed: the replica voids the epoch, the removal and its certificate are journalled
  durably, our secrets of the voided epoch are forgotten and the next epoch starts.
"""

from __future__ import annotations

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus import journal
from dudo_p2p.consensus.bindings import check_vote
from dudo_p2p.consensus.core import MachineCore
from dudo_p2p.consensus.effects import Emit, Log, Persist, Send
from dudo_p2p.consensus.record import check_proof
from dudo_p2p.consensus.replica import EpochPhase
from dudo_p2p.consensus.timers import awaited
from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.protocol.kinds import Proof, Vote


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
        self._out.append(Send(self._seal(0, Proof(first, second)).to_bytes()))
        self._cheat(seat, "equivocation", f"two {a.kind} entries for one slot", now)

    def _cheat(self, seat: int, what: str, detail: str, now: float) -> None:
        """``seat`` is caught (``what``: equivocation, bad-reveal): tell, expel, vote."""
        self._out.append(Emit(ev.CheatDetected(seat, what, detail)))
        self._out.append(Log("warning", f"seat {seat} caught: {what}: {detail}"))
        self.expelled.add(seat)
        self._vote(seat, what, now)

    def _suspect(self, now: float) -> None:
        """Vote out, in this order, the seats the log awaits past their limit, the silent
        ones and the expelled ones (a vote may remove a seat and start the next epoch)."""
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
        """Sign and send our vote against ``target`` in the current epoch, once. Only a seat
        of the epoch votes: an eliminated seat signs nothing (§4.3); its vote would not count,
        and having voted it would ignore the target's entries of the epoch, even those that
        catch-up brings it from a table that never removed the target (soak seed 1152)."""
        epoch = self.replica.epoch.number
        parts = self.replica.epoch.participants
        if target not in parts or target == self.seat or self.seat not in parts:
            return
        box = self.votes.box(epoch, target)
        if self.seat in box:
            return
        # seq = the target's seat: the vote's signature names its epoch and its target (§4.6)
        env = self._seal(target, Vote(self.seating.pubs[target], reason[:16]))
        box[self.seat] = env.to_bytes()
        self._out.append(Send(env.to_bytes()))
        self._maybe_remove(epoch, target, now)

    def _take_vote(self, voter: int, env: Envelope, now: float) -> None:
        target = check_vote(env, self.seating)
        assert isinstance(env.body, Vote)
        if self.replica.removal_epoch(env.round_no) is None:
            return
        self.replays.take(env)
        if target == self.seat:
            self._out.append(Log("info", f"seat {voter} votes to remove us: {env.body.reason}"))
        self.votes.box(env.round_no, target)[voter] = env.to_bytes()
        self._maybe_remove(env.round_no, target, now)

    def _maybe_remove(self, epoch: int, target: int, now: float) -> None:
        """Remove ``target`` in ``epoch`` if that removal may still be applied, is not yet,
        and the votes held make a strict majority."""
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
