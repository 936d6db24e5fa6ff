""""Crear mesa y esperar" waits for a friend (issue 15: a table the host creates gathers its
players first): the bots chosen in the lobby leave a seat free, so the table does not fill
and start before anyone can join. The window's real factory on loopback; the bot processes
it would start are recorded instead (real ones: tests/ui/test_waiting_room.py)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

import pytest

from dudo_p2p.cli import play
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.session.node_session import NodeSession
from dudo_p2p.ui.request import TableRequest


@pytest.mark.parametrize(("bots", "seats", "called"), [(0, 2, 0), (1, 3, 1), (3, 5, 3),
                                                       (4, 6, 4), (5, 6, 4)])
def test_a_created_table_keeps_a_seat_for_a_friend(
        bots: int, seats: int, called: int, monkeypatch: pytest.MonkeyPatch,
        beacon_port: int) -> None:
    asked: list[int] = []

    def spawn(n: int, *_: object, **__: object) -> Callable[[], None]:
        asked.append(n)
        return lambda: None

    monkeypatch.setattr(play, "spawn_bot_peers", spawn)
    args = argparse.Namespace(name="Ana", bind="127.0.0.1", port=0, beacon_port=beacon_port,
                              broadcast=["127.255.255.255"])
    session = play.NetworkTables(args, Identity.generate())(TableRequest("create", bots=bots))
    assert isinstance(session, NodeSession)
    try:
        state = session.gathering()
        assert state is not None and state.hosting
        assert (state.seats, asked) == (seats, [called])
        assert len(state.names) == 1  # nobody but us yet: the table waits
    finally:
        session.close()
