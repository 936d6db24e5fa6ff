"""Bot pacing in the window (issue 15): once we are out of a game our own paced bots play on,
"skip to the end" is offered and hurries them; the seat to act says it is thinking. An
in-process table of real bots, wrapped as a table whose bots we pace; the clock injected."""

from __future__ import annotations

import pygame
import pytest

from dudo_p2p.session import Session
from dudo_p2p.ui import draw
from dudo_p2p.ui.app import App
from dudo_p2p.ui.request import TableRequest
from dudo_p2p.ui.table import TableScene
from dudo_p2p.ui.table_core import SKIPPED_REVEAL_S

from .conftest import FakeClock
from .helpers import TextRecorder, bot_tables, click_button, play_until


class PacedTable:
    """An in-process bot table that answers like one whose bots think (can_hurry)."""

    def __init__(self, inner: Session) -> None:
        self.inner = inner
        self.hurried = 0

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    @property
    def can_hurry(self) -> bool:
        return True

    def hurry(self) -> None:
        self.hurried += 1


def test_out_of_the_game_we_may_skip_to_the_end(
        clock: FakeClock, surface: pygame.Surface, monkeypatch: pytest.MonkeyPatch) -> None:
    tables: list[PacedTable] = []

    def factory(request: TableRequest) -> Session:
        tables.append(PacedTable(bot_tables(request)))
        return tables[-1]  # type: ignore[return-value]

    app = App(factory, "es", clock, surface=surface, bot_delay=0.0, reveal_hold=0.0)
    app.start_table(TableRequest("bots", bots=3, seed=4))
    scene = app.scene
    assert isinstance(scene, TableScene)
    recorder = TextRecorder()
    monkeypatch.setattr(draw, "text", recorder)

    def other_to_act(s: TableScene) -> bool:
        return (s.view is not None and s.view.to_act not in (None, s.session.seat)
                and s.model.reveal is None)

    play_until(app, clock, scene, other_to_act)
    assert "pensando..." in recorder.frame(app)  # the seat to act, on its plate
    app.frame()
    assert not [b for b in scene.buttons if b.name == "skip"]  # still in the game: no skip

    def we_are_out(s: TableScene) -> bool:
        return s.view is not None and not s.view.state.alive[s.session.seat]

    play_until(app, clock, scene, we_are_out)
    assert scene.model.winner is None, "seed 4: three bots are left when we are out"
    assert "Saltar al final" in recorder.frame(app)
    click_button(app, "skip")
    assert tables[0].hurried == 1 and scene.skipped
    assert scene.reveal_hold == SKIPPED_REVEAL_S
    app.frame()
    assert not [b for b in scene.buttons if b.name == "skip"]  # once
