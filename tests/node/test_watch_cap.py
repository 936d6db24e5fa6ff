"""A table caps its spectators at MAX_SPECTATORS (issue 20: "a table caps them (say 16)"),
not each seat on its own: every spectator says ``watch`` to every seat once it holds the
genesis (rotation.py), so every seat's desk holds the same spectators, and a 17th is refused
``full`` whichever seat it dials.

Real sockets on loopback, in one process: two seated nodes that wait for the first bid
(nobody plays, so the table stays up), and 17 :class:`~dudo_p2p.node.watcher.Watcher`\\ s.
Bounded waits, conditions, no sleeps."""

from __future__ import annotations

import time
from collections.abc import Callable

from dudo_p2p.consensus.watch_desk import MAX_SPECTATORS
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.node.config import NetConfig
from dudo_p2p.node.node import Node
from dudo_p2p.node.watcher import Watcher
from dudo_p2p.protocol.refusals import RefusalReason
from dudo_p2p.rules import RuleSet

LOOPBACK = "127.0.0.1"
BOUND_S = 60.0  # generous: 19 sockets' worth of Python on a loaded 2-core machine


def test_the_seventeenth_spectator_is_refused_full_at_a_seat_the_sixteen_never_dialled(
    running: tuple[list[Node], list[Watcher]], beacon_port: int
) -> None:
    nodes, watchers = running
    net = NetConfig(bind=LOOPBACK, beacon_port=beacon_port, broadcast=["127.255.255.255"])
    host = Node.host(Identity.generate(), "Ana", net, seats=2, rules=RuleSet(),
                     turn_timer_ms=0)
    nodes.append(host)
    beto = Node.join(Identity.generate(), "Beto", net,
                     addresses=[(LOOPBACK, host.links.port)], discover=False)
    nodes.append(beto)

    def pump(done: Callable[[], bool], what: str) -> None:
        end = time.monotonic() + BOUND_S
        while not done():
            assert time.monotonic() < end, what
            for node in nodes:
                node.step(0.002)
            for watcher in watchers:
                watcher.step(0.0)

    pump(lambda: host.machine is not None and beto.machine is not None, "never seated")
    # sixteen spectators, all dialling the host
    watchers += [Watcher(Identity.generate(), LOOPBACK, host.links.port, bind=LOOPBACK)
                 for _ in range(MAX_SPECTATORS)]
    pump(lambda: len(beto.desk.spectators) == MAX_SPECTATORS
         and all(w.spectator.verifier is not None for w in watchers),
         "the sixteen never reached the seat they did not dial")
    assert len(host.desk.spectators) == MAX_SPECTATORS
    # the seventeenth dials Beto, whom nobody dialled: refused, the table is full
    late = Watcher(Identity.generate(), LOOPBACK, beto.links.port, bind=LOOPBACK)
    watchers.append(late)
    pump(lambda: late.spectator.refused is not None, "the seventeenth was never answered")
    assert late.spectator.refused is RefusalReason.FULL
    assert late.spectator.seating is None
    assert beto.desk.refused >= 1 and len(beto.desk.spectators) == MAX_SPECTATORS
    assert all(w.spectator.flagged is None for w in watchers[:-1])
