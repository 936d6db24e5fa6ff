"""The evening scoreboard (consensus/evening.py): games won per player, counted only over
records that verify and link (each game's genesis names the previous game's final log hash).
Games played for real on the in-memory network, seeded."""

from __future__ import annotations

import hashlib

from dudo_p2p.consensus.evening import Ledger
from dudo_p2p.crypto.identity import fingerprint
from dudo_p2p.rules import RuleSet

from .fakenet import FakeNet


def evening(games: int, seed: int = 21, prev: bytes = b"") -> tuple[list[bytes], list[FakeNet]]:
    """``games`` games of the same three players, each naming the last one's final hash
    (the first names ``prev``)."""
    records: list[bytes] = []
    nets: list[FakeNet] = []
    for g in range(games):
        net = FakeNet(3, RuleSet(starting_dice=3), seed=seed, prev=prev,
                      game_id=bytes([g + 1]) * 16)
        net.rng.seed(seed * 10 + g)  # another game: other choices, maybe another winner
        net.run()
        machine = net.machines[0]
        records.append(machine.record(net.genesis, net.signatures))
        nets.append(net)
        prev = machine.replica.head
    return records, nets


def test_wins_are_counted_per_player_over_the_linked_games() -> None:
    records, nets = evening(3)
    board = Ledger().scoreboard(records)
    assert board.games == 3 and board.broken == ""
    winners = [n.machines[0].replica.engine.winner for n in nets]
    pubs = nets[0].seating.pubs
    expected = {fingerprint(p): sum(1 for w in winners if w == s) for s, p in enumerate(pubs)}
    assert {r.fingerprint: r.wins for r in board.rows} == expected
    assert sum(r.wins for r in board.rows) == 3
    assert [r.wins for r in board.rows] == sorted((r.wins for r in board.rows), reverse=True)
    assert all(r.games == 3 for r in board.rows)
    assert {r.name for r in board.rows} == {"p0", "p1", "p2"}


def test_a_game_that_does_not_follow_stops_the_count_there() -> None:
    records, _ = evening(2)
    unlinked, _ = evening(1, seed=33)  # another table's game, before this evening
    board = Ledger().scoreboard([unlinked[0], *records])
    # records[0] names no previous game: the chain ends there, the stranger is not counted
    assert board.games == 2 and board.broken == ""
    stray, _ = evening(1, seed=33, prev=hashlib.sha256(b"some other game").digest())
    board = Ledger().scoreboard([records[0], stray[0]])
    assert board.games == 1 and board.broken == "game 2 does not follow game 1"


def test_a_record_that_does_not_verify_is_not_counted() -> None:
    records, _ = evening(2)
    broken = bytearray(records[0])
    broken[len(broken) // 2] ^= 0x40
    board = Ledger().scoreboard([bytes(broken), records[1]])
    assert board.games == 1
    assert board.broken.startswith("game 1 does not verify")
    assert sum(r.wins for r in board.rows) == 1
