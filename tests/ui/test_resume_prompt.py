"""The window's launch prompt "A game is in progress at table ABCDE: resume?" (issue 13 §6).

- the words exist in Spanish and English and name the table;
- Enter (or "Resume the game") asks the app for a ``resume`` request naming the journal;
  Esc (or "Not now") goes to the lobby;
- ``cli/play.py`` offers only a journal of ours (another local peer's of the same game is
  not), and with the window's real factory a peer closed mid-game resumes from the prompt:
  its seat back, heard again by the host on a new link, on loopback.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pygame
import pytest
from consensus.fakenet import identities, make_genesis

from dudo_p2p import paths
from dudo_p2p.cli.play import NetworkTables, resume_offer
from dudo_p2p.consensus.genesis import seating_from
from dudo_p2p.consensus.lobby import Seated
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.node import journal as jr
from dudo_p2p.node.config import NetConfig
from dudo_p2p.node.node import Node
from dudo_p2p.rules import RuleSet
from dudo_p2p.session.node_session import NodeSession
from dudo_p2p.ui.app import App
from dudo_p2p.ui.i18n import Tr
from dudo_p2p.ui.lobby import LobbyScene
from dudo_p2p.ui.request import TableRequest
from dudo_p2p.ui.resume_prompt import ResumeOffer, ResumePrompt
from dudo_p2p.ui.table import TableScene

from .conftest import FakeClock
from .helpers import click_button, key

PUMP_S = 10.0  # bound on real time for loopback nodes to seat, and to hear the resumed seat


@pytest.fixture(autouse=True)
def _settings_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(paths, "config_dir", lambda: tmp_path / "conf")


def test_the_prompt_names_the_table_in_both_languages() -> None:
    for lang in ("es", "en"):
        tr = Tr(lang)
        for k in ("resume.title", "resume.ask", "resume.yes", "resume.no"):
            assert tr.has(k)
        assert "QWXYZ" in tr("resume.title", table="QWXYZ")
    assert Tr("es")("resume.yes") != Tr("en")("resume.yes")


@pytest.mark.parametrize("answer", ["click", "enter"])
def test_resume_asks_for_the_journal_and_not_now_goes_to_the_lobby(
    clock: FakeClock, surface: pygame.Surface, tmp_path: Path, answer: str
) -> None:
    asked: list[TableRequest] = []

    def factory(request: TableRequest) -> NodeSession:
        asked.append(request)
        raise OSError("not in this test")

    app = App(factory, "en", clock, surface=surface)
    offer = ResumeOffer("QWXYZ", tmp_path / "game.journal")
    app.switch(ResumePrompt(app, offer))
    if answer == "click":
        click_button(app, "resume_yes")
    else:
        app.frame()
        key(app, pygame.K_RETURN)
    assert [(r.kind, r.journal) for r in asked] == [("resume", str(offer.journal))]
    app.switch(ResumePrompt(app, offer))
    if answer == "click":
        click_button(app, "resume_no")
    else:
        key(app, pygame.K_ESCAPE)
    assert isinstance(app.scene, LobbyScene) and len(asked) == 1 and app.running


def test_only_a_journal_of_ours_is_offered(tmp_path: Path) -> None:
    ids = identities(3, seed=2)
    genesis, sigs = make_genesis(ids, RuleSet())
    seated = Seated(seating_from(genesis, sigs), genesis, tuple(sigs),
                    tuple(("127.0.0.1", 4000 + i) for i in range(3)))
    path = tmp_path / jr.journal_name(seated, ids[1])
    journal = jr.Journal(path, truncate=True)
    journal.append(jr.seating_record(seated))
    journal.close()
    assert resume_offer(ids[1], tmp_path) == ResumeOffer(seated.seating.table, path)
    assert resume_offer(ids[0], tmp_path) is None  # the same game, another peer's journal
    assert resume_offer(ids[0], tmp_path / "missing") is None


def test_a_peer_closed_mid_game_takes_its_seat_back_from_the_prompt(
    clock: FakeClock, surface: pygame.Surface, nodes: list[Node], beacon_port: int,
    tmp_path: Path,
) -> None:
    net = NetConfig(bind="127.0.0.1", beacon_port=beacon_port, broadcast=["127.255.255.255"])
    host = Node.host(Identity.generate(), "Ana", net, seats=2, rules=RuleSet(),
                     turn_timer_ms=0, grace_ms=30_000)
    nodes.append(host)
    me = Identity.generate()
    joiner = Node.join(me, "Beto", net, addresses=[("127.0.0.1", host.links.port)],
                       discover=False, journal_dir=tmp_path)
    nodes.append(joiner)
    end = time.monotonic() + PUMP_S
    while host.machine is None or joiner.machine is None:
        assert time.monotonic() < end, "the two nodes were never seated"
        for node in (host, joiner):
            node.step(0.02)
    seat = joiner.machine.seat
    joiner.close()  # the window closed mid-game: its journal stays
    offer = resume_offer(me, tmp_path)
    assert offer is not None and offer.table == host.table_code
    args = argparse.Namespace(name="Beto", bind="127.0.0.1", port=0, beacon_port=beacon_port,
                              broadcast=["127.255.255.255"])
    app = App(NetworkTables(args, me), "en", clock, surface=surface)
    app.switch(ResumePrompt(app, offer))
    click_button(app, "resume_yes")
    scene = app.scene
    assert isinstance(scene, TableScene) and isinstance(scene.session, NodeSession)
    resumed = scene.session.node
    try:
        assert resumed.machine is not None and resumed.machine.seat == seat
        back_at = host.clock()
        end = time.monotonic() + PUMP_S
        while host.machine.timers.last_heard[seat] < back_at:  # heard on its new link
            assert time.monotonic() < end, "the host never heard the resumed seat"
            host.step(0.02)
            scene.session.wait(0.02)
        assert not resumed.machine.over and not host.machine.over
    finally:
        app.scene.leave()
