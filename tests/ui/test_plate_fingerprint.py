"""A seat's key fingerprint is shown under the pointer, not under every name (issue 15 "Names":
on the waiting room's roster and on a seat's hover)."""

from __future__ import annotations

import dataclasses

import pygame
import pytest

from dudo_p2p.ui import draw
from dudo_p2p.ui.table_layout import plate_rect, seat_pos

from .conftest import FakeClock
from .helpers import TextRecorder, table_app

FP = "KX45-EVE"  # + the seat: each seat's key a stranger's from the LAN


def test_the_fingerprint_shows_on_the_hovered_seat_only(
        clock: FakeClock, surface: pygame.Surface, monkeypatch: pytest.MonkeyPatch) -> None:
    app, scene = table_app(clock, surface, "es", bots=2)
    app.frame()
    scene.players = [dataclasses.replace(p, fingerprint=f"{FP}{p.seat}") for p in scene.players]
    recorder = TextRecorder()
    monkeypatch.setattr(draw, "text", recorder)
    shown = recorder.frame(app)
    assert not any(t.startswith(FP) for t in shown), shown
    view = scene.view
    assert view is not None
    other = next(s for s in (1, 2) if s != view.to_act)  # the one to act says "pensando..."
    for seat in (scene.session.seat, other):
        plate = plate_rect(seat_pos(seat, scene.session.seat, view.state.n_seats))
        app.dispatch(pygame.event.Event(pygame.MOUSEMOTION, pos=plate.center, rel=(0, 0),
                                        buttons=(0, 0, 0)))
        tags = [t for t in recorder.frame(app) if t.startswith(FP)]
        assert len(tags) == 1 and tags[0].startswith(f"{FP}{seat}"), tags  # bots: "· bot"
