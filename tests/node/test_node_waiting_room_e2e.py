"""The waiting room between real processes on loopback (issue 15): a late joiner at a table
whose game runs is refused ``started`` at once, by address and by code; a joiner stopped
while it waits gives its seat back at once (a signed ``leave``); a joiner whose host closes
the table is told, and one whose host dies gives it up after its silence."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
from node_helpers import LOOPBACK, Peer, bot_args, free_tcp_port, host_args, loopback_net
from test_node_lobby_e2e import REFUSED_WITHIN, log_seconds

from dudo_p2p.cli.exits import Exit
from dudo_p2p.consensus.lobby import HOST_SILENCE

pytestmark = pytest.mark.e2e

CODE = "KQ7XM"
LATE_EXIT = 60.0  # bound on a refused bot's whole run: start, hello, refusal, exit
START_S = 60.0  # bound on processes starting (python and its imports) and seating, at load
LEFT_WITHIN = 2.0  # issue 15: a joiner who leaves is off the host's roster within 2 s


def test_a_late_joiner_at_a_playing_table_is_refused_started_at_once(
    tmp_path: Path, peers: list[Peer], beacon_port: int
) -> None:
    net = loopback_net(beacon_port)
    port = free_tcp_port()
    host = Peer("host", [a for a in host_args("host", tmp_path, 2, "--table", CODE, "--port",
                                              str(port), "--turn-timer", "0", "-v", *net)
                         if a != "--headless"], stdin=subprocess.PIPE)
    peers.append(host)
    assert host.wait_line("host: table", START_S), host.explain()
    first = Peer("b1", bot_args("b1", tmp_path, "--discover", "--table", CODE, *net))
    peers.append(first)
    assert host.wait_line("game started", START_S), host.explain() + "\n" + first.explain()
    late = [Peer("b2", bot_args("b2", tmp_path, "--join", f"{LOOPBACK}:{port}", "-v", *net)),
            Peer("b3", bot_args("b3", tmp_path, "--discover", "--table", CODE, "-v", *net))]
    peers.extend(late)
    for bot in late:
        assert bot.finish(LATE_EXIT) == Exit.REFUSED, bot.explain()
        assert bot.summary()["refused"] == "started", bot.explain()
        assert any(line.endswith("refused: the game has started") for line in bot.lines), \
            bot.explain()
        delay = log_seconds(bot, " refused us: ") - log_seconds(bot, "saying hello to")
        print(f"\n{bot.name}: refused 'started' {delay:.3f} s after its first hello")
        assert delay <= REFUSED_WITHIN, bot.explain()
    assert host.proc.poll() is None and first.proc.poll() is None  # the game still runs


def one_waiting(tmp_path: Path, peers: list[Peer], beacon_port: int
                ) -> tuple[Peer, Peer, list[str], int]:
    """A 3-seat host and one bot (b1) welcomed and waiting for the table to fill; with the
    loopback net arguments and the host's link port."""
    net = loopback_net(beacon_port)
    port = free_tcp_port()
    host = Peer("host", host_args("host", tmp_path, 3, "--table", CODE, "--port", str(port),
                                  "-v", *net))
    peers.append(host)
    assert host.wait_line("host: table", START_S), host.explain()
    bot = Peer("b1", bot_args("b1", tmp_path, "--join", f"{LOOPBACK}:{port}", "-v", *net))
    peers.append(bot)
    assert bot.wait_line("welcomed at table", START_S), bot.explain()
    return host, bot, net, port


def test_a_joiner_stopped_in_the_waiting_room_frees_its_seat_at_once(
    tmp_path: Path, peers: list[Peer], beacon_port: int
) -> None:
    """A bot stopped (SIGTERM, as a window's Cancel closes its session) while it waits for
    the table to fill sends the host a signed ``leave``: the host frees the seat within 2 s
    (not the 4 s seat hold), and two other bots then fill the table and play it out."""
    host, leaver, net, port = one_waiting(tmp_path, peers, beacon_port)
    assert host.wait_line("seat 1: b1", 5), host.explain()
    stopped = time.monotonic()
    leaver.proc.terminate()
    freed = host.wait_line("freed the seat of b1", LEFT_WITHIN + 5)
    assert freed is not None, host.explain()
    print(f"\nthe host freed b1's seat {freed - stopped:.3f} s after SIGTERM")
    assert freed - stopped <= LEFT_WITHIN, host.explain()
    assert any("freed the seat of b1" in line and "left the table" in line
               for line in host.lines), host.explain()
    leaver.finish(LATE_EXIT)
    assert leaver.wait_line("leaving table", 0), leaver.explain()
    bots = [Peer(f"b{i}", bot_args(f"b{i}", tmp_path, "--join", f"{LOOPBACK}:{port}", *net))
            for i in (2, 3)]
    peers.extend(bots)
    for bot in bots:
        assert bot.finish() == Exit.OK, bot.explain()
    assert host.finish() == Exit.OK, host.explain()
    hashes = {p.summary()["log_hash"] for p in [host, *bots]}
    assert len(hashes) == 1


def test_a_host_stopped_in_the_waiting_room_tells_its_joiner_the_table_closed(
    tmp_path: Path, peers: list[Peer], beacon_port: int
) -> None:
    """The host (SIGTERM, as its window's Cancel) closes the table before it fills: the
    waiting bot is told, signed, and exits 5 at once instead of waiting for its timeout."""
    host, bot, _, _ = one_waiting(tmp_path, peers, beacon_port)
    stopped = time.monotonic()
    host.proc.terminate()
    told = bot.wait_line("refused: the host closed the table", LEFT_WITHIN + 5)
    assert told is not None, bot.explain() + "\n" + host.explain()
    print(f"\nb1 was told the table closed {told - stopped:.3f} s after the host's SIGTERM")
    assert told - stopped <= LEFT_WITHIN
    assert bot.finish(LATE_EXIT) == Exit.REFUSED, bot.explain()
    assert bot.summary()["refused"] == "closed"


def test_a_host_killed_in_the_waiting_room_is_given_up_after_its_silence(
    tmp_path: Path, peers: list[Peer], beacon_port: int
) -> None:
    """The host dies (kill -9: no leave, no leaving beacon) while a bot waits: its stays go
    unanswered, and after HOST_SILENCE the bot gives the host up and exits 5 ("gone")
    instead of waiting for its timeout."""
    host, bot, _, _ = one_waiting(tmp_path, peers, beacon_port)
    host.kill9()
    killed = time.monotonic()
    gone = bot.wait_line("refused: the host left or stopped answering", HOST_SILENCE + 10)
    assert gone is not None, bot.explain()
    print(f"\nb1 gave up its killed host {gone - killed:.3f} s after the kill")
    assert HOST_SILENCE - 1.5 <= gone - killed <= HOST_SILENCE + 5
    assert bot.finish(LATE_EXIT) == Exit.REFUSED, bot.explain()
    assert bot.summary()["refused"] == "gone"
