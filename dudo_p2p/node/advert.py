"""What a node's beacon says (protocol.md §5.3): a host advertises its table (code,
open, full or playing, seats taken of how many, the starting dice, the variants, the turn
timer: what the LAN list shows); anyone else only that it is there. Pure: the node
hands the result to :meth:`~dudo_p2p.net.discovery.Discovery.set_beacon`, which sends only
what changed."""

from __future__ import annotations

from dudo_p2p.consensus.lobby import Lobby
from dudo_p2p.consensus.lobby_host import HostLobby
from dudo_p2p.net.beacon import Beacon, TableState
from dudo_p2p.protocol import beacon_rules, names


def beacon_for(pub: bytes, port: int, name: str, lobby: Lobby, *, playing: bool) -> Beacon:
    """The beacon of the peer ``pub`` reachable on link ``port``, named ``name``, whose
    lobby is ``lobby``; ``playing``: its game has started (seated)."""
    if not isinstance(lobby, HostLobby) or lobby.table is None:
        return Beacon(pub, port, name=beacon_name(name))
    if playing:
        state, taken = TableState.PLAYING, lobby.seats_total
    else:
        taken = lobby.seats_taken
        state = TableState.OPEN if taken < lobby.seats_total else TableState.FULL
    dice, variants = beacon_rules.pack(lobby.rules)
    return Beacon(pub, port, lobby.table, state, taken, lobby.seats_total, beacon_name(name),
                  dice, variants, lobby.turn_timer_ms)


def beacon_name(name: str) -> str:
    """A name that fits the beacon (clean, 32 UTF-8 bytes at most)."""
    clean = names.clean(name)
    while len(clean.encode()) > 32:
        clean = clean[:-1]
    return clean
