"""Every screen renders in both languages; the lobby's controls; the play command's options."""

from __future__ import annotations

import argparse
import dataclasses
import pathlib

import pygame
import pytest

from dudo_p2p.rules import RuleSet
from dudo_p2p.rules.results import SeatCounts
from dudo_p2p.session import CheatDetected, GameOver, RoundResolved
from dudo_p2p.session.local import LocalSession
from dudo_p2p.ui import app as app_module
from dudo_p2p.ui import bench, draw, words
from dudo_p2p.ui.app import App, add_parser
from dudo_p2p.ui.lobby import LobbyScene
from dudo_p2p.ui.request import TableListing, TableRequest
from dudo_p2p.ui.table import TableScene

from .conftest import FakeClock
from .helpers import TextRecorder, bot_tables, click_button, key


def _app(clock: FakeClock, surface: pygame.Surface, lang: str) -> App:
    return App(bot_tables, lang, clock, surface=surface, bot_delay=0.0, reveal_hold=0.0)


def _is_drawn(surface: pygame.Surface) -> bool:
    colours = {tuple(surface.get_at((x, y)))[:3] for x in range(0, 1280, 80)
               for y in range(0, 800, 80)}
    return len(colours) > 5


@pytest.mark.parametrize("lang", ["es", "en"])
def test_every_screen_renders_in_both_languages(clock: FakeClock, surface: pygame.Surface,
                                                lang: str) -> None:
    app = _app(clock, surface, lang)
    shots: dict[str, bool] = {}
    app.frame()
    shots["lobby"] = _is_drawn(surface)
    for _ in range(4):
        click_button(app, "rules_next")  # every page of the rules list
        shots["lobby_page"] = _is_drawn(surface)
    rules = RuleSet(calza_full_hand="bank", aces_conversion="half_plus_one", starting_dice=3)
    app.start_table(TableRequest("bots", bots=5, rules=rules, seed=3, turn_timer_s=30.0))
    scene = app.scene
    assert isinstance(scene, TableScene)
    session = scene.session
    assert isinstance(session, LocalSession)
    for _ in range(30):
        if scene.first_bid_seen and scene.my_turn:
            break
        if scene.choices():
            click_button(app, "choice_0")
        elif scene.my_turn:
            key(app, pygame.K_RETURN)
        if scene.model.reveal is not None:
            key(app, pygame.K_SPACE)
        clock.advance(0.1)
        app.frame()
    scene.looking = True
    scene.model.deadlines[session.seat] = clock.now + 12
    app.frame()
    shots["table"] = _is_drawn(surface)
    key(app, pygame.K_r)
    app.frame()
    shots["rules"] = _is_drawn(surface)
    key(app, pygame.K_ESCAPE)
    key(app, pygame.K_ESCAPE)
    app.frame()
    shots["menu"] = _is_drawn(surface)
    key(app, pygame.K_ESCAPE)
    # A reveal with every kind of consequence, a cheat, then the winner screen.
    result = dataclasses.replace(
        session.state.results[-1] if session.state.results else _any_result(session),
        losses=SeatCounts({1: 2}), gains=SeatCounts({2: 1}), banked=SeatCounts({3: 1}),
        shots=((4, True), (5, False)), eliminated=(1,))
    session._events += [RoundResolved(result), CheatDetected(2, "bad_reveal")]
    clock.advance(0.3)
    app.frame()
    assert scene.model.reveal is not None
    assert len(words.result_lines(app.tr, scene.names, scene.model.reveal.result)) >= 7
    shots["reveal"] = _is_drawn(surface)
    key(app, pygame.K_SPACE)
    session._events.append(GameOver(0))
    app.frame()
    shots["winner"] = _is_drawn(surface)
    assert scene.model.winner == 0
    # palifico look: a red cloth and the banner
    assert all(shots.values()), shots


def _any_result(session: LocalSession):  # type: ignore[no-untyped-def]
    """Play bots to the end of a round to get a real RoundResult."""
    while not session.state.results:
        human = session.human_to_act()
        if human is not None:
            session.submit(session.legal_actions()[-1])
        else:
            session.step()
    return session.state.results[-1]


def test_lobby_rules_cycle_and_refuse_impossible_combinations(clock: FakeClock,
                                                              surface: pygame.Surface) -> None:
    app = _app(clock, surface, "es")
    lobby = app.scene
    assert isinstance(lobby, LobbyScene)
    app.frame()
    click_button(app, "rule_calza")
    assert lobby.rules.calza is False
    lobby.page = 0
    click_button(app, "rule_calza_anyone")  # calza_anyone needs calza: refused, reason shown
    assert lobby.rules.calza_anyone is False
    assert lobby.message
    click_button(app, "dice_3")
    click_button(app, "create_bots_4")
    click_button(app, "level_hard")
    click_button(app, "timer_2")
    req = lobby.request("create")
    assert (req.rules.starting_dice, req.bots, req.bot_level, req.turn_timer_s) == \
        (3, 4, "hard", 60.0)


def test_lobby_join_checks_the_address_and_lists_tables(clock: FakeClock,
                                                        surface: pygame.Surface) -> None:
    listed = TableListing("K7Q2P", "127.0.0.1:5555", 2, 6)

    class Directory:
        def tables(self) -> list[TableListing]:
            return [listed]

    app = App(bot_tables, "en", clock, surface=surface, directory=Directory())
    lobby = app.scene
    assert isinstance(lobby, LobbyScene)
    app.frame()
    assert lobby.listings and lobby.listings[0].code == "K7Q2P"
    recorder = TextRecorder()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(draw, "text", recorder)
        assert "K7Q2P  ·  2/6 players" in recorder.frame(app)  # a listing with no host
        lobby.listings = [dataclasses.replace(listed, host="Ana", fingerprint="SA4V-YESP")]
        assert "K7Q2P@SA4V-YESP  ·  Ana  ·  2/6" in recorder.frame(app)
    lobby.address.value = "nonsense"
    click_button(app, "join_address")
    assert lobby.message == ("Neither an address nor a code: type host:port, or the table's "
                             "code (CODE or CODE@FINGERPRINT)")
    click_button(app, "join_0")  # joining needs the network: said in plain words
    assert isinstance(app.scene, LobbyScene)
    assert app.scene.message == app.tr("error.join_unavailable")


def test_lobby_without_directory_says_no_tables(clock: FakeClock,
                                                surface: pygame.Surface) -> None:
    app = _app(clock, surface, "es")
    app.frame()
    assert isinstance(app.scene, LobbyScene) and app.scene.listings == []


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["play", *argv])


def test_play_without_display_says_so_and_exits_2(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(var, raising=False)
    assert app_module.run(_args("--bots", "2", "--lang", "en"), session_factory=bot_tables) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    for command in ("dudo-p2p sim", "dudo-p2p bot", "dudo-p2p tournament"):
        assert command in err


def test_screenshot_option_writes_a_png_of_at_least_1280x800(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "table.png"
    args = _args("--bots", "3", "--screenshot", str(path), "--seed", "4")
    assert app_module.run(args, session_factory=bot_tables) == 0
    image = pygame.image.load(str(path))
    assert image.get_width() >= 1280 and image.get_height() >= 800
    pygame.display.init()  # run() closed the display; the session fixture expects it open


def test_bench_hooks_measure_a_live_table() -> None:
    times = bench.frame_times(5)
    assert len(times) == 5 and all(t > 0 for t in times)
    pygame.display.init()
