"""The lobby's "Watch" on a listed table and "Open a record" (issue 20).

- a table seen on the LAN has a Watch button (an open one a Join button too): it asks the
  app for a ``watch`` request of that address and CODE@FINGERPRINT; with the window's real
  factory (``cli/play.py``'s ``NetworkTables``) that is a spectator session which, against
  two real nodes seated on loopback, shows their table with every hand hidden;
- "Open a record" lists the records of the app's folder; one opens in the replay viewer
  (the same steps and log hash ``verify`` gives), Esc comes back; an invalid record opens
  nothing and the screen names where it fails.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pygame
import pytest
from consensus.fakenet import FakeNet

from dudo_p2p import paths
from dudo_p2p.consensus.record import RecordViolation, verify_record
from dudo_p2p.crypto.identity import Identity, fingerprint
from dudo_p2p.node.config import NetConfig
from dudo_p2p.node.node import Node
from dudo_p2p.protocol.codec import decode, encode
from dudo_p2p.rules import Dudo, Raise, RoundResult, RuleSet
from dudo_p2p.session import Session
from dudo_p2p.session.node_session import NodeSession
from dudo_p2p.session.watch_session import WatchSession
from dudo_p2p.ui import draw, request
from dudo_p2p.ui.app import App
from dudo_p2p.ui.lobby import LobbyScene
from dudo_p2p.ui.replay_records import RecordsScene
from dudo_p2p.ui.replay_scene import ReplayScene
from dudo_p2p.ui.request import TableListing, TableRequest
from dudo_p2p.ui.table import TableScene
from dudo_p2p.ui.table_layout import own_hand_rect

from .conftest import FakeClock
from .helpers import TextRecorder, click_button, key, spectators_window

PUMP_S = 10.0  # bound on real time for loopback nodes to seat and the spectator to verify


@pytest.fixture(autouse=True)
def _settings_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lobby saves its choices when a table is asked for: never into the real file."""
    monkeypatch.setattr(paths, "config_dir", lambda: tmp_path / "conf")


class Directory:
    def __init__(self, listings: list[TableListing]) -> None:
        self.listings = listings

    def tables(self) -> list[TableListing]:
        return self.listings


def test_a_listed_table_can_be_watched_and_only_an_open_one_joined(
        clock: FakeClock, surface: pygame.Surface) -> None:
    asked: list[TableRequest] = []

    def factory(req: TableRequest) -> Session:
        asked.append(req)
        raise request.Unavailable("not in this test")

    tables = Directory([
        TableListing("KQ7XM", "10.0.0.2:4000", 2, 3, "Ana", "KX45-EVEW"),
        TableListing("ABCDE", "10.0.0.3:4100", 3, 3, "Luz", "AB12-CD34", "playing")])
    app = App(factory, "es", clock, surface=surface, directory=tables)
    app.frame()
    names = {b.name for b in app.scene.buttons}
    assert {"join_0", "watch_0", "watch_1"} <= names and "join_1" not in names
    click_button(app, "watch_1")
    assert [(r.kind, r.address, r.code) for r in asked] == [
        ("watch", "10.0.0.3:4100", "ABCDE@AB12-CD34")]


def _record() -> bytes:
    net = FakeNet(3, RuleSet(starting_dice=3), seed=21)
    net.run()
    return net.machines[0].record(net.genesis, net.signatures)


