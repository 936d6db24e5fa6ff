"""Catch-up, the machine's side (protocol.md §4.6, §4.7): sync, and telling peers removals.

:class:`CatchUp` is the collaborator of :class:`~dudo_p2p.consensus.machine.TableMachine` that
brings a peer's log level with the table's and tells peers how the game ended for them;
chunks, removal items and pacing are :mod:`~dudo_p2p.consensus.sync`. It owns what each peer's
heartbeat last said (its length and head) and the pacing of asks, answers and tellings;
every method yields the effects it makes, in order:

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
  strict majority of the others stop us even when the removal can no longer be chained;
  a peer still beating after the game ended abandoned for us is sent the claims;
- :meth:`CatchUp.untold` says which seats have not shown they heard of their removal.
"""

from __future__ import annotations

from dudo_p2p.consensus.act_certs import agreed_item
from dudo_p2p.consensus.context import SeatContext
from dudo_p2p.consensus.effects import Effects, Log, Send
from dudo_p2p.consensus.intake import LogIntake
from dudo_p2p.consensus.reasons import Reason
from dudo_p2p.consensus.removal import Removals
from dudo_p2p.consensus.sync import SyncPacer, removal_certificate, removals_reply, sync_chunk
from dudo_p2p.consensus.timers import Lag
from dudo_p2p.errors import DecodeError
from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.protocol.kinds import SyncRequest, Vote


