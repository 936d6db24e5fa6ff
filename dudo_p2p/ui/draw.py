"""Drawing primitives: felt, dice with pips, cups, text, panels and buttons.

Pure functions of their arguments onto a surface; no game state, no session. Sizes are in
logical pixels (see ``theme``).
"""

from __future__ import annotations

import functools
import math

import pygame

from dudo_p2p.ui import theme
from dudo_p2p.ui.theme import Color

# Pip positions on a unit square, per face (the usual western die layout).
_PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.27, 0.27), (0.73, 0.73)),
    3: ((0.27, 0.27), (0.5, 0.5), (0.73, 0.73)),
    4: ((0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)),
    5: ((0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)),
    6: ((0.27, 0.25), (0.73, 0.25), (0.27, 0.5), (0.73, 0.5), (0.27, 0.75), (0.73, 0.75)),
}


def text(
    surface: pygame.Surface,
    message: str,
    pos: tuple[int, int],
    size: int = 28,
    color: Color = theme.CREAM,
    *,
    anchor: str = "topleft",
    shadow: bool = True,
    max_width: int | None = None,
) -> pygame.Rect:
    """Draw ``message`` with its ``anchor`` point (a pygame.Rect attribute) at ``pos``.

    ``max_width``: the text never gets wider than this (see :func:`fit`): names, translations
    and fingerprints of any length stay inside their plate, button or bar.
    Returns the rectangle drawn, so callers can stack lines.
    """
    if max_width is not None:
        message, size = fit(message, size, max_width)
    image = _rendered(message, size, color)
    rect = image.get_rect(**{anchor: pos})
    if shadow:
        surface.blit(_rendered(message, size, None), rect.move(2, 2))
    surface.blit(image, rect)
    return rect


@functools.lru_cache(maxsize=1024)
def _rendered(message: str, size: int, color: Color | None) -> pygame.Surface:
    """``message`` rendered at ``size`` in ``color`` (None: its soft drop shadow). Kept: a
    frame shows some sixty texts, nearly all the same as the frame before."""
    if color is None:
        shade = theme.font(size).render(message, True, theme.SHADOW)
        shade.set_alpha(140)
        return shade
    return theme.font(size).render(message, True, color)


MIN_FIT_SCALE = 0.7  # fit() shrinks a text to 70% of its size at most, then cuts it


def fit(message: str, size: int, width: int) -> tuple[str, int]:
    """The ``(text, size)`` to draw ``message`` within ``width`` pixels: the same text at a
    smaller size (down to ``MIN_FIT_SCALE`` of ``size``), else cut with "…" at that size."""
    if theme.font(size).size(message)[0] <= width:
        return message, size
    smallest = max(8, int(size * MIN_FIT_SCALE))
    for trial in range(size - 1, smallest - 1, -1):
        if theme.font(trial).size(message)[0] <= width:
            return message, trial
    return clip(message, smallest, width), smallest


def clip(message: str, size: int, width: int) -> str:
    """``message`` cut with "…" so it fits ``width`` pixels at font ``size`` (unchanged when
    it already fits)."""
    font = theme.font(size)
    if font.size(message)[0] <= width:
        return message
    cut = message
    while cut and font.size(cut + "…")[0] > width:
        cut = cut[:-1]
    return cut.rstrip() + "…"


@functools.lru_cache(maxsize=1024)
def wrap(message: str, size: int, width: int) -> tuple[str, ...]:
    """Split ``message`` into lines that fit ``width`` pixels at font ``size``.

    Cached: the side panel wraps the same messages every frame, and measuring each word was
    a tenth of a frame."""
    font = theme.font(size)
    lines: list[str] = []
    for paragraph in message.split("\n"):
        line = ""
        for word in _split_long_words(paragraph.split(" "), font, width):
            trial = f"{line} {word}" if line else word
            if font.size(trial)[0] <= width or not line:
                line = trial
            else:
                lines.append(line)
                line = word
        lines.append(line)
    return tuple(lines)


def _split_long_words(words: list[str], font: pygame.font.Font, width: int) -> list[str]:
    """Cut any word wider than ``width`` into pieces that fit (a name from the network may be
    one long word; it must not run out of its panel)."""
    out: list[str] = []
    for word in words:
        while font.size(word)[0] > width and len(word) > 1:
            cut = len(word) - 1
            while cut > 1 and font.size(word[:cut])[0] > width:
                cut -= 1
            out.append(word[:cut])
            word = word[cut:]
        out.append(word)
    return out


def text_block(
    surface: pygame.Surface,
    message: str,
    rect: pygame.Rect,
    size: int = 24,
    color: Color = theme.CREAM,
    *,
    line_gap: int = 4,
) -> int:
    """Draw wrapped text inside ``rect`` from its top; returns the y below the last line."""
    y = rect.top
    height = theme.font(size).get_linesize()
    for line in wrap(message, size, rect.width):
        if y + height > rect.bottom:
            break
        text(surface, line, (rect.left, y), size, color, shadow=False)
        y += height + line_gap
    return y


