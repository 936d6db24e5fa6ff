"""Synthetic input for the scenes: key presses and clicks as pygame events."""

from __future__ import annotations

import pygame

from dudo_p2p.bots import make_bot
from dudo_p2p.session import Session
from dudo_p2p.ui import draw, theme, widgets
from dudo_p2p.ui.app import App
from dudo_p2p.ui.local_tables import local_factory
from dudo_p2p.ui.request import TableRequest


def key(app: App, k: int) -> None:
    """Press and handle key ``k`` through the app's dispatch."""
    app.dispatch(pygame.event.Event(pygame.KEYDOWN, key=k, mod=0, unicode="", scancode=0))


def click(app: App, pos: tuple[int, int]) -> None:
    """Left click at ``pos`` (canvas pixels)."""
    app.dispatch(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1))


def click_button(app: App, name: str) -> widgets.Button:
    """Draw a frame (which lays the buttons out), then click the button called ``name``."""
    app.frame()
    button = widgets.find(app.scene.buttons, name)
    click(app, button.rect.center)
    return button


def bot_tables(request: TableRequest) -> Session:
    """In-process tables with the real bots (the CLI's wiring, without the network)."""
    return local_factory(request, bot_maker=lambda level, rng: make_bot(level, rng).decide)


class TextRecorder:
    """Wraps ``draw.text`` to record every string a frame draws and where (its rect and the
    ``max_width`` it was given), so tests read the screen as words instead of pixels."""

    def __init__(self) -> None:
        self.drawn: list[tuple[str, pygame.Rect, int | None]] = []
        self.styles: list[tuple[int, tuple[int, int, int]]] = []  # (size, colour) of each
        self._real = draw.text

    def __call__(self, surface: pygame.Surface, message: str, pos: tuple[int, int],
                 size: int = 28, color: tuple[int, int, int] = theme.CREAM, *,
                 anchor: str = "topleft", shadow: bool = True,
                 max_width: int | None = None) -> pygame.Rect:
        rect = self._real(surface, message, pos, size, color, anchor=anchor, shadow=shadow,
                          max_width=max_width)
        self.drawn.append((message, rect, max_width))
        self.styles.append((size, color))
        return rect

    def frame(self, app: App) -> list[str]:
        """Draw one frame (without advancing the scene) and return the strings it drew."""
        self.drawn = []
        self.styles = []
        app.frame(update=False)
        return [m for m, _, _ in self.drawn]
