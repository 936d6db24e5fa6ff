"""Joining by the code a host dictates (issue 15): ``CODE`` or ``CODE@FINGERPRINT`` typed in
the lobby's join field, found by the LAN beacons.

The parsing is unit-tested; the joins run the real session factory (``cli/play.py``'s
``NetworkTables``) against a real host node on loopback with beacons on a free UDP port,
pumped here with bounded waits, the app's clock advanced by hand for the 5 s rule.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import pygame
import pytest

from dudo_p2p import paths
from dudo_p2p.cli.play import NetworkTables
from dudo_p2p.crypto.identity import _CROCKFORD, Identity, fingerprint
from dudo_p2p.net.beacon import TABLE_CODE_ALPHABET
from dudo_p2p.node.config import NetConfig
from dudo_p2p.node.node import Node
from dudo_p2p.rules import RuleSet
from dudo_p2p.session import Session
from dudo_p2p.session.node_session import NodeSession
from dudo_p2p.ui import draw, request
from dudo_p2p.ui.app import App
from dudo_p2p.ui.lobby import LobbyScene
from dudo_p2p.ui.request import TableRequest, parse_code
from dudo_p2p.ui.table import TableScene
from dudo_p2p.ui.waiting import JOIN_ANSWER_S

from .conftest import FakeClock
from .helpers import TextRecorder, click_button, gives_up_when_unanswered

LOOPBACK_BROADCAST = ["127.255.255.255"]
PUMP_S = 8.0  # bound on real time for loopback nodes to hear each other's beacons and frames


@pytest.fixture(autouse=True)
def _settings_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lobby saves its choices when a table is asked for: never into the real file."""
    monkeypatch.setattr(paths, "config_dir", lambda: tmp_path / "conf")


def test_the_join_field_reads_a_code_as_a_host_dictates_it() -> None:
    assert parse_code("kq7xm") == "KQ7XM"
    assert parse_code("  KQ7XM@kx45-evew ") == "KQ7XM@KX45-EVEW"
    assert parse_code("KQ7XM@KX45EVEW") == "KQ7XM@KX45-EVEW"  # the dash is optional
    assert parse_code("KQ7XM@KX45-EVEO") == "KQ7XM@KX45-EVE0"  # O read as 0, as KeyPin does
    for not_a_code in ("KQ7X", "KQ7XMM", "KQ1XM", "KQ7XM@", "KQ7XM@KX45-EVE", "KQ7XM@KX45-EVEU",
                       "127.0.0.1:4000", "", "KQ7XM@KX45-EVEW@X"):
        assert parse_code(not_a_code) is None, not_a_code


def test_the_ui_alphabets_are_the_beacons_and_the_fingerprints() -> None:
    # the UI may not import net or crypto (test_layers): its copies must not drift
    assert request.CODE_CHARS == TABLE_CODE_ALPHABET
    assert request.FINGERPRINT_CHARS == _CROCKFORD


def _lobby_app(clock: FakeClock, surface: pygame.Surface,
               factory: Callable[[TableRequest], Session]) -> App:
    app = App(factory, "es", clock, surface=surface)
    assert isinstance(app.scene, LobbyScene)
    return app


def _type_and_join(app: App, text: str) -> None:
    lobby = app.scene
    assert isinstance(lobby, LobbyScene)
    app.frame()
    lobby.name_field.value = "Beto"
    lobby.address.focused = True
    lobby.handle_event(pygame.event.Event(pygame.TEXTINPUT, text=text))
    click_button(app, "join_address")


def test_typing_a_code_asks_for_that_table_and_typing_nonsense_says_what_to_type(
        clock: FakeClock, surface: pygame.Surface) -> None:
    asked: list[TableRequest] = []

    def factory(req: TableRequest) -> Session:
        asked.append(req)
        raise request.Unavailable("not in this test")

    app = _lobby_app(clock, surface, factory)
    _type_and_join(app, "kq7xm@kx45-evew")
    assert [(r.kind, r.code, r.address) for r in asked] == [("join", "KQ7XM@KX45-EVEW", "")]
    app.show_lobby()
    _type_and_join(app, "hola mesa")
    assert len(asked) == 1
    assert isinstance(app.scene, LobbyScene)
    assert app.scene.message.startswith("No es una dirección ni un código")


# ---- real nodes ------------------------------------------------------------------------------


def _net(beacon_port: int) -> NetConfig:
    return NetConfig(bind="127.0.0.1", beacon_port=beacon_port, broadcast=LOOPBACK_BROADCAST)


def _tables(beacon_port: int, opened: list[Node]) -> Callable[[TableRequest], Session]:
    """The window's real factory, on loopback; every node it makes is closed at teardown."""
    args = argparse.Namespace(name="Beto", bind="127.0.0.1", port=0, beacon_port=beacon_port,
                              broadcast=LOOPBACK_BROADCAST)
    tables = NetworkTables(args, Identity.generate())

    def factory(req: TableRequest) -> Session:
        session = tables(req)
        assert isinstance(session, NodeSession)
        opened.append(session.node)
        return session

    return factory


