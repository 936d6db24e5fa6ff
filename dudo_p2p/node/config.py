"""What a node is told at its start (:class:`NetConfig`: where it listens and beacons) and
what it counts as it runs (:class:`Stats`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from dudo_p2p.net.discovery import DEFAULT_BEACON_PORT
from dudo_p2p.protocol.refusals import RefusalReason


@dataclass(frozen=True)
class NetConfig:
    """Where the node listens and beacons. ``broadcast`` None: every interface's broadcast
    address (tests and ``sim`` pass ``["127.255.255.255"]``); ``discovery`` False: no beacon
    socket at all (direct ``--join`` only)."""

    bind: str = "0.0.0.0"
    port: int = 0
    beacon_port: int = DEFAULT_BEACON_PORT
    broadcast: Sequence[str] | None = None
    discovery: bool = True


@dataclass
class Stats:
    """Counters for ``-v`` output and tests."""

    garbage_frames: int = 0
    early_frames: int = 0
    early_dropped: int = 0
    flood_dropped: int = 0
    wakeups: int = 0  # returns from poll (the bench's idle wake-ups per second)
    refusals: list[RefusalReason] = field(default_factory=list)
