"""A spectator's end of the game: no "Play again" (it played nothing; the button started a
new watch of the same address, waiting for the table for ever when no game followed), the
lobby and quit, Enter going to the lobby (session 10, watchux: seen in a headless screenshot
of the lobby's Watch at a game's end)."""

from __future__ import annotations

import dataclasses

import pygame
import pytest

from dudo_p2p.ui import widgets
from dudo_p2p.ui.lobby import LobbyScene
from dudo_p2p.ui.table_controls import END_GRACE_S

from .conftest import FakeClock
from .helpers import TextRecorder, key, play_until, table_app


@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_spectators_end_offers_the_lobby_and_quit_not_play_again(
        clock: FakeClock, surface: pygame.Surface, monkeypatch: pytest.MonkeyPatch,
        lang: str) -> None:
    app, scene = table_app(clock, surface, lang, bots=2, seed=3)
    play_until(app, clock, scene, lambda s: s.model.winner is not None)
    # the same end seen by a spectator: the window tells one by its request's kind
    scene.request = dataclasses.replace(scene.request, kind="watch")
    while scene.model.reveal is not None:
        key(app, pygame.K_SPACE)
        app.frame()
    app.frame()
    assert [b.name for b in scene.buttons] == ["lobby", "quit"]
    lobby = widgets.find(scene.buttons, "lobby")
    assert lobby.hotkey == "Enter" and not lobby.enabled  # the grace, as for play again
    key(app, pygame.K_RETURN)
    assert app.scene is scene
    clock.advance(END_GRACE_S)
    app.frame()
    recorder = TextRecorder()
    monkeypatch.setattr("dudo_p2p.ui.draw.text", recorder)
    shown = recorder.frame(app)
    assert not any(line in ("Play again", "Jugar otra vez") for line in shown)
    key(app, pygame.K_RETURN)
    assert isinstance(app.scene, LobbyScene)
