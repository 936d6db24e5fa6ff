"""dudo-p2p runs on the laptops people bring: no POSIX-only import on any path.

A child Python makes ``fcntl``, ``resource`` and ``termios`` unimportable (as on Windows),
imports every module of the package, then plays a whole hot-seat game in the window code on
SDL's dummy drivers. A module-level ``import fcntl`` anywhere (discovery had one) fails it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent("""
    import importlib, importlib.abc, pkgutil, sys

    BLOCKED = {"fcntl", "resource", "termios"}

    class NotOnWindows(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    for name in BLOCKED:
        sys.modules.pop(name, None)
    sys.meta_path.insert(0, NotOnWindows())

    import dudo_p2p
    failed = []
    for info in pkgutil.walk_packages(dudo_p2p.__path__, "dudo_p2p."):
        if info.name.endswith("__main__"):
            continue  # runs the CLI
        try:
            importlib.import_module(info.name)
        except Exception as exc:
            failed.append(f"{info.name}: {exc!r}")
    if failed:
        print("\\n".join(failed))
        sys.exit(3)

    import pygame
    from dudo_p2p.ui.app import App
    from dudo_p2p.ui.local_tables import local_factory
    from dudo_p2p.ui.request import TableRequest
    from dudo_p2p.ui.table import TableScene
    from dudo_p2p.bots import make_bot

    now = [1000.0]
    pygame.display.init()
    pygame.font.init()
    surface = pygame.Surface((1280, 800))
    factory = lambda request: local_factory(
        request, lambda: now[0], bot_maker=lambda level, rng: make_bot(level, rng).decide)
    app = App(factory, "en", lambda: now[0], surface=surface, bot_delay=0.0, reveal_hold=0.0)
    app.start_table(TableRequest("hotseat", players=2, seed=5))
    scene = app.scene
    assert isinstance(scene, TableScene)

    from dudo_p2p.ui import widgets

    def press(key):
        app.dispatch(pygame.event.Event(pygame.KEYDOWN, key=key, mod=0, unicode="", scancode=0))

    def click(pos):
        app.dispatch(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1))

    for _ in range(4000):
        now[0] += 0.05
        app.frame()
        if scene.model.winner is not None:
            break
        if scene.handover_seat is not None:
            click((640, 400))
        elif scene.model.reveal is not None:
            press(pygame.K_SPACE)
        elif scene.my_turn:
            if scene.choices():
                app.frame()
                click(widgets.find(app.scene.buttons, "choice_0").rect.center)
            elif any(type(a).__name__ == "Dudo" for a in scene.session.legal_actions()):
                press(pygame.K_d)
            else:
                press(pygame.K_RETURN)  # the minimum raise
    print("winner", scene.model.winner)
    sys.exit(0 if scene.model.winner is not None else 4)
""")


def test_every_module_imports_and_a_hotseat_game_plays_without_posix_only_modules() -> None:
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy",
               PYGAME_HIDE_SUPPORT_PROMPT="1")
    result = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                            env=env, timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    assert result.stdout.strip().splitlines()[-1].startswith("winner ")
