"""Discovery on loopback (127.255.255.255 only, on a free port chosen by the test)."""

from __future__ import annotations

import dataclasses
import ipaddress
import random
import socket
import time
from collections.abc import Callable

import pytest
from net_helpers import wait_readable

from dudo_p2p.errors import InvalidValue
from dudo_p2p.net.beacon import Beacon, TableState, encode
from dudo_p2p.net.discovery import (
    LOOPBACK_BROADCAST,
    Discovery,
    default_broadcast_addresses,
)

A = b"\xaa" * 32
B = b"\xbb" * 32
BEACON_A = Beacon(A, 41000, "K7QXM", TableState.OPEN, 1, 4, "Ana", 5)
BEACON_B = Beacon(B, 42000, name="Beto")

MakeDiscovery = Callable[..., Discovery]


def read_until(d: Discovery, now: float, peer_id: bytes, timeout: float = 2.0) -> list[Beacon]:
    """Read ``d`` until a beacon of ``peer_id`` arrives or ``timeout`` (wall clock) passes."""
    got: list[Beacon] = []
    deadline = time.monotonic() + timeout
    while not any(b.peer_id == peer_id for b in got):
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not wait_readable(d.fileno(), remaining):
            break
        got.extend(d.on_readable(now))
    return got


def drain(d: Discovery, now: float, quiet: float = 0.05) -> list[Beacon]:
    """Read ``d`` until nothing arrives for ``quiet`` seconds."""
    got: list[Beacon] = []
    while wait_readable(d.fileno(), quiet):
        got.extend(d.on_readable(now))
    return got


def test_two_peers_find_each_other_within_one_round_trip(
    make_discovery: MakeDiscovery,
) -> None:
    a = make_discovery()
    a.set_beacon(BEACON_A)
    a.tick(0.0)  # a's first beacon: nobody else is listening yet
    drain(a, 0.0)
    b = make_discovery()
    b.set_beacon(BEACON_B)
    start = time.perf_counter()
    b.tick(0.0)
    # The fake clock stays at 0.01: a's next regular beacon is not due before 1.0, so b can
    # only learn of a from a's immediate answer to b's first beacon.
    assert [x.peer_id for x in read_until(a, 0.01, B)] == [B]
    assert [x.peer_id for x in read_until(b, 0.01, A)] == [A]
    elapsed_ms = (time.perf_counter() - start) * 1000
    print(f"discovery latency on loopback: {elapsed_ms:.2f} ms")
    assert elapsed_ms < 300
    seen = b.peers(0.01)[A]
    assert (seen.beacon, seen.host, seen.first_seen) == (BEACON_A, "127.0.0.1", 0.01)
    assert a.peers(0.01)[B].beacon == BEACON_B


def test_own_beacons_are_ignored(make_discovery: MakeDiscovery) -> None:
    a = make_discovery()
    a.set_beacon(BEACON_A)
    a.tick(0.0)
    assert wait_readable(a.fileno())
    assert drain(a, 0.0) == []
    assert a.stats["own"] >= 1
    assert a.peers(0.0) == {}


def test_a_known_peer_is_answered_once_not_at_every_beacon(make_discovery: MakeDiscovery) -> None:
    a, b = make_discovery(), make_discovery()
    a.set_beacon(BEACON_A)
    b.set_beacon(BEACON_B)
    a.tick(0.0)
    read_until(b, 0.0, A)
    drain(a, 0.0)
    sent = b.stats["sent"]
    a.tick(1.0)  # a's second beacon: b knows a already
    read_until(b, 1.0, A)
    assert b.stats["sent"] == sent


def test_peer_expires_after_expiry_seconds_unheard(make_discovery: MakeDiscovery) -> None:
    a, b = make_discovery(), make_discovery(expiry=3.5)
    a.set_beacon(BEACON_A)
    a.tick(10.0)
    read_until(b, 10.0, A)
    assert A in b.peers(13.5)
    assert A not in b.peers(13.51)


def test_leaving_beacon_removes_the_peer_at_once(make_discovery: MakeDiscovery) -> None:
    a, b = make_discovery(), make_discovery()
    a.set_beacon(BEACON_A)
    a.tick(0.0)
    read_until(b, 0.0, A)
    assert A in b.peers(0.0)
    a.close()
    got = read_until(b, 0.1, A)
    assert [x.is_leaving for x in got] == [True]
    assert A not in b.peers(0.1)


def test_a_peer_back_on_a_new_port_is_answered_and_updated(make_discovery: MakeDiscovery) -> None:
    a, b = make_discovery(), make_discovery()
    a.set_beacon(BEACON_A)
    b.set_beacon(BEACON_B)
    b.tick(0.0)
    a.tick(0.0)
    read_until(b, 0.0, A)
    drain(a, 0.0)
    drain(b, 0.0)
    sent = b.stats["sent"]
    moved = Beacon(A, 41001, "K7QXM", TableState.OPEN, 1, 4, "Ana", 5)
    a.set_beacon(moved)
    a.tick(0.2)  # changed beacon: sent at once, not at the next interval
    read_until(b, 0.2, A)
    assert b.peers(0.2)[A].beacon.port == 41001
    assert b.stats["sent"] == sent + 1  # answered as a new peer


