"""Withdrawing a removal vote the table went on without (protocol.md §4.6, withdrawal).

A peer that voted a seat out of its epoch ignores that seat's entries of the epoch and
waits for the certificate (:meth:`~dudo_p2p.consensus.removal.Removals.ignores`). When it
sees the others go on without the removal — they relay that seat's entries it refused, in
``ack``\\ s or a ``sync-reply`` — from so many seats that the votes left cannot make a strict
majority of the target's other seats not removed in the epoch, it withdraws its vote (it
never votes that seat again in that epoch, and doubts its own link from it from then on),
takes the entries and catches up.

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
from dudo_p2p.consensus.sync import removal_certificate
from dudo_p2p.consensus.timers import Timers
from dudo_p2p.errors import RemoteProtocolError
from dudo_p2p.protocol.envelope import Envelope


class Withdrawal:
    """Who went on without a removal we voted for, and our votes withdrawn for it."""

    def __init__(self, ctx: SeatContext, votes: VoteBook, timers: Timers, hold: Hold) -> None:
        self.ctx = ctx
        self.votes = votes
        self.timers = timers
        self.hold = hold  # read: the removals held (their targets count out, as in the tally)
        self.went_on: dict[tuple[int, int], set[int]] = {}  # (epoch, target) we voted -> seats

    def observe_relay(self, relayer: int, env: Envelope, seen: Container[bytes],
                      now: float) -> Effects:
        """``relayer`` holds ``env``, an entry we refused, having voted its author out of
        its epoch (``seen``: our log's digests): it went on without the removal."""
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
        if len(others - seen_by) * 2 > len(others):
            return  # the removal can still win a strict majority: keep waiting for it
        self.votes.withdraw(ep.number, author, ctx.seat)
        self.timers.last_heard[author] = max(self.timers.last_heard[author], now)
        yield Log("warning", f"withdrew our vote against seat {author}: the table went on "
                             "without the removal")

    def observe_chain(self, peer: int, entries: tuple[bytes, ...], seen: Container[bytes],
                      now: float) -> Effects:
        """``entries`` come from ``peer``'s chain (a sync reply): if they show it went on
        without a removal we voted for, note it, and withdraw our vote once the removal can
        no longer win a majority."""
        for data in entries:
            if removal_certificate(data) is not None:
                continue
            try:
                agreed = agreed_item(data)
                env = self.ctx.open(agreed[0] if agreed is not None else data)
            except RemoteProtocolError:
                continue
            yield from self.observe_relay(peer, env, seen, now)
