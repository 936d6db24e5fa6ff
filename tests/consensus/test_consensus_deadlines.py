"""``TableMachine.next_deadline`` (issue 19): ticking a machine only when it says it is due
changes nothing, and an idle machine is due rarely.

The strong check plays whole seeded games twice on FakeNet, once ticking every machine on
every 10 ms step (what the node did with its 50 ms TICK_EVERY, finer) and once ticking a
machine only when ``next_deadline`` says so, under drops, duplicates, delays, a turn timer,
a reconnect grace and crashes with restarts, and compares every frame sent (with its time),
every journal record, event and log line. A deadline computed late shows up as a frame sent
later, or a vote, a disconnection or a re-send missing.
"""

from __future__ import annotations

import random

import pytest

from consensus.fakenet import FakeNet, faulty_route
from dudo_p2p.consensus.events import PlayerLeft
from dudo_p2p.consensus.machine import Timeouts
from dudo_p2p.rules import RuleSet

RULES = RuleSet.from_dict({**RuleSet().to_dict(), "starting_dice": 3})
STALL = 120.0  # seconds a stalled seat thinks before it plays (fake clock)


def _game(seed: int, *, tick_always: bool) -> FakeNet:
    rng = random.Random(seed)
    n = rng.randint(2, 5)
    timer_ms = rng.choice([0, 0, 3000])
    grace_ms = rng.choice([0, 0, 4000])
    net = FakeNet(n, RULES, seed=seed, timeouts=Timeouts(), timer_ms=timer_ms,
                  grace_ms=grace_ms, tick_always=tick_always, jump=False)
    net.route = faulty_route(net, drop=rng.uniform(0, 0.1), dup=rng.uniform(0, 0.05),
                             max_delay=rng.uniform(0.002, 0.2))
    crash = (rng.uniform(0.5, 8.0), rng.randrange(n), rng.choice([0.7, 3.0, 12.0]))
    if rng.random() < 0.3:  # a seat that stalls: timeouts and votes
        stalled = rng.randrange(n)
        # for STALL seconds, then it plays: with no turn timer a seat that thinks is never
        # suspected, so a game the crash no longer ends waits for it (seed 2: two seats, no
        # grace, seat 1 down 12 s, under the two-seat floor of 15 s since it comes back)
        net.policies[stalled] = lambda m, s=stalled: (None if net.now < STALL
                                                      else net.play_random(s))
    down_until: float | None = None
    for _ in range(400_000):
        live = [s for s in range(n) if s not in net.dead]
        if all(net.machines[s].over for s in live) and down_until is None:
            return net
        if down_until is None and crash[1] not in net.dead and net.now >= crash[0] \
                and not net.machines[crash[1]].over:
            net.crash(crash[1])
            down_until = net.now + crash[2]
        if down_until is not None and net.now >= down_until:
            down_until = None
            net.restart(crash[1])
            crash = (1e9, crash[1], 0.0)
        net.step()
    raise AssertionError(f"seed {seed}: no end at t={net.now:.1f}")


@pytest.mark.parametrize("seed", range(8))
def test_ticking_only_when_due_plays_the_very_same_game(seed: int) -> None:
    always = _game(seed, tick_always=True)
    due = _game(seed, tick_always=False)
    assert due.trace == always.trace
    assert due.journals == always.journals
    assert due.logs == always.logs
    assert {s: [repr(e) for e in evs] for s, evs in due.events.items()} == {
        s: [repr(e) for e in evs] for s, evs in always.events.items()}
    assert due.ticks < always.ticks / 4  # and the point of it: far fewer ticks


def test_an_idle_machine_is_due_at_its_heartbeat_and_not_before() -> None:
    """Nobody acts (a person thinks, no turn timer): between heartbeats nothing is due."""
    net = FakeNet(3, RULES, seed=3, act_prob=0.0, jump=False)
    net.run_until(lambda: net.machines[0].legal_actions() != []
                  or net.machines[1].legal_actions() != []
                  or net.machines[2].legal_actions() != [])
    for _ in range(300):  # let the setup's frames settle
        net.step()
    machine = net.machines[0]
    now = net.now
    due = machine.next_deadline(now)
    assert now < due <= now + Timeouts().heartbeat
    # the heartbeat, or the once-a-second re-send of a log that has not moved
    timers = machine.timers
    assert due in (timers.next_heartbeat, max(timers.progress_at + 1.0, timers.next_resend))
    assert machine.tick(due - 0.001) == []  # just before: nothing to do
    machine.tick(due)
    assert machine.next_deadline(due) > due  # at it: done, and the next one is later


def test_a_silent_seat_is_due_exactly_past_the_silence_timeout() -> None:
    net = FakeNet(3, RULES, seed=5, act_prob=0.0, jump=False)
    for _ in range(300):
        net.step()
    net.crash(2)
    machine = net.machines[0]
    heard = machine.timers.last_heard[2]
    silence = Timeouts().silence
    while net.now < heard + silence - 0.5:
        net.step()
    deadlines = []
    t = net.now
    while t < heard + silence + 0.5:  # walk the deadlines as a node would sleep on them
        t = machine.next_deadline(t)
        deadlines.append(t)
        machine.tick(t)
    assert any(abs(d - (heard + silence)) < 1e-3 for d in deadlines)
    assert 2 in machine.presence.away


def test_fakenet_jumps_its_clock_to_the_next_deadline_when_nobody_can_act() -> None:
    """FakeNet(jump=True): when no frame is due within a step and no seat may act, the clock
    goes straight to just before the earliest delivery or machine deadline (as a node
    sleeps until then), not on in 10 ms steps. Here the seat whose turn it is dies: the
    others can only wait for its silence timeout, which both tables reach at the same time,
    one in a handful of steps. (Not FakeNet's default: fakenet.py says why.)"""
    steps, removed_at = [], []
    for jump in (True, False):
        net = FakeNet(3, RULES, seed=3, act_prob=0.0, jump=jump)
        assert net.jump is jump
        net.run_until(lambda net=net: any(m.legal_actions() for m in net.machines))
        dead = next(s for s, m in enumerate(net.machines) if m.legal_actions())
        net.crash(dead)
        count = 0
        while not any(isinstance(e, PlayerLeft) for e in net.events[(dead + 1) % 3]):
            net.step()
            count += 1
            assert count < 100_000
        steps.append(count)
        removed_at.append(net.now)
    assert steps[0] < steps[1] / 10  # the ~5 s wait in a few dozen steps, not ~500
    assert abs(removed_at[0] - removed_at[1]) < 0.1  # and no deadline passed over
