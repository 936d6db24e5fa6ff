"""One more game, and a friend not back yet: the player who opened the next table starts it
now with a bot in that seat ("start now with bots" in the rematch's waiting room), as at a
first table. Real nodes on loopback in this process, three seats played by easy bots through
the session API (bounded waits on real time, conditions not sleeps)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from dudo_p2p.bots import make_bot
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.node.config import NetConfig
from dudo_p2p.node.node import Node
from dudo_p2p.rules import RuleSet
from dudo_p2p.session.again import AgainSession
from dudo_p2p.session.api import Session
from dudo_p2p.session.node_session import NodeSession

NET = NetConfig(bind="127.0.0.1", discovery=False)
RULES = RuleSet(starting_dice=3)
LIMIT_S = 120.0  # one game of three on loopback in one thread, at load 30 on 2 cores


def play(sessions: list[Session], until: Callable[[], bool]) -> None:
    """Run every session and play its seat with an easy bot until ``until()``."""
    bot = make_bot("easy", random.Random(5))
    end = time.monotonic() + LIMIT_S
    while not until():
        assert time.monotonic() < end, "the table did not get there in time"
        for s in sessions:
            s.wait(0.005)
            s.poll_events()
            legal = s.legal_actions()
            if legal:
                s.submit(bot.decide(s.view(), legal))


def test_the_opener_of_the_next_table_starts_it_with_a_bot_in_a_friend_s_seat() -> None:
    nodes: list[Node] = []
    called: list[tuple[int, int]] = []
    bots: list[NodeSession] = []

    def filler(n: int, port: int) -> Callable[[], None]:
        called.append((n, port))
        for i in range(n):
            node = Node.join(Identity.generate(), f"Bot{i}", NET, addresses=[("127.0.0.1", port)],
                             discover=False)
            nodes.append(node)
            bots.append(NodeSession(node, is_bot=True))
        return lambda: None

    ana_node = Node.host(Identity.generate(), "Ana", NET, seats=3, rules=RULES, turn_timer_ms=0)
    nodes.append(ana_node)
    ana = NodeSession(ana_node, filler=filler)
    friends = []
    for name in ("Beto", "Cris"):
        node = Node.join(Identity.generate(), name, NET,
                         addresses=[("127.0.0.1", ana_node.port)], discover=False)
        nodes.append(node)
        friends.append(NodeSession(node))
    beto, cris = friends
    later: list[Session] = []
    try:
        play([ana, beto, cris], lambda: all(n.settled() for n in nodes))
        first = ana_node.machine
        assert first is not None and first.replica.engine.winner is not None
        ana_next, beto_next = ana.one_more(), beto.one_more()
        assert isinstance(ana_next, AgainSession) and isinstance(beto_next, AgainSession)
        later += [ana_next, beto_next]
        # Cris's window stays on the end screen, undecided: its node runs, it says nothing
        play([ana_next, beto_next, cris],
             lambda: (room := ana_next.gathering()) is not None and room.hosting
             and len(room.names) == 2)
        room = ana_next.gathering()
        assert room is not None and room.can_fill, "the waiting room offers bots"
        assert room.names == ("Ana", "Beto") and room.seats == 3
        ana_next.start_now(bots=True)
        next_node = ana_next.node_now()
        assert called == [(1, next_node.port)], "one bot, called to the new table's port"
        assert next_node.port != ana_node.port
        play([ana_next, beto_next, cris, *bots],
             lambda: ana_next.started and beto_next.started and all(b.started for b in bots))
        second = next_node.machine
        assert second is not None
        assert second.seating.names == ("Ana", "Beto", "Bot0")
        assert second.seating.prev == first.replica.head, "game 2 follows game 1"
    finally:
        for session in later:
            session.close()
        for n in nodes:
            n.close()
