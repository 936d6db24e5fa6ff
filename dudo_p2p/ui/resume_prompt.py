"""On launch: "A game is in progress at table ABCDE: resume?" (issue 13 §6).

Every networked game journals itself in the data directory and its journal is deleted when
the game ends or is left; one still there at launch is a game a crash (or a closed window)
interrupted. The command line (``cli/play.py``) looks for ours before the window opens and
hands it in as a :class:`ResumeOffer`; this screen asks. "Resume" (Enter) asks the app for a
``resume`` table request naming the journal: the peer restarts from it, takes its seat back
if the table's reconnect grace has not run out, and is told it was removed otherwise (the
table's end screen says so). "Not now" (Esc) goes to the lobby and keeps the journal
(``dudo-p2p bot/host --resume`` can still use it; the window asks again next time).

The UI reads nothing here: the offer comes in, a request goes out.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pygame

from dudo_p2p.ui import draw, theme
from dudo_p2p.ui.request import TableRequest
from dudo_p2p.ui.scene import Host, Scene
from dudo_p2p.ui.widgets import Button


@dataclass(frozen=True)
class ResumeOffer:
    """An interrupted game of ours: its table code and the journal to resume it from."""

    table: str
    journal: Path


class ResumePrompt(Scene):
    """Ask whether to resume ``offer`` (see the module docstring)."""

    def __init__(self, host: Host, offer: ResumeOffer) -> None:
        super().__init__(host)
        self.offer = offer

    def resume(self) -> None:
        self.host.start_table(TableRequest("resume", journal=str(self.offer.journal)))

    def handle_key(self, key: int, mod: int) -> None:
        if key in (pygame.K_RETURN, pygame.K_KP_ENTER):
            self.resume()
        elif key == pygame.K_ESCAPE:
            self.host.show_lobby()

    def draw(self, surface: pygame.Surface) -> None:
        tr = self.tr
        draw.background(surface)
        box = pygame.Rect(240, 220, 800, 360)
        draw.panel(surface, box)
        draw.text(surface, tr("resume.title", table=self.offer.table), (box.centerx, 290), 36,
                  theme.GOLD, anchor="center", max_width=740)
        draw.text_block(surface, tr("resume.ask"), pygame.Rect(280, 340, 720, 110), 24)
        self.buttons = [
            Button(pygame.Rect(280, 480, 340, 60), tr("resume.yes"), self.resume, size=26,
                   hotkey="Enter", name="resume_yes"),
            Button(pygame.Rect(660, 480, 340, 60), tr("resume.no"), self.host.show_lobby,
                   size=26, hotkey="Esc", name="resume_no"),
        ]
        self.draw_buttons(surface)
