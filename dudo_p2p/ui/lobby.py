"""The lobby: tables on the LAN, join by address or code, create a table, or play bots.

The join field takes what a host dictates: ``host:port``, or the table code ``CODE`` /
``CODE@FINGERPRINT`` (found by the LAN beacons; with the fingerprint, only that host's
table is taken).

Same-device (hot-seat) play: "OK" opens a panel with one name field per player (in place of
the LAN panels); empty fields read "Jugador n", names are cleaned and made distinct by
:func:`~dudo_p2p.ui.request.hotseat_names`.

The create-a-table panel (starting dice, bots, level, timer, the rule set field by field)
is drawn by :mod:`~dudo_p2p.ui.lobby_create`, the rows of the LAN list by
:mod:`~dudo_p2p.ui.lobby_tables`.
"""

from __future__ import annotations

import dataclasses
from functools import partial

import pygame

from dudo_p2p.rules import RuleSet
from dudo_p2p.ui import draw, remember, theme
from dudo_p2p.ui.lobby_create import choice_button, draw_create, next_rules
from dudo_p2p.ui.lobby_tables import draw_rows
from dudo_p2p.ui.request import (
    MAX_NAME_CHARS,
    TIMER_CHOICES,
    TableDirectory,
    TableListing,
    TableRequest,
    clean_name,
    hotseat_names,
    parse_address,
    parse_code,
)
from dudo_p2p.ui.scene import Host, Scene
from dudo_p2p.ui.widgets import Button, TextField

DIRECTORY_POLL_S = 1.0
LANGUAGE_BUTTON = pygame.Rect(470, 24, 150, 44)  # top left, beside the title
NAME_FIELD = pygame.Rect(262, 24, 196, 44)  # our name, between the title and the language
MAX_HOTSEAT = 6
JOIN_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.:-[]_@"


