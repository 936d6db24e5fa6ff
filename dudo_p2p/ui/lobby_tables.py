"""The lobby's list of tables on the LAN: one row per table, three lines each.

1. ``CODE@FINGERPRINT · host · n/N`` (what to dictate, who hosts, the seats taken);
2. the address to join it by;
3. the table, below the Join and Watch buttons so it has the row's whole width: each
   player's starting dice, the turn timer, the variants off the default table by their
   numbers ("5 dados · 30 s por turno · V17 sí"), as the waiting room says it.

A table of another protocol version is listed greyed with "otra versión del juego" and no
button: nobody can sit at it, nor watch it (protocol.md §2.5 "Versions"). A listing without
``rules`` (a directory that does not know them) leaves line 3 out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import pygame

from dudo_p2p.ui import draw, theme
from dudo_p2p.ui.i18n import Tr
from dudo_p2p.ui.request import WIRE_VERSION, TableListing
from dudo_p2p.ui.waiting import table_line
from dudo_p2p.ui.widgets import Button

JOIN_X = 436  # left edge of the Join buttons of the listed tables (Watch beside them)
TOP = 404  # the first row's top
ROW_H = 60  # three lines: 22, 18 and 19 px
MAX_ROWS = 3  # what the panel holds at the default window size


@dataclass(frozen=True)
class Row:
    """The words of one row (the lines above); ``other_version``: greyed, no button."""

    title: str
    table: str
    address: str
    other_version: bool


def row(tr: Tr, listing: TableListing) -> Row:
    """The words of ``listing``'s row in ``tr``'s language."""
    code, host = _code(listing), listing.host
    title = (tr("lobby.table_row_host", code=code, host=host, players=listing.players,
                seats=listing.seats) if host else
             tr("lobby.table_row", code=code, players=listing.players, seats=listing.seats))
    if listing.version != WIRE_VERSION:
        return Row(title, tr("lobby.other_version", v=listing.version), listing.address, True)
    rules = listing.rules
    table = table_line(tr, rules, listing.turn_timer_s) if rules is not None else ""
    return Row(title, table, listing.address, False)


def _code(listing: TableListing) -> str:
    """``CODE@FINGERPRINT``, or the code alone when the listing has no fingerprint."""
    return f"{listing.code}@{listing.fingerprint}" if listing.fingerprint else listing.code


def draw_rows(tr: Tr, surface: pygame.Surface, listings: list[TableListing],
              buttons: list[Button], join: Callable[[str], None],
              watch: Callable[[str, str], None]) -> None:
    """Draw the first :data:`MAX_ROWS` listings, adding their Join (open tables of our
    version) and Watch (any table of our version) buttons to ``buttons``."""
    for i, listing in enumerate(listings[:MAX_ROWS]):
        y = TOP + i * ROW_H
        words = row(tr, listing)
        grey = theme.DIM if words.other_version else None
        draw.text(surface, words.title, (60, y), 22, grey or theme.CREAM,
                  max_width=JOIN_X - 70)
        draw.text(surface, words.address, (60, y + 21), 18, grey or theme.MUTED, shadow=False,
                  max_width=JOIN_X - 70)
        if words.table:  # below the buttons: the row's whole width
            draw.text(surface, words.table, (60, y + 40), 19, grey or theme.GOLD, shadow=False,
                      max_width=540)
        if words.other_version:
            continue
        if listing.state == "open":
            buttons.append(Button(pygame.Rect(JOIN_X, y, 86, 38), tr("lobby.join"),
                                  partial(join, listing.address), size=24, name=f"join_{i}"))
        # any table seen can be watched (protocol.md §4.9), a playing one above all
        buttons.append(Button(pygame.Rect(JOIN_X + 92, y, 86, 38), tr("lobby.watch"),
                              partial(watch, listing.address, _code(listing)), size=24,
                              name=f"watch_{i}"))
