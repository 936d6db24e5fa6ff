"""Where a hosting node can be reached, for the waiting screen.

The UI and the session layer may not import the network layer (``tests/test_layers.py``);
the addresses a friend can type to join our table come through here.
"""

from __future__ import annotations

from dudo_p2p.net.interfaces import reachable_addresses
from dudo_p2p.node.node import Node


def reachable(node: Node) -> tuple[str, ...]:
    """"ip:port" for every address of this machine (one per interface, loopback left out)
    on ``node``'s link port: what a friend on the LAN types to join it."""
    return tuple(f"{ip}:{node.links.port}" for ip in reachable_addresses())
