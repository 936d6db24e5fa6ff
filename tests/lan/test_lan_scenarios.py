"""Issue 13's "Done when": real ``host``/``bot`` processes in network namespaces joined through
the userspace lossy switch (``tests/net/lossy_switch.py``), one scenario each.

CI runs each at its small size (one game); ``--full`` runs the issue's sizes (20 games through
the lossy LAN). A scenario whose behaviour has not landed yet is ``xfail(strict=True)`` with
what is missing, so it turns red the moment the feature lands and must be un-marked.
Waits are bounded by the times the issue states (told within 5 s of waking, refused within
2 s, one hash within 30 s of a cut); ``LanTable.explain()`` is the failure message: every
process's exit code and last lines, and the switch's counters.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lan_helpers import (
    EXIT_OK,
    EXIT_REFUSED,
    EXIT_REMOVED,
    LanTable,
    exit_within,
    left_lines,
    one_hash,
    summary_or_none,
)
from node_helpers import Peer

from dudo_p2p.node import keystore

pytestmark = [pytest.mark.netns, pytest.mark.e2e]

FOUR = ["host", "b1", "b2", "b3"]
MID_GAME = 60.0  # seconds to reach "round 1 resolved"
GAME_END = 90.0  # seconds for the rest of a short game (3 or 5 dice each)
TOLD_WITHIN = 5.0  # issue 13: a removed peer learns it within 5 s of being reachable
UP_WITHIN = 30.0  # a restarted process's start-up on a loaded machine: a bound, not a figure
# 5 dice, not FAST's 3, where a seat is paused, cut off or killed after round 1: a deal of quick
# bots takes tens of ms, and a test process a few deals late (test_node_faults, 6a44138) found
# that seat already out by its dice, or the game over: the scenario never happened.
STILL_SEATED = ("--rule", "starting_dice=5")
WIFI = {"delay_ms": 80, "jitter_ms": 40, "loss": 0.08, "dup": 0.01, "reorder": 0.05}


def finish_ok(
    table: LanTable, peers: list[Peer], timeout: float = GAME_END
) -> list[dict[str, Any]]:
    """Every peer exits 0 within ``timeout``; their ``--json`` summaries."""
    deadline = time.monotonic() + timeout
    for peer in peers:
        code = peer.finish(timeout=max(0.1, deadline - time.monotonic()))
        assert code == EXIT_OK, table.explain()
    return [peer.summary() for peer in peers]


def mid_game(table: LanTable, watcher: Peer) -> None:
    assert watcher.wait_line("round 1 resolved", MID_GAME) is not None, table.explain()


# ---- (a) 4 peers through 80 +- 40 ms, 8 % loss, 1 % duplication, 5 % reordering ----------------


def test_four_peers_through_a_lossy_lan_finish_on_one_hash_and_no_live_peer_is_removed(
    table: LanTable, full: bool
) -> None:
    games = 20 if full else 1
    table.build(FOUR, seed=13).set(**WIFI)
    failures = []
    started = time.monotonic()
    for game in range(games):
        peers = table.game(4, "--timeout", "240")
        began = time.monotonic()
        codes = [peer.finish(timeout=240) for peer in peers]
        removed = [line for peer in peers for line in left_lines(peer)]
        hashes = {(s or {}).get("log_hash") for s in map(summary_or_none, peers)}
        print(f"game {game}: {time.monotonic() - began:.1f} s, exits {codes}, "
              f"{len(hashes)} hash(es), removed {removed}", flush=True)
        if codes != [EXIT_OK] * 4 or removed or len(hashes) != 1:
            failures.append(f"game {game}: exits {codes}, hashes {len(hashes)}, removed "
                            f"{removed}\n{table.explain()}")
    print(f"{games} games in {time.monotonic() - started:.1f} s; switch {table.switch.stats()}")
    assert not failures, f"{len(failures)} of {games} games:\n" + "\n\n".join(failures)


# ---- (b), (c) a peer out of reach: SIGSTOP 8 s, or its cable pulled 12 s -------------------------


def sigstop_8s(table: LanTable, name: str) -> None:
    table.pause(name)
    time.sleep(8.0)  # the scenario itself: a laptop lid closed for 8 s
    table.wake(name)


def cable_12s(table: LanTable, name: str) -> None:
    table.switch.down(name)
    time.sleep(12.0)  # the scenario itself: 12 s out of Wi-Fi range
    table.switch.up(name)


OUTAGES = [pytest.param(sigstop_8s, id="sigstop-8s"), pytest.param(cable_12s, id="cable-12s")]


@pytest.mark.parametrize("outage", OUTAGES)
def test_a_peer_out_of_reach_is_removed_the_others_finish_and_it_is_told_within_5s(
    table: LanTable, outage: Callable[[LanTable, str], None]
) -> None:
    table.build(FOUR)
    host, b1, b2, b3 = table.game(4, *STILL_SEATED)
    mid_game(table, host)
    outage(table, "b3")
    back = time.monotonic()
    code = exit_within(b3, TOLD_WITHIN)
    told = time.monotonic() - back
    print(f"b3 {'still runs' if code is None else f'exited {code}'} {told:.2f} s after it "
          "was back", flush=True)
    assert code == EXIT_REMOVED, (
        f"b3 {'still runs' if code is None else f'exited {code}'} "
        f"{told:.1f} s after it was back\n{table.explain()}")
    summaries = finish_ok(table, [host, b1, b2])
    one_hash(summaries)
    assert summaries[0]["winner"] != "b3"
    assert any("b3 left" in line for line in host.lines), table.explain()


@pytest.mark.parametrize("outage", OUTAGES)
def test_a_peer_out_of_reach_within_a_30s_grace_is_back_in_its_seat_on_one_hash(
    table: LanTable, outage: Callable[[LanTable, str], None]
) -> None:
    table.build(FOUR)
    peers = table.game(4, "--grace", "30", *STILL_SEATED)
    mid_game(table, peers[0])
    outage(table, "b3")
    one_hash(finish_ok(table, peers))
    assert not [line for p in peers for line in left_lines(p)], table.explain()


# ---- (d) kill -9 of the host and a restart from its journal ------------------------------------


def test_the_host_killed_and_restarted_within_the_grace_is_back_in_its_seat(
    table: LanTable,
) -> None:
    table.build(FOUR)
    host, b1, b2, b3 = table.game(4, "--grace", "30", *STILL_SEATED)
    mid_game(table, host)
    host.kill9()
    back = table.restart("host", *table.resume_args("host", "host"))
    summaries = finish_ok(table, [back, b1, b2, b3])
    one_hash(summaries)
    assert not [line for p in (back, b1, b2, b3) for line in left_lines(p)], table.explain()


def test_the_host_restarted_after_its_removal_is_told_and_exits_within_5s(
    table: LanTable,
) -> None:
    table.build(FOUR)
    # all bots: no grace. 5 dice, not 3: the bots' game must outlast the restarted host's
    # start-up (at load 20-30 a 3-dice game could be over, and the bots gone, first)
    host, b1, b2, b3 = table.game(4, "--rule", "starting_dice=5")
    mid_game(table, host)
    host.kill9()
    assert b1.wait_line("host left", 30) is not None, table.explain()
    back = table.restart("host", *table.resume_args("host", "host"))
    # within 5 s of being reachable: of its sockets being up ("host: table ..."), not of its
    # start (Python's start-up alone took several seconds at load 20-30)
    assert back.wait_line("host: table", UP_WITHIN) is not None, table.explain()
    code = exit_within(back, TOLD_WITHIN)
    assert code == EXIT_REMOVED, (
        f"the restarted host {'still runs' if code is None else f'exited {code}'}\n"
        f"{table.explain()}")
    one_hash(finish_ok(table, [b1, b2, b3]))


# ---- (e) a one-way partition between two of three peers ----------------------------------------


def test_a_one_way_partition_ends_on_one_hash_within_30s_and_removed_peers_are_told(
    table: LanTable,
) -> None:
    table.build(["host", "b1", "b2"])
    peers = table.game(3)
    mid_game(table, peers[0])
    table.switch.block("b1", "b2")  # b1's frames to b2 are lost; b2 -> b1 still passes
    cut = time.monotonic()
    codes = {p.name: exit_within(p, max(0.1, cut + 30 - time.monotonic())) for p in peers}
    print(f"exits {codes}, the last {time.monotonic() - cut:.1f} s after the cut", flush=True)
    assert None not in codes.values(), f"running 30 s after the cut: {codes}\n{table.explain()}"
    finished = [p for p in peers if codes[p.name] == EXIT_OK]
    assert finished, table.explain()
    for peer in finished:
        peer.finish(timeout=5)
    one_hash([p.summary() for p in finished])
    for peer in peers:
        if peer not in finished:
            assert codes[peer.name] == EXIT_REMOVED, table.explain()
            assert any(f"{peer.name} left" in line for line in finished[0].lines)


# ---- (f) 8 bots for 6 seats ---------------------------------------------------------------------


def test_eight_bots_for_six_seats_five_sit_and_three_are_refused_within_2s(
    table: LanTable,
) -> None:
    bots = [f"b{i}" for i in range(1, 9)]
    table.build(["host", *bots])
    host = table.host(6, "--table", "FQXK6")
    for name in bots:
        table.discoverer(name, "FQXK6")
    started = host.wait_line("game started", 60)
    assert started is not None, table.explain()
    # A refusal comes within 2 s; one beacon period (1 s) more for a joiner that had not yet
    # asked. The seated may have finished too by then (a 3-dice game of 6 can take 3 s): the
    # refused are told apart by their exit code, and the moment each exit was seen.
    seen: dict[str, float] = {}
    while time.monotonic() < started + 3.0:
        for name in bots:
            if name not in seen and table.peers[name].proc.poll() is not None:
                seen[name] = time.monotonic() - started
        time.sleep(0.05)
    out = {name: table.peers[name].proc.poll() for name in bots}
    refused = [name for name, code in out.items() if code == EXIT_REFUSED]
    assert len(refused) == 3, f"exits 3 s after the start: {out} at {seen}\n{table.explain()}"
    for name in refused:
        table.peers[name].finish(timeout=5)
        assert any("full" in line or "refused" in line for line in table.peers[name].lines)
    seated = [host, *(table.peers[n] for n in bots if n not in refused)]
    one_hash(finish_ok(table, seated, timeout=180))


# ---- (g) a spoofer claiming a seated peer's routing id, flooding --------------------------------


SPOOFER = Path(__file__).with_name("spoofer.py")


def test_a_spoofer_flooding_under_a_seated_peers_routing_id_gets_no_live_seat_voted_out(
    table: LanTable,
) -> None:
    # 40 ms each way and 5 dice: a game that lasts well past the 4.5 s silence limit.
    table.build([*FOUR, "x"]).set(delay_ms=40)
    peers = table.game(4, "--rule", "starting_dice=5")
    host, b1 = peers[0], peers[1]
    assert host.wait_line("game started", MID_GAME) is not None, table.explain()
    victim = keystore.load_or_create(table.work / "b1.id").public_key.hex()
    spoofer = subprocess.Popen(
        [*table.switch.prefix("x"), sys.executable, str(SPOOFER), "--to",
         f"{table.switch.address('host')}:47000", "--claim", victim, "--rate", "2000",
         "--seconds", "60"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    flooded = time.monotonic()
    try:
        summaries = finish_ok(table, peers)
        over = time.monotonic()
        flood = table.switch.stats()["ports"]["x"]
    finally:
        spoofer.kill()
        spoofer.communicate(timeout=10)
    one_hash(summaries)
    votes = [line for line in b1.lines if "votes to remove us" in line]
    assert not votes and not [line for p in peers for line in left_lines(p)], table.explain()
    # The flood ran through the game (the issue saw the vote about 4 s into it).
    assert over - flooded > 8 and flood["bytes_in"] > 500_000, (over - flooded, flood)
