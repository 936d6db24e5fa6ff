"""What the CLI says at the end of a game and while it runs comes from the session API
(``ending()``, ``now()``, ``players()``), not from the node behind it (issue 19: a narrow,
complete session API)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

import pytest
from consensus.fakenet import FakeNet
from consensus.test_call_race_random import RandomRace

from dudo_p2p.cli import common
from dudo_p2p.cli.exits import Exit
from dudo_p2p.node.node import Node
from dudo_p2p.protocol.refusals import RefusalReason
from dudo_p2p.rules import RuleSet
from dudo_p2p.session import PlayerInfo, SeatDisconnected
from dudo_p2p.session.node_session import NodeSession


@dataclass
class _Stats:
    refusals: list[RefusalReason] = field(default_factory=list)


class _Node:
    """A node that was never seated: refusals counted, a clock, no machine."""

    def __init__(self, refusals: list[RefusalReason]) -> None:
        self.stats = _Stats(refusals)
        self.machine = None
        self.now = 40.0

    def clock(self) -> float:
        return self.now


def test_a_refused_seat_ends_refused_with_every_tables_reason() -> None:
    session = NodeSession(cast(Node, _Node([RefusalReason.FULL, RefusalReason.STARTED])))
    end = session.ending()
    assert end.outcome is None
    assert end.refused == (RefusalReason.FULL.text, RefusalReason.STARTED.text)
    assert common.game_exit(session) is Exit.REFUSED
    assert common.ending(session, Exit.REFUSED, interrupted=False) == (
        f"the table refused us: {RefusalReason.FULL.text}; {RefusalReason.STARTED.text}")


def test_a_seat_nobody_answered_ends_failed() -> None:
    session = NodeSession(cast(Node, _Node([])))
    assert session.ending().refused == ()
    assert common.game_exit(session) is Exit.FAILED
    assert common.ending(session, Exit.FAILED, interrupted=True) == (
        "game not finished (interrupted)")


def test_a_disconnected_seat_is_told_in_seconds_on_the_sessions_clock(
        capsys: pytest.CaptureFixture[str]) -> None:
    node = _Node([])
    session = NodeSession(cast(Node, node))
    assert session.now() == 40.0
    node.now = 45.0
    assert session.now() == 45.0

    class Seated(NodeSession):
        def players(self) -> tuple[PlayerInfo, ...]:
            return (PlayerInfo(0, "Ana", "aa"), PlayerInfo(1, "Bruno", "bb"))

    seated = Seated(cast(Node, node))
    common.progress("ana", seated, SeatDisconnected(1, 70.0))
    assert capsys.readouterr().err == "ana: Bruno: disconnected, 25 s to come back\n"


class _Seated:
    """A node whose machine ended the game (a FakeNet one): no refusals, its clock."""

    def __init__(self, machine: object, now: float) -> None:
        self.stats = _Stats([])
        self.machine = machine
        self.now = now

    def clock(self) -> float:
        return self.now


def _gone_line(machine: object, now: float) -> str | None:
    session = NodeSession(cast(Node, _Seated(machine, now)))
    assert common.game_exit(session) is Exit.TABLE_GONE
    return common.ending(session, Exit.TABLE_GONE, interrupted=False)


def test_table_gone_with_nobody_heard_says_the_table_or_our_network_is_gone() -> None:
    """Every other seat dead: nobody heard for the delay (silence + 10 s at three seats)."""
    net = FakeNet(3, RuleSet(starting_dice=3), seed=6)
    net.run_until(lambda: net.machines[0].replica.epoch.number >= 2)
    net.crash(1)
    net.crash(2)
    net.run_until(lambda: net.machines[0].over, max_steps=10_000)
    assert _gone_line(net.machines[0], net.now) == (
        "no seat heard for 14 s: the table is gone (or this machine's network is down)")


def test_table_gone_with_too_few_heard_names_the_silent_seats_and_not_a_dead_network() -> None:
    """Five seats, three die at once: seats 0 and 1 hear each other but cannot vote three
    out. 'No seat heard' was false there: seat 1 was heard all along."""
    net = FakeNet(5, RuleSet(starting_dice=3), seed=6)
    net.run_until(lambda: net.machines[0].replica.epoch.number >= 2)
    for seat in (2, 3, 4):
        net.crash(seat)
    net.run_until(lambda: net.machines[0].over, max_steps=10_000)
    assert _gone_line(net.machines[0], net.now) == (
        "p2, p3, p4 not heard for 14 s, and too few seats are heard to vote them out: "
        "the game cannot go on")


def test_table_gone_with_the_seat_heard_stuck_behind_names_it_and_not_a_dead_network() -> None:
    """test_call_race_random's 25 s window: seat 1 hears seat 0 all along, but seat 0 is
    stuck in the epoch before, and seat 2 is dead (the host stuck in SIGN of lan_sweep
    --hard seed 56, told as 'no seat heard: the table is gone, or your network is down')."""
    race = RandomRace(20, 3)
    race.window = 25.0
    race.play(leave=True)
    assert _gone_line(race.net.machines[1], race.net.now) == (
        "p2 not heard for 14 s, and p0 is heard but stuck behind our log, so nobody can vote "
        "them out: the game cannot go on")
    assert _gone_line(race.net.machines[0], race.net.now) == (
        "no seat heard for 14 s: the table is gone (or this machine's network is down)")
