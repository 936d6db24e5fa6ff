"""The waiting room between real processes on loopback (issue 15): a late joiner at a table
whose game runs is refused ``started`` at once, by address and by code."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from node_helpers import LOOPBACK, Peer, bot_args, free_tcp_port, host_args, loopback_net
from test_node_lobby_e2e import REFUSED_WITHIN, log_seconds

from dudo_p2p.cli.exits import Exit

pytestmark = pytest.mark.e2e

CODE = "KQ7XM"
LATE_EXIT = 30.0  # bound on a refused bot's whole run: start, hello, refusal, exit


def test_a_late_joiner_at_a_playing_table_is_refused_started_at_once(
    tmp_path: Path, peers: list[Peer], beacon_port: int
) -> None:
    net = loopback_net(beacon_port)
    port = free_tcp_port()
    host = Peer("host", [a for a in host_args("host", tmp_path, 2, "--table", CODE, "--port",
                                              str(port), "--turn-timer", "0", "-v", *net)
                         if a != "--headless"], stdin=subprocess.PIPE)
    peers.append(host)
    assert host.wait_line("host: table", 20), host.explain()
    first = Peer("b1", bot_args("b1", tmp_path, "--discover", "--table", CODE, *net))
    peers.append(first)
    assert host.wait_line("game started", 30), host.explain()
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
