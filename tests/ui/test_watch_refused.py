"""A spectator the table refuses (issue 20: "a table caps them (say 16)"; a host of another
key than the one chosen) goes back to the lobby saying why, as a refused join does.

Session 10 (watchux): the window's Watch stayed on "Waiting for the table..." for ever when
the seat refused it (`dudo-p2p watch` says `refused: ...` and exits 5): the spectator's
session said no refusal to the window (its gatherer was None)."""

from __future__ import annotations

import time
from pathlib import Path

import pygame
import pytest

from dudo_p2p import paths
from dudo_p2p.crypto.identity import Identity, fingerprint
from dudo_p2p.node.node import Node
from dudo_p2p.protocol.refusals import RefusalReason
from dudo_p2p.session import Session
from dudo_p2p.session.watch_session import WatchSession
from dudo_p2p.ui import draw
from dudo_p2p.ui.app import App
from dudo_p2p.ui.lobby import LobbyScene
from dudo_p2p.ui.request import TableRequest
from dudo_p2p.ui.table import TableScene

from .conftest import FakeClock
from .helpers import TextRecorder, spectators_window

PUMP_S = 15.0  # bound on real time for the seat's refusal to reach the spectator


@pytest.fixture(autouse=True)
def _settings_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lobby saves its choices when a table is asked for: never into the real file."""
    monkeypatch.setattr(paths, "config_dir", lambda: tmp_path / "conf")


def test_a_full_table_sends_the_window_back_to_the_lobby_saying_so(
        clock: FakeClock, surface: pygame.Surface, monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[WatchSession] = []

    def factory(request: TableRequest) -> Session:
        assert request.kind == "watch"
        # nobody listens at port 9: the refusal is set by hand below, as a seat's "full"
        # frame sets it (consensus/watch_spectator.py)
        made.append(WatchSession(Identity.generate(), "127.0.0.1", 9, bind="127.0.0.1"))
        return made[0]

    app = App(factory, "es", clock, surface=surface)
    assert isinstance(app.scene, LobbyScene)
    app.scene.watch("127.0.0.1:9", "ABCDE@AB12-CD34")
    assert isinstance(app.scene, TableScene)
    session = made[0]
    try:
        recorder = TextRecorder()
        monkeypatch.setattr(draw, "text", recorder)
        shown = recorder.frame(app)
        assert "Esperando a la mesa..." in shown  # waiting for the start, not "welcomed"
        clock.advance(30.0)  # silence is no failure: an open table says nothing until it starts
        app.frame()
        assert isinstance(app.scene, TableScene)
        session.watcher.spectator.refused = RefusalReason.FULL
        app.frame()
        assert isinstance(app.scene, LobbyScene)
        assert app.scene.message == "La mesa no te deja mirar: la mesa está llena"
    finally:
        session.close()


def test_a_host_of_another_key_is_refused_and_the_window_says_it(
        clock: FakeClock, surface: pygame.Surface, nodes: list[Node],
        beacon_port: int) -> None:
    host, joiner, app = spectators_window(clock, surface, nodes, beacon_port)
    assert isinstance(app.scene, LobbyScene)
    someone_else = fingerprint(Identity.generate().public_key)
    app.scene.watch(f"127.0.0.1:{host.links.port}", f"{host.table_code}@{someone_else}")
    scene = app.scene
    assert isinstance(scene, TableScene) and isinstance(scene.session, WatchSession)
    session = scene.session
    end = time.monotonic() + PUMP_S
    try:
        while isinstance(app.scene, TableScene):
            assert time.monotonic() < end, "the refused spectator never left the table"
            for node in (host, joiner):
                node.step(0.02)
            session.wait(0.02)
            app.frame()
        assert isinstance(app.scene, LobbyScene)
        assert app.scene.message == (
            "The table does not let you watch: another key answered, not the host we chose")
    finally:
        session.close()
