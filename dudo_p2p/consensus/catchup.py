"""Catch-up, the machine's side (protocol.md §4.6, §4.7): sync, and telling peers removals.

:class:`CatchUpMixin` is the layer of :class:`~dudo_p2p.consensus.machine.TableMachine` that
brings a peer's log level with the table's; chunks, removal items and pacing are
:mod:`~dudo_p2p.consensus.sync`:

- when a peer's heartbeat shows a longer log (or another head as long as ours) we ask for
  what follows ours, at most about once a heartbeat, and from the epoch's anchor when the
  same ask brought nothing (we may hold an epoch the others voided); we ask the seats ahead
  of us in turn (the one asked longest ago), not the first to beat: a seat that withholds
  its acks from us and never answers cannot keep us behind while the others move on;
- a reply is taken only when it answers what we asked that seat, at the ``start`` we
  asked; an unasked one yields only its removal items (their votes are their evidence);
- items we receive are checked like live entries: a removal's votes go through the same
  tally as live votes; an act is chained only with its certificate, the signed acks of
  every live seat but its author (:mod:`~dudo_p2p.consensus.act_certs`), and a rival of
  an entry we hold for its slot is an equivocation proof; an act without a valid
  certificate is taken as a live candidate (acked and relayed, agreed or not like any
  other); a concurrent entry is considered as if it came live;
- we answer one asker's requests at most :data:`~dudo_p2p.consensus.sync.ANSWER_RATE` a
  second (after a short burst), each with one chunk from its ``have``;
- a seat we removed, or a peer that may still be in an epoch we voided, is sent every
  removal with its votes, at most once a heartbeat interval each; votes against us from a
  strict majority of the others stop us even when the removal can no longer be chained.
"""

