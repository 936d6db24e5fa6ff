"""Links on loopback: frames flow both ways, and nothing a peer sends can crash the ROUTER."""

from __future__ import annotations

import contextlib
import logging
import random
import select
import socket
import struct
import time
from collections.abc import Callable
from typing import Any

import pytest
import zmq
from net_helpers import WAIT, free_tcp_port, recv_frames, send_until_queued

from dudo_p2p.errors import InvalidValue, LocalProtocolError
from dudo_p2p.net.links import Links
from dudo_p2p.net.router import Incoming
from dudo_p2p.net.routing import ROUTING_PREFIX, classify, routing_id

A = b"\xaa" * 32
B = b"\x00" + b"\xbb" * 31  # starts with a zero byte, which libzmq reserves without our prefix
NONCE = b"\x07" * 8  # a hand-made DEALER's link nonce

MakeLinks = Callable[..., Links]
RawSocket = Callable[[int], zmq.Socket[Any]]


def linked_pair(make_links: MakeLinks, **kwargs: Any) -> tuple[Links, Links]:
    a, b = make_links(A, **kwargs), make_links(B, **kwargs)
    a.connect(B, "127.0.0.1", b.port)
    b.connect(A, "127.0.0.1", a.port)
    return a, b


def test_two_links_exchange_frames_both_ways_with_the_claimed_sender(
    make_links: MakeLinks,
) -> None:
    a, b = linked_pair(make_links)
    assert send_until_queued(a, B, b"ping")
    assert send_until_queued(b, A, b"pong")
    assert recv_frames(b, 1) == [(A, b"ping")]
    assert recv_frames(a, 1) == [(B, b"pong")]
    for n in range(20):  # order is kept on one link
        assert send_until_queued(a, B, b"%d" % n)
    assert [f for _, f in recv_frames(b, 20)] == [b"%d" % n for n in range(20)]
    assert b.stats["received"] == 21 and a.stats["sent"] == 21


def test_recv_incoming_gives_the_remote_ip(make_links: MakeLinks) -> None:
    a, b = linked_pair(make_links)
    assert send_until_queued(a, B, b"hi")
    poller_deadline = time.monotonic() + WAIT
    got: list[Incoming] = []
    while not got and time.monotonic() < poller_deadline:
        b.sockets_for_poll()[0].poll(100)
        got = b.recv_incoming()
    assert [(m.sender, m.frame, m.address) for m in got] == [(A, b"hi", "127.0.0.1")]


def test_endpoint_and_port_describe_the_bound_router(make_links: MakeLinks) -> None:
    a = make_links(A)
    assert a.port > 0
    assert a.endpoint == f"tcp://127.0.0.1:{a.port}"


def test_send_to_an_unknown_peer_returns_false(make_links: MakeLinks) -> None:
    a = make_links(A)
    assert a.send(B, b"hello?") is False
    assert a.broadcast(b"hello?") == 0
    assert a.stats["send_unknown_peer"] == 1


def test_sending_an_oversize_frame_is_our_bug_and_raises(make_links: MakeLinks) -> None:
    a, _ = linked_pair(make_links, max_frame=100)
    with pytest.raises(LocalProtocolError):
        a.send(B, b"x" * 101)


def test_oversize_frame_is_dropped_by_zeromq_and_the_link_recovers(
    make_links: MakeLinks, raw_sockets: RawSocket
) -> None:
    a = make_links(A, max_frame=1024)
    rogue = raw_sockets(zmq.DEALER)
    rogue.setsockopt(zmq.ROUTING_ID, routing_id(B, NONCE))
    rogue.connect(a.endpoint)
    rogue.send(b"small")
    assert recv_frames(a, 1) == [(B, b"small")]
    rogue.send(b"x" * 5000)  # ZeroMQ closes this connection on the length header
    assert recv_frames(a, 1, timeout=0.5) == []
    deadline = time.monotonic() + WAIT
    while a.stats["disconnects"] == 0 and time.monotonic() < deadline:
        recv_frames(a, 1, timeout=0.05)
    assert a.stats["disconnects"] >= 1
    # The DEALER reconnects by itself; later frames get through.
    got: list[tuple[bytes, bytes]] = []
    while not got and time.monotonic() < deadline:
        rogue.send(b"after", zmq.NOBLOCK)
        got = recv_frames(a, 1, timeout=0.2)
    assert got and got[0] == (B, b"after")


