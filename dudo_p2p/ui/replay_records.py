"""The lobby's "Open a record": pick a saved game record and step through it in the replay
viewer (:class:`~dudo_p2p.ui.replay_scene.ReplayScene`).

The screen lists the ``*.dudo`` records of a folder (the ``records`` folder of the data
directory, where ``--record`` can write; newest first) and takes a typed path too. A record
is verified before anything is shown (:meth:`~dudo_p2p.session.replay.Replay.load`, the
check ``verify`` makes): an invalid one opens nothing and the screen says where it fails.
Esc (or "Back") returns to the lobby; Esc in the viewer returns here.

The UI reads files but opens no socket; the folder is injected (the app passes the data
directory's, tests a temporary one).
"""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path

import pygame

from dudo_p2p.errors import DudoError, InvalidValue
from dudo_p2p.session.replay import RecordViolation, Replay
from dudo_p2p.ui import draw, theme
from dudo_p2p.ui.replay_scene import ReplayScene
from dudo_p2p.ui.scene import Host, Scene
from dudo_p2p.ui.widgets import Button, TextField

MAX_LISTED = 8
MAX_RECORD_BYTES = 16 * 1024 * 1024  # a record of a long 6-seat game is well under 1 MiB
PATH_CHARS = None  # any printable character: paths hold spaces, accents, backslashes


def saved_records(folder: Path) -> list[Path]:
    """The ``*.dudo`` files of ``folder``, newest first (none when it does not exist)."""
    try:
        found = [p for p in folder.glob("*.dudo") if p.is_file()]
    except OSError:
        return []
    return sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)


def short_name(name: str, most: int = 60) -> str:
    """``name`` cut in its middle to ``most`` characters: the message under the list keeps two
    lines, and the reason after the name must not be the part that is cut off."""
    if len(name) <= most:
        return name
    tail = most // 3
    return f"{name[:most - tail - 1]}…{name[-tail:]}"


def _saved_at(path: Path) -> str:
    """When ``path`` was last written, local time ("" when it cannot be read now)."""
    try:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(path.stat().st_mtime))
    except OSError:
        return ""


class RecordsScene(Scene):
    """Choose a record of ``folder`` (or type a path) and open it in the replay viewer."""

    def __init__(self, host: Host, folder: Path) -> None:
        super().__init__(host)
        self.folder = folder
        self.records = saved_records(folder)
        self.path = TextField(pygame.Rect(60, 668, 900, 48), max_len=400, allowed=PATH_CHARS,
                              size=22)
        self.message = ""

    def open(self, path: Path) -> None:
        """Verify the record at ``path`` and show it; else say why it opens nothing."""
        try:
            if path.stat().st_size > MAX_RECORD_BYTES:
                raise InvalidValue("the file is too large to be a game record")
            replay = Replay.load(path.read_bytes())
        except (OSError, DudoError) as exc:
            self.message = self.tr("records.invalid", name=short_name(path.name),
                                   why=self._why(exc))
            return
        self.host.switch(ReplayScene(self.host, replay, on_escape=self._back_here))

    def _why(self, exc: OSError | DudoError) -> str:
        """Where the record fails, in the player's language; the check's own words, which
        name the broken field, stay as ``verify`` prints them."""
        if isinstance(exc, FileNotFoundError):
            return self.tr("records.missing")
        if isinstance(exc, OSError):
            return exc.strerror or str(exc)
        if isinstance(exc, RecordViolation):
            if exc.index >= 0:
                return self.tr("records.bad_item", item=exc.index, reason=exc.reason)
            return self.tr("records.not_record", reason=exc.reason)
        return str(exc)

    def _back_here(self) -> None:
        self.host.switch(RecordsScene(self.host, self.folder))

    def handle_event(self, event: pygame.event.Event) -> None:
        self.path.handle(event)
        if self.path.focused and event.type == pygame.KEYDOWN:
            if event.key in (pygame.K_RETURN, pygame.K_KP_ENTER) and self.path.value.strip():
                self.open(Path(self.path.value.strip()).expanduser())
            elif event.key == pygame.K_ESCAPE:
                self.path.focused = False
            return
        if event.type == pygame.TEXTINPUT:
            return
        super().handle_event(event)

    def handle_key(self, key: int, mod: int) -> None:
        if key == pygame.K_ESCAPE:
            self.host.show_lobby()

    def draw(self, surface: pygame.Surface) -> None:
        tr = self.tr
        draw.background(surface)
        self.buttons = []
        box = pygame.Rect(40, 40, 1200, 720)
        draw.panel(surface, box)
        draw.text(surface, tr("records.title"), (60, 56), 40, theme.GOLD)
        if len(self.records) > MAX_LISTED:  # the older ones are not lost: say they exist
            draw.text(surface, tr("records.more", shown=MAX_LISTED, total=len(self.records)),
                      (1220, 72), 22, theme.MUTED, anchor="topright")
        if not self.records:
            draw.text(surface, tr("records.none", folder=str(self.folder)), (60, 120), 24,
                      theme.MUTED, max_width=1160)
        for i, record in enumerate(self.records[:MAX_LISTED]):
            y = 116 + i * 58
            draw.text(surface, record.name, (60, y + 8), 24, theme.CREAM, max_width=700)
            draw.text(surface, _saved_at(record), (980, y + 11), 22, theme.MUTED,
                      anchor="topright")  # which game is which: when it was written
            self.buttons.append(Button(pygame.Rect(1000, y, 200, 46), tr("records.open"),
                                       partial(self.open, record), size=24,
                                       name=f"record_{i}"))
        if self.message:  # two lines at most: a long file name must not shrink the reason
            for i, line in enumerate(draw.wrap(self.message, 22, 1160)[:2]):
                draw.text(surface, line, (60, 574 + i * 26), 22, theme.GOLD, max_width=1160)
        draw.text(surface, tr("records.path"), (60, 632), 24, theme.CREAM)
        self.path.draw(surface, str(self.folder / "…"))
        self.buttons.append(Button(pygame.Rect(980, 668, 100, 48), tr("records.open"),
                                   lambda: self.open(Path(self.path.value.strip()).expanduser()),
                                   size=24, name="record_path"))
        self.buttons.append(Button(pygame.Rect(1100, 668, 120, 48), tr("records.back"),
                                   self.host.show_lobby, size=24, hotkey="Esc",
                                   name="records_back"))
        self.draw_buttons(surface)
