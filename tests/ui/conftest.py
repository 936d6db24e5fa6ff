"""Headless pygame for every UI test: SDL's dummy video and audio drivers, set before pygame
is imported, a 1280x800 surface to draw on (no window), a clock the test moves by hand and a
recorder of the words each frame draws."""

from __future__ import annotations

import os

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from collections.abc import Iterator

import pygame
import pytest

from dudo_p2p.node.node import Node
from dudo_p2p.ui import draw
from dudo_p2p.ui.drive import HandClock

from .helpers import TextRecorder


@pytest.fixture(scope="session", autouse=True)
def _pygame_headless() -> Iterator[None]:
    pygame.display.init()
    pygame.font.init()
    yield
    pygame.display.quit()


# a clock tests move by hand (seconds), from 1000.0
FakeClock = HandClock


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


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> TextRecorder:
    """Every string the frames draw, and where (``draw.text`` recorded: helpers.py)."""
    rec = TextRecorder()
    monkeypatch.setattr(draw, "text", rec)
    return rec