def panel(
    surface: pygame.Surface,
    rect: pygame.Rect,
    color: Color = theme.PANEL,
    edge: Color = theme.PANEL_EDGE,
    *,
    radius: int = 14,
    alpha: int = 255,
) -> None:
    """A rounded panel with a thin edge; ``alpha`` < 255 lets the felt show through."""
    if alpha < 255:
        surface.blit(_panel_layer(rect.size, color, alpha, radius), rect.topleft)
    else:
        pygame.draw.rect(surface, color, rect, border_radius=radius)
    pygame.draw.rect(surface, edge, rect, width=2, border_radius=radius)


@functools.lru_cache(maxsize=128)
def _panel_layer(size: tuple[int, int], color: Color, alpha: int, radius: int
                 ) -> pygame.Surface:
    """A see-through rounded panel body, made once per look (plates are drawn every frame)."""
    layer = pygame.Surface(size, pygame.SRCALPHA)
    pygame.draw.rect(layer, (*color, alpha), layer.get_rect(), border_radius=radius)
    return layer


def background(surface: pygame.Surface) -> None:
    """The dark wood behind everything, with faint planks so it does not look flat (drawn
    once per size, then blitted)."""
    size = surface.get_size()
    image = _backgrounds.get(size)
    if image is None:
        image = pygame.Surface(size)
        image.fill(theme.BG)
        w, h = size
        for i, y in enumerate(range(0, h, 64)):
            shade = theme.BG_LIGHT if i % 2 else theme.BG
            pygame.draw.rect(image, shade, (0, y, w, 62))
            pygame.draw.line(image, (28, 18, 12), (0, y + 62), (w, y + 62), 2)
        _backgrounds[size] = image
    surface.blit(image, (0, 0))


_backgrounds: dict[tuple[int, int], pygame.Surface] = {}


_felts: dict[tuple[int, int, bool], pygame.Surface] = {}
_KEY = (255, 0, 255)  # the felt image's transparent colour (never drawn on the table)


def felt(surface: pygame.Surface, rect: pygame.Rect, *, palifico: bool = False) -> None:
    """The oval table: a wooden rail around a felt with a soft lighter centre.

    Drawn once per size and colour, then blitted: its 27 ellipses were a tenth of a frame."""
    key = (rect.width, rect.height, palifico)
    image = _felts.get(key)
    if image is None:
        image = pygame.Surface((rect.width, rect.height + 10))
        image.fill(_KEY)
        image.set_colorkey(_KEY, pygame.RLEACCEL)  # a colour key blits faster than alpha
        _draw_felt(image, pygame.Rect(0, 0, rect.width, rect.height), palifico)
        _felts[key] = image
    surface.blit(image, rect.topleft)


def _draw_felt(surface: pygame.Surface, rect: pygame.Rect, palifico: bool) -> None:
    pygame.draw.ellipse(surface, (20, 12, 8), rect.move(0, 10))  # drop shadow
    pygame.draw.ellipse(surface, theme.RAIL, rect)
    pygame.draw.ellipse(surface, theme.RAIL_LIGHT, rect, width=4)
    inner = rect.inflate(-44, -44)
    dark = theme.FELT_PALIFICO_DARK if palifico else theme.FELT_DARK
    light = theme.FELT_PALIFICO if palifico else theme.FELT
    pygame.draw.ellipse(surface, dark, inner)
    # Concentric ellipses from dark rim to light centre: a cheap radial gradient.
    steps = 10
    for i in range(1, steps + 1):
        t = i / steps
        col = tuple(int(d + (lt - d) * t) for d, lt in zip(dark, light, strict=True))
        shrink_x = int(inner.width * 0.45 * t)
        shrink_y = int(inner.height * 0.45 * t)
        pygame.draw.ellipse(surface, col, inner.inflate(-shrink_x, -shrink_y))
    pygame.draw.ellipse(surface, (0, 0, 0), inner, width=2)


def die(
    surface: pygame.Surface,
    center: tuple[int, int],
    size: int,
    face: int,
    *,
    highlight: bool = False,
    dim: bool = False,
    angle: float = 0.0,
) -> pygame.Rect:
    """A die showing ``face`` (1..6); ``highlight`` rings it in gold, ``dim`` greys it out.

    ``angle`` (degrees) tilts it, used while dice tumble. The upright tile is drawn once per
    look and kept (a frame of the reveal draws some twenty dice, pulsing through sizes).
    """
    tile = _die_tile(size, face, highlight, dim)
    if angle:
        tile = pygame.transform.rotate(tile, angle)
    rect = tile.get_rect(center=center)
    surface.blit(tile, rect)
    return rect


