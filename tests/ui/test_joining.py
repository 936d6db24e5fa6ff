"""Joining never hangs, and the host's waiting room (issue 15): real nodes on loopback, the
window headless, the app's clock injected.

The nodes run on real time, pumped here with bounded waits (their ``wait``); the 5 s rule is
the app's own clock, advanced by hand, so the test does not sleep 5 s.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

import pygame
import pytest

from dudo_p2p.crypto.identity import Identity, KeyPin, fingerprint
from dudo_p2p.node.config import NetConfig
from dudo_p2p.node.node import Node
from dudo_p2p.node.reachable import reachable
from dudo_p2p.rules import RuleSet
from dudo_p2p.session import Session
from dudo_p2p.session.node_session import NodeSession
from dudo_p2p.ui import draw, widgets
from dudo_p2p.ui.app import App
from dudo_p2p.ui.lobby import LobbyScene
from dudo_p2p.ui.request import TableRequest
from dudo_p2p.ui.table import TableScene
from dudo_p2p.ui.waiting import JOIN_ANSWER_S

from .conftest import FakeClock
from .helpers import TextRecorder, click_button, gives_up_when_unanswered, key

NET = NetConfig(bind="127.0.0.1", discovery=False)
PUMP_S = 5.0  # bound on real time for loopback nodes to hear each other


def dead_port() -> int:
    """A loopback TCP port nothing listens on (bound, read, closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def joiner(nodes: list[Node], name: str, port: int) -> NodeSession:
    node = Node.join(Identity.generate(), name, NET, addresses=[("127.0.0.1", port)],
                     discover=False)
    nodes.append(node)
    return NodeSession(node)


def hosting(nodes: list[Node], seats: int) -> NodeSession:
    node = Node.host(Identity.generate(), "Ana", NET, seats=seats, rules=RuleSet(),
                     turn_timer_ms=0)
    nodes.append(node)
    return NodeSession(node)


def app_on(session: Session, clock: FakeClock, surface: pygame.Surface, kind: str,
           address: str = "") -> App:
    app = App(lambda _request: session, "es", clock, surface=surface)
    app.start_table(TableRequest(kind, address=address))  # type: ignore[arg-type]
    assert isinstance(app.scene, TableScene)
    return app


def pump(sessions: list[NodeSession], until: Callable[[], bool]) -> None:
    """Run every node in turn until ``until()`` (at most PUMP_S of real time)."""
    end = time.monotonic() + PUMP_S
    while not until():
        assert time.monotonic() < end, "the nodes did not get there in time"
        for s in sessions:
            s.wait(0.02)


def test_joining_a_dead_address_says_what_was_tried_within_five_seconds(
        clock: FakeClock, surface: pygame.Surface, nodes: list[Node],
        monkeypatch: pytest.MonkeyPatch) -> None:
    port = dead_port()
    session = joiner(nodes, "Beto", port)
    app = app_on(session, clock, surface, "join", f"127.0.0.1:{port}")
    recorder = TextRecorder()
    monkeypatch.setattr(draw, "text", recorder)
    assert f"Uniéndose a 127.0.0.1:{port}..." in recorder.frame(app)
    end = time.monotonic() + 0.5  # let the node say its hellos into the void for real
    while time.monotonic() < end:
        session.wait(0.05)
    gives_up_when_unanswered(app, clock)
    assert app.scene.message.startswith(f"Nadie contestó en 127.0.0.1:{port} en 4 s")
    assert session.node.closed  # the failed join's node is closed, its port freed


@pytest.mark.parametrize("how", ["esc", "cancel"])
def test_every_wait_can_be_cancelled(how: str, clock: FakeClock, surface: pygame.Surface,
                                     nodes: list[Node]) -> None:
    port = dead_port()
    session = joiner(nodes, "Beto", port)
    app = app_on(session, clock, surface, "join", f"127.0.0.1:{port}")
    if how == "esc":
        app.frame()
        key(app, pygame.K_ESCAPE)
    else:
        click_button(app, "cancel")
    assert isinstance(app.scene, LobbyScene)
    assert session.node.closed


def test_an_answer_from_another_key_is_a_refusal_the_window_explains(
        clock: FakeClock, surface: pygame.Surface, nodes: list[Node]) -> None:
    host = hosting(nodes, seats=3)
    port = host.node.links.port
    chosen = fingerprint(Identity.generate().public_key)  # the host we meant: not this one
    node = Node.join(Identity.generate(), "Beto", NET, addresses=[("127.0.0.1", port)],
                     discover=False, pin=KeyPin.parse(chosen))
    nodes.append(node)
    late = NodeSession(node)
    app = app_on(late, clock, surface, "join", f"127.0.0.1:{port}")
    pump([host, late], lambda: late.node.gave_up is not None)
    app.frame()
    assert isinstance(app.scene, LobbyScene)
    assert app.scene.message == "La mesa no nos sentó: contestó otra clave, no el anfitrión elegido"


def test_a_late_joiner_at_a_playing_table_is_told_the_game_started(
        clock: FakeClock, surface: pygame.Surface, nodes: list[Node]) -> None:
    host = hosting(nodes, seats=2)
    port = host.node.links.port
    first = joiner(nodes, "Beto", port)
    pump([host, first], lambda: first.started and host.started)
    late = joiner(nodes, "Carla", port)
    app = app_on(late, clock, surface, "join", f"127.0.0.1:{port}")
    end = time.monotonic() + PUMP_S
    while time.monotonic() < end and isinstance(app.scene, TableScene):
        for s in (host, first):  # the seated peers run (their events read, as a window does)
            s.wait(0.02)
            s.poll_events()
        late.wait(0.02)
        app.frame()
    assert isinstance(app.scene, LobbyScene)  # the app's clock never moved: not the 5 s rule
    assert app.scene.message == "La mesa no nos sentó: la partida ya empezó"


def test_the_host_waiting_room_shows_the_code_the_addresses_and_who_joined(
        clock: FakeClock, surface: pygame.Surface, nodes: list[Node],
        monkeypatch: pytest.MonkeyPatch) -> None:
    host = hosting(nodes, seats=3)
    port = host.node.links.port
    host_app = app_on(host, clock, surface, "create")
    recorder = TextRecorder()
    monkeypatch.setattr(draw, "text", recorder)
    code = f"{host.node.table_code}@{fingerprint(host.node.identity.public_key)}"
    shown = recorder.frame(host_app)
    assert code in shown
    assert "Asientos 1/3" in shown and "Ana" in shown
    # bound to loopback (as here): nobody else can reach it, and the room says so
    assert "Solo en este equipo (no hay red)" in shown
    assert reachable(host.node) == ()
    monkeypatch.setattr(host.node, "net", NetConfig(bind="0.0.0.0"))  # bound to every interface
    assert reachable(host.node, ["192.168.1.20", "10.0.0.5"]) == (
        f"192.168.1.20:{port}", f"10.0.0.5:{port}")
    monkeypatch.setattr(host.node, "net", NetConfig(bind="192.168.1.20"))  # bound to one
    assert reachable(host.node, ["192.168.1.20", "10.0.0.5"]) == (f"192.168.1.20:{port}",)
    monkeypatch.setattr(host.node, "net", NetConfig(bind="127.0.0.1"))

    beto = joiner(nodes, "Beto", port)
    beto_app = app_on(beto, clock, surface, "join", f"127.0.0.1:{port}")
    pump([host, beto], lambda: len(host.node.lobby.players) == 2
         and beto.node.lobby.roster == ("Ana", "Beto"))
    shown = recorder.frame(host_app)
    assert "Asientos 2/3" in shown and "Beto" in shown
    clock.advance(3 * JOIN_ANSWER_S)  # a welcomed joiner waits for the table as long as it takes
    beto_app.frame()
    assert isinstance(beto_app.scene, TableScene)
    shown = recorder.frame(beto_app)
    assert f"Sentado a la mesa {host.node.table_code}: esperando a que se llene" in shown
    assert code in shown and "Asientos 2/3" in shown

    key(host_app, pygame.K_ESCAPE)  # Esc leaves the waiting room
    assert isinstance(host_app.scene, LobbyScene)
    assert host.node.closed


def test_the_host_starts_now_with_the_players_who_came(
        clock: FakeClock, surface: pygame.Surface, nodes: list[Node]) -> None:
    host = hosting(nodes, seats=4)
    port = host.node.links.port
    host_app = app_on(host, clock, surface, "create")
    host_app.frame()
    assert not widgets.find(host_app.scene.buttons, "start_now").enabled  # alone: not yet
    beto = joiner(nodes, "Beto", port)
    pump([host, beto], lambda: beto.node.lobby.roster == ("Ana", "Beto"))
    click_button(host_app, "start_now")
    pump([host, beto], lambda: host.started and beto.started)
    assert host.view().state.n_seats == beto.view().state.n_seats == 2
    assert [p.name for p in beto.players()] == ["Ana", "Beto"]
    host_app.frame()
    assert host_app.scene.view is not None  # the table, no longer the waiting room
