"""Overlays drawn over the live table: the Esc menu, the rules screen, the winner screen.

The rules screen lists the house rules and the variants active at this table, in the
player's language, from the rules' own ``VARIANTS`` table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

import pygame

from dudo_p2p.rules import VARIANTS, RuleSet
from dudo_p2p.ui import draw, scoreboard, theme
from dudo_p2p.ui.i18n import VALUE_KEYS, Tr
from dudo_p2p.ui.rule_texts import VARIANT_KEYS
from dudo_p2p.ui.sound import VOLUME_STEPS
from dudo_p2p.ui.widgets import Button

if TYPE_CHECKING:
    from dudo_p2p.ui.table_controls import TableControls


def _shade(surface: pygame.Surface, alpha: int = 200) -> None:
    layer = pygame.Surface(surface.get_size(), pygame.SRCALPHA)
    layer.fill((10, 6, 4, alpha))
    surface.blit(layer, (0, 0))


def active_variant_lines(tr: Tr, rules: RuleSet) -> list[str]:
    """One line per rule that differs from the house table, explained in ``tr``'s language."""
    default = RuleSet()
    lines = []
    for name, info in VARIANTS.items():
        value = getattr(rules, name)
        if value != getattr(default, name):
            text = tr(VARIANT_KEYS[name])
            if isinstance(value, bool):
                shown = tr("common.yes") if value else tr("common.no")
            elif isinstance(value, str):
                shown = tr(VALUE_KEYS.get(value, value))  # "mitad + 1", not "half_plus_one"
            else:
                shown = str(value)
            lines.append(f"{info.rule} ({shown}): {text}")
    return lines


def draw_rules_overlay(tr: Tr, rules: RuleSet, surface: pygame.Surface,
                       house_keys: Sequence[str]) -> None:
    """The rules screen: house rules, then this table's variants."""
    _shade(surface, 225)
    box = pygame.Rect(90, 40, 1100, 720)
    draw.panel(surface, box)
    draw.text(surface, tr("rules.title"), (box.centerx, box.top + 34), 48, theme.GOLD,
              anchor="center")
    x = box.left + 36
    y = box.top + 76
    draw.text(surface, tr("rules.house"), (x, y), 30, theme.GOLD)
    y += 38
    draw.text(surface, tr("rules.start_dice", n=rules.starting_dice), (x, y), 23, theme.CREAM,
              shadow=False)
    y += 30
    for key in house_keys:
        y = draw.text_block(surface, "• " + tr(key), pygame.Rect(x, y, box.width - 72, 60), 23)
    y += 12
    draw.text(surface, tr("rules.active"), (x, y), 30, theme.GOLD)
    y += 38
    lines = active_variant_lines(tr, rules) or [tr("rules.none")]
    for line in lines:
        y = draw.text_block(surface, "• " + line, pygame.Rect(x, y, box.width - 72, 60), 23,
                            theme.CREAM)
        if y > box.bottom - 50:
            break
    draw.text(surface, tr("rules.close"), (box.centerx, box.bottom - 22), 22, theme.MUTED,
              anchor="center")


def volume_step(volume: float, delta: int) -> float:
    """The next volume of ``VOLUME_STEPS`` below (``delta`` < 0) or above ``volume``."""
    if delta < 0:
        return max((v for v in VOLUME_STEPS if v < volume - 1e-6), default=VOLUME_STEPS[0])
    return min((v for v in VOLUME_STEPS if v > volume + 1e-6), default=VOLUME_STEPS[-1])


def _sound_row(scene: TableControls, surface: pygame.Surface, box: pygame.Rect, y: int) -> None:
    """Volume (- and +) and the mute switch, on one row of the menu."""
    tr, settings = scene.tr, scene.host.settings
    volume = settings.number("volume")
    muted = settings.flag("muted")
    label = tr("menu.muted") if muted else tr("menu.volume", n=round(volume * 100))
    draw.text(surface, label, (box.left + 50, y + 28), 26, theme.CREAM, anchor="midleft",
              max_width=170)
    for name, text, delta, x in (("volume_down", "-", -1, 230), ("volume_up", "+", 1, 284)):
        scene.buttons.append(Button(pygame.Rect(box.left + x, y, 48, 56), text, partial(
            settings.set, "volume", volume_step(volume, delta)), size=30, name=name))
    scene.buttons.append(Button(pygame.Rect(box.left + 340, y, 70, 56),
                                tr("menu.unmute") if muted else tr("menu.mute"),
                                partial(settings.set, "muted", not muted), size=22,
                                name="mute"))


