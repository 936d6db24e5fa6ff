"""The lobby's name and choices survive a restart (issue 15): a temporary config directory,
two launches of the app, the choices made by clicks and typing in the first (name, language,
bot level, the tables' settings) and the sound switched off at the table ("S")."""

from __future__ import annotations

import getpass
import json
from pathlib import Path

import pygame
import pytest

from dudo_p2p import paths
from dudo_p2p.session import Session
from dudo_p2p.ui import remember
from dudo_p2p.ui.app import App
from dudo_p2p.ui.lobby import LobbyScene
from dudo_p2p.ui.request import TableRequest
from dudo_p2p.ui.settings import Settings
from dudo_p2p.ui.table import TableScene

from .conftest import FakeClock
from .helpers import bot_tables, click, click_button, key


def launch(clock: FakeClock, surface: pygame.Surface, asked: list[TableRequest]) -> App:
    """What ``dudo-p2p play`` does at launch: the settings file of the config directory, and
    the language stored there when --lang is not given."""
    settings = Settings.load(paths.settings_file())
    lang = remember.saved_lang(settings) or "es"

    def factory(request: TableRequest) -> Session:
        asked.append(request)
        return bot_tables(request)

    return App(factory, lang, clock, surface=surface, settings=settings, bot_delay=0.0,
               reveal_hold=0.0)


def type_text(app: App, text: str) -> None:
    app.dispatch(pygame.event.Event(pygame.TEXTINPUT, text=text))


def test_name_language_level_and_table_settings_survive_a_restart(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: FakeClock,
        surface: pygame.Surface) -> None:
    monkeypatch.setattr(paths, "config_dir", lambda: tmp_path / "conf")
    monkeypatch.setattr(getpass, "getuser", lambda: "lucia")
    (tmp_path / "conf").mkdir()
    paths.settings_file().write_text(json.dumps({"future_feature": [1, 2]}))
    asked: list[TableRequest] = []
    app = launch(clock, surface, asked)
    lobby = app.scene
    assert isinstance(lobby, LobbyScene)
    assert lobby.name_field.value == "lucia"  # the login name, not a key code
    click(app, lobby.name_field.rect.center)
    for _ in "lucia":
        app.dispatch(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_BACKSPACE, mod=0,
                                        unicode="", scancode=0))
    type_text(app, "Lucía")
    click_button(app, "language")  # English
    click_button(app, "level_hard")
    click_button(app, "bots_2")
    click_button(app, "seats_4")
    click_button(app, "create_bots_1")
    click_button(app, "timer_2")
    click_button(app, "dice_4")
    click_button(app, "rule_calza")  # a variant off its default
    chosen_rules = lobby.rules
    click_button(app, "play_bots")
    assert isinstance(app.scene, TableScene)
    assert asked[-1].name == "Lucía" and asked[-1].bot_level == "hard" and asked[-1].bots == 2
    key(app, pygame.K_s)  # sound off, at the table
    assert app.settings.flag("muted")
    app.scene.leave()

    again = launch(clock, surface, [])  # a new program on the same config directory
    assert again.tr.lang == "en"
    lobby2 = again.scene
    assert isinstance(lobby2, LobbyScene)
    assert lobby2.name_field.value == "Lucía"
    assert (lobby2.level, lobby2.n_bots, lobby2.create_bots, lobby2.timer_index) == (
        "hard", 2, 1, 2)
    assert lobby2.create_seats == 4
    assert lobby2.rules == chosen_rules and lobby2.rules.starting_dice == 4
    assert again.settings.flag("muted")  # the sound stays off
    assert json.loads(paths.settings_file().read_text())["future_feature"] == [1, 2]


def test_a_stored_value_this_version_cannot_use_gives_the_default(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: FakeClock,
        surface: pygame.Surface) -> None:
    monkeypatch.setattr(paths, "config_dir", lambda: tmp_path)
    paths.settings_file().write_text(json.dumps({
        "name": "", "lang": "fr", "bot_level": "godlike", "quick_bots": 9, "create_bots": 2.5,
        "timer_index": -1, "rules": json.dumps({"no_such_rule": True})}))

    def no_user() -> str:
        raise OSError("no login name")

    monkeypatch.setattr(getpass, "getuser", no_user)
    app = launch(clock, surface, [])
    lobby = app.scene
    assert isinstance(lobby, LobbyScene)
    assert app.tr.lang == "es" and lobby.name_field.value == ""
    assert (lobby.level, lobby.n_bots, lobby.create_bots, lobby.timer_index) == (
        "normal", 3, 3, 0)
    assert lobby.create_seats == 5
    assert lobby.rules == type(lobby.rules)()


def test_a_name_given_on_the_command_line_is_the_lobbys_name_and_is_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: FakeClock,
        surface: pygame.Surface) -> None:
    # `dudo-p2p play --name Alice`: the lobby showed the login name ("root") and seated us
    # under it; the typed name only counted when the field was empty
    monkeypatch.setattr(paths, "config_dir", lambda: tmp_path / "conf")
    monkeypatch.setattr(getpass, "getuser", lambda: "root")
    (tmp_path / "conf").mkdir()
    remember.typed_name(Settings.load(paths.settings_file()), "  Alice ")
    lobby = launch(clock, surface, []).scene
    assert isinstance(lobby, LobbyScene)
    assert lobby.name_field.value == "Alice"
    remember.typed_name(Settings.load(paths.settings_file()), None)  # no --name: as it was
    lobby = launch(clock, surface, []).scene
    assert isinstance(lobby, LobbyScene) and lobby.name_field.value == "Alice"


@pytest.mark.parametrize(("stored", "seats", "bots"), [
    ({"create_bots": 5}, 6, 4),  # a file from before the seat count: the same table
    ({"create_bots": 1}, 5, 1),
    ({"create_seats": 3, "create_bots": 3}, 5, 3),  # edited by hand: the bots keep a seat free
    ({"create_seats": 9, "create_bots": 0}, 5, 0),
])
def test_the_created_tables_seats_and_bots_are_restored_so_that_a_seat_stays_free(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: FakeClock,
        surface: pygame.Surface, stored: dict[str, int], seats: int, bots: int) -> None:
    monkeypatch.setattr(paths, "config_dir", lambda: tmp_path)
    paths.settings_file().write_text(json.dumps(stored))
    lobby = launch(clock, surface, []).scene
    assert isinstance(lobby, LobbyScene)
    assert (lobby.create_seats, lobby.create_bots) == (seats, bots)
