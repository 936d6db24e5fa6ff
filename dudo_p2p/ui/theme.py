"""Colours, sizes and the font cache of the table.

Warm palette: a deep green felt inside a wooden rail, cream text, gold for what matters now
(whose turn, the dice that count). Everything is laid out on a logical 1280x800 canvas;
``app`` scales that canvas to the window, so scenes never think about the window size.
"""

from __future__ import annotations

import pygame

WIDTH, HEIGHT = 1280, 800
SIZE = (WIDTH, HEIGHT)

Color = tuple[int, int, int]

BG = (38, 24, 18)  # dark walnut behind the table
BG_LIGHT = (62, 40, 28)
PANEL = (52, 34, 24)
PANEL_EDGE = (110, 78, 50)
FELT = (22, 102, 62)
FELT_DARK = (14, 70, 42)
FELT_PALIFICO = (120, 34, 40)  # a palifico round turns the cloth wine red
FELT_PALIFICO_DARK = (80, 20, 26)
RAIL = (120, 70, 36)
RAIL_LIGHT = (168, 108, 58)
CREAM = (246, 234, 208)
MUTED = (196, 176, 146)
DIM = (140, 124, 104)
# Hints (keys, "P: probability", the lobby's help line): quiet, yet 4.5:1 on the panels, as
# small text needs; DIM (3.7:1) was too faint to read at 19 px.
HINT = (170, 152, 126)
GOLD = (240, 190, 70)
GOLD_DARK = (170, 122, 30)
RED = (214, 70, 60)
GREEN = (110, 200, 120)
INK = (30, 22, 16)
DIE = (250, 246, 236)
DIE_EDGE = (160, 150, 130)
PIP = (28, 24, 22)
PIP_ACE = (190, 30, 36)  # the ace's single pip is red, as on real Spanish dice
CUP = (112, 52, 30)
CUP_DARK = (74, 32, 18)
CUP_RIM = (150, 80, 44)
BUTTON = (176, 112, 48)
BUTTON_DISABLED = (92, 78, 66)
BUTTON_DANGER = (170, 48, 40)
BUTTON_CALZO = (40, 110, 150)
SHADOW = (0, 0, 0)

_fonts: dict[int, pygame.font.Font] = {}


def font(size: int) -> pygame.font.Font:
    """Return pygame's default font (freesansbold, covers ¡ ñ á) at ``size`` px, cached."""
    cached = _fonts.get(size)
    if cached is None:
        if not pygame.font.get_init():
            pygame.font.init()
        cached = pygame.font.Font(None, size)
        _fonts[size] = cached
    return cached
