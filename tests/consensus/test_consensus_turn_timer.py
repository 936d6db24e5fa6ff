"""Every turn has its timer event, the opener's SETUP choice included (issue 15: a human
opener's direction choice had no ``TurnTimer``, so its timer bot never played it and a 1-bot
table with a 1 s timer stalled after the start until the opener was voted out)."""

from __future__ import annotations

import pytest

from dudo_p2p.consensus.events import ActionTaken, TurnTimer
from dudo_p2p.consensus.replica import EpochPhase
from dudo_p2p.rules import ChooseDirection, RuleSet

from .fakenet import FakeNet

TIMER_MS = 1000


def _timers(net: FakeNet, seat: int) -> list[TurnTimer]:
    return [e for e in net.events[seat] if isinstance(e, TurnTimer)]


@pytest.mark.parametrize("seed", range(6))
def test_the_openers_first_direction_choice_has_a_turn_deadline(seed: int) -> None:
    net = FakeNet(2, RuleSet(), seed, timer_ms=TIMER_MS, act_prob=0.0)  # nobody acts
    net.run_until(lambda: all(m.replica.phase is EpochPhase.SETUP for m in net.machines))
    opener = net.machines[0].replica.engine.to_act
    assert opener is not None
    assert any(isinstance(a, ChooseDirection) for a in net.machines[opener].legal_actions())
    for seat in range(len(net.machines)):
        timers = _timers(net, seat)
        assert timers, f"seat {seat} was never told the opener's turn"
        last = timers[-1]
        assert last.seat == opener and last.deadline is not None
        # the deadline is the turn timer after the moment SETUP began on that seat
        assert 0 < last.deadline - TIMER_MS / 1000 <= net.now + 1e-9


def test_with_a_direction_every_round_each_new_rounds_choice_has_a_turn_deadline() -> None:
    net = FakeNet(2, RuleSet(direction_each_round=True), 3, timer_ms=TIMER_MS, act_prob=0.3)

    def second_setup() -> bool:
        return all(m.replica.epoch.number >= 2 and m.replica.phase is EpochPhase.SETUP
                   for m in net.machines)

    def policy(seat: int) -> None:
        machine = net.machines[seat]
        if machine.replica.epoch.number >= 2 and machine.replica.phase is EpochPhase.SETUP:
            return  # hold the second round's choice: the test looks at its timer
        net.play_random(seat)

    net.policies = {s: (lambda _m, s=s: policy(s)) for s in range(2)}
    net.run_until(second_setup)
    opener = net.machines[0].replica.engine.to_act
    assert opener is not None
    for seat in range(2):
        after_first_round = [e for e in net.events[seat]
                             if isinstance(e, TurnTimer | ActionTaken)]
        last = after_first_round[-1]
        assert isinstance(last, TurnTimer), "the new round's choice came with no timer"
        assert last.seat == opener and last.deadline is not None