class CatchUp:
    """Sync requests and replies, and telling peers about removals (see the module docstring)."""

    def __init__(self, ctx: SeatContext, intake: LogIntake, removals: Removals) -> None:
        self.ctx = ctx
        self.intake = intake
        self.removals = removals
        self.peer_lengths: dict[int, int] = {}
        self.peer_heads: dict[int, bytes] = {}  # each seat's head, as its last heartbeat said
        self.pacer = SyncPacer(ctx.timeouts.heartbeat)

    def take_heartbeat(self, peer: int, head: bytes, length: int, now: float) -> Effects:
        """A peer's heartbeat: note its length and head; catch up with a longer log, or with another
        head as long as ours (one of us holds a voided epoch's entries: a removal we missed,
        seen from the other side of it), and tell it the removals it may lack."""
        self.peer_lengths[peer] = length
        self.peer_heads[peer] = head
        self.pacer.beat(peer, now)
        hold, rep = self.removals.hold, self.ctx.replica
        if hold.active(rep.epoch.number) and hold.void_head(rep, head):
            yield from self.removals.shown_void(peer, now)  # it voided our epoch
        if self._ahead_of_us(peer):
            yield from self._ask_sync(now)
            yield from self._tell_voided(peer, now)
        yield from self._tell_removed(peer, now)
        yield from self._tell_outcome(peer, now)

    def lag(self) -> Lag:
        """The seats whose last heartbeat showed a longer log than ours (they hold what we
        wait for: ``timers.patience``) and those short of our epoch's start (``awaited``)."""
        rep = self.ctx.replica
        ours, start = len(rep.chain), rep.epoch.anchor_index
        lengths = self.peer_lengths.items()
        return Lag(frozenset(s for s, n in lengths if n > ours),
                   frozenset(s for s, n in lengths if n < start))

    def _ahead_of_us(self, peer: int) -> bool:
        """``peer``'s last heartbeat showed a longer log, or another head as long as ours."""
        rep = self.ctx.replica
        length, head = self.peer_lengths.get(peer, -1), self.peer_heads.get(peer)
        ours = len(rep.chain)
        return length > ours or (length == ours and head != rep.head)

    def answer_sync(self, peer: int, have: int, now: float) -> Effects:
        """A sync-request: one chunk of our chain from ``have`` (nothing if we hold none),
        within the asker's rate (see :meth:`~dudo_p2p.consensus.sync.SyncPacer.may_answer`)."""
        chain = self.ctx.replica.chain
        if have >= len(chain) or not self.pacer.may_answer(peer, have, now):
            return
        reply = sync_chunk(chain, have, self.removals.votes.certificates, self.intake.act_certs)
        if reply is not None:
            yield Send(self.ctx.seal(0, reply).to_bytes(), to=peer)

    def take_reply(
        self, peer: int, start: int, entries: tuple[bytes, ...], more: bool, now: float
    ) -> Effects:
        """A sync-reply: take its items if it answers what we asked ``peer`` (only its
        removal items otherwise); while ``more`` is set and the chunk moved our head, ask
        for the next one at once (no progress: wait for the next heartbeat). An item that
        does not check raises, after the effects of the items taken before it."""
        asked = self.pacer.answered(peer, start)
        before = self.ctx.replica.head
        if asked:
            yield from self.removals.observe_chain(peer, entries, self.intake.seen, now)
        yield from self._take_sync(entries, now, asked=asked)
        if not asked and any(removal_certificate(d) is None for d in entries):
            yield Log("warning", f"ignored the entries of an unasked sync-reply from seat {peer}")
        if asked and more and self.ctx.replica.head != before:
            self.pacer.asked_at = now
            yield from self._send_ask(peer, self._sync_have(peer), now)

    def _send_ask(self, peer: int | None, have: int, now: float) -> Effects:
        """Ask ``peer`` (None: every seat) for our log from ``have``, and remember it."""
        peers = range(self.ctx.seating.n) if peer is None else (peer,)
        for seat in peers:
            if seat != self.ctx.seat:
                self.pacer.expect(seat, have, now)
        yield Send(self.ctx.seal(0, SyncRequest(have)).to_bytes(), to=peer)

    def ask_everyone(self, now: float) -> Effects:
        """Ask every seat for what follows our log (a restart: we may have missed anything)."""
        yield from self._send_ask(None, len(self.ctx.replica.chain), now)

    def _ask_sync(self, now: float) -> Effects:
        """Ask a seat ahead of us for what follows our log, at most about once a heartbeat:
        the seats ahead in turn (see :meth:`~dudo_p2p.consensus.sync.SyncPacer.pick`)."""
        ahead = [s for s in self.peer_lengths if s != self.ctx.seat and self._ahead_of_us(s)]
        target = self.pacer.pick(ahead, now)
        if target is None or not self.pacer.may_ask(now):
            return
        yield from self._send_ask(target, self._sync_have(target), now)

    def _sync_have(self, seat: int) -> int:
        """Where to ask ``seat`` from (see :meth:`~dudo_p2p.consensus.sync.SyncPacer.have`)."""
        rep = self.ctx.replica
        return self.pacer.have(seat, len(rep.chain), rep.epoch.anchor_index)

    def _take_sync(self, entries: tuple[bytes, ...], now: float, *, asked: bool) -> Effects:
        """Check and take sync items in order (see the module docstring); entries only when
        ``asked`` (the reply answers our request)."""
        ctx, removals, intake = self.ctx, self.removals, self.intake
        for data in entries:
            cert = removal_certificate(data)
            if cert is not None:
                votes: list[Envelope] = []
                opened = []
                for vote_bytes in cert:
                    if not isinstance(vote_bytes, bytes):
                        raise DecodeError("a removal certificate holds vote envelopes")
                    opened.append(ctx.open(vote_bytes))
                removals.take_evidence([e for e in opened if not isinstance(e.body, Vote)])
                for vote in opened:
                    voter = ctx.seating.seat_of(vote.author)
                    if isinstance(vote.body, Vote) and voter is not None:
                        votes.append(vote)
                        yield from removals.take_vote(voter, vote, now)
                yield from removals.accept_own_removal(votes)
                continue
            if not asked:
                continue
            agreed = agreed_item(data)
            if agreed is not None:
                yield from intake.take_agreed(ctx.open(agreed[0]), agreed[1], now)
                continue
            # a concurrent entry, or an act without its acks: exactly as if it came live
            yield from intake.consider(ctx.open(data), now)

    # ---- telling peers how the game ended for them ------------------------------------------

    def _tell_removed(self, peer: int, now: float) -> Effects:
        """A seat we removed is still talking (it was down when the votes went round, and
        its own log may even be longer, holding the voided epoch): send it the removal with
        its votes, at most once a heartbeat interval, so it learns it left the table."""
        rep = self.ctx.replica
        if rep.engine.alive[peer] or not self.pacer.may_tell("removed", peer, now):
            return
        if not any(i.removed_seat == peer for i in rep.chain):
            return  # eliminated by the dice, not removed: nothing to tell
        self.pacer.told_now("removed", peer, now)
        yield from self._send_removals(peer)

    def _tell_voided(self, peer: int, now: float) -> Effects:
        """Our epoch was started by removals and a peer's heartbeat shows a longer log (or
        another head as long as ours): it may still be in the epoch we voided, waiting for
        the certificate (it voted too, so it ignores the target's late entries) while a vote
        it needs was lost and its sender, having moved on, no longer re-sends it. Its log
        holds the voided epoch's entries, so it is the longer one and never asks us to catch
        up: send it the removals with their votes, at most once a heartbeat interval, while
        we are in the epoch they started (soak seeds 505, 921), or when a removal ended the
        game (no epoch follows it, and an eliminated seat may still wait: seed 1229)."""
        rep = self.ctx.replica
        ended = bool(rep.chain) and rep.chain[-1].removed_seat is not None
        if rep.epoch.voided is None and not ended:
            return
        if not self.pacer.may_tell("voided", peer, now):
            return
        self.pacer.told_now("voided", peer, now)
        yield from self._send_removals(peer)

    def _send_removals(self, peer: int) -> Effects:
        """Send ``peer`` every removal of our chain with its certificate; after a void of
        the epoch just left that came after its call (withheld.py, step 4), the members'
        reveals it dropped too: a member that lacks ours waits in REVEAL for it, and no
        seat that voided sends it again (FakeNet: a reveal lost, a table hung for ever)."""
        rep = self.ctx.replica
        reply = removals_reply(rep.chain, self.removals.votes.certificates)
        yield Send(self.ctx.seal(0, reply).to_bytes(), to=peer)
        voided = rep.epoch.voided
        if voided is not None:
            for data in self.intake.spilled:
                if self.ctx.open(data).round_no == voided[0].number:
                    yield Send(data, to=peer)

    def _tell_outcome(self, peer: int, now: float) -> Effects:
        """We abandoned the game and ``peer`` still beats: send it the claims (paced)."""
        abandoned = self.removals.abandoned
        if not abandoned or not self.pacer.may_tell("abandoned", peer, now):
            return
        self.pacer.told_now("abandoned", peer, now)
        for claim in abandoned:
            yield Send(claim, to=peer)

    def untold(self, now: float) -> set[int]:
        """Seats whose removal (or the abandonment naming them) we hold but that have not
        shown they heard it (:meth:`~dudo_p2p.consensus.sync.SyncPacer.heard_of_it`: told,
        then no heartbeat for two intervals): a finished node waits a while for them before
        leaving (they were down and may come back)."""
        removals = self.removals
        seats = {i.removed_seat for i in self.ctx.replica.chain
                 if i.removed_seat is not None and i.reason != Reason.QUIT}  # it knows
        if removals.abandoned_by is not None:
            seats.add(removals.abandoned_by)
        return {s for s in seats if not self.pacer.heard_of_it(s, now)
                and s not in removals.expelled} - {self.ctx.seat}
