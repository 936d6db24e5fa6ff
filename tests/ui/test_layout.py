"""Text stays where it belongs: inside the canvas, inside its button, its seat's plate (clear
of the dice left) and its panel, with long names, fingerprints and addresses from the network,
in Spanish and English, through whole games at 3 and 6 seats and in the lobby."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable

import pygame
import pytest

from dudo_p2p.bots import make_bot
from dudo_p2p.rules import RuleSet
from dudo_p2p.session import PlayerInfo, PlayerLeft, Session
from dudo_p2p.session.local import LocalSession
from dudo_p2p.ui import draw, side_panel, table_composer, table_layout, theme
from dudo_p2p.ui.app import App
from dudo_p2p.ui.lobby import LobbyScene
from dudo_p2p.ui.request import TableListing, TableRequest
from dudo_p2p.ui.table import TableScene
from dudo_p2p.ui.table_layout import own_hand_rect

from .conftest import FakeClock
from .helpers import TextRecorder, play_our_seat

# 32 characters each (the longest name a beacon carries), wide letters, one with no space
LONG_NAMES = ("", "Wenceslao Wolfgang Wiedermann Ww", "W" * 32, "Maximiliana de los Ángeles M",
              "MMMMMMMMMMMMMMMM MMMMMMMMMMMMMMM", "Ñ" * 32)
CANVAS = pygame.Rect(0, 0, theme.WIDTH, theme.HEIGHT)
TOP_BAR = pygame.Rect(0, 0, theme.WIDTH, 56)


class _LongNamedTable(LocalSession):
    """A local table whose players look like strangers from the LAN: long fingerprints, a
    bot tag, one seat disconnected."""

    def players(self) -> tuple[PlayerInfo, ...]:
        return tuple(dataclasses.replace(p, fingerprint="a1b2c3d4e5f6a7b8",
                                         connected=p.seat != 2)
                     for p in super().players())


def _factory(clock: FakeClock) -> Callable[[TableRequest], Session]:
    def make(request: TableRequest) -> Session:
        n = request.bots + 1
        rng = random.Random(request.seed)
        bots = {i: make_bot("normal", random.Random(i)).decide for i in range(1, n)}
        table = _LongNamedTable(request.rules, n, {0}, bots, rng, clock, names=LONG_NAMES[:n])
        table._events.append(PlayerLeft(2, "timeout"))  # a toast and a log line with a name
        return table
    return make


def _misplaced(rec: TextRecorder, scene: TableScene) -> list[str]:
    """Every text of the last frame that runs out of where it belongs."""
    bad = [f"off canvas: {m!r} {r}" for m, r, _ in rec.drawn if not CANVAS.contains(r)]
    for b in scene.buttons:
        for m, r, _ in rec.drawn:
            if r.center == b.rect.center and not b.rect.contains(r):
                bad.append(f"out of button {b.name}: {m!r} {r} in {b.rect}")
    if scene.overlay is not None or scene.model.winner is not None or scene.view is None:
        return bad
    view = scene.view
    n = view.state.n_seats
    me = scene.session.seat
    for seat in range(n):
        plate = table_layout.plate_rect(table_layout.seat_pos(seat, me, n))
        strip = table_layout.dice_strip(plate, view.dice_counts[seat])
        for m, r, _ in rec.drawn:
            inside = plate.collidepoint(r.topleft) or plate.collidepoint(r.center)
            if inside and (not plate.contains(r)
                           or (r.colliderect(strip) and view.dice_counts[seat] > 0)):
                bad.append(f"out of plate {seat}: {m!r} {r} in {plate}, dice {strip}")
    panels = [TOP_BAR, side_panel.SIDE, table_composer.COMPOSER, own_hand_rect()]
    for m, r, _ in rec.drawn:
        for panel in panels:
            if panel.collidepoint(r.center) and not panel.contains(r):
                bad.append(f"out of panel {panel}: {m!r} {r}")
    return bad


@pytest.mark.parametrize(("lang", "bots"), [("es", 2), ("en", 2), ("es", 5), ("en", 5)])
def test_table_text_stays_inside_its_place_through_a_game(
        clock: FakeClock, surface: pygame.Surface, monkeypatch: pytest.MonkeyPatch,
        lang: str, bots: int) -> None:
    rec = TextRecorder()
    monkeypatch.setattr(draw, "text", rec)
    app = App(_factory(clock), lang, clock, surface=surface, bot_delay=0.0, reveal_hold=0.0)
    app.start_table(TableRequest("bots", bots=bots, seed=bots,
                                 rules=RuleSet(starting_dice=3)))
    scene = app.scene
    assert isinstance(scene, TableScene)
    checked = 0
    bad: list[str] = []
    for step in range(3000):
        clock.advance(0.05)
        app.frame()
        if step % 2 == 0 or scene.model.reveal is not None or scene.model.winner is not None:
            scene.looking = step % 2 == 0
            rec.frame(app)
            bad += _misplaced(rec, scene)
            checked += 1
        if scene.model.winner is not None and scene.model.reveal is None:
            break
        play_our_seat(app, scene, choice=1, doubt=step % 3 == 0)
    assert scene.model.winner is not None and checked > 10
    for overlay in ("menu", "rules"):
        scene.overlay = overlay
        rec.frame(app)
        bad += _misplaced(rec, scene)
    assert not bad, "\n".join(sorted(set(bad))[:20])


@pytest.mark.parametrize("lang", ["es", "en"])
def test_lobby_text_stays_inside_its_place(clock: FakeClock, surface: pygame.Surface,
                                           monkeypatch: pytest.MonkeyPatch, lang: str) -> None:
    class Directory:
        def tables(self) -> list[TableListing]:
            return [TableListing("K7Q2P", "[fe80::1234:5678:9abc:def0%wlp3s0]:65535", 5, 6),
                    TableListing("K7Q2P", "192.168.100.200:65535", 5, 6)]

    rec = TextRecorder()
    monkeypatch.setattr(draw, "text", rec)
    app = App(_factory(clock), lang, clock, surface=surface, directory=Directory())
    lobby = app.scene
    assert isinstance(lobby, LobbyScene)
    app.frame()
    lobby.message = app.tr("error.session", why="x" * 40 + " could not bind 0.0.0.0:47474 " * 3)
    for page in range(4):
        lobby.page = page
        rec.frame(app)
        bad = [f"off canvas: {m!r} {r}" for m, r, _ in rec.drawn if not CANVAS.contains(r)]
        for b in lobby.buttons:
            bad += [f"{m!r} out of {b.name}" for m, r, _ in rec.drawn
                    if r.center == b.rect.center and not b.rect.contains(r)]
        join = [b.rect for b in lobby.buttons
                if b.name.startswith("join_") and b.name[5:].isdigit()]
        assert len(join) == 2
        bad += [f"{m!r} under a Join button" for m, r, _ in rec.drawn
                for j in join if r.colliderect(j) and r.center != j.center]
        assert not bad, "\n".join(bad)


def test_fit_shrinks_then_cuts_and_never_widens() -> None:
    assert draw.fit("Dudo", 30, 500) == ("Dudo", 30)
    text, size = draw.fit("Sentido antihorario", 40, 250)
    assert text == "Sentido antihorario" and size < 40
    assert theme.font(size).size(text)[0] <= 250
    text, size = draw.fit("W" * 40, 30, 200)
    assert text.endswith("…") and theme.font(size).size(text)[0] <= 200
    lines = draw.wrap("Ana y " + "W" * 60, 21, 200)
    assert len(lines) > 2 and all(theme.font(21).size(line)[0] <= 200 for line in lines)