def draw_menu(scene: TableControls, surface: pygame.Surface) -> None:
    """The Esc menu: resume, rules, language, fullscreen, sound, reduced motion, leave the
    table, quit. Sound and motion are saved in the settings file at once."""
    tr = scene.tr
    settings = scene.host.settings
    _shade(surface)
    box = pygame.Rect(0, 0, 460, 660)
    box.center = (640, 400)
    draw.panel(surface, box)
    draw.text(surface, tr("menu.title"), (box.centerx, box.top + 40), 52, theme.GOLD,
              anchor="center")
    host = scene.host
    entries: list[tuple[str, Callable[[], object]]] = [
        ("menu.resume", lambda: setattr(scene, "overlay", None)),
        ("menu.rules", lambda: setattr(scene, "overlay", "rules")),
        ("menu.language", host.toggle_language),
        ("menu.fullscreen", host.toggle_fullscreen),
        ("", lambda: None),  # the sound row
        ("menu.motion_reduced" if settings.flag("reduced_motion") else "menu.motion_full",
         partial(settings.set, "reduced_motion", not settings.flag("reduced_motion"))),
        ("menu.lobby", host.show_lobby),
        ("menu.quit", host.quit),
    ]
    # A modal menu: only its own buttons answer clicks.
    scene.buttons = []
    for i, (key, action) in enumerate(entries):
        y = box.top + 90 + i * 68
        if not key:
            _sound_row(scene, surface, box, y)
            continue
        rect = pygame.Rect(box.left + 50, y, box.width - 100, 56)
        color = theme.BUTTON_DANGER if key == "menu.quit" else theme.BUTTON
        name = "motion" if "motion_" in key else key.split(".")[1]
        scene.buttons.append(Button(rect, tr(key), action, color=color, size=28, name=name))
    scene.draw_buttons(surface)


def _seat_name(scene: TableControls, seat: int) -> str:
    return scene.names[seat] if seat < len(scene.names) else f"#{seat + 1}"


def draw_ended(scene: TableControls, surface: pygame.Surface) -> None:
    """The game ended for us with no winner (removed, abandoned, the table gone): why, and
    back to the lobby (Enter) or quit."""
    assert scene.model.ended is not None
    _shade(surface, 190)
    box = pygame.Rect(0, 0, 640, 300)
    box.center = (640, 380)
    draw.panel(surface, box, edge=theme.GOLD)
    for i, line in enumerate(draw.wrap(scene.model.ended(scene.tr), 34, box.width - 60)[:3]):
        draw.text(surface, line, (box.centerx, box.top + 70 + i * 42), 34, theme.GOLD,
                  anchor="center")
    scene.buttons = []
    entries = [("over.lobby", scene.host.show_lobby, "lobby"),
               ("over.quit", scene.host.quit, "quit")]
    for i, (key, action, name) in enumerate(entries):
        rect = pygame.Rect(box.centerx - 200 + i * 212, box.bottom - 100, 188, 60)
        scene.buttons.append(Button(rect, scene.tr(key), action, size=26, name=name,
                                    hotkey="Enter" if name == "lobby" else ""))
    scene.draw_buttons(surface)


def draw_winner(scene: TableControls, surface: pygame.Surface) -> None:
    """The end of the game: who won, and play again / lobby / quit; below, the evening's
    scoreboard when the table keeps one (one more game with the same friends)."""
    tr = scene.tr
    winner = scene.model.winner
    assert winner is not None
    _shade(surface, 190)
    board = scoreboard.board_of(scene.session)
    box = pygame.Rect(0, 0, 640, 380)
    box.center = (640, 380)
    if board is not None:  # the winner's panel moves up to leave room for the evening
        box.top = max(70, 780 - scoreboard.height(board) - 20 - box.height)
        scoreboard.draw_board(surface, tr, board, pygame.Rect(
            box.left + 40, box.bottom + 16, box.width - 80, scoreboard.height(board)))
    draw.panel(surface, box, edge=theme.GOLD)
    me = scene.session.seat
    # a spectator's view is drawn from seat 0, which is not its own: seat 0 winning is
    # someone else winning
    if winner == me and not scene.hotseat and not scene.watching:
        title = tr("over.you_win")
    else:
        title = tr("over.title", name=_seat_name(scene, winner))
    for i in range(5):
        draw.die(surface, (box.centerx - 120 + i * 60, box.top + 60), 40, 1 + (i + winner) % 6)
    draw.text(surface, title, (box.centerx, box.top + 140), 52, theme.GOLD, anchor="center",
              max_width=box.width - 40)
    # who came second, third...: the question every table asks at the end
    places = [tr("over.place", n=i + 1, name=_seat_name(scene, seat))
              for i, seat in enumerate(scene.standings()) if i > 0]
    rounds = scene.model.last_round.result.round_no if scene.model.last_round is not None else 0
    summary = "  ·  ".join(places + ([tr("over.rounds", n=rounds)] if rounds else []))
    for i, line in enumerate(draw.wrap(summary, 24, box.width - 80)[:3]):
        draw.text(surface, line, (box.centerx, box.top + 196 + i * 26), 24, theme.CREAM,
                  anchor="center", shadow=False)
    scene.buttons = []
    entries = [
        ("over.play_again", scene.play_again, "play_again"),
        ("over.lobby", scene.host.show_lobby, "lobby"),
        ("over.quit", scene.host.quit, "quit"),
    ]
    if scene.request.kind == "watch":  # a spectator has no game to play again (Enter: lobby)
        entries = entries[1:]
    first = entries[0][2]
    left = box.centerx - (len(entries) * 196 - 12) // 2
    for i, (key, action, name) in enumerate(entries):
        rect = pygame.Rect(left + i * 196, box.bottom - 110, 184, 60)
        # the first choice waits out the grace: a key or click meant for the final reveal
        # must not start a new game
        enabled = scene.end_ready or name != first
        scene.buttons.append(Button(rect, tr(key), action, size=26, name=name, enabled=enabled,
                                    hotkey="Enter" if name == first else ""))
    scene.draw_buttons(surface)
