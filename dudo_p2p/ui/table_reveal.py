"""Drawing the reveal and table talk over the live table: each seat's revealed dice (the
ones that counted ringed, pulsing, with a count badge), the verdict in the centre, dice
flying off and in, and the talk bubbles.

Reads the scene's state; never talks to the session.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import pygame

from dudo_p2p.rules import RoundResult
from dudo_p2p.ui import draw, theme, words
from dudo_p2p.ui.motion import FLY_S, PULSE_S, ease_out, lerp, pulse_scale
from dudo_p2p.ui.table_layout import CENTER, TABLE_RECT, dice_row, plate_rect, seat_pos

if TYPE_CHECKING:
    from dudo_p2p.ui.table_core import TableCore


def _counts(face: int, die: int, wild: bool) -> bool:
    return die == face or (wild and face != 1 and die == 1)


def revealed_dice(scene: TableCore, surface: pygame.Surface, seat: int,
                   center: tuple[int, int]) -> None:
    reveal = scene.model.reveal
    assert reveal is not None
    dice = reveal.result.dice[seat]
    bid = reveal.result.bid
    lit = lit_dice(reveal.result, reveal.wild, seat)
    # the dice that counted beat together once every cup is up (size 30 when still)
    beat = scene.motion.progress(scene.now, reveal.film.all_up, PULSE_S)
    dice_row(surface, center, dice, 30, lit, lit_size=int(30 * pulse_scale(beat)))
    if lit is not None and bid is not None and reveal.result.kind in COUNTED_KINDS:
        # how many of this seat's dice counted for the bid, so the table can add them up
        badge = count_badge_center(center)
        color = theme.GOLD if lit else theme.BUTTON_DISABLED
        pygame.draw.circle(surface, color, badge, 14)
        pygame.draw.circle(surface, theme.INK, badge, 14, width=2)
        draw.text(surface, str(len(lit)), badge, 22, theme.INK if lit else theme.CREAM,
                  anchor="center", shadow=False)


COUNTED_KINDS = ("dudo", "calzo", "matar")  # calls settled by counting the bid's face


def lit_dice(result: RoundResult, wild: bool, seat: int) -> set[int] | None:
    """Which of ``seat``'s revealed dice decided the call (ringed; the others dimmed), or None
    to show them all plainly. A count call: the dice showing the bid's face (aces too when
    wild). A doubted picado: the claimer's aces. A doubted pass: none stand out (the hand
    as a whole qualified or not)."""
    dice = result.dice[seat]
    if result.kind in COUNTED_KINDS and result.bid is not None:
        face = result.bid.face
        return {i for i, d in enumerate(dice) if _counts(face, d, wild)}
    if result.kind == "picado" and seat == result.target:
        return {i for i, d in enumerate(dice) if d == 1}
    return None


def count_badge_center(row_center: tuple[int, int]) -> tuple[int, int]:
    """Where a seat's "dice that counted" badge sits: above the middle of its revealed row."""
    return row_center[0], row_center[1] - 34


def flying_dice(scene: TableCore, surface: pygame.Surface) -> None:
    """Once every cup is up, a lost die flies from its seat's plate off the table, and a won
    die flies in from the centre to the plate (nothing is drawn once they land)."""
    reveal, view = scene.model.reveal, scene.view
    assert reveal is not None and view is not None
    t = scene.motion.progress(scene.now, reveal.film.all_up, FLY_S)
    if t >= 1.0 or scene.now < reveal.film.all_up:
        return
    me, n = scene.session.seat, view.state.n_seats
    eased = ease_out(t)
    for seat in reveal.result.losses:
        plate = plate_rect(seat_pos(seat, me, n))
        start = plate.midright
        # away from the table's centre, in a little hop, spinning and shrinking
        dx, dy = start[0] - CENTER[0], start[1] - CENTER[1]
        norm = max(1.0, math.hypot(dx, dy))
        out = (int(start[0] + 240 * dx / norm), int(start[1] + 240 * dy / norm))
        x, y = lerp(start, out, eased)
        y -= int(70 * math.sin(math.pi * t))
        draw.die(surface, (x, y), max(12, int(44 * (1 - 0.5 * t))), 1 + seat % 6,
                 angle=360 * t)
    for seat in reveal.result.gains:
        plate = plate_rect(seat_pos(seat, me, n))
        draw.die(surface, lerp(CENTER, plate.midright, eased), 26, 1 + seat % 6,
                 angle=360 * (1 - t), highlight=True)


def reveal_center(scene: TableCore, surface: pygame.Surface) -> None:
    reveal = scene.model.reveal
    assert reveal is not None
    cx, cy = CENTER[0], CENTER[1] + 14
    # said in the language shown now (the menu may switch it while the cups are up)
    lines = words.result_lines(scene.tr, scene.names, reveal.result)
    box = pygame.Rect(0, 0, 450, 60 + 32 * len(lines))
    box.center = (cx, cy)
    draw.panel(surface, box, (30, 20, 14), theme.GOLD, alpha=215)
    draw.text(surface, scene.tr("reveal.title"), (cx, box.top + 24), 38, theme.GOLD,
              anchor="center")
    y = box.top + 58
    for i, line in enumerate(lines):
        color = theme.CREAM if i < 2 else theme.GOLD
        draw.text(surface, line, (cx, y), 27, color, anchor="center", max_width=box.width - 24)
        y += 32
    draw.text(surface, scene.tr("reveal.continue"), (cx, box.bottom + 18), 22, theme.CREAM,
              anchor="center")


BUBBLE_SIZE = 24


def bubbles(scene: TableCore, surface: pygame.Surface) -> None:
    """Table talk: each phrase still up, as a bubble over its seat's cup (under the plate for
    the seats along the top, whose cups touch the top bar)."""
    view = scene.view
    assert view is not None
    n, me = view.state.n_seats, scene.session.seat
    for seat, key in scene.model.talk.shown(scene.now).items():
        x, y = seat_pos(seat, me, n)
        text = scene.tr(key)
        width = min(260, theme.font(BUBBLE_SIZE).size(text)[0] + 28)
        box = pygame.Rect(0, 0, width, 40)
        if y < CENTER[1] - 100:
            box.midtop = (x, plate_rect((x, y)).bottom + 10)
        else:
            box.midbottom = (x, y - 56)
        box.clamp_ip(TABLE_RECT)
        draw.panel(surface, box, theme.CREAM, theme.GOLD_DARK, radius=16)
        draw.text(surface, text, box.center, BUBBLE_SIZE, theme.INK, anchor="center",
                  shadow=False, max_width=box.width - 16)
