"""One outgoing link of :class:`~dudo_p2p.net.links.Links`: a DEALER socket connected to
one peer's ROUTER, with the monitor that says when its connection came up or dropped, and
the ZeroMQ timers every link (and the ROUTER) runs with. Opening, closing and reading the
monitor live here; which peer a DEALER serves, and replacing a dropped one, is ``Links``'.
"""

from __future__ import annotations

import socket
import struct
import sys
from dataclasses import dataclass
from typing import Any

import zmq

from dudo_p2p.errors import InvalidValue
from dudo_p2p.net.routing import LINK_NONCE_LEN


@dataclass
class Dealer:
    """A DEALER ``sock`` connected to ``endpoint`` under link ``nonce``, and its ``monitor``."""

    sock: zmq.Socket[Any]
    endpoint: str
    nonce: bytes
    monitor: zmq.Socket[Any]


@dataclass(frozen=True, slots=True)
class LinkTimers:
    """ZeroMQ timers of every link, in milliseconds (defaults suit a LAN game)."""

    heartbeat_ivl: int = 1000  # ZMTP PING every second on an idle link
    heartbeat_timeout: int = 3000  # no traffic for 3 s after a PING: close and reconnect
    heartbeat_ttl: int = 3000  # ask the remote end to do the same
    reconnect_ivl: int = 100  # first reconnect attempt after 100 ms ...
    reconnect_ivl_max: int = 500  # ... backing off to one every 0.5 s
    # A TCP connect still pending after 1 s is abandoned and dialled afresh: the kernel
    # retries an unanswered SYN after 1, 3, 7, 15 s, so a peer whose cable came back after
    # 12 s was reached only at the retry 15 s in, and a removed peer back in reach declared
    # the table gone before any link reached it (issue 13, the cable-pull scenario).
    connect_timeout: int = 1000


def open_dealer(ctx: zmq.Context[Any], endpoint: str, rid: bytes, hwm: int,
                timers: LinkTimers) -> Dealer:
    """A DEALER presenting routing id ``rid`` (its nonce is the id's tail), connecting to
    ``endpoint`` in the background. InvalidValue when ZeroMQ refuses the endpoint."""
    nonce = rid[-LINK_NONCE_LEN:]
    dealer: zmq.Socket[Any] = ctx.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.setsockopt(zmq.ROUTING_ID, rid)
    dealer.setsockopt(zmq.SNDHWM, hwm)
    dealer.setsockopt(zmq.RCVHWM, hwm)
    # Queue only on a link that is up: frames for a peer that never answers would
    # otherwise pile up to the HWM and be delivered stale much later.
    dealer.setsockopt(zmq.IMMEDIATE, 1)
    dealer.setsockopt(zmq.RECONNECT_IVL, timers.reconnect_ivl)
    dealer.setsockopt(zmq.RECONNECT_IVL_MAX, timers.reconnect_ivl_max)
    dealer.setsockopt(zmq.CONNECT_TIMEOUT, timers.connect_timeout)
    if endpoint.startswith("tcp://["):
        dealer.setsockopt(zmq.IPV6, 1)
    set_heartbeats(dealer, timers)
    try:
        monitor: zmq.Socket[Any] = dealer.get_monitor_socket(
            zmq.EVENT_CONNECTED | zmq.EVENT_DISCONNECTED | zmq.EVENT_HANDSHAKE_SUCCEEDED
        )
    except BaseException:
        dealer.close(linger=0)
        raise
    try:
        dealer.connect(endpoint)
    except zmq.ZMQError as exc:
        close_dealer(Dealer(dealer, endpoint, nonce, monitor))
        raise InvalidValue(f"cannot connect to {endpoint}: {exc}") from None
    return Dealer(dealer, endpoint, nonce, monitor)


def close_dealer(entry: Dealer, linger_ms: int = 0) -> None:
    """Close the DEALER (keeping what is queued up to ``linger_ms``) and its monitor."""
    entry.sock.disable_monitor()
    entry.monitor.close(linger=0)
    entry.sock.close(linger=linger_ms)


