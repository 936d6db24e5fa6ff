"""One outgoing link of :class:`~dudo_p2p.net.links.Links`: a DEALER socket connected to
one peer's ROUTER, with the monitor that says when its connection came up or dropped, and
the ZeroMQ timers every link (and the ROUTER) runs with. Opening, closing and reading the
monitor live here; which peer a DEALER serves, and replacing a dropped one, is ``Links``'.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import zmq
from zmq.utils.monitor import parse_monitor_message

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
            zmq.EVENT_DISCONNECTED | zmq.EVENT_HANDSHAKE_SUCCEEDED
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


def drained_events(monitor: zmq.Socket[Any]) -> tuple[bool, bool]:
    """Read every event a DEALER's monitor holds: (its connection dropped, it came up)."""
    dropped = up = False
    while True:
        try:
            raw = monitor.recv_multipart(zmq.NOBLOCK)
        except zmq.Again:
            return dropped, up
        event = parse_monitor_message(raw)["event"]
        if event == zmq.EVENT_DISCONNECTED:
            dropped = True
        elif event == zmq.EVENT_HANDSHAKE_SUCCEEDED:
            up = True
