"""An entry that came twice before it fitted stays known once chained (intake.seen), and a
peer relaying it later does not make us withdraw a vote (protocol.md §4.6, withdrawal).

The withdrawal tells an entry it refused (the table went on without the removal) from one
it holds by the intake's ``seen``. An act that arrived before the act before it was agreed
here, both on its own and inside a third seat's ack, sat twice in the buffer; the first copy
was chained, and the retry of the second dropped its digest from ``seen`` before finding it
stale (8 of 30,064 chained entries, 20 fault-free FakeNet games of the fault sweep). A peer
holding it then looked like the table going on without a removal we voted for: FakeNet
``fault_sweep --held-call`` seed 156, where the withdrawal left a dead seat's removal for
ever incomplete and both live seats hung (tests/consensus/test_fault_sweep.py).
"""

from __future__ import annotations

from dudo_p2p.consensus.reasons import Reason
from dudo_p2p.protocol.envelope import open_envelope, peek_kind
from dudo_p2p.protocol.kinds import Ack, Act
from dudo_p2p.rules import RuleSet

from .fakenet import FakeNet

SLOW_ACK = 0.05  # seat 1's acks reach seat 0 this late: seat 1's next act comes first


def _late_acks_from_1_to_0(net: FakeNet) -> None:
    def route(src: int, dst: int, frame: bytes, now: float) -> list[float]:
        if src == 1 and dst == 0 and peek_kind(frame) == "ack":
            return [now + SLOW_ACK]
        return [now + net.rng.uniform(0.0005, 0.005)]

    net.route = route


def _twice_in_buffer(net: FakeNet) -> bytes | None:
    """The digest of an act of seat 1 buffered twice at seat 0, if there is one now."""
    digests = [e.digest() for e in net.machines[0].intake.buffer
               if isinstance(e.body, Act) and e.author == net.seating.pubs[1]]
    return next((d for d in digests if digests.count(d) > 1), None)


def test_an_act_buffered_twice_stays_seen_and_its_relay_withdraws_no_vote() -> None:
    rules = RuleSet.from_dict({**RuleSet().to_dict(), "starting_dice": 3})
    net = FakeNet(3, rules, seed=3)
    _late_acks_from_1_to_0(net)
    m0 = net.machines[0]
    found: list[bytes] = []

    def buffered_twice() -> bool:
        digest = _twice_in_buffer(net)
        if digest is not None:
            found.append(digest)
        return digest is not None

    net.run_until(buffered_twice, max_steps=20_000)
    digest = found[0]
    net.run_until(lambda: any(i.digest == digest for i in m0.replica.chain), max_steps=2_000)
    assert digest in m0.intake.seen  # (dropped by the retry of the second copy before)
    assert all(i.digest in m0.intake.seen for i in m0.replica.chain if i.data)

    # seat 0 votes seat 1 out of this epoch, then seat 2 re-sends its ack of that act (an
    # ack of a slot chained: refused as stale, it still shows seat 2 holds the act)
    act = next(open_envelope(i.data) for i in m0.replica.chain if i.digest == digest)
    epoch = m0.replica.epoch.number
    assert act.round_no == epoch
    now = net.now
    list(m0.removals.vote(1, Reason.TIMEOUT, now))
    assert m0.removals.votes.voted(epoch, 1, 0)
    ack = net.machines[2].ctx.ack(act)
    assert ack is not None and isinstance(open_envelope(ack).body, Ack)
    logs = [str(e) for e in m0.receive(ack, now)]
    assert not any("withdrew" in line for line in logs), logs
    assert m0.removals.votes.voted(epoch, 1, 0)  # the act is ours: nothing went on without us
    assert (epoch, 1) not in m0.removals.votes.withdrawn