def set_heartbeats(sock: zmq.Socket[Any], timers: LinkTimers) -> None:
    """ZMTP heartbeats on ``sock``, as ``timers`` say."""
    sock.setsockopt(zmq.HEARTBEAT_IVL, timers.heartbeat_ivl)
    sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, timers.heartbeat_timeout)
    sock.setsockopt(zmq.HEARTBEAT_TTL, timers.heartbeat_ttl)


def drained_events(monitor: zmq.Socket[Any]) -> tuple[bool, bool, int]:
    """Read every event a DEALER's monitor holds: (its connection dropped, it came up, how
    many new TCP connections were made thin streams: :func:`thin_stream`)."""
    dropped = up = False
    thin = 0
    while True:
        try:
            raw = monitor.recv_multipart(zmq.NOBLOCK)
        except zmq.Again:
            return dropped, up, thin
        event, value = monitor_event(raw)
        if event == zmq.EVENT_DISCONNECTED:
            dropped = True
        elif event == zmq.EVENT_HANDSHAKE_SUCCEEDED:
            up = True
        elif event == zmq.EVENT_CONNECTED:
            thin += thin_stream(value)


_MONITOR_EVENT = struct.Struct("=Hi")  # 16-bit event id, 32-bit value, no padding


def monitor_event(raw: list[bytes]) -> tuple[int, int]:
    """The (event, value) of a monitor message (``zmq_socket_monitor``: a frame of a 16-bit
    event id and a 32-bit value, the descriptor for ``EVENT_CONNECTED``/``EVENT_ACCEPTED``,
    then the endpoint); (0, -1) for anything else. What pyzmq's ``parse_monitor_message``
    reads, without importing ``zmq.utils.monitor``: it imports ``zmq.asyncio`` and with it
    asyncio, 168 ms of every process's start-up at load 11 (watch's ``-X importtime``)."""
    if len(raw) != 2 or len(raw[0]) != _MONITOR_EVENT.size:
        return 0, -1
    event, value = _MONITOR_EVENT.unpack(raw[0])
    return event, value


# Linux's TCP_THIN_LINEAR_TIMEOUTS (include/uapi/linux/tcp.h; not in Python's socket module)
TCP_THIN_LINEAR_TIMEOUTS = 16


def thin_stream(fd: object) -> bool:
    """Ask Linux to retransmit on TCP connection ``fd`` (the value of a monitor's
    ``EVENT_CONNECTED`` or ``EVENT_ACCEPTED``) without exponential backoff while it has
    fewer than four segments in flight, for its first six retransmissions
    (``TCP_THIN_LINEAR_TIMEOUTS``); True when set. A link carries a few small frames a
    second: under heavy loss the doubling timer (0.3, 0.6, 1.2, 2.4 s ...) stalled it for
    seconds, the ZMTP heartbeat then closed it after 3 s and the redial took seconds more,
    so a live seat went unheard past the 4.5 s silence limit (``tests/lan/link_gaps.py`` at
    25 % loss, 6 pairs of 300 s runs: 22 silences over 4.5 s without, 9 with; at two seats with
    no grace such a silence is a claim and the game is abandoned, ``lan_sweep --hard``).
    Linux only; elsewhere, or when ``fd`` is no longer a TCP socket (the connection closed
    before its event was read), nothing happens. Setting it on another TCP socket of ours,
    had the number been reused, does no harm: every TCP socket this process opens is a
    link."""
    if not sys.platform.startswith("linux") or not isinstance(fd, int) or fd < 0:
        return False
    try:
        sock = socket.socket(fileno=fd)  # wraps the descriptor: no dup, detached below
    except OSError:
        return False
    try:
        if sock.type != socket.SOCK_STREAM or sock.family not in (socket.AF_INET,
                                                                   socket.AF_INET6):
            return False
        sock.setsockopt(socket.IPPROTO_TCP, TCP_THIN_LINEAR_TIMEOUTS, 1)
        return True
    except OSError:
        return False
    finally:
        sock.detach()