def test_garbage_datagrams_are_counted_not_raised(
    make_discovery: MakeDiscovery, beacon_port: int
) -> None:
    b = make_discovery()
    b.set_beacon(BEACON_B)
    junk = [
        b"junk",
        encode(BEACON_A)[:30],
        encode(BEACON_A) + b"\x00",  # our version, one byte too long
        random.Random(3).randbytes(1500),
        b"",
    ]
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as raw:
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        for data in [*junk, encode(BEACON_A)]:
            raw.sendto(data, (LOOPBACK_BROADCAST, beacon_port))
    got = read_until(b, 0.0, A)
    assert [x.peer_id for x in got] == [A]
    assert b.stats["garbage"] == len(junk)


def _version_1(beacon: Beacon) -> bytes:
    """``beacon`` as a peer of the old wire sends it: the same head, version 1, then the
    name's length and the name (protocol.md §5.3 "Other versions")."""
    data = encode(beacon)
    name = beacon.name.encode()
    return data[:4] + b"\x01" + data[5:47] + bytes([len(name)]) + name


def test_a_beacon_of_another_version_is_no_peer_but_its_table_is_kept_apart(
    make_discovery: MakeDiscovery, beacon_port: int, caplog: pytest.LogCaptureFixture
) -> None:
    b = make_discovery()
    b.set_beacon(BEACON_B)
    b.tick(0.0)
    drain(b, 0.0)
    old_host = dataclasses.replace(BEACON_A, peer_id=b"\xdd" * 32, name="Vieja")
    later = encode(BEACON_A)[:4] + b"\x05" + encode(BEACON_A)[5:47] + b"version 5's own"
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as raw:
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        for data in (_version_1(old_host), _version_1(old_host), later,
                     _version_1(Beacon(b"\xcc" * 32, 43000, name="not hosting")),
                     encode(BEACON_A)):
            raw.sendto(data, (LOOPBACK_BROADCAST, beacon_port))
    with caplog.at_level("WARNING", logger="dudo_p2p.net.discovery"):
        got = read_until(b, 1.0, A)
        drain(b, 1.0)
    assert [x.peer_id for x in got] == [A]  # only the beacon of our version is a peer
    assert b.stats["other_version"] == 4 and b.stats["garbage"] == 0
    assert b.stats["sent"] == 2  # we answered the new peer of our version, nobody else
    # the tables of another version, by their heads (a version-1 name is known, not a 5's);
    # the version-1 peer that hosts nothing is no table
    assert {(o.table.version, o.table.peer_id[:1], o.table.table_code, o.table.seats_taken,
             o.table.seats_total, o.table.name, o.host) for o in b.other_tables(1.0)} == {
        (1, b"\xdd", "K7QXM", 1, 4, "Vieja", "127.0.0.1"),
        (5, b"\xaa", "K7QXM", 1, 4, "", "127.0.0.1")}
    told = [r.getMessage() for r in caplog.records if "protocol version" in r.getMessage()]
    assert len(told) == 2, told  # once per sender and version (the same address here)
    assert b.other_tables(1.0 + b.expiry + 0.1) == []  # and it expires as a peer does


def test_tick_sends_first_at_once_then_every_interval(make_discovery: MakeDiscovery) -> None:
    a = make_discovery(interval=1.0)
    a.tick(0.0)
    assert a.stats["sent"] == 0  # nothing to announce yet
    a.set_beacon(BEACON_A)
    assert a.next_deadline() is None
    a.tick(5.0)
    assert a.stats["sent"] == 1
    assert a.next_deadline() == 6.0
    a.tick(5.9)
    assert a.stats["sent"] == 1
    a.tick(6.0)
    assert a.stats["sent"] == 2
    a.set_beacon(BEACON_A)  # unchanged: no extra beacon
    a.tick(6.1)
    assert a.stats["sent"] == 2


def test_beacons_go_only_to_the_given_addresses(make_discovery: MakeDiscovery) -> None:
    a = make_discovery(broadcast_addresses=[LOOPBACK_BROADCAST, LOOPBACK_BROADCAST])
    assert a.broadcast_addresses == [LOOPBACK_BROADCAST]
    a.set_beacon(BEACON_A)
    a.tick(0.0)
    assert a.stats["sent"] == 1


def test_bad_arguments_are_refused(make_discovery: MakeDiscovery) -> None:
    with pytest.raises(InvalidValue):
        make_discovery(broadcast_addresses=["not-an-ip"])
    with pytest.raises(InvalidValue):
        make_discovery(interval=1.0, expiry=0.5)
    with pytest.raises(InvalidValue):
        Discovery(0)
    with pytest.raises(InvalidValue):
        make_discovery().set_beacon(BEACON_A.leaving())


def test_default_broadcast_addresses_end_with_loopback() -> None:
    addresses = default_broadcast_addresses()  # reads interfaces, sends nothing
    assert addresses[-1] == LOOPBACK_BROADCAST
    assert addresses.count(LOOPBACK_BROADCAST) == 1
    assert all(ipaddress.IPv4Address(a) for a in addresses)
