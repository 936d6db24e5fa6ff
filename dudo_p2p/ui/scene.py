"""Screens as small classes, in the manner of pyspacewar's UI modes.

A :class:`Scene` is entered and left by the app, gets every pygame event, is updated with the
injected clock's time and draws itself on the 1280x800 logical canvas. ``animating`` tells the
app whether to run at 60 fps (something moves) or sleep until the next event.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import pygame

from dudo_p2p.ui import widgets
from dudo_p2p.ui.i18n import Tr

if TYPE_CHECKING:
    from dudo_p2p.session import Session
    from dudo_p2p.ui.request import TableRequest
    from dudo_p2p.ui.settings import Settings
    from dudo_p2p.ui.sound import SoundBank

#: While idle, a scene looks at the input queue this often (seconds).
INPUT_SLICE_S = 0.02


class Host(Protocol):
    """What a scene may ask of the app: language, time, switching screens, starting tables."""

    tr: Tr
    clock: Callable[[], float]
    settings: Settings  # volume, mute, reduced motion (persisted when the app has a file)
    sounds: SoundBank  # every sound the scenes play goes through it
    records_folder: Path  # where "Open a record" looks for game records (replay_records.py)

    def switch(self, scene: Scene) -> None:
        """Leave the current scene and enter ``scene``."""

    def quit(self) -> None:
        """End the program after this frame."""

    def start_table(self, request: TableRequest) -> None:
        """Open a session for ``request`` and switch to its table (or say why it cannot)."""

    def show_lobby(self) -> None:
        """Go back to the lobby (closing any table)."""

    def continue_with(self, session: Session, request: TableRequest) -> None:
        """Switch to the table ``session`` plays, which took the current one over (one more
        game): the current session is not closed."""

    def back_to_lobby(self, text: str) -> None:
        """Go back to the lobby (closing any table) showing ``text`` there."""

    def toggle_language(self) -> None:
        """Switch between Spanish and English."""

    def toggle_fullscreen(self) -> None:
        """Switch between a window and the full screen (F11)."""


class Scene:
    """Base screen: no buttons, draws nothing, never animates."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.buttons: list[widgets.Button] = []
        self.mouse: tuple[int, int] = (0, 0)

    @property
    def tr(self) -> Tr:
        """The host's translator (the language may change while a scene is shown)."""
        return self.host.tr

    def enter(self) -> None:
        """Called once when the scene becomes current."""

    def leave(self) -> None:
        """Called once when another scene replaces this one."""

    def handle_event(self, event: pygame.event.Event) -> None:
        """Route one pygame event: mouse clicks to the buttons, keys to :meth:`handle_key`."""
        if event.type == pygame.MOUSEMOTION:
            self.mouse = event.pos
        elif event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            self.mouse = event.pos
            if not widgets.click(self.buttons, event.pos):
                self.handle_click(event.pos)
        elif event.type == pygame.KEYDOWN:
            self.handle_key(event.key, event.mod)

    def handle_key(self, key: int, mod: int) -> None:
        """A key press not taken by a widget."""

    def handle_click(self, pos: tuple[int, int]) -> None:
        """A left click that hit no button."""

    def update(self, now: float) -> None:
        """Advance to time ``now`` (seconds on the injected clock)."""

    def animating(self, now: float) -> bool:
        """True while something moves and the app should draw at 60 fps."""
        return False

    def wait_input(self, timeout: float) -> list[pygame.event.Event]:
        """Sleep up to ``timeout`` s or until input arrives (or :meth:`nap` ends early);
        return the input."""
        # Not pygame.event.wait: SDL's wait polls its queue every millisecond, 3-4 % of a core
        # for an idle window (measured under Xvfb and the dummy driver); naps of
        # INPUT_SLICE_S between looks cost 0.7 % and keep input within about a frame.
        end = time.monotonic() + timeout
        while True:
            events = pygame.event.get()
            remaining = end - time.monotonic()
            if events or remaining <= 0:
                return events
            if self.nap(min(remaining, INPUT_SLICE_S)):
                return []

    def nap(self, seconds: float) -> bool:
        """Sleep ``seconds`` between looks at the input queue; True to stop waiting at once.
        A scene with a networked session overrides it to run its peer meanwhile."""
        time.sleep(seconds)
        return False

    @property
    def screenshot_ready(self) -> bool:
        """True when ``--screenshot`` may take its picture now (the table's, once it shows a
        bid: table_core.py); other screens never."""
        return False

    def take_changed(self) -> bool:
        """True (once) when the screen must be drawn again though no input came; scenes that
        know when they change override it, so an idle table costs no drawing at all."""
        return True

    def draw(self, surface: pygame.Surface) -> None:
        """Draw the whole screen (and rebuild ``self.buttons`` for hit testing)."""

    def draw_buttons(self, surface: pygame.Surface) -> None:
        """Draw every button of the last layout."""
        for b in self.buttons:
            b.draw(surface, self.mouse)
