"""Every text on the lobby and the table reads against what is behind it: WCAG contrast of at
least 4.5:1 for small text (under 24 px) and 3:1 for large, measured on the drawn frame, with
buttons hovered too. (Hotkey marks under 19 px on buttons repeat the key help and are left
out; the frames are drawn with the cups at rest.)"""

from __future__ import annotations

import pygame
import pytest

from dudo_p2p.ui import draw
from dudo_p2p.ui.app import App
from dudo_p2p.ui.request import TableRequest
from dudo_p2p.ui.table import TableScene

from .conftest import FakeClock
from .helpers import TextRecorder, bot_tables, play_our_seat


def _luminance(c: tuple[int, ...]) -> float:
    def channel(v: int) -> float:
        x = v / 255
        return x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4
    return 0.2126 * channel(c[0]) + 0.7152 * channel(c[1]) + 0.0722 * channel(c[2])


def contrast(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _faint(rec: TextRecorder, surface: pygame.Surface) -> set[str]:
    """Texts of the last frame fainter than they may be (the background is read at the text
    rectangle's corner, which the glyphs leave free)."""
    bad = set()
    for (message, rect, _), (size, color) in zip(rec.drawn, rec.styles, strict=True):
        if size < 19 or not message.strip() or not surface.get_rect().contains(rect):
            continue
        behind = tuple(surface.get_at(rect.topleft))[:3]
        need = 4.5 if size < 24 else 3.0
        ratio = contrast(color, behind)
        if ratio < need:
            bad.add(f"{message[:40]!r} {size}px {color} on {behind}: {ratio:.2f} < {need}")
    return bad


def test_lobby_and_table_text_is_readable_hovered_or_not(
        clock: FakeClock, surface: pygame.Surface, monkeypatch: pytest.MonkeyPatch) -> None:
    rec = TextRecorder()
    monkeypatch.setattr(draw, "text", rec)
    app = App(bot_tables, "es", clock, surface=surface, bot_delay=0.0, reveal_hold=0.0)
    rec.frame(app)
    bad = _faint(rec, surface)
    for button in list(app.scene.buttons):
        app.scene.mouse = button.rect.center  # hovered
        rec.frame(app)
        bad |= _faint(rec, surface)
    app.scene.mouse = (0, 0)
    app.start_table(TableRequest("bots", bots=3, seed=5))
    scene = app.scene
    assert isinstance(scene, TableScene)
    frames = 0
    for step in range(1500):
        clock.advance(0.05)
        app.frame()
        if scene.model.winner is not None:
            break
        if scene.overlay is None and step % 3 == 0:
            scene.looking = step % 2 == 0
            # at rest: the cups done shaking or lifting (a rising cup covers what it reveals)
            scene.shake_started = None
            if scene.model.reveal is not None:
                scene.model.reveal.started = clock.now - 5.0
            rec.frame(app)
            bad |= _faint(rec, surface)
            frames += 1
            if scene.my_turn:
                for button in list(scene.buttons):
                    scene.mouse = button.rect.center
                    rec.frame(app)
                    bad |= _faint(rec, surface)
                scene.mouse = (0, 0)
        play_our_seat(app, scene, doubt=step % 2 == 0)
    assert frames > 20
    assert not bad, "\n".join(sorted(bad))
