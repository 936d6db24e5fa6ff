"""The lobby's "Open a record" list: the newest records, each with when it was written, and
a word when there are more than it lists (session 10, watchux: records accumulate, one per
game and seat, and the list silently showed the newest 8 by file name alone)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pygame
import pytest

from dudo_p2p.ui import draw
from dudo_p2p.ui.app import App
from dudo_p2p.ui.replay_records import MAX_LISTED, RecordsScene

from .conftest import FakeClock
from .helpers import TextRecorder, click_button


@pytest.mark.parametrize(("lang", "more"), [
    ("en", "the newest 8 of 11: type a path for an older one"),
    ("es", "las 8 más nuevas de 11: escribe la ruta de una anterior"),
])
def test_the_list_dates_each_record_and_says_how_many_it_leaves_out(
        clock: FakeClock, surface: pygame.Surface, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, lang: str, more: str) -> None:
    folder = tmp_path / "records"
    folder.mkdir()
    base = time.mktime((2026, 12, 1, 20, 0, 0, 0, 0, -1))
    for i in range(MAX_LISTED + 3):
        path = folder / f"GAME{i:02d}.dudo"
        path.write_bytes(b"")
        os.utime(path, (base + 60 * i, base + 60 * i))
    app = App(lambda _r: pytest.fail("no table"), lang, clock, surface=surface,
              records_folder=folder)
    click_button(app, "open_records")
    assert isinstance(app.scene, RecordsScene)
    recorder = TextRecorder()
    monkeypatch.setattr(draw, "text", recorder)
    shown = recorder.frame(app)
    assert more in shown
    listed = [line for line in shown if line.startswith("GAME")]
    assert listed == [f"GAME{i:02d}.dudo" for i in range(10, 2, -1)]  # the newest 8
    assert "2026-12-01 20:10" in shown and "2026-12-01 20:03" in shown
    assert "2026-12-01 20:02" not in shown
    few = App(lambda _r: pytest.fail("no table"), lang, clock, surface=surface,
              records_folder=tmp_path / "none")
    click_button(few, "open_records")
    # no count when every record is listed
    assert not any(word in line for line in recorder.frame(few)
                   for word in ("newest", "más nuevas"))