@functools.lru_cache(maxsize=512)
def _die_tile(size: int, face: int, highlight: bool, dim: bool) -> pygame.Surface:
    pad = max(3, size // 8)
    tile = pygame.Surface((size + 2 * pad, size + 2 * pad), pygame.SRCALPHA)
    body = pygame.Rect(pad, pad, size, size)
    radius = max(3, size // 5)
    if highlight:
        pygame.draw.rect(tile, theme.GOLD, body.inflate(pad * 2, pad * 2), border_radius=radius + 3)
    pygame.draw.rect(tile, (0, 0, 0, 90), body.move(2, 3), border_radius=radius)
    fill = (200, 192, 178) if dim else theme.DIE
    pygame.draw.rect(tile, fill, body, border_radius=radius)
    pygame.draw.rect(tile, theme.DIE_EDGE, body, width=1, border_radius=radius)
    pip_r = max(2, size // 10) if face != 1 else max(3, size // 6)
    pip_col = theme.PIP_ACE if face == 1 else theme.PIP
    if dim:
        pip_col = (120, 110, 100)
    for fx, fy in _PIPS[face]:
        pygame.draw.circle(tile, pip_col, (pad + fx * size, pad + fy * size), pip_r)
    return tile


def cup(
    surface: pygame.Surface, midbottom: tuple[int, int], height: int, *, glow: bool = False
) -> pygame.Rect:
    """A leather dice cup (cacho) seen upside down on the table; ``glow`` rims it in gold."""
    x, y = midbottom
    bottom_w = int(height * 0.95)
    top_w = int(height * 0.62)
    points = [
        (x - bottom_w // 2, y),
        (x - top_w // 2, y - height),
        (x + top_w // 2, y - height),
        (x + bottom_w // 2, y),
    ]
    shadow = pygame.Rect(0, 0, bottom_w + 16, height // 4)
    shadow.center = (x + 4, y + 2)
    pygame.draw.ellipse(surface, (0, 0, 0), shadow)
    if glow:
        pygame.draw.polygon(surface, theme.GOLD, points, width=0)
        inner = [(px + (4 if px < x else -4), py + (-3 if py == y else 4)) for px, py in points]
        pygame.draw.polygon(surface, theme.CUP, inner)
    else:
        pygame.draw.polygon(surface, theme.CUP, points)
    # A darker flank gives the leather some volume.
    flank = [points[2], points[3], (x + bottom_w // 6, y), (x + top_w // 8, y - height)]
    pygame.draw.polygon(surface, theme.CUP_DARK, flank)
    rim = pygame.Rect(0, 0, bottom_w + 6, max(8, height // 6))
    rim.center = (x, y)
    pygame.draw.ellipse(surface, theme.CUP_RIM, rim)
    top = pygame.Rect(0, 0, top_w, max(6, height // 8))
    top.center = (x, y - height)
    pygame.draw.ellipse(surface, theme.CUP_DARK, top)
    # Stitching bands, as on a leather cacho.
    for frac in (0.3, 0.7):
        yy = int(y - height * frac)
        half = int((bottom_w + (top_w - bottom_w) * frac) / 2)
        pygame.draw.line(surface, theme.CUP_RIM, (x - half + 3, yy), (x + half - 3, yy), 2)
    return pygame.Rect(x - bottom_w // 2, y - height, bottom_w, height)


BUTTON_PAD = 8  # a button's label keeps this far from its left and right edges


def button(
    surface: pygame.Surface,
    rect: pygame.Rect,
    label: str,
    *,
    enabled: bool = True,
    hover: bool = False,
    color: Color = theme.BUTTON,
    size: int = 30,
    hotkey: str = "",
) -> None:
    """A raised button; disabled buttons are flat and grey so the state reads at a glance."""
    base = color if enabled else theme.BUTTON_DISABLED
    if enabled:
        pygame.draw.rect(surface, (0, 0, 0), rect.move(0, 4), border_radius=12)
    pygame.draw.rect(surface, base, rect, border_radius=12)
    edge = tuple(min(255, c + 50) for c in base)
    # Hover rings the button in gold instead of lightening it: a lighter fill took the cream
    # label down to 2.4:1.
    if enabled and hover:
        pygame.draw.rect(surface, theme.GOLD, rect, width=3, border_radius=12)
    else:
        pygame.draw.rect(surface, edge, rect, width=2, border_radius=12)
    # a disabled label stays readable (3.8:1), so the controls can be learnt while waiting
    fg = theme.CREAM if enabled else theme.MUTED
    text(surface, label, rect.center, size, fg, anchor="center", shadow=enabled,
         max_width=rect.width - 2 * BUTTON_PAD)
    if hotkey:
        text(surface, hotkey, (rect.right - 8, rect.bottom - 4), 18, fg, anchor="bottomright",
             shadow=False)


def timer_ring(
    surface: pygame.Surface, center: tuple[int, int], radius: int, fraction: float
) -> None:
    """A ring that empties as the turn timer runs down (``fraction`` of time left, 0..1)."""
    fraction = max(0.0, min(1.0, fraction))
    rect = pygame.Rect(0, 0, radius * 2, radius * 2)
    rect.center = center
    pygame.draw.circle(surface, (0, 0, 0), center, radius, width=6)
    if fraction > 0:
        color = theme.GOLD if fraction > 0.25 else theme.RED
        start = math.pi / 2
        pygame.draw.arc(surface, color, rect, start, start + 2 * math.pi * fraction, width=6)
