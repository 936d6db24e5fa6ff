"""Whole games between consensus machines on the in-memory network: every peer agrees."""

from __future__ import annotations

import random

import pytest

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus.record import RecordViolation, verify_record
from dudo_p2p.rules import RuleSet

from .fakenet import FakeNet, faulty_route, random_rules


def finished_game(net: FakeNet) -> None:
    net.run()
    assert len(net.heads()) == 1, "peers ended on different log hashes"
    winners = {m.replica.engine.winner for m in net.machines}
    assert len(winners) == 1 and None not in winners
    for seat in range(len(net.machines)):
        over = [e for e in net.events[seat] if isinstance(e, ev.GameOver)]
        assert over and over[-1].winner in winners


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_default_rules_game_ends_with_one_log_hash(n: int) -> None:
    net = FakeNet(n, RuleSet(), seed=n)
    finished_game(net)


@pytest.mark.parametrize("seed", range(8))
def test_random_rules_and_random_faults_still_agree(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(2, 5)
    rules = random_rules(rng)
    net = FakeNet(n, rules, seed=1000 + seed)
    net.route = faulty_route(net, drop=0.03, dup=0.03, max_delay=0.03)
    finished_game(net)


def test_every_peer_sees_the_same_round_results() -> None:
    # seed 4: a game that does not meet the lost-last-round bug below (seed 11 did once the
    # genesis named the previous game and every game's dice changed)
    net = FakeNet(4, RuleSet(), seed=4)
    finished_game(net)
    results = [
        tuple(e.result for e in net.events[s] if isinstance(e, ev.RoundResolved))
        for s in range(4)
    ]
    assert results[0] and all(r == results[0] for r in results)


def test_record_verifies_and_any_changed_byte_is_rejected() -> None:
    net = FakeNet(3, RuleSet(starting_dice=3), seed=5)
    finished_game(net)
    m = net.machines[0]
    data = m.record(net.genesis, net.signatures)
    summary = verify_record(data)
    assert summary.finished and summary.winner == m.replica.engine.winner
    assert summary.log_hash == m.replica.head.hex()
    rng = random.Random(7)
    for pos in rng.sample(range(len(data)), 300):
        broken = bytearray(data)
        broken[pos] ^= 1 << rng.randrange(8)
        with pytest.raises(RecordViolation):
            verify_record(bytes(broken))


@pytest.mark.xfail(strict=True, reason=(
    "issue 19: when result signatures held until the last reveal are chained with it, "
    "PhasesMixin._after_concurrent tells GameOver from the nested call first, then the last "
    "RoundResolved is lost (phase already OVER) and GameOver told again; seeds 6, 12, 16 "
    "show it (seeds move whenever the wire changes the dice). Emitting the phase's events "
    "before chaining fixed it but broke resuming a killed host (test_node_faults, 1 of 3 "
    "runs passed): not landed"))
@pytest.mark.parametrize("seed", [6, 12, 16])  # the first three of 1-24 that show it
def test_the_last_round_is_told_before_the_game_over_once_on_every_seat(seed: int) -> None:
    """Result signatures held until the last reveal are chained with it: that round's
    RoundResolved must still come, before the one GameOver (a seat told GameOver twice around
    the final reveal, or never the last round: its window shows a winner with no reveal)."""
    net = FakeNet(4, RuleSet(), seed=seed)
    finished_game(net)
    told = [[e for e in net.events[s] if isinstance(e, ev.RoundResolved | ev.GameOver)]
            for s in range(4)]
    for events in told:
        assert sum(isinstance(e, ev.GameOver) for e in events) == 1
        assert isinstance(events[-1], ev.GameOver) and isinstance(events[-2], ev.RoundResolved)
    assert all([e for e in t if isinstance(e, ev.RoundResolved)] ==
               [e for e in told[0] if isinstance(e, ev.RoundResolved)] for t in told)
