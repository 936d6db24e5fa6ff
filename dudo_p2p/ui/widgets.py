"""Buttons and a text field: the only interactive widgets the scenes need.

Scenes rebuild their buttons on every layout (labels depend on the language and the state),
then route mouse events through :func:`click`. A disabled button is drawn but never fires.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pygame

from dudo_p2p.ui import draw, theme
from dudo_p2p.ui.theme import Color


@dataclass
class Button:
    """A clickable rectangle: ``action`` runs on a left click when ``enabled``."""

    rect: pygame.Rect
    label: str
    action: Callable[[], object]
    enabled: bool = True
    color: Color = theme.BUTTON
    size: int = 30
    hotkey: str = ""
    name: str = ""  # a stable id, so tests can find a button whatever the language

    def draw(self, surface: pygame.Surface, mouse: tuple[int, int]) -> None:
        """Draw the button, lit when the mouse is over it."""
        draw.button(
            surface,
            self.rect,
            self.label,
            enabled=self.enabled,
            hover=self.rect.collidepoint(mouse),
            color=self.color,
            size=self.size,
            hotkey=self.hotkey,
        )


def click(buttons: Sequence[Button], pos: tuple[int, int]) -> bool:
    """Fire the enabled button under ``pos``; returns True when a button took the click."""
    for b in buttons:
        if b.rect.collidepoint(pos):
            if b.enabled:
                b.action()
            return True
    return False


def find(buttons: Sequence[Button], name: str) -> Button:
    """The button called ``name``; raises KeyError when there is none (a test helper too)."""
    for b in buttons:
        if b.name == name:
            return b
    raise KeyError(name)


@dataclass
class TextField:
    """A one-line text entry (host:port, a player's name). Typing goes in while ``focused``:
    characters in ``allowed`` (any printable one when ``allowed`` is None), up to
    ``max_len`` of them."""

    rect: pygame.Rect
    value: str = ""
    focused: bool = False
    max_len: int = 64
    allowed: str | None = field(
        default="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.:-[]_"
    )
    size: int = 26  # font size of the value

    def handle(self, event: pygame.event.Event) -> bool:
        """Take a key or text event when focused; returns True when it was consumed."""
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            self.focused = self.rect.collidepoint(event.pos)
            return self.focused
        if not self.focused:
            return False
        if event.type == pygame.TEXTINPUT:
            for ch in event.text:
                ok = ch.isprintable() if self.allowed is None else ch in self.allowed
                if ok and len(self.value) < self.max_len:
                    self.value += ch
            return True
        if event.type == pygame.KEYDOWN and event.key == pygame.K_BACKSPACE:
            self.value = self.value[:-1]
            return True
        return False

    def draw(self, surface: pygame.Surface, placeholder: str) -> None:
        """Draw the box, its value (or a dim placeholder) and a caret when focused."""
        pygame.draw.rect(surface, (250, 244, 230), self.rect, border_radius=8)
        edge = theme.GOLD if self.focused else theme.PANEL_EDGE
        pygame.draw.rect(surface, edge, self.rect, width=3, border_radius=8)
        shown = self.value or placeholder
        col = theme.INK if self.value else theme.DIM
        r = draw.text(surface, shown, (self.rect.left + 12, self.rect.centery), self.size, col,
                      anchor="midleft", shadow=False, max_width=self.rect.width - 24)
        if self.focused:
            x = r.right + 3 if self.value else self.rect.left + 12
            top, bottom = self.rect.top + 8, self.rect.bottom - 8
            pygame.draw.line(surface, theme.INK, (x, top), (x, bottom), 2)
