"""Measurement hooks for the benchmarks: frame time of a live table and idle CPU.

Both run headless (SDL dummy driver) at 1280x800 on an in-process table against 3 bots,
advanced until a bid stands, so what is measured is a real table, not an empty screen.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame

from dudo_p2p.session import Session
from dudo_p2p.ui import theme
from dudo_p2p.ui.app import App
from dudo_p2p.ui.local_tables import local_factory
from dudo_p2p.ui.request import TableRequest
from dudo_p2p.ui.settings import Settings
from dudo_p2p.ui.table import TableScene


def _live_table(surface: pygame.Surface | None) -> App:
    pygame.display.init()
    pygame.font.init()
    # the seats are filled by random-legal movers: what is measured is drawing, not play
    def factory(request: TableRequest) -> Session:
        return local_factory(request, bot_maker=lambda _level, rng: (
            lambda _view, legal: rng.choice(legal)))

    # animations on, as a player has them (the App's default without a file is still)
    app = App(factory, "es", time.monotonic, surface=surface, bot_delay=0.0,
              autoplay=True, reveal_hold=0.0, settings=Settings.memory(reduced_motion=False))
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


def reveal_frame_times(n_frames: int = 300,
                       timer: Callable[[], float] = time.perf_counter) -> list[float]:
    """Milliseconds to update and draw each of ``n_frames`` frames of the reveal's animation
    (cups lifting one by one, counted dice pulsing, dice flying), cycled through the whole
    film: a real reveal of the live table, its clock set back to each moment in turn.
    ``timer``: wall time by default; ``time.thread_time`` gives the CPU a frame costs, which a
    loaded machine does not inflate."""
    app = _live_table(pygame.Surface(theme.SIZE))
    scene = app.scene
    assert isinstance(scene, TableScene)
    scene.bot_delay = 0.0
    for _ in range(5000):  # random-legal seats: a call comes soon
        if scene.model.reveal is not None:
            break
        if scene.my_turn and scene.legal:
            scene.submit(scene.legal[-1])
        app.frame()
    reveal = scene.model.reveal
    assert reveal is not None and reveal.timeline is not None
    length = reveal.film.ends - reveal.started
    out = []
    for i in range(n_frames):
        ago = length * (i % 90) / 90  # 90 frames: one and a half seconds of film per cycle
        now = time.monotonic()
        timeline = dataclasses.replace(reveal.timeline, started=now - ago)
        scene.model.reveal = dataclasses.replace(reveal, started=now - ago, timeline=timeline)
        start = timer()
        app.frame()
        out.append((timer() - start) * 1000.0)
    return out


def idle_cpu_percent(seconds: float = 5.0) -> float:
    """CPU used by the real main loop (dummy window) while the table waits for us: process
    CPU time over wall time, in percent of one core."""
    app = _live_table(None)
    app.window = pygame.display.set_mode(theme.SIZE)
    scene = app.scene
    assert isinstance(scene, TableScene)
    scene.shake_started = None
    scene.cues.pending.clear()  # the first bid's sounds and slide are over: a waiting table
    scene.motion.skip(time.monotonic() + 1e-3)
    cpu0, wall0 = time.process_time(), time.monotonic()
    app.run_loop(max_seconds=seconds)
    return 100.0 * (time.process_time() - cpu0) / (time.monotonic() - wall0)


if __name__ == "__main__":
    times = sorted(frame_times(300))
    print(f"frame ms: median {times[len(times) // 2]:.2f}  p95 {times[int(len(times) * .95)]:.2f}")
    times = sorted(reveal_frame_times(300))
    print(f"reveal frame ms: median {times[len(times) // 2]:.2f}  "
          f"p99 {times[int(len(times) * .99)]:.2f}")
    print(f"idle CPU: {idle_cpu_percent(5.0):.1f} %")
