"""What a player sees when a peer goes away, with real processes on loopback (protocol.md
§4.6): a paused bot is removed and told within 5 s of waking (exit 3), or, with a reconnect
grace, comes back into its seat; a host killed and restarted from its automatic journal
within the grace is back in its seat; a two-seat game whose other seat dies is abandoned
(exit 6), and resumes when that seat restarts within the grace. Waits are bounded."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from consensus.fakenet import identities, make_genesis
from node_helpers import LOOPBACK, Peer, bot_args, free_tcp_port, host_args, loopback_net

from dudo_p2p.cli.exits import Exit
from dudo_p2p.consensus.genesis import seating_from
from dudo_p2p.consensus.lobby import Seated
from dudo_p2p.node import journal as jr
from dudo_p2p.rules import RuleSet

e2e = pytest.mark.e2e

TOLD_WITHIN = 5.0
# a process's start-up, or a timeout the peer's own loop reports, on a loaded machine (CI runs
# the suite on 2 cores; the load here was 20-35): a bound, not a figure (scripts/bench has those)
UP_WITHIN = 30.0
# 5 dice, not FAST's 3, wherever a seat is paused or killed after "round 1 resolved": a deal of
# quick bots takes tens of ms, and a test process late by a few of them (CI at load ~2, 6a44138)
# found the seat it stops already out by its dice (a 3-dice seat that lost round 1 is out after
# two more), or the game over: the scenario never happened.
STILL_SEATED = ("--rule", "starting_dice=5")


def table(tmp_path: Path, peers: list[Peer], players: int, *host_extra: str) -> list[Peer]:
    """A headless host and ``players - 1`` bots joined by address, no --journal (each game
    journals itself into the data directory, which the suite points at a temporary one)."""
    port = free_tcp_port()
    peers.append(Peer("host", host_args("host", tmp_path, players, "--port", str(port),
                                        *loopback_net(free_tcp_port()), *host_extra)))
    for i in range(1, players):
        peers.append(Peer(f"b{i}", bot_args(f"b{i}", tmp_path, "--join", f"{LOOPBACK}:{port}",
                                            "--bind", LOOPBACK)))
    return list(peers)


def resumed_host(tmp_path: Path, peers: list[Peer], *extra: str) -> Peer:
    """The killed host started again with ``--resume`` (its own journal, its identity)."""
    back = Peer("host", ["host", "--resume", "--headless", "--name", "host",
                         "--identity", str(tmp_path / "host.id"), "--json", "--level", "easy",
                         "--timeout", "90", *extra, *loopback_net(free_tcp_port())])
    peers.append(back)
    return back


def exit_within(peer: Peer, seconds: float) -> int | None:
    try:
        return peer.proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        return None


def finish(peers: list[Peer], code: Exit = Exit.OK) -> list[dict[str, Any]]:
    for peer in peers:
        assert peer.finish() == code, peer.explain()
    return [peer.summary() for peer in peers]


def one_hash(summaries: list[dict[str, Any]]) -> None:
    assert len({s["log_hash"] for s in summaries}) == 1, summaries
    assert all(s["outcome"] == "ok" for s in summaries)


def pause(peer: Peer, seconds: float) -> float:
    """SIGSTOP ``peer`` for ``seconds`` (a laptop lid closed); the time it woke up."""
    os.kill(peer.proc.pid, signal.SIGSTOP)
    time.sleep(seconds)
    os.kill(peer.proc.pid, signal.SIGCONT)
    return time.monotonic()


@e2e
def test_a_bot_paused_8s_is_removed_and_exits_removed_within_5s_of_waking(
    tmp_path: Path, peers: list[Peer]
) -> None:
    host, b1, b2, b3 = table(tmp_path, peers, 4, *STILL_SEATED)
    assert host.wait_line("round 1 resolved", 60), host.explain()
    woke = pause(b3, 8.0)
    code = exit_within(b3, TOLD_WITHIN)
    assert code == Exit.REMOVED, f"b3 exited {code} {time.monotonic() - woke:.1f} s after " \
                                 f"waking\n{b3.explain()}\n{host.explain()}"
    b3.finish()
    assert b3.summary()["outcome"] == "removed"
    assert any("the table removed us" in line for line in b3.lines), b3.explain()
    summaries = finish([host, b1, b2])
    one_hash(summaries)
    assert summaries[0]["winner"] != "b3"


@e2e
def test_a_bot_paused_8s_within_a_30s_grace_keeps_its_seat(
    tmp_path: Path, peers: list[Peer]
) -> None:
    host, *bots = table(tmp_path, peers, 4, "--grace", "30", *STILL_SEATED)
    assert host.wait_line("round 1 resolved", 60), host.explain()
    pause(bots[2], 8.0)
    assert host.wait_line("b3: disconnected", 5), host.explain()
    one_hash(finish([host, *bots]))
    assert not any(" left (" in line for p in (host, *bots) for line in p.lines), host.explain()


@e2e
def test_the_host_killed_and_restarted_from_its_journal_within_the_grace_is_back(
    tmp_path: Path, peers: list[Peer]
) -> None:
    # 3 seats, not --players' default 4: the resumed host must say its journal's table
    host, *bots = table(tmp_path, peers, 3, "--grace", "30", *STILL_SEATED)
    assert host.wait_line("round 1 resolved", 60), host.explain()
    host.kill9()
    back = resumed_host(tmp_path, peers)
    one_hash(finish([back, *bots]))
    assert any(", 3 seats, link port" in line for line in back.lines), back.explain()
    assert not any(" left (" in line for p in (back, *bots) for line in p.lines), back.explain()


@e2e
def test_a_two_seat_game_whose_other_seat_dies_is_abandoned_not_won(
    tmp_path: Path, peers: list[Peer]
) -> None:
    # 5 dice, not FAST's 3: the kill after round 1 must land before the game's end, and two
    # quick bots played the two rounds a 3-dice game may have left before a test process at
    # load 20 reacted (seen once)
    host, b1 = table(tmp_path, peers, 2, *STILL_SEATED)
    assert host.wait_line("round 1 resolved", 60), host.explain()
    b1.kill9()
    # the claim comes after the two-seat silence, 15 s (presence.TWO_SEAT_SILENCE), not 4.5
    assert host.finish(timeout=60) == Exit.ABANDONED, host.explain()
    assert host.summary()["outcome"] == "abandoned" and host.summary()["winner"] is None
    assert any("game abandoned" in line for line in host.lines), host.explain()


@e2e
def test_a_two_seat_kill_9_and_restart_within_the_grace_resumes(
    tmp_path: Path, peers: list[Peer]
) -> None:
    host, b1 = table(tmp_path, peers, 2, "--grace", "30", *STILL_SEATED)
    assert host.wait_line("round 1 resolved", 60), host.explain()
    b1.kill9()
    # the host shows b1 disconnected once the silence timeout (4.5 s) has run out; waited for
    # as a condition (it was a 6 s sleep and a 1 s wait: at load 30 the host's loop ran late)
    assert host.wait_line("b1: disconnected", UP_WITHIN), host.explain()
    back = Peer("b1", bot_args("b1", tmp_path, "--resume", *loopback_net(free_tcp_port())))
    peers.append(back)
    one_hash(finish([host, back]))


def test_resume_finds_our_own_journal_not_another_local_peers_of_the_same_game(
    tmp_path: Path,
) -> None:
    """Every seat of a game journals the same seating; ``--resume`` without ``--journal``
    must pick ours (it picked the newest of the game: a host restarted from a bot's journal
    revealed the bot's key and was caught for a bad reveal)."""
    ids = identities(3, seed=1)
    genesis, sigs = make_genesis(ids, RuleSet())
    seated = Seated(seating_from(genesis, sigs), genesis, tuple(sigs),
                    tuple(("127.0.0.1", 4000 + i) for i in range(3)))
    for age, ident in enumerate((ids[0], ids[2], ids[1])):  # the host's the oldest
        path = tmp_path / jr.journal_name(seated, ident)
        journal = jr.Journal(path, truncate=True)
        journal.append(jr.seating_record(seated))
        journal.close()
        os.utime(path, (1_000_000 + age, 1_000_000 + age))
    for ident in ids:
        found = jr.find_resumable(tmp_path, ident)
        assert found == tmp_path / jr.journal_name(seated, ident)


@e2e
def test_a_host_restarted_after_its_removal_is_told_and_exits_removed(
    tmp_path: Path, peers: list[Peer]
) -> None:
    # 5 dice, not 3: the bots' game must outlast the restarted host's start-up (it is told
    # by the seats still playing, or lingering TELL_LINGER after the end); at load 30 a 3-dice
    # game was over, and the bots gone, before the new process had its sockets up
    host, *bots = table(tmp_path, peers, 4, *STILL_SEATED)
    assert host.wait_line("round 1 resolved", 60), host.explain()
    host.kill9()
    assert bots[0].wait_line("host left", 30), bots[0].explain()
    back = resumed_host(tmp_path, peers, "-v")
    # counted from its sockets being up ("host: table ..."), not from its start: Python's
    # start-up alone took several seconds at load 30, and a told host had printed "the
    # table removed us" but not exited 5 s after its start. Not told, it still runs at the
    # bound or exits TABLE_GONE (nobody heard): either fails the check
    assert back.wait_line("host: table", UP_WITHIN), back.explain()
    code = exit_within(back, UP_WITHIN)
    assert code == Exit.REMOVED, f"exit {code}\n{back.explain()}\n{bots[0].explain()}"
    finish(bots)
