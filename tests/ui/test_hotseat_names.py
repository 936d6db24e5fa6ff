"""Hot-seat players have names: typed ones (cleaned, distinct) or "Jugador n" / "Player n",
shown on the hand-over screen and the seat plates; ``play --names`` passes them in."""

from __future__ import annotations

import argparse

import pygame
import pytest

from dudo_p2p.ui import app as app_module
from dudo_p2p.ui import draw, widgets
from dudo_p2p.ui.app import App, add_parser
from dudo_p2p.ui.lobby import LobbyScene
from dudo_p2p.ui.request import MAX_NAME_CHARS, TableRequest, clean_name, hotseat_names
from dudo_p2p.ui.table import TableScene

from .conftest import FakeClock
from .helpers import TextRecorder, bot_tables, click, click_button, key


def _app(clock: FakeClock, surface: pygame.Surface, lang: str) -> App:
    return App(bot_tables, lang, clock, surface=surface, bot_delay=0.0, reveal_hold=0.0)


def _first_handover(app: App, clock: FakeClock, request: TableRequest) -> TableScene:
    app.start_table(request)
    scene = app.scene
    assert isinstance(scene, TableScene)
    for _ in range(40):
        clock.advance(0.05)
        app.frame()
        if scene.handover_seat is not None:
            return scene
    raise AssertionError("no hand-over screen")


def test_clean_name_trims_collapses_spaces_drops_control_characters_and_cuts() -> None:
    assert clean_name("  Ana   María \t") == "Ana María"
    assert clean_name("Lu\x00is\n") == "Lu is"
    assert clean_name("   ") == ""
    long = clean_name("Maximiliano Fernández de la Torre")
    assert len(long) <= MAX_NAME_CHARS and long == "Maximiliano Fern"


def test_hotseat_names_pads_missing_drops_extra_and_keeps_empty_for_the_default() -> None:
    assert hotseat_names(["Ana", " ", "Luis"], 4) == ("Ana", "", "Luis", "")
    assert hotseat_names(["Ana", "Luis", "Marta"], 2) == ("Ana", "Luis")
    assert hotseat_names([], 2) == ("", "")


def test_hotseat_names_makes_duplicates_distinct_ignoring_case_and_within_the_limit() -> None:
    assert hotseat_names(["Ana", "ana ", "ANA", "Ana 2"], 4) == ("Ana", "ana 2", "ANA 3",
                                                                 "Ana 2 2")
    long = "x" * 40
    a, b = hotseat_names([long, long], 2)
    assert a != b and len(b) <= MAX_NAME_CHARS and b.endswith(" 2")
    assert hotseat_names(["", ""], 2) == ("", "")  # both get numbered defaults at the table


@pytest.mark.parametrize(("lang", "title", "default"), [
    ("es", "Pasa el dispositivo a {}", "Jugador {}"),
    ("en", "Hand the device to {}", "Player {}"),
])
def test_typed_names_reach_the_handover_screen_and_the_seat_plates(
        clock: FakeClock, surface: pygame.Surface, monkeypatch: pytest.MonkeyPatch,
        lang: str, title: str, default: str) -> None:
    app = _app(clock, surface, lang)
    request = TableRequest("hotseat", players=3, seed=9, names=("  Ana ", "", "ana"))
    scene = _first_handover(app, clock, request)
    names = ("Ana", default.format(2), "ana 2")
    assert scene.names == names
    recorder = TextRecorder()
    monkeypatch.setattr(draw, "text", recorder)
    drawn = recorder.frame(app)
    seat = scene.handover_seat
    assert seat is not None
    assert title.format(names[seat]) in drawn
    click(app, (640, 400))  # take the device: the table with every plate shows
    drawn = recorder.frame(app)
    for name in names:
        assert name in drawn
    assert not any(text.startswith("#") for text in drawn)


def test_without_names_the_players_read_jugador_n_not_a_number_sign(
        clock: FakeClock, surface: pygame.Surface, monkeypatch: pytest.MonkeyPatch) -> None:
    app = _app(clock, surface, "es")
    scene = _first_handover(app, clock, TableRequest("hotseat", players=2, seed=3))
    assert scene.names == ("Jugador 1", "Jugador 2")
    recorder = TextRecorder()
    monkeypatch.setattr(draw, "text", recorder)
    seat = scene.handover_seat
    assert seat is not None
    assert f"Pasa el dispositivo a Jugador {seat + 1}" in recorder.frame(app)
    app.toggle_language()
    assert scene.names == ("Player 1", "Player 2")


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["play", *argv])


