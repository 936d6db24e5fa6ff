"""Screenshots of the table's animations: ``python -m dudo_p2p.ui.shots DIR [SEED]``.

Headless (SDL dummy driver) on a seeded in-process table against three random-legal
players, on a clock this module moves by hand, so each picture is taken at an exact moment
of an animation: ``motion-roll.png`` (the cups rattling, our dice tumbling),
``motion-reveal.png`` (the cups lifting one by one) and ``motion-lost.png`` (the counted
dice pulsing, a lost die flying off). ``scripts/motion_shots`` writes them into ``docs/``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame

from dudo_p2p.rules import Dudo
from dudo_p2p.session import Session
from dudo_p2p.ui import theme
from dudo_p2p.ui.app import App
from dudo_p2p.ui.drive import HandClock
from dudo_p2p.ui.local_tables import local_factory
from dudo_p2p.ui.motion import FLY_S, LIFT_S, LIFT_STAGGER_S, SHAKE_S
from dudo_p2p.ui.request import TableRequest
from dudo_p2p.ui.settings import Settings
from dudo_p2p.ui.table import TableScene

STEP_S = 0.05


def _bots(request: TableRequest) -> Session:
    # random-legal seats (the ui layer does not import the bots; the pictures need a table
    # that moves, not good play)
    return local_factory(request, bot_maker=lambda _level, rng: (
        lambda _view, legal: rng.choice(legal)))


def take(out: Path, seed: int = 11) -> list[Path]:
    """Play a seeded table to a round with a lost die and save the three pictures."""
    pygame.display.init()
    pygame.font.init()
    clock = HandClock(100.0)
    surface = pygame.Surface(theme.SIZE)
    app = App(_bots, "es", clock, surface=surface, bot_delay=0.6, reveal_hold=0.0,
              settings=Settings.memory(reduced_motion=False, muted=True))
    app.start_table(TableRequest("bots", bots=3, seed=seed))
    scene = app.scene
    assert isinstance(scene, TableScene)
    scene.looking = True
    saved: list[Path] = []

    def save(name: str) -> None:
        app.frame()  # the scene takes the moment the clock was set to
        path = out / name
        pygame.image.save(surface, str(path))
        saved.append(path)

    rolled = False
    for _ in range(20000):
        clock.advance(STEP_S)
        app.frame()
        view = scene.view
        if (not rolled and scene.shake_started is not None and view is not None
                and view.own_dice and scene.model.reveal is None):
            clock.advance(SHAKE_S * 0.45)  # mid-rattle: our dice in the air
            save("motion-roll.png")
            rolled = True
        reveal = scene.model.reveal
        if reveal is not None and reveal.timeline is not None:
            lost_by_other = any(s != scene.session.seat for s in reveal.result.losses)
            if rolled and lost_by_other and len(reveal.timeline.order) >= 3:
                film = reveal.timeline
                clock.now = film.started + LIFT_STAGGER_S * 1.6 + LIFT_S * 0.3
                save("motion-reveal.png")
                clock.now = film.all_up + FLY_S * 0.12
                save("motion-lost.png")
                return saved
            clock.advance(10.0)
            app.frame()
            scene.dismiss_reveal()
            continue
        if scene.my_turn and not scene.blocked:
            if scene.choices():
                scene.submit(scene.choices()[0])
            elif scene.offered(Dudo) is not None and view is not None and len(
                    view.state.bids) >= 3:
                scene.call(Dudo)
            else:
                scene.bid_now()
    raise RuntimeError("no round with a lost die came")


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs")
    for path in take(target, int(sys.argv[2]) if len(sys.argv) > 2 else 11):
        print(f"wrote {path}")
