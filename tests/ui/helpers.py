"""Synthetic input for the scenes: key presses and clicks as pygame events."""

from __future__ import annotations

import argparse
from collections.abc import Callable

import pygame

from dudo_p2p.bots import make_bot
from dudo_p2p.cli.play import NetworkTables
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.node.config import NetConfig
from dudo_p2p.node.node import Node
from dudo_p2p.rules import RuleSet
from dudo_p2p.session import Session
from dudo_p2p.session.again import AgainSession
from dudo_p2p.session.node_session import NodeSession
from dudo_p2p.ui import draw, theme
from dudo_p2p.ui.app import App
from dudo_p2p.ui.drive import HandClock as FakeClock  # the clock fixture's (conftest.py)
from dudo_p2p.ui.drive import click as click  # the window tests' input: ui/drive.py
from dudo_p2p.ui.drive import click_button as click_button
from dudo_p2p.ui.drive import play_our_seat as play_our_seat
from dudo_p2p.ui.drive import press
from dudo_p2p.ui.lobby import LobbyScene
from dudo_p2p.ui.local_tables import local_factory
from dudo_p2p.ui.request import TableRequest
from dudo_p2p.ui.table import TableScene
from dudo_p2p.ui.waiting import JOIN_ANSWER_S

key = press  # press and release a key (the tests' name for it)


def node_of(scene: TableScene) -> Node:
    """The peer behind a networked window's table (the rematch's current one after "play
    again")."""
    session = scene.session
    if isinstance(session, AgainSession):
        return session.node_now()
    assert isinstance(session, NodeSession)
    return session.node


def bot_tables(request: TableRequest) -> Session:
    """In-process tables with the real bots (the CLI's wiring, without the network)."""
    return local_factory(request, bot_maker=lambda level, rng: make_bot(level, rng).decide)


class TextRecorder:
    """Wraps ``draw.text`` to record every string a frame draws and where (its rect and the
    ``max_width`` it was given), so tests read the screen as words instead of pixels."""

    def __init__(self) -> None:
        self.drawn: list[tuple[str, pygame.Rect, int | None]] = []
        self.styles: list[tuple[int, tuple[int, int, int]]] = []  # (size, colour) of each
        self._real = draw.text

    def __call__(self, surface: pygame.Surface, message: str, pos: tuple[int, int],
                 size: int = 28, color: tuple[int, int, int] = theme.CREAM, *,
                 anchor: str = "topleft", shadow: bool = True,
                 max_width: int | None = None) -> pygame.Rect:
        rect = self._real(surface, message, pos, size, color, anchor=anchor, shadow=shadow,
                          max_width=max_width)
        self.drawn.append((message, rect, max_width))
        self.styles.append((size, color))
        return rect

    def frame(self, app: App) -> list[str]:
        """Draw one frame (without advancing the scene) and return the strings it drew."""
        self.drawn = []
        self.styles = []
        app.frame(update=False)
        return [m for m, _, _ in self.drawn]


def table_app(clock: FakeClock, surface: pygame.Surface, lang: str, kind: str = "bots",
              **kw: object) -> tuple[App, TableScene]:
    """An app on an in-process table of ``TableRequest(kind, **kw)`` (bots, or hot-seat
    players), no delays."""
    app = App(bot_tables, lang, clock, surface=surface, bot_delay=0.0, reveal_hold=0.0)
    app.start_table(TableRequest(kind, **kw))  # type: ignore[arg-type]
    assert isinstance(app.scene, TableScene)
    return app, app.scene


def play_until(app: App, clock: FakeClock, scene: TableScene,
                done: Callable[[TableScene], bool], limit: int = 4000) -> None:
    """Play our seat (always doubt when we may, so rounds end fast) until ``done``."""
    for _ in range(limit):
        clock.advance(0.05)
        app.frame()
        if done(scene):
            return
        play_our_seat(app, scene)
    raise AssertionError("the table never got there")


def gives_up_when_unanswered(app: App, clock: FakeClock) -> None:
    """A join nobody answered: still waiting 0.1 s before the rule (``JOIN_ANSWER_S``: the
    message within 5 s of the player's Enter), in the lobby 0.1 s after it (the app's clock
    moved by hand)."""
    clock.advance(JOIN_ANSWER_S - 0.1)
    app.frame()
    assert isinstance(app.scene, TableScene), "gave up too early"
    clock.advance(0.2)
    app.frame()
    assert isinstance(app.scene, LobbyScene), "still waiting after JOIN_ANSWER_S"


def spectators_window(clock: FakeClock, surface: pygame.Surface, nodes: list[Node],
                      beacon_port: int) -> tuple[Node, Node, App]:
    """Two real nodes seated at a 2-seat table on loopback (Ana hosts, Beto joined: added to
    ``nodes`` for teardown) and an English window with the real factory (``cli/play.py``'s
    NetworkTables, as Cris) from whose lobby a test watches them."""
    net = NetConfig(bind="127.0.0.1", beacon_port=beacon_port, broadcast=["127.255.255.255"])
    host = Node.host(Identity.generate(), "Ana", net, seats=2, rules=RuleSet(),
                     turn_timer_ms=0)
    nodes.append(host)
    joiner = Node.join(Identity.generate(), "Beto", net,
                       addresses=[("127.0.0.1", host.links.port)], discover=False)
    nodes.append(joiner)
    args = argparse.Namespace(name="Cris", bind="127.0.0.1", port=0, beacon_port=beacon_port,
                              broadcast=["127.255.255.255"])
    return host, joiner, App(NetworkTables(args, Identity.generate()), "en", clock,
                             surface=surface)
