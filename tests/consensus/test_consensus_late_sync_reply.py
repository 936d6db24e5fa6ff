"""A sync reply that lands after our next ask to its seat still answers what we asked
(protocol.md §4.7; ``lan_sweep --hard`` seed 56, session 9).

On the lossy LAN a reply can take longer than a heartbeat interval (TCP retransmits under
15-25 % loss), and we ask about once an interval, each ask from another ``have`` (our length,
then the epoch's anchor when that brought nothing). ``SyncPacer`` kept only the latest ask
per seat, so every late reply was "unasked": its entries ignored, and with them the one sign
that could make us withdraw a vote the table went on without. Seed 56: the host, in epoch 3
SIGN, voted out the crashed b1 whose result signature b2 held; b2 completed the epoch and
moved on; the host never took a reply of b2's and both live seats ended "table gone" 14 s
later. Now the last two asks to a seat are answered by a reply at either ``start``, once.
"""

from __future__ import annotations

from dudo_p2p.consensus.reasons import Outcome
from dudo_p2p.protocol.envelope import open_envelope, peek_kind
from dudo_p2p.rules import RuleSet

from .fakenet import FakeNet

LATE = 1.5  # seconds a sync reply from seat 2 takes to seat 0: after our next ask (~1 s)


def test_a_vote_is_withdrawn_on_a_sync_reply_landing_after_the_next_ask() -> None:
    """3 seats: seat 1 signs epoch 1's result and dies; its signature reaches seat 2, never
    seat 0. Seat 2 completes the epoch and moves on; seat 0 votes seat 1 out of epoch 1 (a
    removal only seat 2 could second, and 2 has left the epoch). Seat 2's sync replies to
    seat 0 are lost until that vote, then each lands 1.5 s late, after seat 0's next ask to
    it: seat 0 must take one, withdraw (the epoch is complete there, §4.6 withdrawal),
    complete epoch 1 with the table, and the two live seats finish on one log."""
    rules = RuleSet.from_dict({**RuleSet().to_dict(), "starting_dice": 3})
    net = FakeNet(3, rules, seed=11)
    plain = net.route
    m0 = net.machines[0]
    signed: list[float] = []
    late: list[float] = []

    def route(src: int, dst: int, frame: bytes, now: float) -> list[float]:
        kind = peek_kind(frame)
        if src == 1 and kind == "result-sign" and open_envelope(frame).round_no == 1:
            signed.append(now)  # it dies once this is out (below)
            return [] if dst == 0 else plain(src, dst, frame, now)
        if src == 2 and dst == 0 and kind == "sync-reply":
            if not (late or m0.removals.votes.voted(1, 1, 0)):
                return []  # lost until seat 0 votes (withdrawn later: they pass on then)
            late.append(now)
            return [now + LATE]
        return plain(src, dst, frame, now)

    net.route = route
    net.run_until(lambda: bool(signed), max_steps=20_000)
    net.crash(1)
    net.run_until(lambda: m0.removals.votes.voted(1, 1, 0), max_steps=20_000)
    assert m0.replica.epoch.number == 1 and m0.replica.phase.value == "sign"
    assert net.machines[2].replica.epoch.number > 1  # it completed epoch 1 and went on
    voted_at = net.now
    net.run_until(lambda: m0.over and net.machines[2].over, max_steps=60_000)
    assert late and late[0] >= voted_at
    assert (1, 1) in m0.removals.votes.withdrawn  # on a reply that came after our next ask
    assert m0.outcome is Outcome.FINISHED and net.machines[2].outcome is Outcome.FINISHED
    chains = [[i.digest for i in net.machines[s].replica.chain] for s in (0, 2)]
    assert chains[0] == chains[1]
    assert m0.replica.engine.winner is not None
