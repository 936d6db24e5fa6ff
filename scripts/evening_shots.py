"""README pictures of one more game with the same friends: ``python scripts/evening_shots.py DIR``.

Four players, each with their own headless window (SDL dummy driver) over real nodes on
loopback in this process: Ana hosts, Beto, Cris and Dani join, game 1 is played (every seat
doubts when it may). Then Beto, Cris and Ana say "play again"; the picture
``evening-waiting.png`` is Ana's waiting room with the two who came back and the evening's
scoreboard; Dani goes back to the lobby, so the table starts with three; game 2 is played and
``evening-end.png`` is Ana's end screen with the scoreboard of both games.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame

from dudo_p2p.crypto.identity import Identity
from dudo_p2p.node.node import NetConfig, Node
from dudo_p2p.rules import Dudo, RuleSet
from dudo_p2p.session.node_session import NodeSession
from dudo_p2p.ui import theme, widgets
from dudo_p2p.ui.app import App
from dudo_p2p.ui.request import TableRequest
from dudo_p2p.ui.table import END_GRACE_S, TableScene

NET = NetConfig(bind="127.0.0.1", discovery=False)
RULES = RuleSet(starting_dice=3)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def press(app: App, key: int) -> None:
    app.dispatch(pygame.event.Event(pygame.KEYDOWN, key=key, mod=0, unicode="", scancode=0))


def click(app: App, name: str) -> None:
    app.frame()
    button = widgets.find(app.scene.buttons, name)
    app.dispatch(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=button.rect.center, button=1))


def run(apps: list[App], clock: Clock, done: object, limit: float = 120.0) -> None:
    end = time.monotonic() + limit
    while not done():  # type: ignore[operator]
        if time.monotonic() > end:
            raise SystemExit("the table did not get there in time")
        clock.now += 0.05
        for app in apps:
            scene = app.scene
            if not isinstance(scene, TableScene):
                continue
            scene.session.wait(0.005)
            app.frame()
            if scene.model.reveal is not None:
                press(app, pygame.K_SPACE)
            elif scene.my_turn and not scene.blocked:
                if scene.choices():
                    click(app, "choice_0")
                else:
                    press(app, pygame.K_d if scene.offered(Dudo) else pygame.K_RETURN)


def ended(app: App) -> bool:
    return isinstance(app.scene, TableScene) and app.scene.end_shown_at is not None


def main(out: Path) -> int:
    pygame.display.init()
    pygame.font.init()
    clock = Clock()
    host = Node.host(Identity.generate(), "Ana", NET, seats=4, rules=RULES, turn_timer_ms=0)
    port = host.port
    sessions = [NodeSession(host)] + [
        NodeSession(Node.join(Identity.generate(), name, NET,
                              addresses=[("127.0.0.1", port)], discover=False))
        for name in ("Beto", "Cris", "Dani")]
    apps = []
    for i, session in enumerate(sessions):
        app = App(lambda _r, s=session: s, "es", clock, surface=pygame.Surface(theme.SIZE),
                  bot_delay=0.0, reveal_hold=0.0)
        app.start_table(TableRequest("create" if i == 0 else "join", rules=RULES,
                                     address=f"127.0.0.1:{port}"))
        apps.append(app)
    ana, beto, cris, dani = apps
    run(apps, clock, lambda: all(ended(a) for a in apps))
    clock.now += END_GRACE_S + 0.1
    for app in (beto, cris, ana):
        click(app, "play_again")
    room = ana.scene
    assert isinstance(room, TableScene)

    def came_back() -> bool:
        state = room.session.gathering()  # type: ignore[attr-defined]
        return state is not None and len(state.names) == 3

    run(apps, clock, came_back, 30)
    ana.frame()
    out.mkdir(parents=True, exist_ok=True)
    pygame.image.save(ana.canvas, str(out / "evening-waiting.png"))
    click(dani, "lobby")  # Dani goes home: the table starts with the three who came back
    three = [ana, beto, cris]
    run(three, clock, lambda: all(ended(a) for a in three))
    clock.now += END_GRACE_S + 0.1
    ana.frame()
    pygame.image.save(ana.canvas, str(out / "evening-end.png"))
    for app in three:
        press(app, pygame.K_ESCAPE)
        app.scene.leave()
    print(f"wrote {out / 'evening-waiting.png'} and {out / 'evening-end.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs")))
