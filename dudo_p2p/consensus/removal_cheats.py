"""Cheats caught (protocol.md §4.5, §3.7): equivocation proofs, bad openings, bad deals.

:class:`Cheats` is the part of :class:`~dudo_p2p.consensus.removal.Removals` that catches a
seat cheating: a second, different entry for a taken slot, or a ``proof`` from a peer, is
checked (:func:`~dudo_p2p.consensus.evidence.check_proof`), kept for the record, broadcast
once, and its author is expelled and voted out; so is the author of a nonce or reveal that
does not open its commitment (its commit and the opening are kept as evidence, which a
two-seat removal needs) and a dealer whose key share does not check. Every method yields
the effects it makes, in order; the vote is the removals' (``vote``).
"""

from __future__ import annotations

from collections.abc import Callable

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus.context import SeatContext
from dudo_p2p.consensus.dealing import bad_deal_evidence, proves_bad_deal, received_share
from dudo_p2p.consensus.effects import Effects, Emit, Log, Send
from dudo_p2p.consensus.evidence import bad_opening, check_proof
from dudo_p2p.consensus.faults import VoteBook
from dudo_p2p.consensus.reasons import CheatKind, Reason
from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.protocol.kinds import BadDeal, Commit, Proof

VoteOut = Callable[[int, Reason, float], Effects]  # our vote against a seat (Removals.vote)


class Cheats:
    """The seats caught cheating, the proofs kept for the record (module docstring)."""

    def __init__(self, ctx: SeatContext, votes: VoteBook, vote: VoteOut) -> None:
        self.ctx = ctx
        self.votes = votes  # its evidence: two entries a seat signed that prove a cheat
        self.vote = vote
        self.expelled: set[int] = set()
        self.proofs: list[tuple[bytes, bytes]] = []

    def take_proof(self, first: bytes, second: bytes, now: float) -> Effects:
        """Check two entries as a proof (raises if they are not one); the first proof
        against a seat is kept, broadcast, and expels and votes out its author."""
        ctx = self.ctx
        a, b = ctx.open(first), ctx.open(second)
        check_proof(a, b)
        seat = ctx.seat_of(a.author)
        if seat in self.expelled:
            return
        self.expelled.add(seat)
        self.proofs.append((first, second))
        self.votes.evidence.setdefault(seat, (first, second))
        yield Send(ctx.seal(0, Proof(first, second)).to_bytes())
        yield from self.cheat(seat, CheatKind.EQUIVOCATION,
                                f"two {a.kind} entries for one slot", now)

    def bad_opening(self, env: Envelope, seat: int, detail: str, now: float) -> Effects:
        """``env``, a nonce or reveal by ``seat``, does not open its commitment: keep the
        commit and the opening as evidence (a two-seat removal needs it), then tell, vote."""
        pair = bad_opening(self.ctx.replica, seat, env, self.ctx.open)
        if pair is not None:
            self.votes.evidence.setdefault(seat, pair)
        yield from self.cheat(seat, CheatKind.BAD_REVEAL, detail, now)

    def check_deal(self, commit: Envelope, dealer: int, now: float) -> Effects:
        """Check our share of ``dealer``'s dice key in its ``commit`` (§3.7, dealing.py): a
        share that does not check is proved to everyone (``bad-deal``) and the dealer is
        caught now, before the round seed exists."""
        ctx = self.ctx
        rep = ctx.replica
        assert isinstance(commit.body, Commit)
        if ctx.seat not in rep.epoch.participants or dealer in self.expelled:
            return
        if received_share(rep, ctx.seat, dealer, commit.body, ctx.identity) is not None:
            return
        body = bad_deal_evidence(rep, ctx.seat, dealer, commit, ctx.identity)
        yield Send(ctx.seal(0, body).to_bytes())
        yield from self.cheat(dealer, CheatKind.BAD_REVEAL,
                                "dealt us a key share that does not check", now)

    def take_bad_deal(self, author: int, env: Envelope, now: float) -> Effects:
        """A seat proves a dealer dealt it a bad share: check the proof (the dealer's own
        signed commit, the box opened with the proved X25519 value), relay it once, and
        catch the dealer; a complaint that does not prove it changes nothing."""
        ctx = self.ctx
        body = env.body
        assert isinstance(body, BadDeal)
        commit = ctx.open(body.commit)
        dealer = ctx.seating.seat_of(commit.author)
        if dealer is None or dealer == ctx.seat or dealer in self.expelled:
            return
        if not proves_bad_deal(ctx.replica, author, commit, body.proof):
            yield Log("warning", f"seat {author}'s complaint of seat {dealer}'s deal proves "
                                 "nothing")
            return
        yield Send(env.to_bytes())
        yield from self.cheat(dealer, CheatKind.BAD_REVEAL,
                                f"dealt seat {author} a key share that does not check", now)

    def cheat(self, seat: int, what: CheatKind, detail: str, now: float) -> Effects:
        """``seat`` is caught: tell, expel, vote."""
        yield Emit(ev.CheatDetected(seat, what, detail))
        yield Log("warning", f"seat {seat} caught: {what}: {detail}")
        self.expelled.add(seat)
        yield from self.vote(seat, what.reason, now)
