"""Headless pygame for every UI test: SDL's dummy video and audio drivers, set before pygame
is imported, and a 1280x800 surface to draw on (no window)."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from collections.abc import Iterator

import pygame
import pytest

from dudo_p2p.node.node import Node


@pytest.fixture(scope="session", autouse=True)
def _pygame_headless() -> Iterator[None]:
    pygame.display.init()
    pygame.font.init()
    yield
    pygame.display.quit()


class FakeClock:
    """A clock tests move by hand (seconds)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def surface() -> pygame.Surface:
    return pygame.Surface((1280, 800))


@pytest.fixture
def nodes() -> Iterator[list[Node]]:
    """Real nodes a test makes (on loopback): closed at teardown if the test did not."""
    made: list[Node] = []
    yield made
    for node in made:
        if not node.closed:
            node.close()
