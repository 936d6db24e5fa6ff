"""A removal during the opener draw (epoch 0, protocol.md §4.6): the epoch it starts draws
the opener again, among the seats left, from its own seed."""

from __future__ import annotations

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus.record import verify_record
from dudo_p2p.rules import RuleSet

from .fakenet import FakeNet


def test_a_seat_removed_during_the_opener_draw_leaves_a_game_that_still_gets_an_opener() -> None:
    """Before: the epoch after the removal ran COMMIT and NONCE, then went to BIDDING with
    the engine still waiting for the draw, and the table hung for ever."""
    net = FakeNet(3, RuleSet(starting_dice=3), seed=3)
    silent = 2
    original = net.route
    net.route = lambda s, d, f, now: [] if s == silent else original(s, d, f, now)
    net.crash(silent)
    net.run(max_steps=60_000)
    for s in (0, 1):
        m = net.machines[s]
        removals = [(i.epoch, i.removed_seat) for i in m.replica.chain
                    if i.removed_seat is not None]
        assert removals == [(0, silent)]
        assert m.replica.engine.winner in (0, 1)
        assert any(isinstance(e, ev.PlayerLeft) and e.seat == silent for e in net.events[s])
    assert net.machines[0].replica.head == net.machines[1].replica.head
    summary = verify_record(net.machines[0].record(net.genesis, net.signatures))
    assert summary.finished and summary.removals == ((silent, "silent"),)
