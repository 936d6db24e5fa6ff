"""Every link's TCP connection, both ends, retransmits without exponential backoff while it is
thin (``dealer.thin_stream``: Linux's ``TCP_THIN_LINEAR_TIMEOUTS``), read back from the kernel.

Why it matters is measured on the lossy LAN (``tests/lan/link_gaps.py``); here only that the
option is really set on the sockets libzmq opened, and that a descriptor that is no TCP socket
(closed before its monitor event was read, reused) is left alone.
"""

from __future__ import annotations

import os
import socket
import sys
import time
from collections.abc import Callable

import pytest
from net_helpers import WAIT, recv_frames, send_until_queued

from dudo_p2p.net.dealer import TCP_THIN_LINEAR_TIMEOUTS, thin_stream
from dudo_p2p.net.links import Links

A = b"\xaa" * 32
B = b"\xbb" * 32

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a Linux socket option")


def _tcp_sockets_between(port_a: int, port_b: int) -> dict[tuple[int, int], int]:
    """This process's TCP connections with one end on ``port_a`` or ``port_b`` and the other
    on either: (local port, remote port) -> their TCP_THIN_LINEAR_TIMEOUTS value."""
    found = {}
    for name in os.listdir("/proc/self/fd"):
        try:
            sock = socket.socket(fileno=int(name))
        except OSError:
            continue
        try:
            if sock.type != socket.SOCK_STREAM or sock.family != socket.AF_INET:
                continue
            try:
                local, remote = sock.getsockname()[1], sock.getpeername()[1]
            except OSError:  # the listening sockets: no peer
                continue
            if {local, remote} & {port_a, port_b}:
                found[(local, remote)] = sock.getsockopt(socket.IPPROTO_TCP,
                                                         TCP_THIN_LINEAR_TIMEOUTS)
        finally:
            sock.detach()
    return found


@linux
def test_both_ends_of_every_link_retransmit_linearly(
    make_links: Callable[..., Links],
) -> None:
    a, b = make_links(A), make_links(B)
    a.connect(B, "127.0.0.1", b.port)
    b.connect(A, "127.0.0.1", a.port)
    assert send_until_queued(a, B, b"ping") and send_until_queued(b, A, b"pong")
    assert recv_frames(b, 1) == [(A, b"ping")] and recv_frames(a, 1) == [(B, b"pong")]
    deadline = time.monotonic() + WAIT  # the DEALERs' monitors are read by maintain()
    while a.stats["thin"] + b.stats["thin"] < 4 and time.monotonic() < deadline:
        a.maintain()
        b.maintain()
        a.recv_incoming()
        b.recv_incoming()
        time.sleep(0.01)  # a bounded wait for the monitor events of two real connections
    # each side: its DEALER's connection and the one its ROUTER accepted
    assert (a.stats["thin"], b.stats["thin"]) == (2, 2)
    found = _tcp_sockets_between(a.port, b.port)
    assert len(found) == 4, found  # two connections, each seen from both ends
    assert set(found.values()) == {1}, found


@linux
def test_a_descriptor_that_is_no_tcp_socket_is_left_alone() -> None:
    read, write = os.pipe()
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        assert not thin_stream(read)
        os.write(write, b"x")  # the pipe is still open (the descriptor was not taken)
        assert os.read(read, 1) == b"x"
        assert not thin_stream(udp.fileno())
        udp.sendto(b"x", ("127.0.0.1", 9))  # still ours, still open
        assert not thin_stream(-1) and not thin_stream(None)
        closed = os.dup(read)
        os.close(closed)
        assert not thin_stream(closed)
    finally:
        udp.close()
        os.close(read)
        os.close(write)
    server = socket.create_server(("127.0.0.1", 0))
    with server, socket.create_connection(server.getsockname()) as client:
        assert thin_stream(client.fileno())
        assert client.getsockopt(socket.IPPROTO_TCP, TCP_THIN_LINEAR_TIMEOUTS) == 1
        client.sendall(b"ok")  # the descriptor was detached, not closed
