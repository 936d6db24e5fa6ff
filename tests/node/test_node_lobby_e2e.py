"""The lobby's rules between real processes on loopback: a full table refuses the joiners it
cannot seat (signed, within 2 s, exit 5), an evil twin with the same table code captures
nobody who chose the host by fingerprint, and a host frees the seat of a joiner that never
signs the genesis."""

from __future__ import annotations

import json
import subprocess
import sys
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

from dudo_p2p.cli.exits import Exit
from dudo_p2p.consensus.lobby import SEAT_HOLD, SIGN_WITHIN
from dudo_p2p.crypto.identity import Identity, fingerprint
from dudo_p2p.net.discovery import Discovery
from dudo_p2p.net.links import Links
from dudo_p2p.node import keystore
from dudo_p2p.protocol.envelope import peek_kind, seal_envelope
from dudo_p2p.protocol.kinds import Hello

pytestmark = pytest.mark.e2e

CODE = "KQ7XM"
REFUSED_WITHIN = 2.0  # issue 13: "refused within 2 s"


def tables_beaconing(codes: set[str], beacon_port: int, timeout: float) -> bool:
    """Listen on the beacon port until a table of every code in ``codes`` has beaconed, or
    ``timeout`` s."""
    listener = Discovery(beacon_port, broadcast_addresses=[LOOPBACK_BROADCAST])
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            now = time.monotonic()
            listener.on_readable(now)
            if codes <= {seen.beacon.table_code for seen in listener.peers(now).values()}:
                return True
            zmq.select([listener.fileno()], [], [], 0.2)
        return False
    finally:
        listener.close()


def host_fingerprint(work: Path, name: str) -> str:
    """A host's fingerprint, from its identity file (written before it beacons)."""
    path = work / f"{name}.id"
    deadline = time.monotonic() + 10
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.1)
    return fingerprint(keystore.load_or_create(path).public_key)


def test_eight_bots_for_six_seats_five_are_seated_and_three_refused_within_two_seconds(
    tmp_path: Path, peers: list[Peer], beacon_port: int
) -> None:
    net = loopback_net(beacon_port)
    peers.append(Peer("host", host_args("host", tmp_path, 6, "--table", CODE, *net)))
    assert peers[0].wait_line("host: table", 20), peers[0].explain()
    bots = [Peer(f"b{i}", bot_args(f"b{i}", tmp_path, "--discover", "--table", CODE, "-v",
                                   *net)) for i in range(8)]
    peers.extend(bots)
    codes = {bot.name: bot.finish() for bot in bots}
    assert peers[0].finish() == 0, peers[0].explain()
    seated = [b for b in bots if codes[b.name] == Exit.OK]
    refused = [b for b in bots if codes[b.name] == Exit.REFUSED]
    assert len(seated) == 5 and len(refused) == 3, "\n".join(b.explain() for b in bots)
    hashes = {p.summary()["log_hash"] for p in [peers[0], *seated]}
    assert len(hashes) == 1
    for bot in refused:
        said_hello = bot.wait_line("saying hello to", 0)
        told = bot.wait_line(": refused: the ", 0)
        assert said_hello is not None and told is not None, bot.explain()
        last = [line for line in bot.lines if "refused: " in line][-1]
        assert last.endswith(("the table is full", "the game has started")), bot.explain()
        assert bot.summary()["refused"] in ("full", "started")
        # Lines are timed as the test reads them (both after the fact here): the bound is
        # checked on the bot's own log timestamps instead.
        delay = log_seconds(bot, " refused us: ") - log_seconds(bot, "saying hello to")
        print(f"\n{bot.name}: refused {delay:.3f} s after its first hello")
        assert delay <= REFUSED_WITHIN, bot.explain()


def log_seconds(peer: Peer, text: str) -> float:
    """The ``logging`` timestamp (seconds of the day) of the first line holding ``text``."""
    line = next(line for line in peer.lines if text in line)
    clock = line.split()[1]  # "2026-12-01 21:20:51,767 INFO ..."
    hours, minutes, rest = clock.split(":")
    seconds, millis = rest.split(",")
    return int(hours) * 3600 + int(minutes) * 60 + int(seconds) + int(millis) / 1000