def _name_field(i: int) -> TextField:
    """The name field of hot-seat player ``i`` (0..5): two columns of three in the panel."""
    rect = pygame.Rect(60 + (i % 2) * 276, 410 + (i // 2) * 56, 264, 46)
    return TextField(rect, max_len=MAX_NAME_CHARS, allowed=None, size=24)


class LobbyScene(Scene):
    """The opening screen. See the module docstring."""

    def __init__(self, host: Host, directory: TableDirectory | None = None) -> None:
        super().__init__(host)
        self.directory = directory
        self.rules = RuleSet()
        self.n_bots = 3  # quick play: against how many bots (1-5)
        self.create_seats = 5  # a created table: its seats, ours included (2-6)
        self.create_bots = 3  # ... how many of them bots take at once (0-4), apart from n_bots
        self.hotseat_players = 2
        self.level = "normal"
        self.timer_index = 0
        self.page = 0
        # host:port, or CODE@FINGERPRINT (the '@' and any letter a fingerprint holds)
        self.address = TextField(pygame.Rect(60, 668, 380, 48), allowed=JOIN_CHARS)
        self.naming = False  # the hot-seat names panel is open (it replaces the LAN panels)
        self.name_fields = [_name_field(i) for i in range(MAX_HOTSEAT)]
        self.message = ""
        self.listings: list[TableListing] = []
        self._polled_at: float | None = None
        self.name_field = TextField(NAME_FIELD.copy(), max_len=MAX_NAME_CHARS, allowed=None,
                                    size=22)
        remember.restore(self, host.settings)  # the last launch's name and choices

    # -- state changes -------------------------------------------------------------------
    @property
    def turn_timer(self) -> float | None:
        """The chosen human turn timer in seconds (None: no limit)."""
        return TIMER_CHOICES[self.timer_index]

    def cycle_rule(self, name: str) -> None:
        """Move field ``name`` to its next allowed value, unless the rules refuse the result
        (the reason is shown instead)."""
        self.rules, self.message = next_rules(self.rules, name)

    def create(self) -> None:
        """Open the table the create panel describes."""
        self._start(self.request("create"))

    def set_create_seats(self, n: int) -> None:
        """The created table has ``n`` seats; the bots chosen leave one of them for a friend."""
        self.create_seats = max(2, min(6, n))
        self.create_bots = min(self.create_bots, self.create_seats - 2)

    def set_create_bots(self, n: int) -> None:
        """``n`` bots sit at the created table at once; it gains seats so that one stays free
        for a friend (six at most: then four bots)."""
        self.create_bots = max(0, min(4, n))
        self.create_seats = max(self.create_seats, self.create_bots + 2)

    def set_starting_dice(self, n: int) -> None:
        """Choose 3, 4 or 5 starting dice."""
        self.rules = dataclasses.replace(self.rules, starting_dice=n)

    def _start(self, request: TableRequest) -> None:
        """Remember the lobby's choices, then ask the app for the table ``request``."""
        remember.remember(self, self.host.settings)
        self.host.start_table(request)

    @property
    def player_name(self) -> str:
        """Our name as typed in the name field (cleaned)."""
        return clean_name(self.name_field.value)

    def request(self, kind: str) -> TableRequest:
        """The request the current settings describe, for ``kind`` bots/create/hotseat."""
        if kind == "hotseat":
            n = self.hotseat_players
            typed = [f.value for f in self.name_fields[:n]]
            return TableRequest("hotseat", rules=self.rules, players=n,
                                turn_timer_s=self.turn_timer, names=hotseat_names(typed, n))
        if kind == "create":
            return TableRequest("create", rules=self.rules, bots=self.create_bots,
                                players=self.create_seats, bot_level=self.level,
                                turn_timer_s=self.turn_timer, name=self.player_name)
        return TableRequest("bots", rules=self.rules, bots=max(1, self.n_bots),
                            bot_level=self.level, turn_timer_s=self.turn_timer,
                            name=self.player_name)

    def join(self, address: str) -> None:
        """Join ``address`` if it reads as host:port, or the table it names if it reads as a
        table code (``CODE`` or ``CODE@FINGERPRINT``); else say what is wrong."""
        code = parse_code(address)
        if code is not None:
            self._start(TableRequest("join", code=code, turn_timer_s=self.turn_timer,
                                     name=self.player_name))
            return
        if parse_address(address) is None:
            self.message = self.tr("lobby.bad_address")
            return
        self._start(TableRequest("join", address=address.strip(),
                                 turn_timer_s=self.turn_timer, name=self.player_name))

    def watch(self, address: str, code: str) -> None:
        """Watch the table at ``address`` (``code``: CODE[@FINGERPRINT], checked)."""
        self._start(TableRequest("watch", address=address, code=code, name=self.player_name))

    def open_records(self) -> None:
        """The lobby's "Open a record" (ui/replay_records.py)."""
        from dudo_p2p.ui.replay_records import RecordsScene

        self.host.switch(RecordsScene(self.host, self.host.records_folder))

    def open_names(self) -> None:
        """Open the hot-seat names panel, the first name field ready for typing."""
        self.naming = True
        self.address.focused = False
        for i, f in enumerate(self.name_fields):
            f.focused = i == 0

    def close_names(self) -> None:
        """Back to the LAN panels; the typed names stay for the next time."""
        self.naming = False
        for f in self.name_fields:
            f.focused = False

    def _fields(self) -> list[TextField]:
        """The text fields on screen now."""
        if self.naming:
            return self.name_fields[:self.hotseat_players]
        return [self.name_field, self.address]

    def _next_field(self) -> None:
        fields = self._fields()
        at = next((i for i, f in enumerate(fields) if f.focused), -1)
        for i, f in enumerate(fields):
            f.focused = i == (at + 1) % len(fields)

    # -- events --------------------------------------------------------------------------
    def handle_event(self, event: pygame.event.Event) -> None:
        fields = self._fields()
        for f in fields:
            f.handle(event)
        focused = next((f for f in fields if f.focused), None)
        if focused is not None and event.type == pygame.KEYDOWN:
            # typing goes to the field: letters must not fire the lobby's hotkeys (L, Space)
            if event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
                if focused is self.name_field:
                    focused.focused = False  # the name is taken as typed
                elif self.naming:
                    self._start(self.request("hotseat"))
                else:
                    self.join(self.address.value)
            elif event.key == pygame.K_TAB:
                self._next_field()
            elif event.key == pygame.K_ESCAPE and self.naming:
                self.close_names()
            elif event.key == pygame.K_ESCAPE:
                focused.focused = False
            return
        if event.type == pygame.TEXTINPUT:
            return
        super().handle_event(event)

    def handle_key(self, key: int, mod: int) -> None:
        if key == pygame.K_ESCAPE and self.naming:
            self.close_names()
        elif key == pygame.K_ESCAPE:
            self.host.quit()
        elif key == pygame.K_l:
            self.host.toggle_language()
        elif key in (pygame.K_RETURN, pygame.K_KP_ENTER, pygame.K_SPACE):
            self._start(self.request("bots"))

    def update(self, now: float) -> None:
        if self.directory is None:
            return
        if self._polled_at is None or now - self._polled_at >= DIRECTORY_POLL_S:
            self._polled_at = now
            self.listings = list(self.directory.tables())

    # -- drawing -------------------------------------------------------------------------
    def draw(self, surface: pygame.Surface) -> None:
        tr = self.tr
        draw.background(surface)
        self.buttons = []
        draw.text(surface, tr("app.title"), (60, 14), 90, theme.GOLD)
        draw.text(surface, tr("app.subtitle"), (62, 84), 22, theme.MUTED, max_width=556)
        # the language is chosen here too, before a game: named in the language it switches to
        self.buttons.append(Button(LANGUAGE_BUTTON, tr("lobby.other_language"),
                                   self.host.toggle_language, size=24, hotkey="L",
                                   name="language"))
        self._draw_quick(surface)
        if self.naming:
            self._draw_names(surface)
        else:
            self._draw_tables(surface)
            self._draw_join(surface)
        draw_create(self, surface)
        hint = self.message or tr("lobby.hint")
        color = theme.RED if self.message else theme.HINT
        draw.text(surface, hint, (640, 780), 22, color, anchor="midbottom", max_width=1240)
        self.draw_buttons(surface)
        if self.naming:
            for i, f in enumerate(self.name_fields[:self.hotseat_players]):
                f.draw(surface, tr("hotseat.player", n=i + 1))
        else:
            self.address.draw(surface, tr("lobby.address_hint"))
            self.name_field.draw(surface, tr("lobby.name_hint"))

    def _draw_quick(self, surface: pygame.Surface) -> None:
        tr = self.tr
        _panel(surface, 120, 210, tr("lobby.quick"))
        for i, n in enumerate(range(1, 6)):
            self.buttons.append(choice_button(
                pygame.Rect(60 + i * 62, 178, 54, 46), str(n), n == self.n_bots,
                partial(setattr, self, "n_bots", n), f"bots_{n}"))
        self.buttons.append(Button(
            pygame.Rect(380, 172, 220, 58),
            tr("lobby.play_bots", n=self.n_bots) if self.n_bots > 1 else tr("lobby.play_bot_one"),
            lambda: self._start(self.request("bots")), size=26, name="play_bots",
            hotkey="Enter"))
        draw.text(surface, tr("lobby.hotseat", n=self.hotseat_players), (60, 262), 26,
                  theme.CREAM)
        self.buttons.append(Button(pygame.Rect(380, 250, 58, 50), "-", lambda: setattr(
            self, "hotseat_players", max(2, self.hotseat_players - 1)), name="hotseat_minus"))
        self.buttons.append(Button(pygame.Rect(446, 250, 58, 50), "+", lambda: setattr(
            self, "hotseat_players", min(6, self.hotseat_players + 1)), name="hotseat_plus"))
        self.buttons.append(Button(pygame.Rect(512, 250, 88, 50), "OK", self.open_names,
                                   size=26, name="hotseat_go"))

    def _draw_names(self, surface: pygame.Surface) -> None:
        tr = self.tr
        _panel(surface, 346, 406, tr("lobby.names", n=self.hotseat_players), max_width=540)
        draw.text(surface, tr("lobby.names_hint", n=MAX_NAME_CHARS), (60, 588), 22,
                  theme.MUTED, max_width=540)
        self.buttons.append(Button(pygame.Rect(60, 668, 200, 56), tr("lobby.names_back"),
                                   self.close_names, size=26, hotkey="Esc",
                                   name="hotseat_back"))
        self.buttons.append(Button(pygame.Rect(300, 668, 300, 56), tr("lobby.names_start"),
                                   lambda: self._start(self.request("hotseat")),
                                   size=26, hotkey="Enter", name="hotseat_start"))

    def _draw_tables(self, surface: pygame.Surface) -> None:
        tr = self.tr
        _panel(surface, 346, 240, tr("lobby.tables"))
        self.buttons.append(Button(pygame.Rect(386, 354, 222, 40), tr("lobby.records"),
                                   self.open_records, size=24, name="open_records"))
        if not self.listings:
            draw.text(surface, tr("lobby.no_tables"), (60, 420), 26, theme.MUTED)
            return
        draw_rows(tr, surface, self.listings, self.buttons, self.join, self.watch)

    def _draw_join(self, surface: pygame.Surface) -> None:
        tr = self.tr
        _panel(surface, 602, 150, tr("lobby.join_address"))
        self.buttons.append(Button(pygame.Rect(456, 668, 144, 48), tr("lobby.join"),
                                   lambda: self.join(self.address.value), size=26,
                                   name="join_address"))


def _panel(surface: pygame.Surface, top: int, height: int, title: str,
           max_width: int | None = None) -> None:
    """A panel of the lobby's left column, from ``top`` and ``height`` high, and its title."""
    draw.panel(surface, pygame.Rect(40, top, 580, height))
    draw.text(surface, title, (60, top + 16), 34, theme.GOLD, max_width=max_width)