def test_multipart_and_foreign_routing_ids_are_counted_and_dropped(
    make_links: MakeLinks, raw_sockets: RawSocket
) -> None:
    a = make_links(A)
    multipart = raw_sockets(zmq.DEALER)
    multipart.setsockopt(zmq.ROUTING_ID, routing_id(B, NONCE))
    multipart.connect(a.endpoint)
    foreign = raw_sockets(zmq.DEALER)
    foreign.setsockopt(zmq.ROUTING_ID, b"not-a-dudo-peer")
    foreign.connect(a.endpoint)
    anonymous = raw_sockets(zmq.DEALER)  # libzmq makes up an id starting with a zero byte
    anonymous.connect(a.endpoint)
    multipart.send_multipart([b"one", b"two"])
    foreign.send(b"frame")
    anonymous.send(b"frame")
    multipart.send(b"fine")
    assert recv_frames(a, 1) == [(B, b"fine")]
    deadline = time.monotonic() + WAIT
    while a.stats["bad_routing_id"] < 2 and time.monotonic() < deadline:
        recv_frames(a, 1, timeout=0.05)
    assert a.stats["bad_parts"] == 1
    assert a.stats["bad_routing_id"] == 2
    assert a.stats["received"] == 1


@pytest.mark.parametrize(
    ("routing_id", "sizes", "expected"),
    [
        (routing_id(A, NONCE), [10], None),
        (routing_id(A, NONCE), [100], None),
        (routing_id(A, NONCE), [101], "oversize"),
        (routing_id(A, NONCE), [], "bad_parts"),
        (routing_id(A, NONCE), [1, 1], "bad_parts"),
        (ROUTING_PREFIX, [1], "bad_routing_id"),
        (ROUTING_PREFIX + NONCE, [1], "bad_routing_id"),  # a nonce but no id
        (b"\x00abcd", [1], "bad_routing_id"),
    ],
)
def test_classify_decides_what_is_dropped(
    routing_id: bytes, sizes: list[int], expected: str | None
) -> None:
    assert classify(routing_id, sizes, 100) == expected


def test_restarted_peer_with_same_id_is_reached_after_connect_again(
    make_links: MakeLinks,
) -> None:
    a, b = linked_pair(make_links)
    assert send_until_queued(a, B, b"first")
    assert recv_frames(b, 1) == [(A, b"first")]
    old_port = b.port
    b.close()
    b2 = make_links(B)  # same id, new port
    assert b2.port != old_port
    a.connect(B, "127.0.0.1", b2.port)
    assert a.peers() == {B: f"tcp://127.0.0.1:{b2.port}"}
    b2.connect(A, "127.0.0.1", a.port)
    assert send_until_queued(a, B, b"again")
    assert recv_frames(b2, 1) == [(A, b"again")]
    assert send_until_queued(b2, A, b"back")
    assert recv_frames(a, 1) == [(B, b"back")]


def test_router_handover_lets_a_second_connection_with_the_same_id_take_over(
    make_links: MakeLinks,
) -> None:
    # The old B's link is still open (as after a crash the OS has not noticed yet); without
    # ROUTER_HANDOVER libzmq would refuse the newcomer until the old connection died.
    a, b = linked_pair(make_links)
    assert send_until_queued(b, A, b"old")
    assert recv_frames(a, 1) == [(B, b"old")]
    b2 = make_links(B)
    b2.connect(A, "127.0.0.1", a.port)
    assert send_until_queued(b2, A, b"new")
    assert recv_frames(a, 1) == [(B, b"new")]


def test_connect_is_idempotent_and_replaces_a_changed_address(make_links: MakeLinks) -> None:
    a = make_links(A)
    a.connect(B, "127.0.0.1", 40001)
    first = a._dealers[B].sock
    a.connect(B, "127.0.0.1", 40001)
    assert a._dealers[B].sock is first
    a.connect(B, "127.0.0.1", 40002)
    assert a._dealers[B].sock is not first
    assert first.closed
    assert a.peers() == {B: "tcp://127.0.0.1:40002"}
    a.disconnect(B)
    a.disconnect(B)  # unknown now: nothing happens
    assert a.peers() == {}


@pytest.mark.parametrize(("host", "port"), [("127.0.0.1", 0), ("127.0.0.1", 65536), ("", 1),
                                            ("a b", 1), ("bad/host", 1)])
def test_connect_refuses_bad_addresses(make_links: MakeLinks, host: str, port: int) -> None:
    with pytest.raises(InvalidValue):
        make_links(A).connect(B, host, port)


