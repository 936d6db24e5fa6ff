"""The table scene: :class:`TableScene`, the live game of one seat (its state:
:class:`~dudo_p2p.ui.table_core.TableCore`, what its controls do:
:class:`~dudo_p2p.ui.table_controls.TableControls`) with its input map
(:mod:`~dudo_p2p.ui.table_input`), its waiting room (:mod:`~dudo_p2p.ui.waiting`) and its
drawing (:mod:`~dudo_p2p.ui.table_draw`).
"""

from __future__ import annotations

import pygame

from dudo_p2p.ui import table_draw, table_input, waiting
from dudo_p2p.ui.side_panel import SIDE
from dudo_p2p.ui.table_controls import TableControls
from dudo_p2p.ui.table_core import (
    DEFAULT_BOT_DELAY_S,
    END_GRACE_S,
    REFRESH_S,
    REVEAL_HOLD_S,
)

__all__ = [
    "DEFAULT_BOT_DELAY_S", "END_GRACE_S", "REFRESH_S", "REVEAL_HOLD_S", "TableScene",
    "side_panel_rect",
]

HISTORY_WHEEL = 2  # one wheel notch scrolls this many


class TableScene(TableControls):
    """One seat at a live table (its state: :class:`~dudo_p2p.ui.table_core.TableCore`, what
    its controls do: :class:`~dudo_p2p.ui.table_controls.TableControls`): keys and clicks
    through ``table_input``, the frame through ``table_draw``."""

    def update(self, now: float) -> None:
        self.now = now
        if self.view is None and waiting.watch(self, now):
            return  # a join refused or unanswered went back to the lobby
        super().update(now)

    def handle_key(self, key: int, mod: int) -> None:
        table_input.key_pressed(self, key)

    def handle_event(self, event: pygame.event.Event) -> None:
        if table_input.finish_moving(self, event):
            return
        if event.type == pygame.MOUSEWHEEL:
            # the wheel anywhere over the side panel scrolls the bid history
            if side_panel_rect().collidepoint(self.mouse):
                self.scroll_history(event.y * HISTORY_WHEEL)
            return
        super().handle_event(event)

    def handle_click(self, pos: tuple[int, int]) -> None:
        table_input.clicked(self, pos)

    def draw(self, surface: pygame.Surface) -> None:
        table_draw.draw_table(self, surface)


def side_panel_rect() -> pygame.Rect:
    """The side panel (bids, probability, messages): the mouse wheel over it scrolls bids."""
    return SIDE
