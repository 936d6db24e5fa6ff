""""Crear mesa y esperar" waits for a friend (issue 15: a table the host creates gathers its
players first): the host chooses the seats in the lobby before creating (and changes them in
the waiting room), the bots chosen leave a seat free, so the table does not fill and start
before anyone can join. The window's real factory on loopback; the bot processes it would
start are recorded instead (real ones: tests/ui/test_waiting_room.py)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

import pygame
import pytest

from dudo_p2p.cli import play
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.session.node_session import NodeSession
from dudo_p2p.ui import draw, waiting
from dudo_p2p.ui.app import App
from dudo_p2p.ui.lobby import LobbyScene
from dudo_p2p.ui.request import TableRequest
from dudo_p2p.ui.table import TableScene

from .conftest import FakeClock
from .helpers import TextRecorder, click_button


def network_tables(monkeypatch: pytest.MonkeyPatch, beacon_port: int,
                   asked: list[int]) -> play.NetworkTables:
    """The window's factory on loopback; the bots it calls are counted in ``asked``."""

    def spawn(n: int, *_: object, **__: object) -> Callable[[], None]:
        asked.append(n)
        return lambda: None

    monkeypatch.setattr(play, "spawn_bot_peers", spawn)
    args = argparse.Namespace(name="Ana", bind="127.0.0.1", port=0, beacon_port=beacon_port,
                              broadcast=["127.255.255.255"])
    return play.NetworkTables(args, Identity.generate())


@pytest.mark.parametrize(("bots", "players", "seats", "called"), [
    (0, 0, 2, 0), (1, 0, 3, 1), (3, 0, 5, 3), (4, 0, 6, 4), (5, 0, 6, 4),
    (0, 4, 4, 0), (1, 3, 3, 1), (2, 3, 4, 2), (0, 6, 6, 0)])
def test_a_created_table_keeps_a_seat_for_a_friend(
        bots: int, players: int, seats: int, called: int, monkeypatch: pytest.MonkeyPatch,
        beacon_port: int) -> None:
    asked: list[int] = []
    tables = network_tables(monkeypatch, beacon_port, asked)
    session = tables(TableRequest("create", bots=bots, players=players))
    assert isinstance(session, NodeSession)
    try:
        state = session.gathering()
        assert state is not None and state.hosting
        assert (state.seats, asked) == (seats, [called])
        assert len(state.names) == 1  # nobody but us yet: the table waits
    finally:
        session.close()


def test_the_host_chooses_the_seats_in_the_lobby_and_changes_them_in_the_waiting_room(
        monkeypatch: pytest.MonkeyPatch, beacon_port: int, clock: FakeClock,
        surface: pygame.Surface) -> None:
    """The lobby's "Asientos" row: 4 seats and 1 bot make a 4-seat table where the bot sits
    and two seats wait (no friend can make it start with fewer); the bots chosen and the
    seats follow each other (a seat always stays free); the waiting room's - and + change
    the table's seats from there."""
    asked: list[int] = []
    app = App(network_tables(monkeypatch, beacon_port, asked), "es", clock, surface=surface,
              bot_delay=0.0, reveal_hold=0.0)
    lobby = app.scene
    assert isinstance(lobby, LobbyScene)
    click_button(app, "seats_2")
    assert (lobby.create_seats, lobby.create_bots) == (2, 0)  # no bot fits: a friend's seat
    click_button(app, "create_bots_4")
    assert (lobby.create_seats, lobby.create_bots) == (6, 4)
    click_button(app, "seats_4")
    assert (lobby.create_seats, lobby.create_bots) == (4, 2)
    click_button(app, "create_bots_1")
    click_button(app, "create")
    scene = app.scene
    assert isinstance(scene, TableScene)
    try:
        state = waiting.status(scene)
        assert state is not None and state.hosting
        assert (state.seats, len(state.names), asked) == (4, 1, [1])
        drawn = TextRecorder()
        monkeypatch.setattr(draw, "text", drawn)
        assert "Asientos 1/4" in drawn.frame(app)
        click_button(app, "seats_minus")
        assert "Asientos 1/3" in drawn.frame(app)
        click_button(app, "seats_plus")
        click_button(app, "seats_plus")
        assert "Asientos 1/5" in drawn.frame(app)
    finally:
        scene.leave()
