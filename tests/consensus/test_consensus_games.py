"""Whole games between consensus machines on the in-memory network: every peer agrees."""

from __future__ import annotations

import random

import pytest

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus.record import RecordViolation, verify_record
from dudo_p2p.protocol.envelope import open_envelope
from dudo_p2p.protocol.kinds import Ack, Reveal
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
    net = FakeNet(4, RuleSet(), seed=11)
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


def told_rounds(net: FakeNet) -> list[list[object]]:
    """Each seat's RoundResolved and GameOver events, in the order told."""
    return [[e for e in net.events[s] if isinstance(e, ev.RoundResolved | ev.GameOver)]
            for s in range(len(net.machines))]


def check_told_once(net: FakeNet) -> None:
    """Every seat was told every round's result, the same ones, then GameOver once."""
    told = told_rounds(net)
    for events in told:
        assert sum(isinstance(e, ev.GameOver) for e in events) == 1
        assert isinstance(events[-1], ev.GameOver) and isinstance(events[-2], ev.RoundResolved)
    rounds = [[e for e in t if isinstance(e, ev.RoundResolved)] for t in told]
    assert all(r == rounds[0] for r in rounds)
    assert len(rounds[0]) == len(net.machines[0].replica.engine.results)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_eliminated_seat_that_hears_the_signatures_before_the_last_reveal_is_told_it(
    seed: int,
) -> None:
    """A seat out of the game (it signs no result) hears the others' result signatures
    before the reveal that completes a round (here: every reveal reaches it 0.3 s late). It
    holds the signatures back until the reveal; then the reveal and the signatures complete
    two phases at once. It is still told that round's RoundResolved, before the one
    GameOver (before the fix: the last round was never told, GameOver twice - the window
    showed a winner with no final reveal; every seed of 1-5 showed it)."""
    net = FakeNet(4, RuleSet(starting_dice=3), seed=seed)
    plain = net.route

    def route(src: int, dst: int, frame: bytes, now: float) -> list[float]:
        env = open_envelope(frame)
        inner = open_envelope(env.body.entry) if isinstance(env.body, Ack) else env
        late = isinstance(inner.body, Reveal) and not net.machines[dst].replica.engine.alive[dst]
        return [t + 0.3 if late else t for t in plain(src, dst, frame, now)]

    net.route = route
    finished_game(net)
    check_told_once(net)


@pytest.mark.parametrize("seed", [6, 12, 16])  # the seeds of 1-24 that showed it, unfixed
def test_the_last_round_is_told_before_the_game_over_once_on_every_seat(seed: int) -> None:
    """Result signatures held until the last reveal are chained with it: that round's
    RoundResolved must still come, before the one GameOver (a seat told GameOver twice around
    the final reveal, or never the last round: its window showed a winner with no reveal).
    Seeds 6, 12, 16 showed it before the fix (which seeds do moves with the dice: the
    test above makes the order itself)."""
    net = FakeNet(4, RuleSet(), seed=seed)
    finished_game(net)
    check_told_once(net)
