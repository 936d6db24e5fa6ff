"""A seat restarted before the silence timeout ran out keeps its seat within the grace
(protocol.md §4.6: a link that comes up again counts as back, once per seat and epoch).

Seen by flakes (session 10): tests/node/test_node_faults.py's host killed and resumed at once
with a 30 s grace was voted out for ``timeout`` 1 run in 5 at load: its new link came up
4.17 s after the kill, before the 4.5 s silence, so it was never away and never back, and the
step timeout counted from before its death left it 0.8 s to restore and catch up. FakeNet:
injected clock, seeded RNG; the node's ``reached`` call is made by hand (FakeNet has no links)."""

from __future__ import annotations

import pytest

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus.presence import Presence
from dudo_p2p.consensus.replica import EpochPhase
from dudo_p2p.rules import RuleSet

from .fakenet import FakeNet


def restarted_within_the_silence(seed: int, relinked: bool) -> FakeNet:
    """Seat 0 dies as epoch 2 starts (it owes its commitment), is started again 4.2 s later
    and takes 1.5 s to restore (its frames lost meanwhile); the others' links to it come up
    at the restart (``relinked``: the node tells their machines)."""
    net = FakeNet(3, RuleSet(starting_dice=5), seed=seed, grace_ms=30_000)
    rep = net.machines[1].replica
    net.run_until(lambda: rep.epoch.number >= 2 and rep.phase is EpochPhase.COMMIT)
    net.crash(0)
    down = net.now
    net.run_until(lambda: net.now > down + 4.2)
    net.restart(0)
    back = net.now
    if relinked:
        for seat in (1, 2):
            net.machines[seat].reached(0, back)
    route = net.route
    net.route = lambda src, dst, frame, now: (
        [] if src == 0 and now < back + 1.5 else route(src, dst, frame, now))
    net.run(max_steps=200_000)
    return net


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_seat_restarted_before_its_silence_ran_out_keeps_its_seat(seed: int) -> None:
    net = restarted_within_the_silence(seed, relinked=True)
    assert not [e for s in (1, 2) for e in net.events[s] if isinstance(e, ev.PlayerLeft)]
    assert len(net.heads()) == 1 and all(m.replica.engine.winner is not None
                                         for m in net.machines)


def test_without_the_relink_it_was_voted_out_for_timeout() -> None:
    """The same run with no link coming up (what the machine saw before): voted out."""
    net = restarted_within_the_silence(0, relinked=False)
    assert any(isinstance(e, ev.PlayerLeft) and e.seat == 0 for e in net.events[1])


def test_a_relink_counts_as_back_once_per_seat_and_epoch_and_only_after_a_gap() -> None:
    """A seat that relinks again and again must not restart its step timeout for ever."""
    presence = Presence(silence=4.5, grace=30.0)
    presence.relinked(1, last_heard=10.0, now=11.5, epoch=2, heartbeat=1.0)
    assert 1 not in presence.back_at, "heard 1.5 s ago: no gap"
    presence.relinked(1, last_heard=10.0, now=14.0, epoch=2, heartbeat=1.0)
    assert presence.back_at[1] == 14.0
    presence.relinked(1, last_heard=14.5, now=20.0, epoch=2, heartbeat=1.0)
    assert presence.back_at[1] == 14.0, "once per epoch"
    presence.relinked(1, last_heard=14.5, now=20.0, epoch=3, heartbeat=1.0)
    assert presence.back_at[1] == 20.0
