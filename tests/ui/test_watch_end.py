"""A spectator's P (the standing bid's chance, from no dice) and its end of the game: no
"Play again" (it played nothing; the button started a new watch of the same address, waiting
for the table for ever when no game followed), the lobby and quit, Enter going to the lobby
(session 10, watchux: seen in headless screenshots of the lobby's Watch)."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pygame
import pytest

from dudo_p2p.rules import Bid
from dudo_p2p.rules.odds import chance_at_least
from dudo_p2p.ui import draw, side_panel, widgets
from dudo_p2p.ui.i18n import Tr
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
    # seat 0, from which a spectator's view is drawn, winning is someone else winning
    # (seen: a removed seat watching the rest was told "You won the game!" when Ana won)
    scene.model.winner = scene.session.seat
    shown = recorder.frame(app)
    assert not any(line in ("You won the game!", "¡Ganaste la partida!") for line in shown)
    assert app.tr("over.title", name=scene.names[scene.session.seat]) in shown
    key(app, pygame.K_RETURN)
    assert isinstance(app.scene, LobbyScene)


@pytest.mark.parametrize(("lang", "chance", "expected"), [
    ("en", "Chance the bid holds: {p}%", "Every die hidden, expected on the table: 3.3 fives"),
    ("es", "Probabilidad de que se cumpla: {p}%",
     "Con todos los dados tapados, esperados en la mesa: 3.3 quinas"),
])
def test_a_spectators_p_shows_the_standing_bids_chance_from_no_dice(
        surface: pygame.Surface, monkeypatch: pytest.MonkeyPatch, lang: str, chance: str,
        expected: str) -> None:
    # session 10 (watchux): a spectator's keys line offers "P probability", and P did
    # nothing (the chance was only drawn from our own dice, and a spectator has none)
    view = SimpleNamespace(standing_bid=Bid(4, 5), own_dice=None, total_dice=10,
                           state=SimpleNamespace(wild=True))
    scene = SimpleNamespace(tr=Tr(lang), view=view, show_prob=True, hotseat=False,
                            looking=False, handover_seat=None, watching=True)
    recorder = TextRecorder()
    monkeypatch.setattr(draw, "text", recorder)
    side_panel._prob_box(scene, surface, 940, 400)  # type: ignore[arg-type]
    shown = [text for text, _, _ in recorder.drawn]
    p = round(chance_at_least(4, 5, (), 10, wild=True) * 100)
    assert chance.format(p=p) in shown
    assert " ".join(shown[1:]) == expected  # (wrapped on lines of the panel)