@pytest.mark.parametrize(("argv", "words"), [
    (("--names", "Ana,Luis"), "--hotseat"),
    (("--hotseat", "2", "--names", "Ana,Luis,Marta"), "3"),
])
def test_play_refuses_names_without_hotseat_or_more_names_than_players(
        capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], words: str) -> None:
    assert app_module.run(_args(*argv, "--lang", "en"), session_factory=bot_tables) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err


def test_play_hotseat_names_reach_the_table_request(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[TableRequest] = []

    def start_table(self: App, request: TableRequest) -> None:
        seen.append(request)
        self.error = "stop here"  # run() prints it and returns 1: no loop, no window kept

    monkeypatch.setattr(App, "start_table", start_table)
    args = _args("--hotseat", "3", "--names", " Ana , ,Ana", "--lang", "es")
    try:
        assert app_module.run(args, session_factory=bot_tables) == 1
    finally:
        pygame.display.init()  # run() closed the display; the session fixture expects it open
    assert seen[0].names == ("Ana", "", "Ana 2") and seen[0].players == 3


def _type(app: App, text: str) -> None:
    """Type ``text`` as the keyboard would: a key press and the text it makes, per letter."""
    for ch in text:
        k = pygame.key.key_code(ch) if ch.isalpha() else pygame.K_SPACE if ch == " " else 0
        app.dispatch(pygame.event.Event(pygame.KEYDOWN, key=k, mod=0, unicode=ch, scancode=0))
        app.dispatch(pygame.event.Event(pygame.TEXTINPUT, text=ch))


def _lobby(app: App) -> LobbyScene:
    app.show_lobby()
    assert isinstance(app.scene, LobbyScene)
    return app.scene


def test_lobby_names_the_hotseat_players_and_the_table_shows_them(
        clock: FakeClock, surface: pygame.Surface) -> None:
    app = _app(clock, surface, "es")
    lobby = _lobby(app)
    click_button(app, "hotseat_plus")  # 3 players
    click_button(app, "hotseat_go")
    assert lobby.naming and lobby.name_fields[0].focused
    _type(app, "  Ana lola")  # 'l' is the language hotkey and Space plays bots: not here
    assert lobby.tr.lang == "es" and app.scene is lobby
    key(app, pygame.K_TAB)
    key(app, pygame.K_TAB)
    _type(app, "ANA LOLA")
    click_button(app, "hotseat_start")
    scene = app.scene
    assert isinstance(scene, TableScene) and scene.hotseat
    assert scene.names == ("Ana lola", "Jugador 2", "ANA LOLA 2")


def test_lobby_name_fields_stop_at_the_limit_and_enter_starts_the_table(
        clock: FakeClock, surface: pygame.Surface) -> None:
    app = _app(clock, surface, "en")
    lobby = _lobby(app)
    click_button(app, "hotseat_go")
    _type(app, "Bartholomew the Magnificent")
    assert lobby.name_fields[0].value == "Bartholomew the Magnificent"[:MAX_NAME_CHARS]
    key(app, pygame.K_RETURN)
    scene = app.scene
    assert isinstance(scene, TableScene)
    assert scene.names[1] == "Player 2"
    assert len(scene.request.names[0]) <= MAX_NAME_CHARS


def test_lobby_names_panel_goes_back_with_escape_keeping_the_typed_names(
        clock: FakeClock, surface: pygame.Surface) -> None:
    app = _app(clock, surface, "es")
    lobby = _lobby(app)
    click_button(app, "hotseat_go")
    _type(app, "Marta")
    key(app, pygame.K_ESCAPE)
    assert not lobby.naming and app.scene is lobby and app.running  # the panel, not the app
    app.frame()
    widgets.find(lobby.buttons, "join_address")  # the LAN panels are back
    click_button(app, "hotseat_go")
    assert lobby.request("hotseat").names == ("Marta", "")
