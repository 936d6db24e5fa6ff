"""The evening scoreboard on screen: games won per player across the games played one after
another at this table ("one more game"), on the end screen and in the waiting room.

The numbers come from the session (:meth:`~dudo_p2p.session.Session.scoreboard`), which
counts them from the verified chain of the games' records; this module only draws them: a
gold-edged panel, the title ("La noche: 3 partidas"), then one row per player, most wins
first: the name, the key's fingerprint (two friends with one name are two rows) and "2 de 3".
"""

from __future__ import annotations

import pygame

from dudo_p2p.session import Scoreboard, Session
from dudo_p2p.ui import draw, theme
from dudo_p2p.ui.i18n import Tr

ROW_H = 30
TITLE_H = 46


def board_of(session: Session) -> Scoreboard | None:
    """The session's scoreboard, or None (a table that keeps none, or no game won yet)."""
    return session.scoreboard()


def height(board: Scoreboard) -> int:
    """How tall :func:`draw_board` draws ``board`` (panel margins included)."""
    return TITLE_H + ROW_H * len(board.rows) + (ROW_H if board.broken else 0) + 20


def draw_board(surface: pygame.Surface, tr: Tr, board: Scoreboard, rect: pygame.Rect) -> None:
    """Draw ``board`` in a panel at ``rect`` (its height: :func:`height`)."""
    draw.panel(surface, rect, edge=theme.GOLD)
    title = (tr("board.title_one") if board.games == 1
             else tr("board.title", n=board.games))
    draw.text(surface, title, (rect.centerx, rect.top + 12), 28, theme.GOLD, anchor="midtop")
    top = rect.top + TITLE_H
    best = board.rows[0].wins if board.rows else 0  # the evening's leaders, ties included
    for i, row in enumerate(board.rows):
        y = top + i * ROW_H
        fp_x = rect.left + rect.width * 2 // 5  # name | fingerprint | wins, never touching
        draw.text(surface, row.name, (rect.left + 24, y), 24, theme.CREAM,
                  max_width=fp_x - rect.left - 34, shadow=False)
        draw.text(surface, row.fingerprint, (fp_x, y + 3), 19, theme.MUTED, shadow=False,
                  max_width=rect.right - 90 - fp_x)
        leader = row.wins and row.wins == best
        draw.text(surface, tr("board.row", wins=row.wins, games=row.games),
                  (rect.right - 24, y), 24, theme.GOLD if leader else theme.CREAM,
                  anchor="topright", shadow=False)
    if board.broken:
        draw.text(surface, tr("board.broken"), (rect.centerx, top + len(board.rows) * ROW_H),
                  20, theme.MUTED, anchor="midtop", max_width=rect.width - 20, shadow=False)