def _host(nodes: list[Node], beacon_port: int, seats: int = 3, table: str | None = None
          ) -> Node:
    node = Node.host(Identity.generate(), "Ana", _net(beacon_port), seats=seats,
                     rules=RuleSet(), turn_timer_ms=0, table=table)
    nodes.append(node)
    return node


def _pump(app: App, others: list[Node], until: Callable[[], bool]) -> None:
    """Step the other nodes and the app's table (its session runs in ``wait``) until
    ``until()``, at most PUMP_S of real time; the app's own clock does not move."""
    end = time.monotonic() + PUMP_S
    while not until():
        assert time.monotonic() < end, "the nodes did not get there in time"
        for node in others:
            node.step(0.02)
        scene = app.scene
        if isinstance(scene, TableScene):
            scene.session.wait(0.02)
        app.frame()


def _joiner(app: App) -> NodeSession:
    scene = app.scene
    assert isinstance(scene, TableScene) and isinstance(scene.session, NodeSession)
    return scene.session


def test_a_typed_code_and_fingerprint_seat_us_at_that_hosts_table(
        clock: FakeClock, surface: pygame.Surface, nodes: list[Node], beacon_port: int,
        monkeypatch: pytest.MonkeyPatch) -> None:
    host = _host(nodes, beacon_port)
    fp = fingerprint(host.identity.public_key)
    app = _lobby_app(clock, surface, _tables(beacon_port, nodes))
    recorder = TextRecorder()
    monkeypatch.setattr(draw, "text", recorder)
    _type_and_join(app, f"{host.table_code}@{fp}".lower())
    assert f"Buscando la mesa {host.table_code}@{fp} en la red..." in recorder.frame(app)
    joiner = _joiner(app)
    _pump(app, [host], lambda: len(host.lobby.players) == 2
          and joiner.node.lobby.roster == ("Ana", "Beto"))
    shown = recorder.frame(app)
    assert f"Sentado a la mesa {host.table_code}: esperando a que se llene" in shown
    assert f"{host.table_code}@{fp}" in shown and "Asientos 2/3" in shown
    assert joiner.node.lobby.host_pub == host.identity.public_key
    # the host's waiting room: each seat's name with its key's fingerprint beside it
    host_app = App(lambda _r: NodeSession(host), "es", clock, surface=surface)
    host_app.start_table(TableRequest("create"))
    shown = recorder.frame(host_app)
    for name, key in (("Ana", host.identity.public_key),
                      ("Beto", joiner.node.identity.public_key)):
        assert name in shown and fingerprint(key) in shown


def test_a_code_with_the_wrong_fingerprint_names_the_host_seen_within_five_seconds(
        clock: FakeClock, surface: pygame.Surface, nodes: list[Node], beacon_port: int) -> None:
    host = _host(nodes, beacon_port)
    seen = f"{host.table_code}@{fingerprint(host.identity.public_key)}"
    wrong = fingerprint(Identity.generate().public_key)
    app = _lobby_app(clock, surface, _tables(beacon_port, nodes))
    _type_and_join(app, f"{host.table_code}@{wrong}")
    joiner = _joiner(app)
    _pump(app, [host], lambda: bool(joiner.node.seeker.other_hosts))
    assert len(host.lobby.players) == 1  # it never said hello to a host it did not choose
    gives_up_when_unanswered(app, clock)
    assert app.scene.message == (f"La mesa {host.table_code} que se ve es de otro anfitrión "
                                 f"({seen}), no de {wrong}: comprueba la huella")
    assert joiner.node.closed


def test_a_code_nobody_offers_is_not_found_within_five_seconds(
        clock: FakeClock, surface: pygame.Surface, nodes: list[Node], beacon_port: int) -> None:
    app = _lobby_app(clock, surface, _tables(beacon_port, nodes))
    _type_and_join(app, "KQ7XM")
    joiner = _joiner(app)
    end = time.monotonic() + 1.5  # a beacon round for real: nobody offers KQ7XM
    while time.monotonic() < end:
        joiner.wait(0.05)
    clock.advance(JOIN_ANSWER_S + 0.1)
    app.frame()
    assert isinstance(app.scene, LobbyScene)
    assert app.scene.message == ("Ninguna mesa KQ7XM en la red en 4 s (¿está abierta? ¿está "
                                 "en otra red? prueba con su dirección)")
    assert joiner.node.closed


def test_a_bare_code_two_hosts_offer_is_not_guessed_the_window_asks_for_the_fingerprint(
        clock: FakeClock, surface: pygame.Surface, nodes: list[Node], beacon_port: int) -> None:
    hosts = [_host(nodes, beacon_port, table="KQ7XM") for _ in range(2)]
    app = _lobby_app(clock, surface, _tables(beacon_port, nodes))
    _type_and_join(app, "KQ7XM")  # the joiner's beacon socket is open from here on
    for host in hosts:  # both beacon once; neither steps, so neither can answer first
        assert host.discovery is not None
        host.discovery.tick(host.clock())
    _pump(app, [], lambda: isinstance(app.scene, LobbyScene))
    assert isinstance(app.scene, LobbyScene)
    assert app.scene.message == ("La mesa no nos sentó: dos anfitriones ofrecen ese código: "
                                 "usa CÓDIGO@HUELLA")
    assert all(h.lobby.seats_taken == 1 for h in hosts)  # type: ignore[attr-defined]
