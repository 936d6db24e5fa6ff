"""Catch-up, the machine's side (protocol.md §4.6, §4.7): sync, and telling peers removals.

:class:`CatchUpMixin` is the layer of :class:`~dudo_p2p.consensus.machine.TableMachine` that
brings a peer's log level with the table's; chunks, removal items and pacing are
:mod:`~dudo_p2p.consensus.sync`:

- we ask a peer whose heartbeat shows a longer log (or another head as long as ours) for
  what follows ours, at most about once a heartbeat, and from the epoch's anchor when the
  same ask brought nothing (we may hold an epoch the others voided);
- items we receive are checked like live entries: a removal's votes go through the same
  tally as live votes, an act is chained without waiting for acks (it is in the sender's
  chain, so it was agreed), a concurrent entry is considered as if it came live;
- a seat we removed, or a peer that may still be in an epoch we voided, is sent every
  removal with its votes, at most once a heartbeat interval each; votes against us from a
  strict majority of the others stop us even when the removal can no longer be chained.
"""

from __future__ import annotations

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus.core import MachineCore
from dudo_p2p.consensus.effects import Emit, Log, Send
from dudo_p2p.consensus.faults import majority_removed
from dudo_p2p.consensus.replica import NotYet, Stale
from dudo_p2p.consensus.sync import removal_certificate, removals_reply, sync_chunk
from dudo_p2p.errors import DecodeError
from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.protocol.kinds import Act, SyncRequest, Vote


class CatchUpMixin(MachineCore):
    """Sync requests and replies, and telling peers about removals (see the module docstring)."""

    def _take_heartbeat(self, peer: int, head: bytes, length: int, now: float) -> None:
        """A peer's heartbeat: note its length and head; catch up with a longer log, or with another
        head as long as ours (one of us holds a voided epoch's entries: a removal we missed,
        seen from the other side of it), and tell it the removals it may lack."""
        self.peer_lengths[peer] = length
        self.peer_heads[peer] = head
        ours = len(self.replica.chain)
        if length > ours or (length == ours and head != self.replica.head):
            self._ask_sync(peer, now)
            self._tell_voided(peer, now)
        self._tell_removed(peer, now)

    def _answer_sync(self, peer: int, have: int) -> None:
        """A sync-request: one chunk of our chain from ``have`` (nothing if we hold none)."""
        reply = sync_chunk(self.replica.chain, have, self.votes.certificates)
        if reply is not None:
            self._out.append(Send(self._seal(0, reply).to_bytes(), to=peer))

    def _take_reply(
        self, peer: int, entries: tuple[bytes, ...], more: bool, now: float
    ) -> None:
        """A sync-reply: take its items; while ``more`` is set and the chunk moved our head,
        ask for the next one at once (no progress: wait for the next heartbeat)."""
        before = self.replica.head
        self._take_sync(entries, now)
        if more and self.replica.head != before:
            self.pacer.asked_at = now
            req = SyncRequest(self._sync_have())
            self._out.append(Send(self._seal(0, req).to_bytes(), to=peer))

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
        we are in the epoch they started (soak seeds 505, 921), or when a removal ended the
        game (no epoch follows it, and an eliminated seat may still wait: seed 1229)."""
        rep = self.replica
        ended = bool(rep.chain) and rep.chain[-1].removed_seat is not None
        if rep.epoch.voided is None and not ended:
            return
        if not self.pacer.may_tell("voided", peer, now):
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
        """Ask ``peer`` for what follows our log, at most about once a heartbeat."""
        if not self.pacer.may_ask(now):
            return
        req = SyncRequest(self._sync_have())
        self._out.append(Send(self._seal(0, req).to_bytes(), to=peer))

    def _sync_have(self) -> int:
        """Where to ask from (see :meth:`~dudo_p2p.consensus.sync.SyncPacer.have`)."""
        return self.pacer.have(len(self.replica.chain), self.replica.epoch.anchor_index)

    def _take_sync(self, entries: tuple[bytes, ...], now: float) -> None:
        """Check and take sync items in order (see the module docstring)."""
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
