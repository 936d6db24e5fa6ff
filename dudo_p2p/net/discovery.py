"""LAN discovery by UDP broadcast beacons, in the manner of ZeroMQ's ZRE (zbeacon).

One UDP socket bound to ``0.0.0.0:beacon_port`` (SO_REUSEADDR, and SO_REUSEPORT where the OS
has it, so several peers on one machine share the port; every one of them receives each
broadcast). Beacons go only to broadcast addresses: the directed broadcast address of each
IPv4 interface that is up and has one, plus ``127.255.255.255`` so peers on the same machine
find each other. Never to any other address: in particular we never answer by unicast, because
with SO_REUSEPORT the kernel hands a unicast datagram to just one of the sockets sharing the
port, maybe not the one it was meant for.

Timers: the first ``tick`` sends at once, then one beacon every ``interval`` seconds; a beacon
from a peer we did not know is answered at once with ours, so two peers find each other within
one round trip instead of up to one interval. A peer unheard for ``expiry`` seconds is gone,
and so is one that sends a leaving beacon (port 0).

The clock is the caller's: every method that needs the time takes ``now`` (seconds, monotonic).
Nothing received is trusted or raised: undecodable datagrams are counted in ``stats`` and
logged. A beacon is a hint; the node proves identities over the link. A beacon of another
protocol version is never a peer (we cannot sit at its table, nor it at ours): it is counted
(``stats["other_version"]``), logged once per sender and version, and its table, when its
head says one, is kept apart (:meth:`Discovery.other_tables`) for the LAN list to show
greyed as "another version".
"""

from __future__ import annotations

import ipaddress
import logging
import socket
from dataclasses import dataclass

from dudo_p2p.errors import DecodeError, InvalidValue
from dudo_p2p.net.beacon import (
    MAX_BEACON_SIZE,
    VERSION,
    Beacon,
    OtherTable,
    OtherVersion,
    TableState,
    decode,
    encode,
)
from dudo_p2p.net.interfaces import LOOPBACK_BROADCAST as LOOPBACK_BROADCAST
from dudo_p2p.net.interfaces import broadcast_addresses

log = logging.getLogger(__name__)

DEFAULT_BEACON_PORT = 47474
# A flood of beacons with made-up ids must not grow memory or our answers without bound.
MAX_PEERS = 256
# Read a little more than the largest beacon so an overlong datagram is seen as overlong
# (and refused by decode) instead of silently truncated to a valid-looking prefix.
_RECV_SIZE = MAX_BEACON_SIZE + 1

@dataclass(frozen=True, slots=True)
class SeenOther:
    """A table of another protocol version heard recently, from IP ``host``."""

    table: OtherTable
    host: str
    last_seen: float


@dataclass(frozen=True, slots=True)
class Seen:
    """A peer heard recently: its last beacon, the IP that datagram came from, and when."""

    beacon: Beacon
    host: str
    first_seen: float
    last_seen: float


