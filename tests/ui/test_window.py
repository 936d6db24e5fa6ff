"""The real window (SDL's dummy driver): it cannot be shrunk below a readable size, and after
a resize the letterboxed canvas still takes clicks where its buttons are drawn."""

from __future__ import annotations

from collections.abc import Iterator

import pygame
import pytest

from dudo_p2p.ui import theme, widgets
from dudo_p2p.ui.app import MIN_WINDOW, App
from dudo_p2p.ui.lobby import LobbyScene

from .conftest import FakeClock
from .helpers import bot_tables, click


@pytest.fixture
def window_app(clock: FakeClock) -> Iterator[App]:
    app = App(bot_tables, "es", clock, bot_delay=0.0, reveal_hold=0.0)
    app.open_window()
    yield app
    pygame.display.quit()  # the other tests draw on plain surfaces, with no window
    pygame.display.init()


def _resize(app: App, size: tuple[int, int]) -> tuple[int, int]:
    """Ask the window manager for ``size``, tell the app as SDL would; the size it got."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        window = pygame.Window.from_display_module()
    window.size = size
    app.dispatch(pygame.event.Event(pygame.VIDEORESIZE, size=window.size, w=window.size[0],
                                    h=window.size[1]))
    return window.size


def test_the_window_does_not_shrink_below_a_readable_size(window_app: App) -> None:
    got = _resize(window_app, (480, 300))
    assert got == MIN_WINDOW
    assert min(got[0] / theme.WIDTH, got[1] / theme.HEIGHT) >= 0.75
    assert window_app.window is not None and window_app.window.get_size() == MIN_WINDOW


@pytest.mark.parametrize("size", [MIN_WINDOW, (1600, 800), (1000, 900)])
def test_after_a_resize_clicks_land_on_the_buttons_drawn(window_app: App,
                                                         size: tuple[int, int]) -> None:
    got = _resize(window_app, size)
    assert got == size
    window_app.frame()
    lobby = window_app.scene
    assert isinstance(lobby, LobbyScene)
    button = widgets.find(lobby.buttons, "bots_5")
    # the canvas point scaled and letterboxed into the window, as the player sees it
    scale = min(size[0] / theme.WIDTH, size[1] / theme.HEIGHT)
    ox = (size[0] - theme.WIDTH * scale) / 2
    oy = (size[1] - theme.HEIGHT * scale) / 2
    cx, cy = button.rect.center
    click(window_app, (int(ox + cx * scale), int(oy + cy * scale)))
    assert lobby.n_bots == 5
    # and the frame really is letterboxed: the bars beside or above the canvas are black
    assert window_app.window is not None
    corner = window_app.window.get_at((0, 0))[:3] if (ox >= 1 or oy >= 1) else (0, 0, 0)
    assert tuple(corner) == (0, 0, 0)


def test_an_idle_scene_naps_instead_of_sdl_wait_and_still_returns_input_at_once(
    window_app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    # SDL's event.wait polls every millisecond (3-4 % of a core for an idle window)
    def no_sdl_wait(*_args: object) -> pygame.event.Event:
        raise AssertionError("pygame.event.wait used")

    monkeypatch.setattr(pygame.event, "wait", no_sdl_wait)
    now = [0.0]
    naps: list[float] = []

    def nap(seconds: float) -> None:  # a fake clock that moves only when the scene naps
        naps.append(seconds)
        now[0] += seconds

    monkeypatch.setattr("dudo_p2p.ui.scene.time.sleep", nap)
    monkeypatch.setattr("dudo_p2p.ui.scene.time.monotonic", lambda: now[0])
    scene = window_app.scene
    pygame.event.clear()
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_l, mod=0, unicode="l"))
    got = scene.wait_input(5.0)
    assert [e.type for e in got] == [pygame.KEYDOWN] and naps == []  # no nap before input
    assert scene.wait_input(0.05) == []
    assert naps == pytest.approx([0.02, 0.02, 0.01])  # short naps, exactly up to the timeout
