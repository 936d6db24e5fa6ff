"""The table's side panel: the bids (of this round, of the round a reveal ends, or of the
previous round before the first bid), the probability guide, and the table's log.

Reads the scene's state; never talks to the session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pygame

from dudo_p2p.rules import FACE_NAMES, Action, odds
from dudo_p2p.ui import draw, theme, words

if TYPE_CHECKING:
    from dudo_p2p.ui.table_core import TableCore

SIDE = pygame.Rect(934, 64, 330, 728)


def draw_side_panel(scene: TableCore, surface: pygame.Surface) -> None:
    tr, view = scene.tr, scene.view
    assert view is not None
    draw.panel(surface, SIDE)
    x = SIDE.left + 16
    y = SIDE.top + 12
    title, actions, past = history_shown(scene)
    draw.text(surface, title, (x, y), 28, theme.GOLD, max_width=SIDE.width - 32)
    y += 38
    lines = [words.action_line(tr, scene.names, a) for a in actions]
    first, end = history_window(len(lines), scene.history_back)
    scene.history_back = len(lines) - end  # clamped, so scrolling back down answers at once
    shown = lines[first:end]
    if not shown:
        draw.text(surface, "—", (x, y), 24, theme.DIM)
    if first > 0:
        # the earliest bids are still there: say how many and how to reach them
        draw.text(surface, tr("table.history_more", n=first), (x, y), 19, theme.HINT,
                  shadow=False, max_width=SIDE.width - 32)
        y += 24
    for i, line in enumerate(shown):
        last = first + i == len(lines) - 1 and not past
        draw.text(surface, line, (x, y), 24, theme.CREAM if last else theme.MUTED, shadow=False,
                  max_width=SIDE.width - 32)
        y += 28
    y = SIDE.top + 320
    pygame.draw.line(surface, theme.PANEL_EDGE, (x, y - 10), (SIDE.right - 16, y - 10), 1)
    _prob_box(scene, surface, x, y)
    y = SIDE.top + 440
    pygame.draw.line(surface, theme.PANEL_EDGE, (x, y - 10), (SIDE.right - 16, y - 10), 1)
    draw.text(surface, tr("table.messages"), (x, y), 28, theme.GOLD)
    y += 36
    keys_top = SIDE.bottom - 66
    # the face names, always in sight: tontos, trenes, cuadras... are not obvious words
    legend_top = keys_top - LEGEND_HEIGHT
    draw.text_block(surface, tr("table.legend"),
                    pygame.Rect(x, legend_top, SIDE.width - 32, LEGEND_HEIGHT), 19, theme.HINT)
    texts = scene.model.message_texts(scene.tr)
    for block in messages_shown(texts, SIDE.width - 32, legend_top - 8 - y):
        y = draw.text_block(surface, block, pygame.Rect(x, y, SIDE.width - 32, legend_top - y),
                            MESSAGE_SIZE, theme.CREAM) + MESSAGE_GAP
    # a spectator has no bid, call, cup or phrase to key: only what it can use
    keys = tr("table.keys_watching" if scene.watching else "table.keys")
    draw.text_block(surface, keys, pygame.Rect(x, keys_top, SIDE.width - 32, 60), 19, theme.HINT)


MESSAGE_SIZE = 21
LEGEND_HEIGHT = 50  # two lines of the face-name legend above the keys
MESSAGE_GAP = 6


def messages_shown(messages: list[str], width: int, height: int) -> list[str]:
    """The newest messages that fit whole in ``width`` x ``height`` pixels, oldest first (a
    message is never cut in the middle: the oldest ones give way)."""
    line_h = theme.font(MESSAGE_SIZE).get_linesize() + 4
    shown: list[str] = []
    used = 0
    for message in reversed(messages):
        need = len(draw.wrap(message, MESSAGE_SIZE, width)) * line_h + MESSAGE_GAP
        if used + need > height:
            break
        shown.append(message)
        used += need
    return shown[::-1]


HISTORY_LINES = 9  # bids the side panel has room for (the latest ones)


def history_window(n_lines: int, back: int) -> tuple[int, int]:
    """The slice ``[first, end)`` of ``n_lines`` history lines to show, ``back`` lines up from
    the newest (clamped so the window is full when it can be). When lines are hidden above,
    one line of room goes to saying so."""
    if n_lines <= HISTORY_LINES:
        return 0, n_lines
    room = HISTORY_LINES - 1  # one line says how many more are above
    back = max(0, min(back, n_lines - room))
    end = n_lines - back
    first = max(0, end - room)
    if first == 0:
        end = min(n_lines, HISTORY_LINES)  # at the top: no "more above" line, a full window
    return first, end


def history_shown(scene: TableCore) -> tuple[str, tuple[Action, ...], bool]:
    """What the side panel's history shows: ``(title, actions, past)``. During a reveal, the
    round it ends (the view has moved on to the next round); before the first bid of a round
    and once the game is over, the previous (last) round, so nobody has to remember how it
    went; otherwise the bids of this round. ``past`` is True when the actions are not this
    round's."""
    tr, view = scene.tr, scene.view
    assert view is not None
    shown = scene.model.reveal
    over = scene.model.winner is not None  # no next round: the last one stays, named
    if shown is None and (over or not view.state.bids) and scene.model.last_round is not None:
        shown = scene.model.last_round
    if shown is not None:
        return (tr("table.history_of", n=shown.result.round_no), shown.actions, True)
    return tr("table.history"), tuple(view.state.bids), False


def _prob_box(scene: TableCore, surface: pygame.Surface, x: int, y: int) -> None:
    tr, view = scene.tr, scene.view
    assert view is not None
    if not scene.show_prob:
        draw.text(surface, tr("table.prob_hint"), (x, y), 22, theme.HINT)
        return
    bid = view.standing_bid
    # our dice count whether or not the cup is lifted: they are ours. Only at a hot-seat
    # table, cup down, they stay out (the next player may be looking), and the line says so.
    blind = scene.hotseat and not scene.looking
    # a spectator holds no dice: its chance is the table's, every die unseen (P was offered
    # on its keys line and did nothing)
    watching = scene.watching
    own = () if blind or watching else view.own_dice
    if (bid is None or (view.own_dice is None and not watching) or own is None
            or scene.handover_seat is not None):
        draw.text(surface, tr("table.prob_hint"), (x, y), 22, theme.HINT)
        return
    wild = view.state.wild
    unseen = view.total_dice - len(own)
    p = odds.chance_at_least(bid.count, bid.face, own, unseen, wild=wild)
    expected = odds.expected_total(bid.face, own, unseen, wild=wild)
    pct = round(p * 100)
    color = theme.GREEN if pct >= 50 else theme.RED
    draw.text(surface, tr("table.prob", p=pct), (x, y), 24, color)
    bar = pygame.Rect(x, y + 30, SIDE.width - 32, 12)
    pygame.draw.rect(surface, (30, 20, 14), bar, border_radius=6)
    pygame.draw.rect(surface, color, (bar.left, bar.top, int(bar.width * p), bar.height),
                     border_radius=6)
    face_name = FACE_NAMES[tr.lang][bid.face]
    key = ("table.expected_watching" if watching
           else "table.expected_blind" if blind else "table.expected")
    draw.text_block(surface, tr(key, x=f"{expected:.1f}", face=face_name),
                    pygame.Rect(x, y + 52, SIDE.width - 32, 50), 21, theme.MUTED)
