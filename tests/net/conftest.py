"""Fixtures for the transport tests: a ZeroMQ context, Links and Discovery factories that
always close what they made, free ports, bounded waits (poll with a deadline, no sleeps) and
the demo peers a test starts (killed at the end)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import zmq
from net_helpers import DemoRun, free_udp_port

from dudo_p2p.net.discovery import LOOPBACK_BROADCAST, Discovery
from dudo_p2p.net.links import Links


@pytest.fixture
def ctx() -> Iterator[zmq.Context[Any]]:
    context: zmq.Context[Any] = zmq.Context()
    yield context
    context.term()  # hangs if a socket was left open: the fixtures below close them first


@pytest.fixture
def make_links(ctx: zmq.Context[Any]) -> Iterator[Callable[..., Links]]:
    made: list[Links] = []

    def make(peer_id: bytes, **kwargs: Any) -> Links:
        links = Links(ctx, peer_id, **kwargs)
        made.append(links)
        return links

    yield make
    for links in made:
        links.close()


@pytest.fixture
def raw_sockets(ctx: zmq.Context[Any]) -> Iterator[Callable[[int], zmq.Socket[Any]]]:
    """Plain ZeroMQ sockets for playing a misbehaving peer; closed at teardown."""
    made: list[zmq.Socket[Any]] = []

    def make(kind: int) -> zmq.Socket[Any]:
        sock: zmq.Socket[Any] = ctx.socket(kind)
        sock.setsockopt(zmq.LINGER, 0)
        made.append(sock)
        return sock

    yield make
    for sock in made:
        sock.close(linger=0)


@pytest.fixture
def beacon_port() -> int:
    return free_udp_port()


@pytest.fixture
def make_discovery(beacon_port: int) -> Iterator[Callable[..., Discovery]]:
    """Discovery objects that only ever broadcast on loopback (127.255.255.255)."""
    made: list[Discovery] = []

    def make(**kwargs: Any) -> Discovery:
        kwargs.setdefault("broadcast_addresses", [LOOPBACK_BROADCAST])
        discovery = Discovery(beacon_port, **kwargs)
        made.append(discovery)
        return discovery

    yield make
    for discovery in made:
        discovery.close()


@pytest.fixture
def runs() -> Iterator[list[DemoRun]]:
    """Demo peer processes a test starts; killed at the end."""
    started: list[DemoRun] = []
    yield started
    for run in started:
        run.kill()
