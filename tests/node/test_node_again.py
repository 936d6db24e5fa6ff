"""One more game with the same table (protocol.md §4.9 "One more game"): the genesis that
names the previous game, and real peers chaining games on loopback.

The first test is the lobby in memory (an injected clock); the others start real ``host``
and ``bot`` processes with ``--again`` (bounded waits, conditions not sleeps)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from lobby_helpers import Room, table
from node_helpers import Peer, bot_args, free_tcp_port, host_args, loopback_net

from dudo_p2p.consensus.evening import Ledger
from dudo_p2p.consensus.lobby_host import HostLobby
from dudo_p2p.consensus.lobby_joiner import JoinerLobby
from dudo_p2p.consensus.record import verify_record
from dudo_p2p.rules import RuleSet

PREV = hashlib.sha256(b"the game before").digest()


def seat_two(prev: bytes, expect: bytes | None) -> Room:
    people, _, joiners = table(2)
    host = HostLobby(people[0], "host", "0.0.0.0", 4000, table="KQ7XM",
                         game_id=bytes(range(1, 17)), seats=2, rules=RuleSet(),
                         turn_timer_ms=0, prev=prev)
    joiner = JoinerLobby(people[1], "j0", "0.0.0.0", 4001, table="KQ7XM", expect_prev=expect)
    room = Room({people[0].public_key: host, people[1].public_key: joiner})
    room.run({people[1].public_key: joiner.add_target(people[0].public_key, "127.0.0.1",
                                                      4000, 0.0)}, 0.0)
    room.tick(0.0)
    assert joiners  # table() made a joiner we replaced with one that expects a game
    return room


def test_a_joiner_following_a_game_takes_only_a_genesis_that_names_it() -> None:
    room = seat_two(PREV, PREV)
    assert len(room.seated) == 2
    assert {s.seating.prev for s in room.seated.values()} == {PREV}
    room = seat_two(PREV, hashlib.sha256(b"another game").digest())
    assert len(room.seated) == 0
    assert any("does not follow the game we played" in line for line in room.logs)
    room = seat_two(b"", None)  # a first game: names nothing, and anyone takes it
    assert {s.seating.prev for s in room.seated.values()} == {b""}


def records_of(folder: Path) -> list[bytes]:
    """The records a peer wrote, oldest first (the chain by ``prev``, not by file name)."""
    by_prev = {}
    for path in folder.glob("*.dudo"):
        data = path.read_bytes()
        by_prev[verify_record(data).prev] = data
    chain, prev = [], ""
    while prev in by_prev:
        data = by_prev.pop(prev)
        chain.append(data)
        prev = verify_record(data).log_hash
    assert not by_prev, "a record that does not follow the others"
    return chain


@pytest.mark.e2e
def test_three_peers_play_two_chained_games_and_count_them(
    tmp_path: Path, peers: list[Peer], beacon_port: int
) -> None:
    net = loopback_net(beacon_port)
    port = str(free_tcp_port())
    again = ["--again", "30", "--games", "2"]
    peers.append(Peer("host", host_args("host", tmp_path, 3, "--port", port, *again,
                                        "--record", str(tmp_path / "host"), *net)))
    assert peers[0].wait_line("host: table", 20), peers[0].explain()
    for name in ("ana", "beto"):
        peers.append(Peer(name, bot_args(name, tmp_path, "--join", f"127.0.0.1:{port}",
                                         *again, "--record", str(tmp_path / name), *net)))
    codes = {p.name: p.finish() for p in peers}
    assert codes == {"host": 0, "ana": 0, "beto": 0}, "\n".join(p.explain() for p in peers)
    chains = {p.name: records_of(tmp_path / p.name) for p in peers}
    assert {len(c) for c in chains.values()} == {2}
    # every peer holds the same two games; the second names the first's final log hash
    assert len({tuple(verify_record(r).log_hash for r in c) for c in chains.values()}) == 1
    first, second = (verify_record(r) for r in chains["host"])
    assert first.prev == "" and second.prev == first.log_hash
    assert first.finished and second.finished
    # the same three players (the joiners' seats follow their join order, game by game)
    assert set(second.pubs) == set(first.pubs) and set(second.names) == set(first.names)
    assert {p.summary()["log_hash"] for p in peers} == {second.log_hash}
    board = Ledger().scoreboard(chains["host"])
    assert board.games == 2 and board.broken == ""
    assert sum(r.wins for r in board.rows) == 2 and all(r.games == 2 for r in board.rows)


@pytest.mark.e2e
def test_when_the_host_declines_the_bots_are_not_left_waiting(
    tmp_path: Path, peers: list[Peer], beacon_port: int
) -> None:
    net = loopback_net(beacon_port)
    port = str(free_tcp_port())
    # the host plays one game only (it says no when it leaves); bots never open a table,
    # so nobody is left to open one: they stop long before their 60 s of patience
    peers.append(Peer("host", host_args("host", tmp_path, 3, "--port", port, *net)))
    assert peers[0].wait_line("host: table", 20), peers[0].explain()
    for name in ("ana", "beto"):
        peers.append(Peer(name, bot_args(name, tmp_path, "--join", f"127.0.0.1:{port}",
                                         "--again", "60", *net)))
    assert peers[0].finish() == 0, peers[0].explain()
    for bot in peers[1:]:
        assert bot.finish(timeout=30) == 0, bot.explain()
        assert bot.summary()["rounds"] > 0
