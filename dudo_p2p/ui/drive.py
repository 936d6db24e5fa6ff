"""Windows played by synthetic input, with no one at the keyboard: the README pictures of an
evening (``scripts/evening_shots.py``) and the window tests (``tests/ui``) drive the same
screens the same way.

:func:`press` and :func:`click` are a key press (and release) and a left click through the
app's dispatch; :func:`click_button` clicks a button by its stable name; :func:`play_our_seat`
takes one look at a table and plays our seat the quick way (a reveal dismissed, the first
setup choice, ¡dudo! whenever it may, else the composer's bid); :func:`run_tables` runs
several windows over networked sessions in one thread until a condition holds.
:class:`HandClock` is the apps' clock there, moved by hand.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import pygame

from dudo_p2p.rules import Dudo
from dudo_p2p.ui import widgets
from dudo_p2p.ui.app import App
from dudo_p2p.ui.table import TableScene

STEP_S = 0.05  # the apps' clock moves this much per round of frames


class HandClock:
    """A clock (seconds) moved only by :meth:`advance`: pictures and window tests take each
    frame at a moment they chose."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def press(app: App, key: int) -> None:
    """Press and release ``key`` (a key held from one screen to the next is not pressed again
    on it: ``ui/held_keys.py``)."""
    app.dispatch(pygame.event.Event(pygame.KEYDOWN, key=key, mod=0, unicode="", scancode=0))
    app.dispatch(pygame.event.Event(pygame.KEYUP, key=key, mod=0, unicode="", scancode=0))


def click(app: App, pos: tuple[int, int]) -> None:
    """Left click at ``pos`` (canvas pixels)."""
    app.dispatch(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1))


def click_button(app: App, name: str) -> widgets.Button:
    """Draw a frame (which lays the buttons out), then click the button called ``name``
    (KeyError when the screen has none)."""
    app.frame()
    button = widgets.find(app.scene.buttons, name)
    click(app, button.rect.center)
    return button


def play_our_seat(app: App, scene: TableScene, *, choice: int = 0, doubt: bool = True) -> None:
    """One look at the table: dismiss a reveal, or play our turn (¡dudo! when we may and
    ``doubt``, so rounds end fast; else the composer's bid or setup choice number ``choice``)."""
    if scene.model.reveal is not None:
        press(app, pygame.K_SPACE)
    elif scene.my_turn and not scene.blocked:
        if scene.choices():
            click_button(app, f"choice_{choice}")
        elif doubt and scene.offered(Dudo) is not None:
            press(app, pygame.K_d)
        else:
            press(app, pygame.K_RETURN)


def run_tables(apps: Sequence[App], advance: Callable[[float], None],
               until: Callable[[], bool], limit: float) -> None:
    """Every app at a table in turn: its session runs a moment, a frame is drawn, our seat
    played (:func:`play_our_seat`), the apps' clock moved by ``advance`` (:data:`STEP_S`)
    until ``until()``; AssertionError after ``limit`` s of real time."""
    end = time.monotonic() + limit
    while not until():
        if time.monotonic() > end:
            raise AssertionError("the table did not get there in time")
        advance(STEP_S)
        for app in apps:
            scene = app.scene
            if not isinstance(scene, TableScene):
                continue
            scene.session.wait(0.005)
            app.frame()
            if isinstance(app.scene, TableScene):
                play_our_seat(app, app.scene)
