"""The table's input: which key does what, what a click hits, and keys that finish an
animation. Functions of the scene (as :mod:`~dudo_p2p.ui.table_draw` draws it); every game
action still goes through the scene, which submits only what ``legal_actions()`` offers.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

import pygame

from dudo_p2p.rules import Calzo, Dudo
from dudo_p2p.ui import waiting
from dudo_p2p.ui.table_layout import own_hand_rect, plate_rect, seat_pos

if TYPE_CHECKING:
    from dudo_p2p.ui.table_controls import TableControls

HISTORY_PAGE = 5  # PgUp/PgDn scroll the bid history this many lines
GO_ON = (pygame.K_SPACE, pygame.K_RETURN, pygame.K_KP_ENTER)


def key_pressed(scene: TableControls, key: int) -> None:
    """One key press not taken by a widget: overlays first, then the modal screens (hand-over,
    reveal, end), then the table's keys."""
    if key == pygame.K_s:  # mute or unmute, anywhere at the table (saved)
        settings = scene.host.settings
        settings.set("muted", not settings.flag("muted"))
        scene.mark_changed()
        return
    if scene.view is None and key == pygame.K_ESCAPE:  # waiting for the table: leave it
        waiting.cancel(scene)
        return
    if scene.overlay is not None:
        if key in (pygame.K_ESCAPE, pygame.K_r) or (scene.overlay == "menu" and key
                                                     == pygame.K_m):
            scene.overlay = None
        return
    if key == pygame.K_ESCAPE:
        scene.overlay = "menu"
        return
    if key == pygame.K_r:
        scene.overlay = "rules"
        return
    if scene.handover_seat is not None:
        if key in GO_ON:
            scene.take_device()
        return
    if scene.model.reveal is not None:
        if key in GO_ON:
            scene.dismiss_reveal()
        return
    if scene.model.ended is not None:  # the game ended for us with no winner: back to the lobby
        if key in (pygame.K_RETURN, pygame.K_KP_ENTER):
            scene.host.show_lobby()
        return
    if scene.model.winner is not None:
        # Enter only, and not in the first moments: the Space (or a held key) that meant
        # "go on" at the final reveal must not start a new game by accident
        if key in (pygame.K_RETURN, pygame.K_KP_ENTER) and scene.end_ready:
            if scene.request.kind == "watch":  # nothing to play again: the lobby
                scene.host.show_lobby()
            else:
                scene.play_again()
        return
    action = _table_keys(scene).get(key)
    if action is not None:
        action()


def _table_keys(scene: TableControls) -> dict[int, Callable[[], object]]:
    comp = scene.composer
    keys: dict[int, Callable[[], object]] = {
        pygame.K_m: scene.toggle_look,
        pygame.K_p: lambda: setattr(scene, "show_prob", not scene.show_prob),
        pygame.K_SPACE: scene.start_shake,
        pygame.K_UP: lambda: comp.change_count(1),
        pygame.K_PLUS: lambda: comp.change_count(1),
        pygame.K_EQUALS: lambda: comp.change_count(1),
        pygame.K_KP_PLUS: lambda: comp.change_count(1),
        pygame.K_DOWN: lambda: comp.change_count(-1),
        pygame.K_MINUS: lambda: comp.change_count(-1),
        pygame.K_KP_MINUS: lambda: comp.change_count(-1),
        pygame.K_LEFT: lambda: comp.change_face(-1, scene.lowest_on),
        pygame.K_RIGHT: lambda: comp.change_face(1, scene.lowest_on),
        pygame.K_PAGEUP: lambda: scene.scroll_history(HISTORY_PAGE),
        pygame.K_PAGEDOWN: lambda: scene.scroll_history(-HISTORY_PAGE),
        pygame.K_RETURN: scene.bid_now,
        pygame.K_KP_ENTER: scene.bid_now,
        pygame.K_d: lambda: scene.call(Dudo),
        pygame.K_c: lambda: scene.call(Calzo),
        pygame.K_i: scene.picado_now,  # pIcado (P is the probability); legal() decides
    }
    for digit in range(1, 9):  # table talk: keys 1-8 say quick phrases 0-7
        keys[pygame.K_0 + digit] = partial(scene.say_phrase, digit - 1)
    return keys


def finish_moving(scene: TableControls, event: pygame.event.Event) -> bool:
    """Any key or click finishes what is moving (and the sounds due are heard now). True
    when that was all the event asked: Space, Enter or a click while the reveal's film runs
    (the next one closes the reveal); any other event then does its own job too."""
    if event.type not in (pygame.KEYDOWN, pygame.MOUSEBUTTONDOWN) or not scene.moving(scene.now):
        return False
    reveal = scene.model.reveal
    reveal_moving = reveal is not None and scene.overlay is None and scene.motion.running(
        scene.now, reveal.started, reveal.film.ends - reveal.started)
    scene.motion.skip(scene.now)
    scene.cues.flush()
    scene.mark_changed()
    return reveal_moving and (event.type == pygame.MOUSEBUTTONDOWN or event.key in GO_ON)


def clicked(scene: TableControls, pos: tuple[int, int]) -> None:
    """A left click that hit no button: hand over, close the reveal, lift our cup, or mute
    the player whose plate it hit."""

    if scene.handover_seat is not None and scene.overlay is None:
        scene.take_device()
    elif scene.model.reveal is not None and scene.overlay is None:
        scene.dismiss_reveal()
    elif scene.overlay is None and scene.model.winner is None and own_hand_rect().collidepoint(pos):
        scene.toggle_look()
    elif scene.overlay is None and scene.view is not None:
        # a click on another player's plate mutes their table talk (or unmutes it)
        me, n = scene.session.seat, scene.view.state.n_seats
        for seat in range(n):
            if seat != me and plate_rect(seat_pos(seat, me, n)).collidepoint(pos):
                scene.model.talk.toggle_mute(seat)
                scene.mark_changed()
