"""A removed seat's votes count no more (protocol.md §4.6): two colluders at four seats used
the vote one of them signed before its removal, with the other's vote after it, to remove an
honest seat (evening's scan of the share-too scenario: honest seat 1 removed in 2 of 15
seeds). The tests make the colluders' votes themselves, so no seed has to be lucky: the
first colluder votes the honest seat out while it is still in the epoch, is removed for
what it withholds, and its partner adds its own vote in the same epoch afterwards."""

from __future__ import annotations

import pytest

from dudo_p2p.consensus.faults import carries, removal_order
from dudo_p2p.consensus.reasons import Outcome
from dudo_p2p.consensus.record import RecordViolation, verify_record
from dudo_p2p.consensus.replica import EpochPhase
from dudo_p2p.protocol.codec import decode, encode
from dudo_p2p.protocol.envelope import open_envelope, seal_envelope
from dudo_p2p.protocol.kinds import Commit, Vote
from dudo_p2p.rules import RuleSet

from .fakenet import FakeNet
from .scenarios import call_decided_by
from .test_consensus_two_withheld import silenced
from .test_consensus_withheld import restores_alike


def vote_frame(net: FakeNet, voter: int, target: int, epoch: int) -> bytes:
    """``voter``'s signed vote (reason timeout) to remove ``target`` in ``epoch``."""
    body = Vote(net.seating.pubs[target], "timeout")
    return seal_envelope(net.ids[voter], net.seating.game_id, epoch, target, body).to_bytes()


def removals(net: FakeNet, seat: int) -> set[int]:
    """The seats removed in seat ``seat``'s chain."""
    return {i.removed_seat for i in net.machines[seat].replica.chain if i.removed_seat is not None}


@pytest.mark.parametrize("seed", [1, 2, 3, 8])
def test_a_withholders_vote_counts_no_more_once_it_is_removed_after_the_call(seed: int) -> None:
    """Four seats; seat 0 withholds its reveal in a round its dice decide (the driver makes
    the bids), seat 3 withholds its key share in RECOVER. Seat 0, still in the epoch, votes
    honest seat 1 out; once seat 0 is removed (RECOVER starts) seat 3 votes seat 1 out too.
    Two votes of three others was a removal before; now seat 0's vote does not count and
    seat 3's alone is no majority of seats 2 and 3: seat 1 stays and the game ends with
    seats 1 and 2, on the same head; the records verify, the journals replay."""
    net = FakeNet(4, RuleSet(), seed=seed)
    planted = call_decided_by(net, 0)
    silenced(net, {0: ("reveal", "sync-reply"), 3: ("key-share", "sync-reply")})
    rep = net.machines[1].replica
    net.run_until(lambda: rep.phase is EpochPhase.REVEAL and planted.get("round") is not None)
    epoch = rep.epoch.number
    assert planted["round"] == epoch, "the call the driver made"
    net.send(0, vote_frame(net, 0, 1, epoch), None)
    net.run_until(lambda: rep.phase is EpochPhase.RECOVER)
    assert rep.epoch.number == epoch and list(rep.epoch.withheld) == [0]
    for s in (1, 2):
        assert net.machines[s].votes.voted(epoch, 1, 0), f"seat {s} holds seat 0's vote"
    net.send(3, vote_frame(net, 3, 1, epoch), None)
    net.run()
    for s in (1, 2):
        assert removals(net, s) == {0, 3}, f"seat {s}'s chain"
        assert net.machines[s].outcome is Outcome.FINISHED
        summary = verify_record(net.machines[s].record(net.genesis, net.signatures))
        assert summary.finished and {seat for seat, _ in summary.removals} == {0, 3}
        assert restores_alike(net, s), f"seat {s}'s journal"
    assert net.machines[1].replica.head == net.machines[2].replica.head


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_silent_seats_vote_counts_no_more_in_the_epoch_its_removal_voided(seed: int) -> None:
    """Four seats, before any call: seat 0 votes honest seat 1 out and dies; seats
    1, 2, 3 remove it (the epoch is voided). Its partner, seat 3, holds back its commit of
    the next epoch so that nothing is chained there (a removal of the voided epoch may still
    join) and votes seat 1 out of the voided epoch. Before, seat 0's vote and seat 3's were
    two of three and seat 1 joined the removal; now seat 1 stays, and the game goes on with
    seats 1, 2 and 3 on one head."""
    net = FakeNet(4, RuleSet(), seed=seed)
    reps = [m.replica for m in net.machines]
    net.run_until(lambda: all(r.epoch.number >= 1 and r.phase is EpochPhase.BIDDING
                              and not r.epoch.acts for r in reps))
    epoch = reps[1].epoch.number
    held = {"on": True}
    plain = net.route

    def route(src: int, dst: int, frame: bytes, now: float) -> list[float]:
        env = open_envelope(frame)
        if held["on"] and src == 3 and isinstance(env.body, Commit) and env.round_no > epoch:
            return []  # seat 3 holds back its commits of the next epoch (resent later)
        return plain(src, dst, frame, now)

    net.route = route
    net.send(0, vote_frame(net, 0, 1, epoch), None)
    net.dead.add(0)  # at once: no act can be agreed without its ack, so no call comes
    net.run_until(lambda: all(net.machines[s].votes.voted(epoch, 1, 0) for s in (1, 2)))
    net.run_until(lambda: all(0 in removals(net, s) for s in (1, 2, 3)))
    assert all(r.epoch.number == epoch + 1 and len(r.chain) == r.epoch.anchor_index
               for r in reps[1:]), "the next epoch holds nothing yet"
    net.send(3, vote_frame(net, 3, 1, epoch), None)
    net.run_until(lambda: all(net.machines[s].votes.voted(epoch, 1, 3) for s in (1, 2)))
    held["on"] = False
    net.run()
    for s in (1, 2, 3):
        assert removals(net, s) == {0}, f"seat {s}'s chain"
        assert net.machines[s].outcome is Outcome.FINISHED
        assert verify_record(net.machines[s].record(net.genesis, net.signatures)).finished
    assert len(net.heads()) == 1


