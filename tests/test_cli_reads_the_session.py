"""What the CLI says at the end of a game and while it runs comes from the session API
(``ending()``, ``now()``, ``players()``), not from the node behind it (issue 19: a narrow,
complete session API)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

import pytest

from dudo_p2p.cli import common
from dudo_p2p.cli.exits import Exit
from dudo_p2p.node.node import Node
from dudo_p2p.protocol.refusals import RefusalReason
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