def test_open_a_record_shows_it_in_the_viewer_and_a_bad_one_says_where_it_fails(
        clock: FakeClock, surface: pygame.Surface, tmp_path: Path) -> None:
    folder = tmp_path / "records"
    folder.mkdir()
    good = _record()
    (folder / "old.dudo").write_bytes(good)
    os.utime(folder / "old.dudo", (1, 1))  # the older one: listed second
    bad = bytearray(good)
    bad[len(bad) // 2] ^= 0xFF
    (folder / "bad.dudo").write_bytes(bytes(bad))
    app = App(lambda _r: pytest.fail("no table"), "en", clock, surface=surface,
              records_folder=folder)
    click_button(app, "open_records")
    assert isinstance(app.scene, RecordsScene)
    assert [p.name for p in app.scene.records] == ["bad.dudo", "old.dudo"]
    click_button(app, "record_0")
    assert isinstance(app.scene, RecordsScene)
    assert app.scene.message.startswith("Cannot open bad.dudo: ")
    click_button(app, "record_1")
    viewer = app.scene
    assert isinstance(viewer, ReplayScene)
    assert viewer.replay.summary.log_hash == verify_record(good).log_hash
    app.frame()
    key(app, pygame.K_ESCAPE)  # back to the list, not out of the program
    assert isinstance(app.scene, RecordsScene) and app.running
    key(app, pygame.K_ESCAPE)
    assert isinstance(app.scene, LobbyScene) and app.running


def test_a_typed_path_that_is_no_record_opens_nothing(
        clock: FakeClock, surface: pygame.Surface, tmp_path: Path) -> None:
    app = App(lambda _r: pytest.fail("no table"), "en", clock, surface=surface,
              records_folder=tmp_path / "none")
    click_button(app, "open_records")
    scene = app.scene
    assert isinstance(scene, RecordsScene) and scene.records == []
    scene.path.value = str(tmp_path / "missing.dudo")
    click_button(app, "record_path")
    assert scene.message.startswith("Cannot open missing.dudo: ")
    assert app.scene is scene


def test_watch_with_the_real_factory_shows_a_seated_table_every_hand_hidden(
        clock: FakeClock, surface: pygame.Surface, nodes: list[Node], beacon_port: int,
        monkeypatch: pytest.MonkeyPatch) -> None:
    host, joiner, app = spectators_window(clock, surface, nodes, beacon_port)
    code = f"{host.table_code}@{fingerprint(host.identity.public_key)}"
    assert isinstance(app.scene, LobbyScene)
    app.scene.watch(f"127.0.0.1:{host.links.port}", code)
    scene = app.scene
    assert isinstance(scene, TableScene) and isinstance(scene.session, WatchSession)
    session = scene.session
    end = time.monotonic() + PUMP_S
    try:
        while not session.ready:
            assert time.monotonic() < end, "the spectator was never seated"
            for node in (host, joiner):
                node.step(0.02)
            session.wait(0.02)
            app.frame()
        app.frame()
        assert tuple(p.name for p in session.players()) == ("Ana", "Beto")
        view = session.view()
        assert view.own_dice is None and not view.others  # a spectator sees no hand
        assert session.legal_actions() == []
        recorder = TextRecorder()
        monkeypatch.setattr(draw, "text", recorder)
        shown = recorder.frame(app)
        assert "Watching" in shown and "Your dice" not in shown  # no hand, no seat of ours
        assert not any("(you)" in line for line in shown)
        # the keys line names only what a spectator can use: no bid, call, cup or phrase
        assert any(line.startswith("P probability") for line in shown)
        assert not any("Enter bid" in line or "D dudo" in line for line in shown)
        played: list[str] = []
        scene.cues._play = played.append  # the sounds the table plays, in order
        # the two seats play (a call as soon as one is legal): the spectator's table shows a
        # round's reveal, the very result the seats' own engines resolved
        seats = [NodeSession(host), NodeSession(joiner)]
        end = time.monotonic() + 4 * PUMP_S
        while scene.model.last_round is None:
            assert time.monotonic() < end, "no round was verified and shown"
            for seat in seats:
                seat.wait(0.01)
                seat.poll_events()
                legal = seat.legal_actions()
                if legal:
                    seat.submit(next((a for a in legal if isinstance(a, Dudo)), legal[0]))
            session.wait(0.01)
            app.frame()
        # what the events told is on the table at once (the clock has not moved): the view
        # is read after them, not REFRESH_S later
        app.frame()
        fresh = session.view()
        assert scene.view is not None
        assert scene.view.state == fresh.state, (scene.view.state.bids, fresh.state.bids)
        result = scene.model.last_round.result  # the latest round verified (one or several)
        # the spectator follows one seat, which may resolve a round before the other has heard
        # the last reveal: let both seats catch up (no one submits), then both resolved it so
        def resolved(node: Node) -> dict[int, RoundResult]:
            assert node.machine is not None
            return {r.round_no: r for r in node.machine.replica.engine.results}

        end = time.monotonic() + PUMP_S
        while not all(result.round_no in resolved(node) for node in (host, joiner)):
            assert time.monotonic() < end, f"a seat never resolved round {result.round_no}"
            for seat in seats:
                seat.wait(0.01)
        assert resolved(host)[result.round_no] == result == resolved(joiner)[result.round_no]
        # move by move, as a seat out of the game sees it: the round's bids and its call
        # (the reveal's history), and their sounds, before the cups' ("reveal")
        actions = scene.model.last_round.actions
        assert isinstance(actions[-1], Dudo) and actions[-1].seat == result.caller
        assert any(isinstance(a, Raise) for a in actions)
        assert "bid" in played and "dudo" in played and "reveal" in played
        assert played.index("dudo") < played.index("reveal")
        # the badge: how far the log is verified, standing in the Watching panel (not only a
        # toast and a log line), the move count the session verified when the round ended
        recorder.frame(app)
        panel = own_hand_rect()
        badges = [m for m, rect, _ in recorder.drawn
                  if m.startswith("Verified to move ") and panel.contains(rect)]
        assert len(badges) == 1 and session.verified is not None
        assert 0 < int(badges[0].removeprefix("Verified to move ")) <= session.verified.moves
    finally:
        app.scene.leave()


def test_a_seat_the_table_removes_watches_the_rest_of_its_game_in_the_window(
        clock: FakeClock, surface: pygame.Surface, nodes: list[Node], beacon_port: int,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Cris plays in the window; its node stops (as a laptop lid closed) until the two
    # others vote it out for silence; when it comes back and learns it, the window goes
    # on showing the game as a spectator with Cris's key (issue 20: a removed seat
    # becomes a spectator of its table), not a "you were removed" end
    net = NetConfig(bind="127.0.0.1", beacon_port=beacon_port, broadcast=["127.255.255.255"])
    host = Node.host(Identity.generate(), "Ana", net, seats=3,
                     rules=RuleSet(starting_dice=5), turn_timer_ms=0)
    nodes.append(host)
    address = [("127.0.0.1", host.links.port)]
    beto = Node.join(Identity.generate(), "Beto", net, addresses=address, discover=False)
    cris = Node.join(Identity.generate(), "Cris", net, addresses=address, discover=False)
    nodes += [beto, cris]
    app = App(lambda req: NodeSession(cris), "en", clock, surface=surface)
    app.start_table(TableRequest("join", f"127.0.0.1:{host.links.port}"))
    scene = app.scene
    assert isinstance(scene, TableScene)
    seats = [NodeSession(host), NodeSession(beto)]

    def play(until: float) -> None:
        for seat in seats:
            seat.wait(0.01)
            seat.poll_events()
            legal = seat.legal_actions()
            if legal:  # the others play on: a raise when one is legal, else a call
                seat.submit(next((a for a in legal if isinstance(a, Raise)), legal[0]))
        assert time.monotonic() < until

    try:
        end = time.monotonic() + 2 * PUMP_S
        while not (scene.session.started and all(s.started for s in seats)):
            play(end)
            scene.session.wait(0.01)
            app.frame()
        assert host.machine is not None and cris.machine is not None
        me = cris.machine.seat
        # Cris's node is not run: the others remove it for silence (4.5 s, no grace)
        end = time.monotonic() + 6 * PUMP_S
        while host.machine.replica.engine.alive[me]:
            play(end)
        held = len(host.machine.replica.chain)
        # Cris comes back: it learns of its removal and watches from a seat still playing
        end = time.monotonic() + 4 * PUMP_S
        while not isinstance(scene.session, WatchSession):
            play(end)
            scene.session.wait(0.01)
            app.frame()
        assert scene.watching and cris.closed and scene.model.ended is None
        # why Cris left the table is said first, then what we do now (the toast that stays)
        said = scene.model.message_texts(scene.tr)
        rest = said.index("The table removed you from the game: you watch the rest")
        assert any("Cris" in line for line in said[:rest])
        assert not any("Cris" in line for line in said[rest + 1:])
        watch = scene.session
        assert watch.watcher.spectator.identity.public_key == cris.identity.public_key
        # the game goes on in the window: moves after the removal are verified and shown
        # and the round shown is one the host holds too: the spectator may be served by
        # Beto, who can chain a call a step before the host does, so the host is waited
        # for within the same bound (play() fails the test past it)
        end = time.monotonic() + 6 * PUMP_S
        while (scene.model.last_round is None
               or len(watch.watcher.spectator.items) <= held
               or scene.model.last_round.result not in host.machine.replica.engine.results):
            play(end)
            watch.wait(0.01)
            app.frame()
        assert watch.watcher.spectator.flagged is None
        recorder = TextRecorder()
        monkeypatch.setattr(draw, "text", recorder)
        shown = recorder.frame(app)
        assert "Watching" in shown
        # no "you were removed" end: the log's "The table removed you from the game: you
        # watch the rest" may still be on screen, wrapped after its colon (it failed so when
        # the round came soon after the removal), so the end's own words are looked for
        assert scene.model.ended is None
        assert "The table removed you from the game" not in shown
    finally:
        app.scene.leave()


def _broken_at(record: bytes, index: int) -> bytes:
    """``record`` with item ``index``'s signature spoilt (its last byte), still a record."""
    doc = decode(record, max_size=len(record) + 1)
    assert isinstance(doc, dict)
    item = doc["items"][index]
    assert isinstance(item, bytes)
    doc["items"][index] = item[:-1] + bytes([item[-1] ^ 1])
    return encode(doc)


def test_an_invalid_record_opens_nowhere_and_every_way_names_the_item_where_it_fails(
        clock: FakeClock, surface: pygame.Surface, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    from dudo_p2p.cli.main import main

    good = _record()
    at = 12  # an item in the middle of round 1
    bad = tmp_path / "records" / "bad.dudo"
    bad.parent.mkdir()
    bad.write_bytes(_broken_at(good, at))
    # the verifier, the commands, and the window's Open a record: item 12, nothing opened
    with pytest.raises(RecordViolation) as caught:
        verify_record(bad.read_bytes())
    assert caught.value.index == at
    for command in (["verify", str(bad)], ["replay", "--text", str(bad)]):
        assert main(command) == 1
        captured = capsys.readouterr()
        # (verify answers on stdout, replay complains on stderr: each names the item)
        assert f"item {at}:" in captured.out + captured.err
        assert "log hash" not in captured.out  # nothing of the game is shown
    app = App(lambda _r: pytest.fail("no table"), "en", clock, surface=surface,
              records_folder=bad.parent)
    click_button(app, "open_records")
    click_button(app, "record_0")
    assert isinstance(app.scene, RecordsScene)
    assert app.scene.message.startswith("Cannot open bad.dudo: ")
    assert f"item {at}:" in app.scene.message


def test_open_a_record_says_where_it_fails_in_spanish_and_esc_says_back(
        clock: FakeClock, surface: pygame.Surface, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # session 10 (watchux): in Spanish the screen said "No se puede abrir bad.dudo: item 12:
    # ..." (the English of verify), a missing file "No such file or directory", and the
    # viewer opened from this screen said "Esc: salir" though Esc comes back here
    good = _record()
    folder = tmp_path / "records"
    folder.mkdir()
    (folder / "bad.dudo").write_bytes(_broken_at(good, 12))
    (folder / "good.dudo").write_bytes(good)
    os.utime(folder / "good.dudo", (1, 1))
    (folder / "text.dudo").write_text("hola")
    os.utime(folder / "text.dudo", (0, 0))
    app = App(lambda _r: pytest.fail("no table"), "es", clock, surface=surface,
              records_folder=folder)
    click_button(app, "open_records")
    scene = app.scene
    assert isinstance(scene, RecordsScene)
    assert [p.name for p in scene.records] == ["bad.dudo", "good.dudo", "text.dudo"]
    click_button(app, "record_0")
    assert scene.message.startswith("No se puede abrir bad.dudo: elemento 12 del registro: ")
    click_button(app, "record_2")
    assert scene.message.startswith(
        "No se puede abrir text.dudo: no es un registro de partida válido (")
    scene.path.value = str(tmp_path / "falta.dudo")
    click_button(app, "record_path")
    assert scene.message == "No se puede abrir falta.dudo: ese archivo no existe"
    recorder = TextRecorder()
    monkeypatch.setattr(draw, "text", recorder)
    scene.path.value = str(tmp_path / ("un-nombre-muy-largo-" * 12 + ".dudo"))
    click_button(app, "record_path")
    recorder.frame(app)
    said = [(m, size) for (m, rect, _), (size, _) in zip(recorder.drawn, recorder.styles,
                                                          strict=True)
            if rect.top >= 560 and rect.bottom <= 630]
    assert 1 <= len(said) <= 2  # whole, on at most two lines above the path's label...
    assert " ".join(m for m, _ in said) == scene.message
    # the name is cut in its middle, never the reason after it
    assert "…" in scene.message and scene.message.endswith("-.dudo: ese archivo no existe")
    assert {size for _, size in said} == {22}  # ...not shrunk to fit one
    click_button(app, "record_1")
    assert isinstance(app.scene, ReplayScene)
    shown = recorder.frame(app)
    assert any(m.endswith("Esc: volver a las partidas") for m in shown)
    assert not any(m.endswith("Esc: salir") for m in shown)
