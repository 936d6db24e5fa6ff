"""Measurement hooks for the benchmarks: frame time of a live table and idle CPU.

Both run headless (SDL dummy driver) at 1280x800 on an in-process table against 3 bots,
advanced until a bid stands, so what is measured is a real table, not an empty screen.
"""

from __future__ import annotations

import os
import time

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame

from dudo_p2p.session import Session
from dudo_p2p.ui import theme
from dudo_p2p.ui.app import App
from dudo_p2p.ui.local_tables import local_factory
from dudo_p2p.ui.request import TableRequest
from dudo_p2p.ui.table import TableScene


def _live_table(surface: pygame.Surface | None) -> App:
    pygame.display.init()
    pygame.font.init()
    # the seats are filled by random-legal movers: what is measured is drawing, not play
    def factory(request: TableRequest) -> Session:
        return local_factory(request, bot_maker=lambda _level, rng: (
            lambda _view, legal: rng.choice(legal)))

    app = App(factory, "es", time.monotonic, surface=surface, bot_delay=0.0,
              autoplay=True, reveal_hold=0.0)
    app.start_table(TableRequest("bots", bots=3, seed=1))
    scene = app.scene
    assert isinstance(scene, TableScene)
    for _ in range(500):
        app.frame()
        if scene.first_bid_seen:
            break
    scene.autoplay = False
    scene.bot_delay = 3600.0  # freeze the bots: measure drawing, not play
    return app


def frame_times(n_frames: int = 300) -> list[float]:
    """Milliseconds to update and draw each of ``n_frames`` frames of a live table, with the
    cups shaking (the animated path), onto a 1280x800 surface."""
    app = _live_table(pygame.Surface(theme.SIZE))
    scene = app.scene
    assert isinstance(scene, TableScene)
    scene.looking = True
    out = []
    for _ in range(n_frames):
        scene.shake_started = time.monotonic()  # keep the animated path on
        start = time.perf_counter()
        app.frame()
        out.append((time.perf_counter() - start) * 1000.0)
    return out


def idle_cpu_percent(seconds: float = 5.0) -> float:
    """CPU used by the real main loop (dummy window) while the table waits for us: process
    CPU time over wall time, in percent of one core."""
    app = _live_table(None)
    app.window = pygame.display.set_mode(theme.SIZE)
    scene = app.scene
    assert isinstance(scene, TableScene)
    scene.shake_started = None
    cpu0, wall0 = time.process_time(), time.monotonic()
    app.run_loop(max_seconds=seconds)
    return 100.0 * (time.process_time() - cpu0) / (time.monotonic() - wall0)


if __name__ == "__main__":
    times = sorted(frame_times(300))
    print(f"frame ms: median {times[len(times) // 2]:.2f}  p95 {times[int(len(times) * .95)]:.2f}")
    print(f"idle CPU: {idle_cpu_percent(5.0):.1f} %")
