"""A node beacons with the Discovery it is given (issue 19: the transport, the RNG, the clock
and the discovery are injected), and closes it with itself. Loopback only, bounded waits."""

from __future__ import annotations

import time

from node_helpers import LOOPBACK, LOOPBACK_BROADCAST

from dudo_p2p.crypto.identity import Identity
from dudo_p2p.net.discovery import Discovery
from dudo_p2p.node.config import NetConfig
from dudo_p2p.node.node import Node
from dudo_p2p.rules import RuleSet


def test_a_host_beacons_its_table_with_the_discovery_it_was_given_and_closes_it(
        beacon_port: int) -> None:
    # discovery=False: the node would open no beacon socket of its own, so a beacon heard
    # can only come from the injected one
    net = NetConfig(bind=LOOPBACK, beacon_port=beacon_port, broadcast=[LOOPBACK_BROADCAST],
                    discovery=False)
    given = Discovery(beacon_port, broadcast_addresses=[LOOPBACK_BROADCAST])
    listener = Discovery(beacon_port, broadcast_addresses=[LOOPBACK_BROADCAST])
    host = Node.host(Identity.generate(), "Ana", net, seats=2, rules=RuleSet(),
                     turn_timer_ms=0, discovery=given)
    try:
        assert host.discovery is given
        deadline = time.monotonic() + 10
        while host.table_code not in {seen.beacon.table_code
                                      for seen in listener.peers(time.monotonic()).values()}:
            assert time.monotonic() < deadline, "the host's table was never beaconed"
            host.step(0.05)
            listener.on_readable(time.monotonic())
    finally:
        host.close()
        listener.close()
    assert given.fileno() == -1  # closed with the node
