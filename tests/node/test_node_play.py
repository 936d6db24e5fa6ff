"""``dudo-p2p play`` over the real stack: the table against bot peers that are processes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pygame
from node_helpers import LOOPBACK_BROADCAST, Peer, host_args, loopback_net

from dudo_p2p.cli.play import LanDirectory
from dudo_p2p.net.beacon import Beacon, TableState, encode
from dudo_p2p.rules import RuleSet
from dudo_p2p.ui.request import TableListing


def test_play_screenshot_against_real_bot_peers(tmp_path: Path, beacon_port: int) -> None:
    """The window (SDL dummy) hosts a table on loopback, 2 bot peer processes join, the first
    bid stands, and the picture of the live table is saved."""
    shot = tmp_path / "table.png"
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    done = subprocess.run(
        [sys.executable, "-m", "dudo_p2p", "play", "--bots", "2", "--screenshot", str(shot),
         "--identity", str(tmp_path / "me"), "--lang", "en", *loopback_net(beacon_port)],
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    picture = pygame.image.load(str(shot))
    assert picture.get_size() >= (1280, 800)


def test_the_lobby_lists_a_table_hosted_on_the_lan(
    tmp_path: Path, peers: list[Peer], beacon_port: int
) -> None:
    """The lobby's directory shows an open table from its beacons (loopback broadcast only),
    with the address a player joins it at, its host, dice, variants and turn timer; a table
    of the old wire (a version-1 beacon) is listed apart, as another version."""
    peers.append(Peer("host", host_args("host", tmp_path, 3, "--table", "MESA2",
                                        "--rule", "picado=true", "--turn-timer", "45",
                                        *loopback_net(beacon_port))))
    old = Beacon(b"\x07" * 32, 40000, "ZZ8PQ", TableState.OPEN, 1, 2, "Vieja", 5)
    head = encode(old)[:47]
    old_beacon = head[:4] + b"\x01" + head[5:] + b"\x05Vieja"  # version 1's layout
    directory = LanDirectory(beacon_port, [LOOPBACK_BROADCAST])
    try:
        deadline = time.monotonic() + 20
        found: list[TableListing] = []
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as raw:
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
            while len(found) < 2 and time.monotonic() < deadline:
                raw.sendto(old_beacon, (LOOPBACK_BROADCAST, beacon_port))
                found = [t for t in directory.tables() if t.code in ("MESA2", "ZZ8PQ")]
                time.sleep(0.05)  # the directory is polled, as the lobby does once a frame
    finally:
        directory.close()
    assert len(found) == 2, (found, peers[0].explain())
    (table,) = [t for t in found if t.code == "MESA2"]
    assert (table.players, table.seats) == (1, 3)
    assert table.address.startswith("127.")
    assert table.host == "host"  # the host's name and its key, from the beacon
    assert len(table.fingerprint) == 9 and table.fingerprint[4] == "-"
    # what the beacon says of the table (host_args plays 3 dice)
    assert table.rules == RuleSet(starting_dice=3, picado=True)
    assert table.turn_timer_s == 45.0 and table.version == 2
    (other,) = [t for t in found if t.code == "ZZ8PQ"]
    assert (other.version, other.host, other.players, other.seats, other.rules) == (
        1, "Vieja", 1, 2, None)
