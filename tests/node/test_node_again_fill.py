"""One more game, and a friend not back yet (its window left on the end screen, or its
program gone without a word): the player who opened the next table starts it now with a bot
in that seat ("start now with bots" in the rematch's waiting room, as at a first table), and
without a click the friend is waited for only a bounded time. Real nodes on loopback in this
process, every seat played by an easy bot through the session API (bounded waits on real
time, conditions not sleeps)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator

import pytest

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
Filler = Callable[[int, int], Callable[[], None]]


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


class Evening:
    """Ana hosts three seats (``filler`` calls her bots), Beto and Cris join; game 1 played."""

    def __init__(self, filler: Filler | None = None) -> None:
        self.nodes: list[Node] = []
        self.later: list[Session] = []
        ana = Node.host(Identity.generate(), "Ana", NET, seats=3, rules=RULES, turn_timer_ms=0)
        self.nodes.append(ana)
        self.ana = NodeSession(ana, filler=filler)
        self.beto, self.cris = (self.join(name, ana.port) for name in ("Beto", "Cris"))
        play([self.ana, self.beto, self.cris], lambda: all(n.settled() for n in self.nodes))
        machine = ana.machine
        assert machine is not None and machine.replica.engine.winner is not None
        self.head = machine.replica.head

    def join(self, name: str, port: int) -> NodeSession:
        node = Node.join(Identity.generate(), name, NET, addresses=[("127.0.0.1", port)],
                         discover=False)
        self.nodes.append(node)
        return NodeSession(node)

    def one_more(self) -> tuple[AgainSession, AgainSession]:
        """Ana and Beto say one more; Cris says nothing (its node runs on)."""
        ana_next, beto_next = self.ana.one_more(), self.beto.one_more()
        assert isinstance(ana_next, AgainSession) and isinstance(beto_next, AgainSession)
        self.later += [ana_next, beto_next]
        return ana_next, beto_next

    def close(self) -> None:
        for session in self.later:
            session.close()
        for node in self.nodes:
            node.close()


@pytest.fixture
def opened() -> Iterator[list[Evening]]:
    evenings: list[Evening] = []
    yield evenings
    for evening in evenings:
        evening.close()


def test_the_opener_of_the_next_table_starts_it_with_a_bot_in_a_friend_s_seat(
    opened: list[Evening],
) -> None:
    called: list[tuple[int, int]] = []
    bots: list[NodeSession] = []

    def filler(n: int, port: int) -> Callable[[], None]:
        called.append((n, port))
        bots.extend(evening.join(f"Bot{i}", port) for i in range(n))
        return lambda: None

    evening = Evening(filler)
    opened.append(evening)
    ana_next, beto_next = evening.one_more()
    play([ana_next, beto_next, evening.cris],
         lambda: (room := ana_next.gathering()) is not None and room.hosting
         and len(room.names) == 2)
    room = ana_next.gathering()
    assert room is not None and room.can_fill, "the waiting room offers bots"
    assert room.names == ("Ana", "Beto") and room.seats == 3
    ana_next.start_now(bots=True)
    table = ana_next.node_now()
    assert called == [(1, table.port)], "one bot, called to the new table's port"
    assert table.port != evening.ana.node.port
    play([ana_next, beto_next, evening.cris, *bots],
         lambda: ana_next.started and beto_next.started and all(b.started for b in bots))
    second = table.machine
    assert second is not None
    assert second.seating.names == ("Ana", "Beto", "Bot0")
    assert second.seating.prev == evening.head, "game 2 follows game 1"


def test_a_friend_that_never_answers_keeps_the_next_table_waiting_only_a_bounded_time(
    opened: list[Evening],
) -> None:
    evening = Evening()
    opened.append(evening)
    began = time.monotonic()
    for session in (evening.ana, evening.beto):
        after = session.node.after
        assert after is not None  # ANSWER_WITHIN (30 s) made 3 s from now for the test
        after.answer_within = session.node.clock() - after.ended_at + 3.0
    ana_next, beto_next = evening.one_more()
    play([ana_next, beto_next, evening.cris], lambda: ana_next.started and beto_next.started)
    assert time.monotonic() - began >= 2.9, "Cris was waited for first"
    table = ana_next.node_now().machine
    assert table is not None and table.seating.names == ("Ana", "Beto")
    assert table.seating.prev == evening.head
