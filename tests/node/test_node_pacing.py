"""Bot pacing (session/pacing.py): in a game with a human a bot acts no sooner than its
think time, drawn from its own seeded RNG; after a reveal it waits longer; "skip to the end"
drops the waits; without a pacer (sim, tournament, bench, tests) it acts at once. An
injected clock: nothing sleeps."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from dudo_p2p.cli.headless import paced
from dudo_p2p.rules import RuleSet, SeatView
from dudo_p2p.rules.state import GameState
from dudo_p2p.session.pacing import REVEAL_READ_S, THINK_S, Pacer, parse_think


def test_a_paced_bot_acts_no_sooner_than_its_think_time() -> None:
    pacer = Pacer(random.Random(3))
    thinks = []
    now = 100.0
    for turn in range(50):
        assert not pacer.ready(turn, now)
        wait = pacer.act_at() - now
        thinks.append(wait)
        assert THINK_S[0] <= wait <= THINK_S[1]
        assert not pacer.ready(turn, now + wait - 0.001)  # the same decision: same time
        assert pacer.ready(turn, now + wait)
        now += wait + 0.5
    assert len({round(t, 3) for t in thinks}) > 40  # drawn, not one fixed delay
    # seeded: the same seed thinks the same times
    again = Pacer(random.Random(3))
    now = 100.0
    for turn, wait in enumerate(thinks):
        again.ready(turn, now)
        assert again.act_at() - now == pytest.approx(wait)
        now += wait + 0.5


def test_the_first_decision_after_a_reveal_waits_for_it_to_be_read() -> None:
    pacer = Pacer(random.Random(5))
    pacer.revealed()
    pacer.ready("opening bid", 0.0)
    assert pacer.act_at() >= REVEAL_READ_S + THINK_S[0]
    pacer.ready("next bid", 10.0)
    assert pacer.act_at() - 10.0 <= THINK_S[1]  # only the first one after the reveal


def test_skip_to_the_end_and_headless_bots_act_at_once(tmp_path: Path) -> None:
    pacer = Pacer(random.Random(1))
    assert not pacer.ready(1, 0.0)
    pacer.hurry()
    assert pacer.ready(1, 0.0) and pacer.ready(2, 0.0)
    view = SeatView(0, GameState.new(RuleSet(), 3), None)
    assert paced(None, view, [], 0.0, None)  # no --think: at once (sim, tests, bench)
    slow = Pacer(random.Random(1))
    hurry = tmp_path / "hurry"
    assert not paced(slow, view, [], 0.0, hurry)
    hurry.touch()  # the window's "skip to the end"
    assert paced(slow, view, [], 0.0, hurry) and slow.hurried


def test_think_times_on_the_command_line() -> None:
    assert parse_think("0.7-2") == (0.7, 2.0)
    assert parse_think("1.5") == (1.5, 1.5)
    for bad in ("2-1", "-1", "x", "0-99"):
        with pytest.raises(ValueError):
            parse_think(bad)