def test_an_evil_twin_with_the_same_code_captures_nobody_who_chose_the_host(
    tmp_path: Path, peers: list[Peer], beacon_port: int
) -> None:
    """Two hosts show table KQ7XM, both named "host". ``tables --json`` lists two tables,
    each with its fingerprint; a bot given ``KQ7XM@FINGERPRINT`` sits at the one it chose
    (the twin's welcome, if it comes first, is refused as the wrong host)."""
    net = loopback_net(beacon_port)
    twin_dir = tmp_path / "twin"
    twin_dir.mkdir()
    peers.append(Peer("host", host_args("host", tmp_path, 2, "--table", CODE, *net)))
    peers.append(Peer("twin", host_args("host", twin_dir, 2, "--table", CODE, *net,
                                        "--timeout", "30")))
    honest_fp = host_fingerprint(tmp_path, "host")
    twin_fp = host_fingerprint(twin_dir, "host")
    for peer in peers:
        assert peer.wait_line("host: table", 20), peer.explain()
    listing = subprocess.run(
        [sys.executable, "-m", "dudo_p2p", "tables", "--json", "--wait", "2.5", *net],
        capture_output=True, text=True, timeout=30, check=True,
    )
    rows = [r for r in json.loads(listing.stdout.splitlines()[-1]) if r["code"] == CODE]
    assert sorted(r["fingerprint"] for r in rows) == sorted([honest_fp, twin_fp])
    assert {r["host"] for r in rows} == {"host"}
    bot = Peer("b1", bot_args("b1", tmp_path, "--discover", "--table", f"{CODE}@{honest_fp}",
                              "-v", *net))
    peers.append(bot)
    assert bot.finish() == 0, bot.explain()
    assert peers[0].finish() == 0, peers[0].explain()
    assert bot.summary()["log_hash"] == peers[0].summary()["log_hash"]
    assert any(f"by {honest_fp}" in line for line in bot.lines), bot.explain()
    peers[1].stop()


def test_the_host_frees_the_seat_of_a_joiner_that_never_signs_the_genesis(
    tmp_path: Path, peers: list[Peer], beacon_port: int
) -> None:
    """A joiner (the test process) says hello, takes the genesis and never signs it, as a
    joiner captured by an impostor would. The host frees its seat about SIGN_WITHIN later,
    is open again, and seats a real bot; the game is played to the end."""
    port = free_tcp_port()
    net = loopback_net(beacon_port)
    peers.append(Peer("host", host_args("host", tmp_path, 2, "--table", CODE, "--port",
                                        str(port), *net)))
    assert peers[0].wait_line("host: table", 20), peers[0].explain()
    ghost = Identity.generate()
    ctx: zmq.Context[object] = zmq.Context()
    links = Links(ctx, ghost.public_key, bind_host=LOOPBACK, port=0)
    try:
        hello = seal_envelope(ghost, bytes(16), 0, 0, Hello(CODE, "ghost", ghost.x25519_public,
                                                              LOOPBACK, links.port)).to_bytes()
        links.connect(b"host", LOOPBACK, port)
        got_genesis = None
        deadline = time.monotonic() + 20
        while got_genesis is None and time.monotonic() < deadline:
            links.send(b"host", hello)
            time.sleep(0.1)
            for incoming in links.recv_incoming():
                if peek_kind(incoming.frame) == "genesis":
                    got_genesis = time.monotonic()
        assert got_genesis is not None, peers[0].explain()
        freed = peers[0].wait_line("freed the seat of ghost", SIGN_WITHIN + 5)
        assert freed is not None, peers[0].explain()
        assert SIGN_WITHIN - 0.5 <= freed - got_genesis <= SIGN_WITHIN + 2.0
    finally:
        links.close()
        ctx.term()
    bot = Peer("b1", bot_args("b1", tmp_path, "--discover", "--table", CODE, *net))
    peers.append(bot)
    assert bot.finish(GAME_TIMEOUT) == 0, bot.explain()
    assert peers[0].finish() == 0, peers[0].explain()
    assert bot.summary()["log_hash"] == peers[0].summary()["log_hash"]


