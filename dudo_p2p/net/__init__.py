"""The transport layer: bytes between peers, never the game.

``links``      ZeroMQ ROUTER/DEALER links: ``Links`` (``router``: its incoming side).
``beacon``     the discovery beacon's wire format: ``Beacon``, ``encode``, ``decode``.
``discovery``  UDP broadcast discovery: ``Discovery``, ``Seen``.

protocol.md section 5 is the specification of everything here.
"""

from dudo_p2p.net.beacon import Beacon, TableState, decode, encode, new_table_code
from dudo_p2p.net.dealer import LinkTimers
from dudo_p2p.net.discovery import DEFAULT_BEACON_PORT, Discovery, Seen
from dudo_p2p.net.links import Links
from dudo_p2p.net.router import Incoming

__all__ = [
    "DEFAULT_BEACON_PORT",
    "Beacon",
    "Discovery",
    "Incoming",
    "LinkTimers",
    "Links",
    "Seen",
    "TableState",
    "decode",
    "encode",
    "new_table_code",
]