class Discovery:
    """Send our beacon and collect the others'. Construction binds the socket (``OSError`` if
    it cannot); ``close()`` says goodbye and closes it. Not thread-safe: one loop owns it.
    """

    def __init__(
        self,
        beacon_port: int = DEFAULT_BEACON_PORT,
        *,
        interval: float = 1.0,
        expiry: float = 3.5,
        broadcast_addresses: list[str] | None = None,
    ) -> None:
        if not 1 <= beacon_port <= 0xFFFF:
            raise InvalidValue("beacon port must be 1..65535")
        if interval <= 0 or expiry <= interval:
            raise InvalidValue("need 0 < interval < expiry")
        if broadcast_addresses is None:
            broadcast_addresses = default_broadcast_addresses()
        for address in broadcast_addresses:
            try:
                ipaddress.IPv4Address(address)
            except ValueError:
                raise InvalidValue(f"not an IPv4 address: {address!r}") from None
        self.beacon_port = beacon_port
        self.interval = interval
        self.expiry = expiry
        self.broadcast_addresses = list(dict.fromkeys(broadcast_addresses))
        self.stats: dict[str, int] = dict.fromkeys(
            ("sent", "send_errors", "received", "garbage", "own", "leaving", "table_full",
             "other_version"), 0
        )
        self._beacon: Beacon | None = None
        self._encoded = b""
        self._next_send: float | None = None  # None: send on the next tick
        self._peers: dict[bytes, Seen] = {}
        self._others: dict[bytes, SeenOther] = {}  # by peer id: tables of another version
        self._told_other: set[tuple[str, int]] = set()  # (host, version) logged once
        self._closed = False
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if hasattr(socket, "SO_REUSEPORT"):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
            sock.bind(("0.0.0.0", beacon_port))
            sock.setblocking(False)
        except BaseException:
            sock.close()
            raise
        self._sock = sock

    def fileno(self) -> int:
        """The UDP socket's descriptor, to poll for readability."""
        return self._sock.fileno()

    def set_beacon(self, beacon: Beacon) -> None:
        """What we announce from now on. A changed beacon goes out on the next ``tick``."""
        if beacon.is_leaving:
            raise InvalidValue("set_beacon takes a live beacon; close() sends the leaving one")
        if beacon != self._beacon:
            self._beacon = beacon
            self._encoded = encode(beacon)
            self._next_send = None

    def next_deadline(self) -> float | None:
        """When ``tick`` next has something to send (None: send at once, or no beacon yet)."""
        return self._next_send if self._beacon is not None else None

    def tick(self, now: float) -> None:
        """Send our beacon if one is due: at the first tick after ``set_beacon``, then every
        ``interval`` seconds. Does nothing before ``set_beacon``."""
        if self._beacon is None or self._closed:
            return
        if self._next_send is None or now >= self._next_send:
            self._send(self._encoded)
            self._next_send = now + self.interval

    def on_readable(self, now: float) -> list[Beacon]:
        """Read every pending datagram; return the valid beacons of other peers, in order.

        Garbage is counted (``stats["garbage"]``) and logged, our own beacons are skipped,
        a leaving beacon removes its peer at once (and is returned, so the caller sees it).
        If any beacon came from a peer we did not know (or that changed address), we answer
        with our beacon once, at once. Never raises for what arrives.
        """
        own_id = self._beacon.peer_id if self._beacon is not None else None
        received: list[Beacon] = []
        answer = False
        while True:
            try:
                data, (host, _port) = self._sock.recvfrom(_RECV_SIZE)
            except BlockingIOError:
                break
            except OSError as exc:  # e.g. ICMP errors reported on a later call
                log.debug("beacon socket: %s", exc)
                break
            try:
                beacon = decode(data)
            except OtherVersion as exc:
                self._other_version(exc, host, now)
                continue
            except DecodeError as exc:
                self.stats["garbage"] += 1
                level = logging.WARNING if self.stats["garbage"] == 1 else logging.DEBUG
                log.log(level, "garbage beacon from %s: %s", host, exc)
                continue
            if beacon.peer_id == own_id:
                self.stats["own"] += 1
                continue
            self.stats["received"] += 1
            if beacon.is_leaving:
                self.stats["leaving"] += 1
                self._peers.pop(beacon.peer_id, None)
                received.append(beacon)
                continue
            if self._record(beacon, host, now):
                answer = True
            received.append(beacon)
        if answer and self._beacon is not None and not self._closed:
            self._send(self._encoded)
        return received

    def _record(self, beacon: Beacon, host: str, now: float) -> bool:
        """Store a live beacon; True when its peer is new to us (or moved, or had expired)."""
        previous = self._peers.get(beacon.peer_id)
        is_new = (
            previous is None
            or now - previous.last_seen > self.expiry
            or previous.host != host
            or previous.beacon.port != beacon.port
        )
        if previous is None and len(self._peers) >= MAX_PEERS:
            self._expire(now)
            if len(self._peers) >= MAX_PEERS:
                self.stats["table_full"] += 1
                return False
        first_seen = now if is_new or previous is None else previous.first_seen
        self._peers[beacon.peer_id] = Seen(beacon, host, first_seen, now)
        return is_new

    def _other_version(self, exc: OtherVersion, host: str, now: float) -> None:
        self.stats["other_version"] += 1
        if (host, exc.version) not in self._told_other and len(self._told_other) < MAX_PEERS:
            self._told_other.add((host, exc.version))
            log.warning("a peer at %s speaks protocol version %d (we speak %d): its tables "
                        "are not joinable", host, exc.version, VERSION)
        table = exc.table
        if table is None or table.port == 0 or table.state is TableState.NONE:
            if table is not None:
                self._others.pop(table.peer_id, None)  # it left, or hosts nothing now
            return
        self._expire(now)
        if table.peer_id in self._others or len(self._others) < MAX_PEERS:
            self._others[table.peer_id] = SeenOther(table, host, now)

    def other_tables(self, now: float) -> list[SeenOther]:
        """Tables of another protocol version heard within ``expiry`` seconds (shown, never
        joined)."""
        self._expire(now)
        return list(self._others.values())

    def peers(self, now: float) -> dict[bytes, Seen]:
        """Peers heard within the last ``expiry`` seconds, by peer id (a fresh dict)."""
        self._expire(now)
        return dict(self._peers)

    def _expire(self, now: float) -> None:
        for peer_id in [p for p, s in self._peers.items() if now - s.last_seen > self.expiry]:
            del self._peers[peer_id]
        for peer_id in [p for p, o in self._others.items() if now - o.last_seen > self.expiry]:
            del self._others[peer_id]

    def _send(self, data: bytes) -> None:
        for address in self.broadcast_addresses:
            try:
                self._sock.sendto(data, (address, self.beacon_port))
                self.stats["sent"] += 1
            except OSError as exc:  # interface down, no route: try again next interval
                self.stats["send_errors"] += 1
                level = logging.WARNING if self.stats["send_errors"] == 1 else logging.DEBUG
                log.log(level, "beacon to %s failed: %s", address, exc)

    def close(self) -> None:
        """Broadcast a leaving beacon (if we announced one) and close the socket. Idempotent."""
        if self._closed:
            return
        if self._beacon is not None:
            self._send(encode(self._beacon.leaving()))
        self._closed = True
        self._sock.close()

    def __enter__(self) -> Discovery:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def default_broadcast_addresses() -> list[str]:
    """Directed broadcast addresses of this machine's IPv4 interfaces, then 127.255.255.255
    (see :mod:`dudo_p2p.net.interfaces`: the same on Windows, macOS and Linux)."""
    return broadcast_addresses()