def test_constructor_refuses_bad_arguments(ctx: zmq.Context[Any]) -> None:
    bad: list[dict[str, Any]] = [{"port": -1}, {"max_frame": 0}, {"hwm": 0}]
    for kwargs in bad:
        with pytest.raises(InvalidValue):
            Links(ctx, A, **kwargs)
    with pytest.raises(InvalidValue):
        Links(ctx, b"")


def test_send_returns_false_once_the_high_water_mark_is_reached(make_links: MakeLinks) -> None:
    a, _b = linked_pair(make_links, hwm=4)
    assert send_until_queued(a, B, b"up")
    frame = b"x" * 65536
    # b never reads: its queue, the kernel buffers and a's queue fill; then send says no.
    results = [a.send(B, frame) for _ in range(5000)]
    assert False in results
    assert a.stats["send_would_block"] >= 1


def test_send_to_a_peer_that_went_away_never_raises_and_soon_refuses(
    make_links: MakeLinks,
) -> None:
    a, b = linked_pair(make_links)
    assert send_until_queued(a, B, b"hi")
    b.close()
    deadline = time.monotonic() + WAIT
    refused = False
    while not refused and time.monotonic() < deadline:
        refused = not a.send(B, b"anyone?")  # IMMEDIATE: no queueing for a dead link
        recv_frames(a, 1, timeout=0.01)
    assert refused


def _greeting(mechanism: bytes) -> bytes:
    # ZMTP 3.0 greeting: signature, version 3.0, mechanism (20 bytes), as-server, filler.
    signature = b"\xff" + b"\x00" * 8 + b"\x7f"
    return signature + b"\x03\x00" + mechanism.ljust(20, b"\x00") + b"\x00" * 32


def _command(name: bytes, body: bytes) -> bytes:
    payload = bytes([len(name)]) + name + body
    return b"\x04" + bytes([len(payload)]) + payload


def _property(name: bytes, value: bytes) -> bytes:
    return bytes([len(name)]) + name + struct.pack("!I", len(value)) + value


GARBAGE = {
    "random bytes": random.Random(1).randbytes(4096),
    "http request": b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
    "bogus mechanism": _greeting(b"BOGUS"),
    "curve without keys": _greeting(b"CURVE") + b"\x04\x05\x05HELLO",
    "bad command after greeting": _greeting(b"NULL") + _command(b"WHAT", b"\x00" * 10),
    "huge frame after handshake": _greeting(b"NULL")
    + _command(b"READY", _property(b"Socket-Type", b"DEALER")
               + _property(b"Identity", routing_id(B, NONCE)))
    + b"\x02" + struct.pack("!Q", 2**62),
}


@pytest.mark.parametrize("payload", GARBAGE.values(), ids=GARBAGE.keys())
def test_garbage_on_the_router_port_does_not_crash_it(
    make_links: MakeLinks, payload: bytes
) -> None:
    a, b = linked_pair(make_links)
    with socket.create_connection(("127.0.0.1", a.port), 2) as raw:
        raw.settimeout(2)
        raw.sendall(payload)
        try:  # read what ZeroMQ answers until it hangs up on us (bounded by the timeout)
            while raw.recv(4096):
                pass
        except (TimeoutError, ConnectionResetError):
            pass
    assert recv_frames(a, 1, timeout=0.2) == []  # nothing from the garbage reached us
    assert send_until_queued(b, A, b"still here")
    assert recv_frames(a, 1) == [(B, b"still here")]


def test_close_is_idempotent(make_links: MakeLinks) -> None:
    a, _ = linked_pair(make_links)
    a.close()
    a.close()


def test_every_dealer_presents_its_own_routing_id_and_rekey_keeps_the_connection(
    make_links: MakeLinks,
) -> None:
    """Two links from one peer to another never share a routing id (issue 13 §1: a joiner's
    placeholder link and its real one both presented ``prefix || key`` and the host's ROUTER
    heard only the last to connect); a placeholder re-keyed to the real id keeps its socket
    and connection, so no second connection is opened."""
    a, b = make_links(A), make_links(B)
    a.connect(b"join:placeholder", "127.0.0.1", b.port)
    a.connect(b"other", "127.0.0.1", b.port)
    first, second = a.nonce(b"join:placeholder"), a.nonce(b"other")
    assert first is not None and second is not None and first != second
    sock = a._dealers[b"join:placeholder"].sock
    a.rekey(b"join:placeholder", B)
    a.disconnect(b"other")
    assert a.peers() == {B: f"tcp://127.0.0.1:{b.port}"}
    assert a._dealers[B].sock is sock and a.nonce(B) == first
    assert send_until_queued(a, B, b"after the welcome")
    got = []
    deadline = time.monotonic() + WAIT
    while not got and time.monotonic() < deadline:
        b.sockets_for_poll()[0].poll(100)
        got = b.recv_incoming()
    assert [(m.sender, m.frame, m.conn) for m in got] == [
        (A, b"after the welcome", routing_id(A, first))
    ]


