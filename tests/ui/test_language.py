"""Switching language: from the lobby before a game (button or L), and in the middle of a game
everything on screen follows at once: the reveal, the log, the toast, the default name."""

from __future__ import annotations

import pygame
import pytest

from dudo_p2p.ui import draw
from dudo_p2p.ui.app import App
from dudo_p2p.ui.lobby import LobbyScene

from .conftest import FakeClock
from .helpers import TextRecorder, bot_tables, click_button, key


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> TextRecorder:
    rec = TextRecorder()
    monkeypatch.setattr(draw, "text", rec)
    return rec


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
