"""A seat that dies and is restarted from its journal at a table with a reconnect grace keeps
its seat (protocol.md §4.6: "a seat heard again within the grace is reconnected; the step
timeouts it owes count from then"), whether it comes back before or after the silence timeout.

Found as a flake of tests/node/test_node_faults.py's host killed and restarted within a 30 s
grace (session 10, 1 run in 30 of the real-process scenario at load 4-6): the resumed host's
sockets were up 4.17 s after the kill, so it was heard again *before* the 4.5 s silence ran
out; it was never disconnected, so never reconnected (``Presence.back_at`` is set only on a
return from ``away``), and the step it owed still counted from the progress before its death:
both other seats voted it out for ``timeout`` 5 s after the kill, 0.85 s after it was back,
while it was still catching up. A restart heard after the silence ran out is disconnected,
then reconnected, and gets the grace and fresh step timeouts.

FakeNet: 3 seats of 5 dice, grace 30 s; seat 1 crashes CRASH_STEPS steps after epoch 1 began,
is restarted ``back`` s later, and every frame to it is held for CATCH_UP s after the restart
(a slow start: the real host restored its journal and redialled at load). Seeds 0-2 at 16 crash
moments each: restarted at 4.2 s, 16 of 48 voted out for timeout; at 5.5 s, 0 of 48.
"""

from __future__ import annotations

import random

from dudo_p2p.consensus import events as ev
from dudo_p2p.rules import RuleSet

from .fakenet import FakeNet

GRACE_MS = 30_000
VICTIM = 1
CATCH_UP = 1.5  # seconds every frame to the restarted seat is held (its slow start)
CRASH_STEPS = 125  # steps into epoch 1 (seed 0: the table then awaits the victim)


def restarted_after(back: float, seed: int = 0) -> list[ev.Reason]:
    """Why the other seats removed the victim (empty: it kept its seat) when it is restarted
    ``back`` seconds after its crash, its catch-up slowed by :data:`CATCH_UP`."""
    jitter = random.Random(seed)
    restarted: list[float] = []

    def route(src: int, dst: int, frame: bytes, now: float) -> list[float]:
        delay = jitter.uniform(0.0005, 0.005)
        if dst == VICTIM and restarted and now < restarted[0] + CATCH_UP:
            return [restarted[0] + CATCH_UP + delay]
        return [now + delay]

    net = FakeNet(3, RuleSet(starting_dice=5), seed=seed, grace_ms=GRACE_MS, route=route)
    net.run_until(lambda: net.machines[0].replica.epoch.number >= 1)
    for _ in range(CRASH_STEPS):
        net.step()
    net.crash(VICTIM)
    crashed = net.now
    net.run_until(lambda: net.now > crashed + back)
    net.restart(VICTIM)
    restarted.append(net.now)
    for seat in (0, 2):  # the node's link to the restarted process comes up (its handshake)
        net.machines[seat].reached(VICTIM, net.now)
    net.run()
    assert len(net.heads()) == 1
    return [e.reason for e in net.events[0] if isinstance(e, ev.PlayerLeft) and e.seat == VICTIM]


def test_a_seat_restarted_after_the_silence_timeout_within_the_grace_keeps_its_seat() -> None:
    assert restarted_after(5.5) == []


def test_a_seat_restarted_before_the_silence_timeout_within_the_grace_keeps_its_seat() -> None:
    """Was a strict xfail (7718584); fixed by Presence.relinked (fb05de1): the link that comes
    up again after more than two heartbeats unheard counts as back, its step restarts."""
    assert restarted_after(4.2) == []
