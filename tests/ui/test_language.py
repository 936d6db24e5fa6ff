"""Switching language: from the lobby before a game (button or L), and in the middle of a game
everything on screen follows at once: the reveal, the log, the toast, the default name."""

from __future__ import annotations

import pygame
import pytest

from dudo_p2p.rules import Bid, Dudo
from dudo_p2p.rules.results import RoundResult
from dudo_p2p.session import PlayerLeft
from dudo_p2p.session.local import LocalSession
from dudo_p2p.ui import words
from dudo_p2p.ui.app import App
from dudo_p2p.ui.i18n import Tr
from dudo_p2p.ui.lobby import LobbyScene

from .conftest import FakeClock
from .helpers import TextRecorder, bot_tables, click_button, key, table_app

# words only the Spanish screen uses (the game terms ¡Dudo!/¡Calzo! are Spanish in both)
SPANISH_ONLY = ("Jugador", "Ronda", "pierde", "dudó", "Mesa", "Apuestas", "sin tiempo")


def test_the_lobby_switches_language_with_its_button_and_with_l(
        clock: FakeClock, surface: pygame.Surface, recorder: TextRecorder) -> None:
    app = App(bot_tables, "es", clock, surface=surface)
    assert isinstance(app.scene, LobbyScene)
    assert "Crear mesa" in recorder.frame(app)
    click_button(app, "language")
    assert app.tr.lang == "en"
    drawn = recorder.frame(app)
    assert "Create a table" in drawn and "Crear mesa" not in drawn
    assert "Español" in drawn  # the button now offers the way back
    key(app, pygame.K_l)
    assert app.tr.lang == "es" and "Crear mesa" in recorder.frame(app)


def test_switching_language_mid_game_changes_every_string_on_screen(
        clock: FakeClock, surface: pygame.Surface, recorder: TextRecorder) -> None:
    app, scene = table_app(clock, surface, "es", bots=3, seed=5)
    session = scene.session
    assert isinstance(session, LocalSession)
    reveals = 0
    for _ in range(4000):  # two rounds, then stop on the third reveal
        clock.advance(0.05)
        app.frame()
        if scene.model.reveal is not None:
            reveals += 1
            if reveals == 3:
                break
            key(app, pygame.K_SPACE)
        elif scene.my_turn and not scene.blocked:
            if scene.choices():
                click_button(app, "choice_0")
            else:
                key(app, pygame.K_d if scene.offered(Dudo) else pygame.K_RETURN)
    assert scene.model.reveal is not None
    session._events.append(PlayerLeft(2, "timeout"))  # a toast and a log line, in Spanish
    app.frame()
    spanish = recorder.frame(app)
    assert any("sin tiempo" in m for m in spanish)  # the toast is up
    key(app, pygame.K_ESCAPE)
    click_button(app, "language")
    key(app, pygame.K_ESCAPE)
    assert app.tr.lang == "en" and scene.overlay is None
    drawn = recorder.frame(app)  # no update: the switch alone must change the screen
    english = Tr("en")
    for line in words.result_lines(english, scene.names, scene.model.reveal.result):
        assert line in drawn
    assert english("reveal.title") in drawn
    text = " ".join(drawn)
    # the newest round's outcome in the log (older ones give way to the face-name legend)
    assert "Player" in text and "ran out of time" in text and "Round 3: " in text
    left_in_spanish = [m for m in drawn for w in SPANISH_ONLY if w in m]
    assert not left_in_spanish


@pytest.mark.parametrize(("lang", "none", "some"), [
    ("es", "En la mesa no hay ni un tonto", "En la mesa hay dos tontos"),
    ("en", "Not one two on the table", "The table holds two twos")])
def test_a_reveal_with_none_of_the_face_says_none_not_zero(lang: str, none: str,
                                                           some: str) -> None:
    tr = Tr(lang)

    def lines(held: int) -> list[str]:
        result = RoundResult(round_no=1, kind="dudo", caller=1, target=0, bid=Bid(3, 2),
                             held=held, dice=((3, 4), (5, 6)), losses={0: 1}, gains={},
                             banked={}, eliminated=(), shots=(), next_opener=0)
        return words.result_lines(tr, ["Ana", "Beto"], result)

    assert lines(0)[1] == none and lines(2)[1] == some
