"""Mixed protocol versions between real processes on loopback (protocol.md §2.5 "Versions"):
a joiner of the old wire (version 1) that says hello to a version-2 host is refused at once
with a signed ``refused`` (reason ``version``) that it can read, framed and signed as
version 1; it takes no seat, and the table goes on to seat a current bot and play. A
version-2 joiner looking for a code only a version-1 table offers stops with ``version``."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest
import zmq
from node_helpers import (
    GAME_TIMEOUT,
    LOOPBACK,
    LOOPBACK_BROADCAST,
    Peer,
    bot_args,
    free_tcp_port,
    host_args,
    loopback_net,
)
from test_node_lobby_version import V1_TAG, ZERO, old_hello

from dudo_p2p.cli.exits import Exit
from dudo_p2p.crypto.identity import Identity, verify
from dudo_p2p.net.beacon import Beacon, TableState
from dudo_p2p.net.beacon import encode as encode_beacon
from dudo_p2p.net.links import Links
from dudo_p2p.protocol.codec import decode, encode
from dudo_p2p.protocol.kinds import Refusal
from dudo_p2p.protocol.messages import from_wire

pytestmark = pytest.mark.e2e

CODE = "KQ7XM"
ANSWERED_WITHIN = 5.0


def test_a_version_1_hello_is_refused_with_reason_version_and_the_table_plays_on(
    tmp_path: Path, peers: list[Peer], beacon_port: int
) -> None:
    port = free_tcp_port()
    net = loopback_net(beacon_port)
    peers.append(Peer("host", host_args("host", tmp_path, 2, "--table", CODE, "--port",
                                        str(port), "-v", *net)))
    assert peers[0].wait_line("host: table", 20), peers[0].explain()
    old = Identity.generate()
    ctx: zmq.Context[object] = zmq.Context()
    links = Links(ctx, old.public_key, bind_host=LOOPBACK, port=0)
    answer: bytes | None = None
    try:
        hello = old_hello(old, table=CODE, host=LOOPBACK, port=links.port)
        links.connect(b"host", LOOPBACK, port)
        first = time.monotonic()
        deadline = first + 20
        while answer is None and time.monotonic() < deadline:
            links.send(b"host", hello)  # every 200 ms, as a joiner of either version does
            until = time.monotonic() + 0.2
            while answer is None and time.monotonic() < until:
                zmq.select(links.sockets_for_poll(), [], [], 0.05)
                answer = next((m.frame for m in links.recv_incoming()), None)
        answered = time.monotonic()
    finally:
        links.close()
        ctx.term()
    assert answer is not None, peers[0].explain()
    # what a version-1 joiner reads: its own framing, the host's signature as version 1
    # signs, a refusal addressed to it
    items = decode(answer)
    assert isinstance(items, list) and len(items) == 8
    version, game, round_no, seq, author, kind, body, signature = items
    assert (version, game, round_no, seq, kind) == (1, ZERO, 0, 0, "refused")
    assert isinstance(author, bytes) and isinstance(signature, bytes)
    assert verify(author, encode([V1_TAG, *items[:7]]), signature)
    refusal = from_wire("refused", body)
    assert isinstance(refusal, Refusal)
    assert (refusal.to, refusal.table, refusal.reason) == (old.public_key, CODE, "version")
    # answered at once, as a full table answers (the bound counts from our first hello, sent
    # before the link was up: a generous 5 s)
    assert answered - first <= ANSWERED_WITHIN, answered - first
    assert peers[0].wait_line("speaks protocol version 1", 5), peers[0].explain()
    # the old peer took no seat: the 2-seat table seats a current bot (it would be refused
    # "full" otherwise) and plays to the end
    bot = Peer("b1", bot_args("b1", tmp_path, "--discover", "--table", CODE, *net))
    peers.append(bot)
    assert bot.finish(GAME_TIMEOUT) == 0, bot.explain()
    assert peers[0].finish() == 0, peers[0].explain()
    assert bot.summary()["log_hash"] == peers[0].summary()["log_hash"]


def test_a_code_only_a_table_of_the_old_wire_offers_stops_a_joiner_with_reason_version(
    tmp_path: Path, peers: list[Peer], beacon_port: int
) -> None:
    """A bot told to join table ZZ8PQ hears it only in a version-1 beacon (the test's own,
    from a UDP socket on loopback): it stops at once, refused (exit 5) with reason
    ``version``, rather than waiting for a host that could not read its hello."""
    head = encode_beacon(Beacon(b"\x07" * 32, 40000, "ZZ8PQ", TableState.OPEN, 1, 2, "v", 5))
    old_beacon = head[:4] + b"\x01" + head[5:47] + b"\x05Vieja"  # version 1's layout
    bot = Peer("b1", bot_args("b1", tmp_path, "--discover", "--table", "ZZ8PQ", "-v",
                              *loopback_net(beacon_port)))
    peers.append(bot)
    deadline = time.monotonic() + 20
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as raw:
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        while bot.proc.poll() is None and time.monotonic() < deadline:
            raw.sendto(old_beacon, (LOOPBACK_BROADCAST, beacon_port))  # as a host, each 0.2 s
            time.sleep(0.2)
    assert bot.finish(10) == Exit.REFUSED, bot.explain()
    assert bot.summary()["refused"] == "version", bot.explain()
    assert any("protocol version 1" in line for line in bot.lines), bot.explain()
