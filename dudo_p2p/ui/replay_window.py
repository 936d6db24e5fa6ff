"""Open the replay viewer in a window (or save one step as a PNG), for ``dudo-p2p replay``."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pygame

from dudo_p2p.session import Session
from dudo_p2p.session.replay import Replay
from dudo_p2p.ui.app import App
from dudo_p2p.ui.i18n import default_lang
from dudo_p2p.ui.replay_scene import ReplayScene
from dudo_p2p.ui.request import TableRequest, Unavailable


def _no_tables(request: TableRequest) -> Session:
    raise Unavailable("the replay viewer opens no table")


def open_replay(replay: Replay, *, lang: str | None, step: int, from_start: bool,
                screenshot: Path | None) -> int:
    """Show ``replay`` from ``step`` until Esc, or save that step to ``screenshot``; 0."""
    if screenshot is not None:
        os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # a screenshot needs no screen
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    app = App(_no_tables, lang or default_lang(os.environ), time.monotonic)
    ours = not pygame.display.get_init()  # quit only the display we started
    try:
        if screenshot is None:
            app.open_window()
        else:
            pygame.display.init()
            pygame.font.init()
        scene = ReplayScene(app, replay, from_start=from_start)
        scene.go(step)
        app.switch(scene)
        if screenshot is not None:
            app.frame()
            pygame.image.save(app.canvas, str(screenshot))
            print(f"saved {screenshot}")
            return 0
        return app.run_loop()
    finally:
        if ours:
            pygame.display.quit()
