"""Where things sit on the table: the felt, the seats around it, their plates and dice rows.

Pure geometry (and one drawing helper, a row of dice) shared by the live table
(:mod:`~dudo_p2p.ui.table_draw`, :mod:`~dudo_p2p.ui.table_reveal`) and the replay.
"""

from __future__ import annotations

import math

import pygame

from dudo_p2p.ui import draw

TABLE_RECT = pygame.Rect(30, 70, 880, 500)


CENTER = TABLE_RECT.center


SEAT_RX, SEAT_RY = 368, 196


def seat_pos(seat: int, me: int, n: int) -> tuple[int, int]:
    """Screen point of ``seat`` around the oval: ours at the bottom, the rest clockwise in
    increasing seat order (the direction "clockwise" play goes)."""
    rel = (seat - me) % n
    angle = math.pi / 2 + rel * 2 * math.pi / n
    return (int(CENTER[0] + SEAT_RX * math.cos(angle)), int(CENTER[1] + SEAT_RY * math.sin(angle)))


def plate_rect(seat_point: tuple[int, int]) -> pygame.Rect:
    """The name plate of the seat at ``seat_point`` (from :func:`seat_pos`), under its cup."""
    plate = pygame.Rect(0, 0, 190, 62)
    plate.midtop = (seat_point[0], seat_point[1] + 28)
    return plate


def dice_strip(plate: pygame.Rect, count: int) -> pygame.Rect:
    """Where the plate shows ``count`` small blank dice (the dice a seat has left)."""
    return pygame.Rect(plate.right - 14 - count * 15, plate.top + 36, count * 15, 12)


def dice_row(surface: pygame.Surface, center: tuple[int, int], dice: tuple[int, ...],
              size: int, lit: set[int] | None = None, lit_size: int | None = None) -> None:
    step = size + 8
    x0 = center[0] - (len(dice) - 1) * step // 2
    for i, face in enumerate(dice):
        hl = lit is not None and i in lit
        draw.die(surface, (x0 + i * step, center[1]), (lit_size or size) if hl else size, face,
                 highlight=hl, dim=lit is not None and not hl)


def own_hand_rect() -> pygame.Rect:
    """Where our own cup and dice sit (a click there lifts the cup)."""
    return pygame.Rect(16, 606, 318, 186)
