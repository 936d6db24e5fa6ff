"""The host's waiting room is drawn again when its roster changes, with no input: the window
draws only when ``take_changed()`` says so (``App.run_loop``), and a friend taking a seat is
not an input event. Seen playing the evening in two namespaces: Bob was seated at Alice's
table, but her window still showed "Seats 1/3" until she moved the mouse."""

from __future__ import annotations

import time

import pygame

from dudo_p2p.node.node import Node
from dudo_p2p.ui.table import TableScene

from .conftest import FakeClock
from .test_joining import app_on, joiner
from .test_waiting_room import host_session, seated

JOIN_WITHIN = 30.0  # bound on two loopback nodes in this process seating a joiner, at load


def test_a_friend_taking_a_seat_redraws_the_hosts_waiting_room_without_input(
        clock: FakeClock, surface: pygame.Surface, nodes: list[Node]) -> None:
    host = host_session(nodes, 3)
    app = app_on(host, clock, surface, "create")
    scene = app.scene
    assert isinstance(scene, TableScene)
    scene.update(clock())
    scene.take_changed()  # the first frame is drawn; nothing has changed since
    scene.update(clock())
    assert not scene.take_changed()
    beto = joiner(nodes, "Beto", host.node.links.port)
    deadline = time.monotonic() + JOIN_WITHIN
    while len(seated(host)) < 2:  # the nodes run; the window gets no input meanwhile
        assert time.monotonic() < deadline, "Beto was not seated in time"
        host.wait(0.02)
        beto.wait(0.02)
    scene.update(clock())
    assert scene.take_changed(), "the roster changed and the window would not be drawn"
    scene.update(clock())
    assert not scene.take_changed()  # once drawn, an idle room is not drawn again
