"""A spectator of a real table is told turn timers and disconnections as a seat is (issue 20):
neither is in the log; the turn's deadline comes from the verified moves, the disconnections
from the seat serving it (``away`` frames, consensus/watch_away.py).

Real sockets on loopback, in one process: three seated nodes driven by the test (each plays a
raise when one is legal, else a call), a :class:`~dudo_p2p.session.watch_session.WatchSession`
joined to the host. Cris's node is not stepped for longer than the silence timeout (as a
laptop lid closed): the host shows it disconnected within its 20 s grace, and back when it
runs again. Bounded waits, conditions, no sleeps."""

from __future__ import annotations

import time
from collections.abc import Callable

from dudo_p2p.consensus.events import Event, SeatDisconnected, SeatReconnected, TurnTimer
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.node.config import NetConfig
from dudo_p2p.node.node import Node
from dudo_p2p.node.watcher import Watcher
from dudo_p2p.rules import Raise, RuleSet
from dudo_p2p.session.node_session import NodeSession
from dudo_p2p.session.watch_session import WatchSession

LOOPBACK = "127.0.0.1"
BOUND_S = 60.0  # generous: a loaded 2-core machine
TIMER_MS = 60_000  # the turn timer: long, so no seat's timer bot plays while we look


def test_a_spectator_is_told_whose_turn_and_who_is_disconnected_then_back(
    running: tuple[list[Node], list[Watcher]], beacon_port: int
) -> None:
    nodes, watchers = running
    net = NetConfig(bind=LOOPBACK, beacon_port=beacon_port, broadcast=["127.255.255.255"])
    host = Node.host(Identity.generate(), "Ana", net, seats=3, rules=RuleSet(),
                     turn_timer_ms=TIMER_MS, grace_ms=20_000)
    address = [(LOOPBACK, host.links.port)]
    beto = Node.join(Identity.generate(), "Beto", net, addresses=address, discover=False)
    cris = Node.join(Identity.generate(), "Cris", net, addresses=address, discover=False)
    nodes += [host, beto, cris]
    players = [NodeSession(host), NodeSession(beto), NodeSession(cris)]
    spectator = WatchSession(Identity.generate(), LOOPBACK, host.links.port, bind=LOOPBACK)
    watchers.append(spectator.watcher)
    told: list[tuple[float, Event]] = []
    running = {host, beto, cris}

    def pump(done: Callable[[], bool], what: str) -> None:
        end = time.monotonic() + BOUND_S
        while not done():
            assert time.monotonic() < end, what
            for node in nodes:
                if node in running:
                    node.step(0.002)
            for seat in players:  # they play on: a raise when one is legal, else a call
                if seat.node not in running:
                    continue
                seat.poll_events()
                legal = seat.legal_actions()
                if legal:
                    seat.submit(next((a for a in legal if isinstance(a, Raise)), legal[0]))
            spectator.wait(0.002)
            told.extend((time.monotonic(), e) for e in spectator.poll_events())

    def of(kind: type) -> list[tuple[float, Event]]:
        return [(at, e) for at, e in told if isinstance(e, kind)]

    pump(lambda: len(of(TurnTimer)) >= 3, "the spectator was never told whose turn it is")
    assert host.machine is not None and cris.machine is not None
    for at, turn in of(TurnTimer):
        # whose turn it is, with the table's timer counted from when the move reached us
        assert isinstance(turn, TurnTimer) and turn.deadline is not None
        assert 0 <= turn.deadline - at <= TIMER_MS / 1000
    me = cris.machine.seat
    running.discard(cris)  # Cris's process stops: nothing of it for the silence timeout
    pump(lambda: bool(of(SeatDisconnected)), "the spectator was never told Cris left")
    ((at, away),) = of(SeatDisconnected)
    assert isinstance(away, SeatDisconnected) and away.seat == me
    assert host.machine.presence.waiting_for(me, host.clock())  # as the host shows it
    assert 0 < away.until - at <= 20.0  # the table waits for it, the grace running
    running.add(cris)
    pump(lambda: bool(of(SeatReconnected)), "the spectator was never told Cris is back")
    assert [e for _, e in of(SeatReconnected)] == [SeatReconnected(me)]
    assert host.machine.replica.engine.alive[me]  # back within the grace: it keeps its seat
    assert spectator.watcher.spectator.flagged is None
