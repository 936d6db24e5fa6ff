"""Where a hosting node can be reached, for the waiting screen.

The UI and the session layer may not import the network layer (``tests/test_layers.py``);
the addresses a friend can type to join our table come through here.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from dudo_p2p.net.interfaces import reachable_addresses
from dudo_p2p.node.node import Node

UNSPECIFIED = ("", "0.0.0.0", "::")


def reachable(node: Node, interfaces: Iterable[str] | None = None) -> tuple[str, ...]:
    """"ip:port" a friend on the LAN types to join ``node``: bound to every interface (the
    default), each address of this machine (one per interface, loopback left out, or the
    ``interfaces`` given); bound to one address, that one (none when it is loopback: only
    this machine can reach it)."""
    port, bind = node.port, node.net.bind
    if bind not in UNSPECIFIED:
        try:
            if ipaddress.ip_address(bind).is_loopback:
                return ()
        except ValueError:
            pass  # a host name: shown as given
        return (f"{bind}:{port}",)
    ips = reachable_addresses() if interfaces is None else interfaces
    return tuple(f"{ip}:{port}" for ip in ips)