from __future__ import annotations

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus.act_certs import agreed_item, checked_certificate
from dudo_p2p.consensus.core import MachineCore
from dudo_p2p.consensus.effects import Emit, Log, Send
from dudo_p2p.consensus.evidence import proves_cheat
from dudo_p2p.consensus.faults import majority_removed
from dudo_p2p.consensus.reasons import Reason
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
        self.pacer.beat(peer, now)
        if self._ahead_of_us(peer):
            self._ask_sync(now)
            self._tell_voided(peer, now)
        self._tell_removed(peer, now)
        self._tell_outcome(peer, now)

    def _ahead_of_us(self, peer: int) -> bool:
        """``peer``'s last heartbeat showed a longer log, or another head as long as ours."""
        length, head = self.peer_lengths.get(peer, -1), self.peer_heads.get(peer)
        ours = len(self.replica.chain)
        return length > ours or (length == ours and head != self.replica.head)

    def _answer_sync(self, peer: int, have: int, now: float) -> None:
        """A sync-request: one chunk of our chain from ``have`` (nothing if we hold none),
        within the asker's rate (see :meth:`~dudo_p2p.consensus.sync.SyncPacer.may_answer`)."""
        if have >= len(self.replica.chain) or not self.pacer.may_answer(peer, have, now):
            return
        reply = sync_chunk(self.replica.chain, have, self.votes.certificates, self.act_certs)
        if reply is not None:
            self._out.append(Send(self._seal(0, reply).to_bytes(), to=peer))

    def _take_reply(
        self, peer: int, start: int, entries: tuple[bytes, ...], more: bool, now: float
    ) -> None:
        """A sync-reply: take its items if it answers what we asked ``peer`` (only its
        removal items otherwise); while ``more`` is set and the chunk moved our head, ask
        for the next one at once (no progress: wait for the next heartbeat)."""
        asked = self.pacer.answered(peer, start)
        before = self.replica.head
        if asked:
            self._observe_chain(peer, entries, now)
        self._take_sync(entries, now, asked=asked)
        if not asked and any(removal_certificate(d) is None for d in entries):
            self._out.append(
                Log("warning", f"ignored the entries of an unasked sync-reply from seat {peer}")
            )
        if asked and more and self.replica.head != before:
            self.pacer.asked_at = now
            self._send_ask(peer, self._sync_have(), now)

    def _send_ask(self, peer: int | None, have: int, now: float) -> None:
        """Ask ``peer`` (None: every seat) for our log from ``have``, and remember it."""
        peers = range(self.seating.n) if peer is None else (peer,)
        for seat in peers:
            if seat != self.seat:
                self.pacer.expect(seat, have, now)
        self._out.append(Send(self._seal(0, SyncRequest(have)).to_bytes(), to=peer))

    def _ask_everyone(self, now: float) -> None:
        """Ask every seat for what follows our log (a restart: we may have missed anything)."""
        self._send_ask(None, len(self.replica.chain), now)

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
            self._out.append(Emit(ev.PlayerLeft(self.seat, Reason.REMOVED)))
            self._out.append(Log("warning", "the table removed us in an epoch we had left"))

    def _take_evidence(self, envs: list[Envelope]) -> None:
        """Entries a removal certificate carries besides its votes: evidence that their
        author cheated (a two-seat removal needs it, §4.6); kept when it proves so."""
        for seat, pub in enumerate(self.seating.pubs):
            own = [e for e in envs if e.author == pub]
            if len(own) >= 2 and seat not in self.votes.evidence and proves_cheat(
                self.seating, seat, own
            ):
                self.votes.evidence[seat] = (own[0].to_bytes(), own[1].to_bytes())

    def _ask_sync(self, now: float) -> None:
        """Ask a seat ahead of us for what follows our log, at most about once a heartbeat:
        the seats ahead in turn (see :meth:`~dudo_p2p.consensus.sync.SyncPacer.pick`)."""
        ahead = [s for s in self.peer_lengths if s != self.seat and self._ahead_of_us(s)]
        target = self.pacer.pick(ahead)
        if target is None or not self.pacer.may_ask(now):
            return
        self._send_ask(target, self._sync_have(), now)

    def _sync_have(self) -> int:
        """Where to ask from (see :meth:`~dudo_p2p.consensus.sync.SyncPacer.have`)."""
        return self.pacer.have(len(self.replica.chain), self.replica.epoch.anchor_index)

    def _take_sync(self, entries: tuple[bytes, ...], now: float, *, asked: bool) -> None:
        """Check and take sync items in order (see the module docstring); entries only when
        ``asked`` (the reply answers our request)."""
        for data in entries:
            cert = removal_certificate(data)
            if cert is not None:
                votes: list[Envelope] = []
                opened = []
                for vote_bytes in cert:
                    if not isinstance(vote_bytes, bytes):
                        raise DecodeError("a removal certificate holds vote envelopes")
                    opened.append(self._open(vote_bytes))
                self._take_evidence([e for e in opened if not isinstance(e.body, Vote)])
                for vote in opened:
                    voter = self.seating.seat_of(vote.author)
                    if isinstance(vote.body, Vote) and voter is not None:
                        votes.append(vote)
                        self._take_vote(voter, vote, now)
                self._accept_own_removal(votes)
                continue
            if not asked:
                continue
            agreed = agreed_item(data)
            if agreed is not None:
                self._take_agreed(self._open(agreed[0]), agreed[1], now)
                continue
            # a concurrent entry, or an act without its acks: exactly as if it came live
            self._consider(self._open(data), now)

    def _take_agreed(self, env: Envelope, acks: list[bytes], now: float) -> None:
        """An act with its certificate from a sync reply: chain it if it fits our log and
        every live seat but its author acked it; a rival of the entry we hold for its slot
        is an equivocation proof; without a valid certificate it is only a live candidate."""
        if not isinstance(env.body, Act):
            raise DecodeError("an act item holds an act")
        digest = env.digest()
        if self.entries.rivals(env, digest):
            self._consider(env, now)  # it finds the rival: the proof, relayed, and our vote
            return
        author = self.seating.seat_of(env.author)
        if author in self.expelled or self.votes.voted(env.round_no, author or 0, self.seat):
            return  # as _consider: never complete an epoch we are voiding (a split)
        try:
            self.replica.check_act(env)
        except (NotYet, Stale):
            return
        ep = self.replica.epoch
        cert = checked_certificate(env, acks, ep.participants, self.seating, self._open)
        if cert is None:
            self._out.append(Log("warning", "an act came without the acks that made it final"))
            self._consider(env, now)
            return
        if digest not in self.seen:
            self.entries.accept(env, digest)
            self.seen.add(digest)
        self.act_certs[digest] = cert
        self.replica.chain_act(env)
        self._chained(now)
        self._advance(now)