def test_a_join_by_address_answered_by_another_key_is_refused_and_its_seat_freed(
    tmp_path: Path, peers: list[Peer], beacon_port: int
) -> None:
    """``bot --join HOST:PORT --host-key K`` where another host answers: the bot exits 5
    naming both keys; that host had seated it on its hello and frees the seat ~4 s later."""
    port = free_tcp_port()
    net = loopback_net(beacon_port)
    peers.append(Peer("host", host_args("host", tmp_path, 3, "--table", CODE, "--port",
                                        str(port), *net, "--timeout", "20")))
    assert peers[0].wait_line("host: table", 20), peers[0].explain()
    host_fp = host_fingerprint(tmp_path, "host")
    chosen = fingerprint(Identity.generate().public_key)
    bot = Peer("b1", bot_args("b1", tmp_path, "--join", f"{LOOPBACK}:{port}",
                              "--host-key", chosen))
    peers.append(bot)
    assert bot.finish(20) == Exit.REFUSED, bot.explain()
    assert any(f"it is {host_fp}, we chose {chosen}" in line for line in bot.lines), bot.explain()
    assert bot.summary()["refused"] == "wrong_host"
    assert peers[0].wait_line("freed the seat of b1", SEAT_HOLD + 5), peers[0].explain()


def test_discover_without_a_code_moves_on_to_the_next_open_table_then_says_no_open_table(
    tmp_path: Path, peers: list[Peer], beacon_port: int
) -> None:
    """Two open 2-seat tables and three ``bot --discover`` (no code): each bot tries one table
    at a time and moves on when refused, so both tables fill (one bot each, both games
    finish) and the third bot, refused by both, exits 5 "no open table"."""
    net = loopback_net(beacon_port)
    other = tmp_path / "other"
    other.mkdir()
    # Both tables beacon before any bot starts: a bot refused by the one table waits only
    # LOOK_AGAIN (1.5 s) for another, so a second table still starting then is never seen
    # (2 runs in 7 at load 30 when the bots came first). Five dice, so both games are still
    # on when the slowest bot is up (three-dice games lasted half a second: a bot starting
    # after both had ended found no table at all, once in CI).
    five = ("--rule", "starting_dice=5")
    hosts = [Peer("host", host_args("host", tmp_path, 2, "--table", CODE, *five, *net)),
             Peer("other", host_args("other", other, 2, "--table", "ZZ7XM", *five, *net))]
    peers.extend(hosts)
    assert tables_beaconing({CODE, "ZZ7XM"}, beacon_port, 60), \
        "\n".join(h.explain() for h in hosts)
    bots = [Peer(f"b{i}", bot_args(f"b{i}", tmp_path, "--discover", "-v", *net))
            for i in range(3)]
    peers.extend(bots)
    codes = {bot.name: bot.finish() for bot in bots}
    seated = [b for b in bots if codes[b.name] == Exit.OK]
    refused = [b for b in bots if codes[b.name] == Exit.REFUSED]
    assert len(seated) == 2 and len(refused) == 1, "\n".join(b.explain() for b in bots)
    assert refused[0].summary()["refused"] == "no_open_table", refused[0].explain()
    # It was refused at least once (a table it tried); a table its beacons already show full
    # may be skipped without a hello, so one or two refusals depending on timing (seen: 1).
    assert sum(" refused us: " in line for line in refused[0].lines) >= 1, refused[0].explain()
    for host in hosts:
        assert host.finish() == 0, host.explain()
    hashes = {h.summary()["log_hash"] for h in hosts}
    assert {b.summary()["log_hash"] for b in seated} == hashes and len(hashes) == 2
