"""The lobby's "create a table" panel: starting dice, the number of seats (ours included),
how many of them bots take at once and their level (the other seats wait for friends), the
turn timer, and the rule set field by field from the rules' ``VARIANTS`` table,
each shown with its one-line explanation in the player's language; a combination the rules
refuse is not taken and the reason is shown instead (:func:`next_rules`).

It draws a lobby typed as :class:`CreateChoices` (``LobbyScene`` is one), not imported, so
that this module does not import the lobby that imports it (``tests/test_layers.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from typing import Protocol

import pygame

from dudo_p2p.errors import InvalidRuleSet
from dudo_p2p.rules import VARIANTS, RuleSet
from dudo_p2p.ui import draw, theme
from dudo_p2p.ui.i18n import LEVEL_KEYS, VALUE_KEYS, Tr
from dudo_p2p.ui.request import BOT_LEVELS, TIMER_CHOICES
from dudo_p2p.ui.rule_texts import VARIANT_KEYS
from dudo_p2p.ui.widgets import Button

# starting_dice has its own 3/4/5 selector; every other field is a row of the rules list.
RULE_FIELDS = tuple(name for name in VARIANTS if name != "starting_dice")
RULES_PER_PAGE = 5
SEAT_CHOICES = range(2, 7)  # a table seats 2 to 6, the host included
BOT_CHOICES = range(0, 5)  # bots seated at once: at least one seat stays for a friend


class CreateChoices(Protocol):
    """What the panel shows and changes of the lobby (module docstring)."""

    rules: RuleSet
    create_seats: int
    create_bots: int
    level: str
    timer_index: int
    page: int  # of the rules list
    buttons: list[Button]
    mouse: tuple[int, int]

    @property
    def tr(self) -> Tr: ...

    def set_starting_dice(self, n: int) -> None: ...

    def set_create_seats(self, n: int) -> None: ...

    def set_create_bots(self, n: int) -> None: ...

    def cycle_rule(self, name: str) -> None: ...

    def create(self) -> None: ...


def next_rules(rules: RuleSet, name: str) -> tuple[RuleSet, str]:
    """``rules`` with field ``name`` moved to its next allowed value, and "" ; or, when the
    rules refuse the result, ``rules`` unchanged and the reason."""
    allowed = VARIANTS[name].allowed
    current = getattr(rules, name)
    nxt = allowed[(allowed.index(current) + 1) % len(allowed)]
    try:
        text = str(nxt).lower() if isinstance(nxt, bool) else str(nxt)
        return rules.with_option(name, text), ""
    except InvalidRuleSet as exc:
        return rules, str(exc)


def choice_button(rect: pygame.Rect, label: str, selected: bool,
                  action: Callable[[], object], name: str) -> Button:
    """One of a row of choices, gold when it is the one chosen."""
    color = theme.GOLD_DARK if selected else theme.PANEL_EDGE
    return Button(rect, label, action, color=color, size=26, name=name)


def _value_label(tr: Tr, value: bool | int | str) -> str:
    if isinstance(value, bool):
        return tr("common.yes") if value else tr("common.no")
    if isinstance(value, str):
        return tr(VALUE_KEYS.get(value, value))
    return str(value)


def draw_create(lobby: CreateChoices, surface: pygame.Surface) -> None:
    """Draw the panel and add its buttons to ``lobby.buttons``."""
    tr = lobby.tr
    buttons = lobby.buttons
    box = pygame.Rect(650, 30, 590, 722)
    draw.panel(surface, box)
    draw.text(surface, tr("lobby.create"), (672, 46), 38, theme.GOLD)
    y = 96
    _number_row(lobby, surface, y, "lobby.starting_dice", (3, 4, 5), lobby.rules.starting_dice,
                lobby.set_starting_dice, "dice_", pygame.Rect(1000, y, 66, 44), 74)
    y += 54
    _number_row(lobby, surface, y, "lobby.seats", SEAT_CHOICES, lobby.create_seats,
                lobby.set_create_seats, "seats_", pygame.Rect(978, y, 44, 44), 50)
    y += 54
    _number_row(lobby, surface, y, "lobby.bots", BOT_CHOICES, lobby.create_bots,
                lobby.set_create_bots, "create_bots_", pygame.Rect(978, y, 44, 44), 50)
    y += 54
    draw.text(surface, tr("lobby.level"), (672, y + 12), 26)
    for i, level in enumerate(BOT_LEVELS):
        buttons.append(choice_button(pygame.Rect(848 + i * 94, y, 88, 44),
                                     tr(LEVEL_KEYS[level]), lobby.level == level,
                                     partial(setattr, lobby, "level", level),
                                     f"level_{level}"))
    y += 54
    draw.text(surface, tr("lobby.timer"), (672, y + 12), 26)
    for i, seconds in enumerate(TIMER_CHOICES):
        label = tr("lobby.timer_off") if seconds is None else tr("common.seconds",
                                                                 n=int(seconds))
        rect = pygame.Rect(900, y, 120, 44) if i == 0 else pygame.Rect(
            962 + i * 64, y, 58, 44)
        buttons.append(choice_button(rect, label, lobby.timer_index == i,
                                     partial(setattr, lobby, "timer_index", i), f"timer_{i}"))
    y += 62
    pages = (len(RULE_FIELDS) + RULES_PER_PAGE - 1) // RULES_PER_PAGE
    draw.text(surface, tr("lobby.rules"), (672, y), 28, theme.GOLD)
    draw.text(surface, tr("lobby.page", page=lobby.page + 1, pages=pages), (1090, y + 4),
              22, theme.MUTED, anchor="topright")
    buttons.append(Button(pygame.Rect(1110, y - 6, 56, 36), "<", lambda: setattr(
        lobby, "page", (lobby.page - 1) % pages), size=26, name="rules_prev"))
    buttons.append(Button(pygame.Rect(1172, y - 6, 56, 36), ">", lambda: setattr(
        lobby, "page", (lobby.page + 1) % pages), size=26, name="rules_next"))
    y += 40
    start = lobby.page * RULES_PER_PAGE
    for name in RULE_FIELDS[start:start + RULES_PER_PAGE]:
        _draw_rule_row(lobby, surface, pygame.Rect(668, y, 556, 50), name)
        y += 54
    buttons.append(Button(pygame.Rect(840, 682, 380, 56), tr("lobby.create_button"),
                          lobby.create, size=28, name="create"))


def _number_row(lobby: CreateChoices, surface: pygame.Surface, y: int, label: str,
                values: Iterable[int], chosen: int, choose: Callable[[int], None],
                name: str, first: pygame.Rect, step: int) -> None:
    """A label and a row of numbers to choose from (the first button at ``first``, the next
    ones ``step`` px to the right), the chosen one gold; button ``name + str(n)``."""
    draw.text(surface, lobby.tr(label), (672, y + 12), 26)
    for i, n in enumerate(values):
        rect = first.move(i * step, 0)
        lobby.buttons.append(choice_button(rect, str(n), chosen == n, partial(choose, n),
                                           f"{name}{n}"))


def _draw_rule_row(lobby: CreateChoices, surface: pygame.Surface, rect: pygame.Rect,
                   name: str) -> None:
    info = VARIANTS[name]
    value = getattr(lobby.rules, name)
    changed = value != getattr(RuleSet(), name)
    hover = rect.collidepoint(lobby.mouse)
    fill = (86, 58, 36) if hover else (66, 44, 30)
    pygame.draw.rect(surface, fill, rect, border_radius=8)
    if changed:
        pygame.draw.rect(surface, theme.GOLD, rect, width=2, border_radius=8)
    draw.text(surface, info.rule, (rect.left + 10, rect.top + 6), 22,
              theme.GOLD if changed else theme.MUTED)
    draw.text(surface, _value_label(lobby.tr, value), (rect.left + 10, rect.top + 28), 22,
              theme.GOLD if changed else theme.CREAM)
    line = lobby.tr(VARIANT_KEYS[name])
    draw.text_block(surface, line, pygame.Rect(rect.left + 140, rect.top + 5,
                                               rect.width - 150, rect.height - 6),
                    20, theme.CREAM, line_gap=1)
    # The whole row is the click target; an invisible button keeps hit testing uniform.
    lobby.buttons.append(_RowButton(rect, "", partial(lobby.cycle_rule, name),
                                    name=f"rule_{name}"))


class _RowButton(Button):
    """A button that draws nothing: the row under it is already drawn."""

    def draw(self, surface: pygame.Surface, mouse: tuple[int, int]) -> None:
        return None
