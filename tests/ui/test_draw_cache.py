"""What the frame-time savings cache draws exactly what drawing afresh would."""

from __future__ import annotations

import pygame
import pytest

from dudo_p2p.ui import draw
from dudo_p2p.ui.table_layout import TABLE_RECT


@pytest.mark.parametrize("palifico", [False, True])
def test_the_cached_felt_is_pixel_identical_to_drawing_it(palifico: bool) -> None:
    fresh = pygame.Surface((1280, 800))
    draw.background(fresh)
    draw._draw_felt(fresh, TABLE_RECT, palifico)
    cached = pygame.Surface((1280, 800))
    draw.background(cached)
    draw.felt(cached, TABLE_RECT, palifico=palifico)  # builds the image
    draw.felt(cached, TABLE_RECT, palifico=palifico)  # blits it again, from the cache
    assert pygame.image.tobytes(fresh, "RGB") == pygame.image.tobytes(cached, "RGB")


def test_wrap_gives_the_same_lines_each_time_and_they_cannot_be_changed() -> None:
    text = "Ronda 4: En la mesa hay seis cuadras. Jugador pierde un dado"
    first = draw.wrap(text, 21, 298)
    assert draw.wrap(text, 21, 298) == first and len(first) == 2
    assert isinstance(first, tuple)  # a shared cached value must be immutable
