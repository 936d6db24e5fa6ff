"""Withdrawing a removal vote the table went on without (protocol.md §4.6, withdrawal).

A peer that voted a seat out of its epoch ignores that seat's entries of the epoch and
waits for the certificate (:meth:`~dudo_p2p.consensus.removal.Removals.ignores`). When it
sees the others go on without the removal — they relay that seat's entries it refused, in
``ack``\\ s or a ``sync-reply`` — from so many seats that the votes left cannot make a strict
majority of the target's other seats not removed in the epoch, it withdraws its vote (it
never votes that seat again in that epoch, and doubts its own link from it from then on),
takes the entries and catches up.

**An epoch another seat completed.** Every step of an epoch needs every seat of it, so while
we wait for the certificate nobody completes the epoch — but for its last step: in SIGN our
own result signature is out before we vote, and a third seat holding the target's can
complete the epoch without us and go on. When a catch-up reply shows that (the replier's
chain holds the result signature of every member on our head: a complete set, each checked)
and the seats that could still second our vote are only seats we voted out of the epoch
ourselves (we hold them gone), the removal cannot be made but by the dead: we withdraw,
take the signatures and complete the epoch with the table (FakeNet sweep seed 449: 0 and 1
in SIGN voted out the crashed 2 and 4, whose signatures the eliminated 3 held; 3 went on to
an epoch where it signs nothing, and all three waited for ever).

:class:`Withdrawal` is that bookkeeping, a collaborator of
:class:`~dudo_p2p.consensus.removal.Removals`. Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Container

from dudo_p2p.consensus.act_certs import agreed_item
from dudo_p2p.consensus.context import SeatContext
from dudo_p2p.consensus.effects import Effects, Log
from dudo_p2p.consensus.faults import VoteBook, remaining, removed_in
from dudo_p2p.consensus.removal_hold import Hold
from dudo_p2p.consensus.replica import EpochPhase
from dudo_p2p.consensus.sync import removal_certificate
from dudo_p2p.consensus.timers import Timers
from dudo_p2p.errors import RemoteProtocolError
from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.protocol.kinds import ResultSign


class Withdrawal:
    """Who went on without a removal we voted for, and our votes withdrawn for it."""

    def __init__(self, ctx: SeatContext, votes: VoteBook, timers: Timers, hold: Hold) -> None:
        self.ctx = ctx
        self.votes = votes
        self.timers = timers
        self.hold = hold  # read: the removals held (their targets count out, as in the tally)
        self.went_on: dict[tuple[int, int], set[int]] = {}  # (epoch, target) we voted -> seats

    def observe_relay(self, relayer: int, env: Envelope, seen: Container[bytes],
                      now: float, gone: frozenset[int] | None = None) -> Effects:
        """``relayer`` holds ``env``, an entry we refused, having voted its author out of
        its epoch (``seen``: our log's digests): it went on without the removal. ``gone``:
        the epoch is complete and these seats will not second our vote either (see the
        module docstring); a vote withdrawn so doubts nothing of our link to the target."""
        ctx = self.ctx
        author = ctx.seating.seat_of(env.author)
        if author is None or relayer == author or env.digest() in seen:
            return
        ep = ctx.replica.epoch
        key = (env.round_no, author)
        if env.round_no != ep.number or not self.votes.voted(ep.number, author, ctx.seat):
            return
        seen_by = self.went_on.setdefault(key, set())
        seen_by.add(relayer)
        others = set(remaining(ep.participants, removed_in(ctx.replica, ep.number)
                               | self.hold.held(ep.number), author))
        if len(others - seen_by - (gone or set())) * 2 > len(others):
            return  # the removal can still win a strict majority: keep waiting for it
        doubted = author in self.votes.disputed
        self.votes.withdraw(ep.number, author, ctx.seat)
        if gone is not None:
            if not doubted:
                self.votes.disputed.discard(author)  # it is silent to us: no link to doubt
            yield Log("warning", f"withdrew our vote against seat {author}: seat {relayer} "
                                 f"completed epoch {ep.number} with its signature")
            return
        self.timers.last_heard[author] = max(self.timers.last_heard[author], now)
        yield Log("warning", f"withdrew our vote against seat {author}: the table went on "
                             "without the removal")

    def observe_chain(self, peer: int, entries: tuple[bytes, ...], seen: Container[bytes],
                      now: float) -> Effects:
        """``entries`` come from ``peer``'s chain (a sync reply): if they show it went on
        without a removal we voted for, note it, and withdraw our vote once the removal can
        no longer win a majority; when they complete our epoch, the seats we voted out of
        it count as gone (see the module docstring)."""
        envs = []
        for data in entries:
            if removal_certificate(data) is not None:
                continue
            try:
                agreed = agreed_item(data)
                envs.append(self.ctx.open(agreed[0] if agreed is not None else data))
            except RemoteProtocolError:
                continue
        gone = self._our_targets() if self._complete(envs) else None
        for env in envs:
            yield from self.observe_relay(peer, env, seen, now, gone)

    def _complete(self, envs: list[Envelope]) -> bool:
        """We are in SIGN, and ``envs`` with the signatures we hold are a result signature
        of every member on our head: the epoch is complete."""
        ctx = self.ctx
        rep = ctx.replica
        if rep.phase is not EpochPhase.SIGN:
            return False
        signed = set(rep.epoch.pending)
        for env in envs:
            if (isinstance(env.body, ResultSign) and env.round_no == rep.epoch.number
                    and env.body.prev == rep.head and env.seq == rep.concurrent_seq()):
                signed.add(rep.seating.seat_of(env.author) or 0)  # open checked the author
        return signed >= set(rep.members())

    def _our_targets(self) -> frozenset[int]:
        """The seats we voted out of the current epoch (withdrawn votes too)."""
        me, epoch = self.ctx.seat, self.ctx.replica.epoch.number
        return frozenset(t for (e, t), box in self.votes.votes.items()
                         if e == epoch and me in box) | frozenset(
            t for e, t in self.votes.withdrawn if e == epoch)