def test_a_dropped_connection_is_redialled_from_a_new_socket_with_a_new_nonce(
    make_links: MakeLinks, raw_sockets: RawSocket, caplog: pytest.LogCaptureFixture
) -> None:
    """After its connection drops, a DEALER is replaced by one with a fresh routing id, so it
    never redials under an id a stale connection may still hold on the peer's ROUTER (with
    ROUTER_HANDOVER off, that redial would be heard by nobody)."""
    caplog.set_level(logging.INFO, logger="dudo_p2p.net.links")
    a = make_links(A)
    server = raw_sockets(zmq.ROUTER)  # a peer's ROUTER that we can cut
    port = server.bind_to_random_port("tcp://127.0.0.1")
    a.connect(B, "127.0.0.1", port)
    assert send_until_queued(a, B, b"one")
    before = a.nonce(B)
    assert server.poll(int(WAIT * 1000)) and server.recv_multipart()[0] == routing_id(A, before)
    server.unbind(f"tcp://127.0.0.1:{port}")
    server.close(linger=0)  # the connection drops
    deadline = time.monotonic() + WAIT
    replaced: list[bytes] = []
    while not replaced and time.monotonic() < deadline:
        replaced = a.maintain()
        select.select([], [], [], 0.01)
    assert replaced == [B] and a.stats["relinks"] == 1
    # said at INFO (what a peer's -v log keeps), naming the peer
    assert [r.getMessage() for r in caplog.records if "dropped" in r.getMessage()] == [
        f"link to {B[:4].hex()} dropped: redialled (1 so far)"]
    assert a.nonce(B) not in (None, before)
    assert a.peers() == {B: f"tcp://127.0.0.1:{port}"}
    assert a.maintain() == []  # nothing more to replace


def _wait_up(links: Links, peer: bytes, timeout: float) -> float | None:
    """Seconds until ``links`` reports its link to ``peer`` up (``take_up``), or None."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        links.maintain()
        if peer in links.take_up():
            return time.monotonic() - start
        select.select([], [], [], 0.01)
    return None


def test_take_up_reports_a_link_once_its_handshake_is_done(make_links: MakeLinks) -> None:
    a, b = make_links(A), make_links(B)
    assert a.take_up() == []
    a.connect(B, "127.0.0.1", b.port)
    assert _wait_up(a, B, WAIT) is not None
    assert a.take_up() == []  # reported once
    a.connect(b"nobody", "127.0.0.1", free_tcp_port())  # refused: never up
    assert _wait_up(a, b"nobody", 0.5) is None


def test_a_dial_whose_syn_goes_unanswered_is_abandoned_and_dialled_again(
    make_links: MakeLinks,
) -> None:
    """A link to a peer out of reach must come up within a couple of seconds of the peer
    being reachable again, not at the kernel's next SYN retry (1, 3, 7, 15 s after the
    first): a listener whose accept queue is full drops SYNs, as a pulled cable does; 12 s
    later the peer's ROUTER takes the port. Without ``ZMQ_CONNECT_TIMEOUT`` the link came up
    7.4 s after that (the retry 19 s in); with it, 0.7 s."""
    port = free_tcp_port()
    listener = socket.socket()
    fillers = [socket.socket() for _ in range(3)]
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(0)
        for filler in fillers:  # fill the accept queue: later SYNs are dropped
            filler.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                filler.connect(("127.0.0.1", port))
        a = make_links(A)
        a.connect(B, "127.0.0.1", port)
        assert _wait_up(a, B, 12.0) is None  # nothing answers
    finally:
        listener.close()
        for filler in fillers:
            filler.close()
    make_links(B, port=port)  # the peer is back
    took = _wait_up(a, B, 4.5)
    assert took is not None, "the link did not come up within 4.5 s of the peer's return"
