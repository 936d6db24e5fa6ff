"""One Esc from a waiting room goes back to the lobby and never quits the program, even when
pygame repeats it because leaving took a while (``ui/held_keys.py``): once with pygame's own
key repeat on real SDL key events, once event by event."""

from __future__ import annotations

import ctypes
import glob
import os
import time
from collections.abc import Iterator

import pygame
import pytest

from dudo_p2p.node.node import Node
from dudo_p2p.ui.app import App
from dudo_p2p.ui.lobby import LobbyScene
from dudo_p2p.ui.table import TableScene

from .conftest import FakeClock
from .helpers import click, key
from .test_joining import app_on, dead_port, joiner

REPEAT_WITHIN_S = 5.0  # bound on pygame's repeat timer (350 ms) firing, at load
SDL_KEYDOWN, SDL_KEYUP = 0x300, 0x301
SDL_SCANCODE_ESCAPE = 41


class _Keysym(ctypes.Structure):
    _fields_ = [("scancode", ctypes.c_int32), ("sym", ctypes.c_int32),
                ("mod", ctypes.c_uint16), ("unused", ctypes.c_uint32)]


class _KeyEvent(ctypes.Structure):
    _fields_ = [("type", ctypes.c_uint32), ("timestamp", ctypes.c_uint32),
                ("windowID", ctypes.c_uint32), ("state", ctypes.c_uint8),
                ("repeat", ctypes.c_uint8), ("padding2", ctypes.c_uint8),
                ("padding3", ctypes.c_uint8), ("keysym", _Keysym)]


class _Event(ctypes.Union):
    _fields_ = [("key", _KeyEvent), ("padding", ctypes.c_uint8 * 56)]


def sdl() -> ctypes.CDLL:
    """The SDL library pygame runs on (its wheel's copy, else the system's)."""
    here = os.path.dirname(pygame.__file__)
    found = glob.glob(os.path.join(here, os.pardir, "pygame_ce.libs", "libSDL2-2*"))
    try:
        return ctypes.CDLL(found[0] if found else "libSDL2-2.0.so.0")
    except OSError as exc:
        pytest.skip(f"no SDL library to push key events into: {exc}")


def push(lib: ctypes.CDLL, kind: int) -> None:
    """A key event as the keyboard makes it: into SDL's queue, through pygame's filter
    (``pygame.event.post`` bypasses the repeat timer)."""
    event = _Event()
    event.key.type = kind
    event.key.state = 1 if kind == SDL_KEYDOWN else 0
    event.key.keysym.scancode = SDL_SCANCODE_ESCAPE
    event.key.keysym.sym = pygame.K_ESCAPE
    assert lib.SDL_PushEvent(ctypes.byref(event)) == 1


@pytest.fixture
def key_repeat() -> Iterator[None]:
    """The window's key repeat (ui/app.py), on an empty queue; off again afterwards."""
    pygame.event.clear()
    pygame.key.set_repeat(350, 60)
    yield
    pygame.key.set_repeat(0, 0)
    pygame.event.clear()


def waiting_room(clock: FakeClock, surface: pygame.Surface, nodes: list[Node]) -> App:
    port = dead_port()
    app = app_on(joiner(nodes, "Beto", port), clock, surface, "join", f"127.0.0.1:{port}")
    app.frame()
    assert isinstance(app.scene, TableScene) and app.scene.view is None
    return app


def test_one_esc_that_pygame_repeats_while_the_window_leaves_does_not_quit(
        clock: FakeClock, surface: pygame.Surface, nodes: list[Node], key_repeat: None) -> None:
    lib = sdl()
    app = waiting_room(clock, surface, nodes)
    push(lib, SDL_KEYDOWN)  # Esc pressed...
    for event in pygame.event.get():
        app.dispatch(event)
    assert isinstance(app.scene, LobbyScene) and app.running
    # ... and released, but the release is read only after pygame's repeat delay (leaving a
    # waiting room can take that long): pygame has queued the held key again by then
    deadline = time.monotonic() + REPEAT_WITHIN_S
    while not pygame.event.peek(pygame.KEYDOWN):
        assert time.monotonic() < deadline, "pygame never repeated the held key"
        pygame.time.wait(10)
    push(lib, SDL_KEYUP)
    events = pygame.event.get()
    assert [e.type for e in events][-1] == pygame.KEYUP
    assert [e.type for e in events].count(pygame.KEYDOWN) >= 1
    for event in events:
        app.dispatch(event)
    assert app.running, "the repeated Esc quit the program"
    assert isinstance(app.scene, LobbyScene)
    push(lib, SDL_KEYDOWN)  # a new press in the lobby still quits, as it says
    push(lib, SDL_KEYUP)
    for event in pygame.event.get():
        app.dispatch(event)
    assert not app.running


def test_a_key_held_since_another_screen_is_dropped_a_new_press_is_not(
        clock: FakeClock, surface: pygame.Surface, nodes: list[Node]) -> None:
    app = waiting_room(clock, surface, nodes)
    down = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0, unicode="",
                              scancode=SDL_SCANCODE_ESCAPE)
    app.dispatch(down)  # the waiting room: back to the lobby
    lobby = app.scene
    assert isinstance(lobby, LobbyScene)
    app.dispatch(down)  # still held: a repeat
    assert app.running and app.scene is lobby
    click(app, (5, 5))  # the player did something else: the next Esc is a new press
    app.dispatch(down)
    assert not app.running


def test_escape_twice_on_one_screen_still_opens_and_closes_the_menu(
        clock: FakeClock, surface: pygame.Surface) -> None:
    from .helpers import table_app

    app, scene = table_app(clock, surface, "es", bots=1)
    app.frame()
    down = pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0, unicode="",
                              scancode=SDL_SCANCODE_ESCAPE)
    app.dispatch(down)
    assert scene.overlay == "menu"
    app.dispatch(down)  # held on the same screen: repeats act as before
    assert scene.overlay is None
    key(app, pygame.K_ESCAPE)
    assert scene.overlay == "menu"