def test_a_record_whose_removal_needs_a_removed_seats_vote_is_refused() -> None:
    """``verify`` applies the rule too: after seat 0's removal by the votes of seats 1 and
    2, a removal of seat 1 in the same epoch by the votes of seats 0 and 3 is refused (seat
    0 has no vote there once removed, and seat 0's removal needs seat 1's vote: no order
    works); by the votes of seats 2 and 3 (a majority of the seats left) it verifies."""
    net = FakeNet(4, RuleSet(), seed=4)
    reps = [m.replica for m in net.machines]
    net.run_until(lambda: all(r.epoch.number >= 1 and r.phase is EpochPhase.BIDDING
                              for r in reps))
    epoch = reps[1].epoch.number
    net.dead.add(0)
    net.run_until(lambda: 0 in removals(net, 1))
    doc = decode(net.machines[1].record(net.genesis, net.signatures), max_size=1 << 26)
    assert isinstance(doc, dict) and isinstance(doc["items"], list)
    at = next(i for i, item in enumerate(doc["items"]) if isinstance(item, list))
    assert doc["items"][at][1:3] == [epoch, 0]

    def with_removal_of_1(voters: tuple[int, ...]) -> bytes:
        of_0 = [vote_frame(net, v, 0, epoch) for v in (1, 2)]
        of_1 = [vote_frame(net, v, 1, epoch) for v in voters]
        items = [*doc["items"][:at], ["removal", epoch, 0, "timeout", of_0],
                 ["removal", epoch, 1, "timeout", of_1]]
        return encode({**doc, "items": items})

    with pytest.raises(RecordViolation, match="no order"):
        verify_record(with_removal_of_1((0, 3)))
    summary = verify_record(with_removal_of_1((2, 3)))
    assert {seat for seat, _ in summary.removals} == {0, 1}


def test_removals_of_one_epoch_are_valid_in_some_order_of_them() -> None:
    """The pure rule: a strict majority of the other seats left; a removed seat's vote
    counts no more; two seats left need consent or evidence; any order of an epoch's
    removals that works makes them valid (a record keeps them in seat order)."""
    parts = (0, 1, 2, 3)
    assert carries({0, 3}, [0, 2, 3], proven=False)  # seat 1 with everyone still there
    assert not carries({0, 3}, [2, 3], proven=False)  # seat 0 removed: its vote is gone
    assert carries({2, 3}, [2, 3], proven=False)
    assert not carries({2}, [2], proven=False)  # two seats: a claim
    assert carries({2}, [2], proven=True)
    both = {0: (frozenset({1, 2}), False), 1: (frozenset({0, 3}), False)}
    assert removal_order(parts, both) is None  # whichever first, the other fails
    assert removal_order(parts, {0: both[0]}) == (0,)
    assert removal_order(parts, {1: both[1]}) == (1,)
    # a record does not say when a vote was cast: with every other seat's vote against
    # seat 0, seat 1's removal could have come first (then seats 2 and 3 still remove 0)
    assert removal_order(parts, {**both, 0: (frozenset({1, 2, 3}), False)}) == (1, 0)
    # five seats: seat 4 needs seat 0 removed first (two of three then, two of four before)
    later = {0: (frozenset({1, 2, 3}), False), 4: (frozenset({1, 2}), False)}
    assert removal_order((0, 1, 2, 3, 4), later) == (0, 4)
    assert removal_order((0, 1, 2, 3, 4), {4: later[4]}) is None
