"""Catch-up after a removal the peer missed: its chain holds entries of the voided epoch that
the others threw away, so asking "from my length" fetches items that never fit."""

from __future__ import annotations

from consensus.fakenet import FakeNet

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus.machine import Timeouts
from dudo_p2p.consensus.presence import TWO_SEAT_SILENCE
from dudo_p2p.consensus.replica import EpochPhase
from dudo_p2p.rules import RuleSet


def test_a_peer_removed_while_down_learns_it_from_the_others_after_restart() -> None:
    timeouts = Timeouts(step=2.0, silence=3.0, turn_grace=1.0)
    net = FakeNet(3, RuleSet(starting_dice=3), seed=31, timeouts=timeouts)
    victim = 1
    # down in the middle of a deal, after the commits and nonces of that deal are chained
    net.run_until(lambda: net.machines[victim].replica.epoch.number >= 2
                  and net.machines[victim].replica.phase is EpochPhase.BIDDING)
    anchor = net.machines[victim].replica.epoch.anchor_index
    assert len(net.machines[victim].replica.chain) > anchor, "entries of the epoch to be voided"
    net.crash(victim)
    down_at = net.now
    net.run_until(lambda: net.now > down_at + 8.0)  # past the silence timeout: voted out
    assert any(isinstance(e, ev.PlayerLeft) and e.seat == victim for e in net.events[0])
    net.restart(victim)
    back = net.machines[victim]
    for _ in range(20_000):  # about 60 simulated seconds
        if back.removed_me:
            break
        net.step()
    assert back.removed_me, "the restarted peer never learns it was removed"
    assert back.over


def test_a_two_seat_game_abandoned_by_a_crash_is_told_to_the_peer_that_restarts() -> None:
    """With two seats a silence is a claim, not a forfeit (§4.6): the seat left waits out the
    grace (0 here: the two-seat silence, 15 s, then), then ends the game abandoned, with no
    winner. The crashed peer restarts
    with a chain as long as the other's (heartbeats show no longer log) and is told the
    abandonment when its heartbeat is heard, rather than wait for the other's commitment,
    time it out and claim in turn."""
    # the opener chooses the direction each deal: one SETUP act before the commitments
    net = FakeNet(2, RuleSet(starting_dice=3, direction_each_round=True), seed=57)
    victim = 0
    rep = net.machines[victim].replica
    net.run_until(lambda: rep.epoch.number >= 2 and rep.phase is EpochPhase.COMMIT
                  and len(rep.chain) == rep.epoch.anchor_index + 1)
    net.crash(victim)
    down_at = net.now
    net.run_until(lambda: net.now > down_at + TWO_SEAT_SILENCE + Timeouts().step)
    winner_side = net.machines[1]
    assert winner_side.abandoned and winner_side.replica.engine.winner is None
    net.restart(victim)
    back = net.machines[victim]
    restarted_at = net.now
    net.run_until(lambda: back.over, max_steps=3_000)
    assert net.now - restarted_at < 2.0, "told at its first heartbeat, not after a timeout"
    assert back.abandoned and not back.removed_me
    assert back.replica.engine.winner is None
