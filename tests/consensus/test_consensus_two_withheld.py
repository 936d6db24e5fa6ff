"""Two seats withhold after one call (issue 21 §7; protocol.md §3.7): every withheld key
the other seats can rebuild is rebuilt, each from the shares its own seat dealt, and the
round resolves with the real dice; every withholder leaves. (Before: two seats removed
after one call voided the round, and the colluders' partner kept its die.)"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from dudo_p2p.cli import verify
from dudo_p2p.consensus.record import verify_record
from dudo_p2p.consensus.replica import EpochPhase, EpochState
from dudo_p2p.crypto.dice import derive_dice
from dudo_p2p.protocol.envelope import Envelope, open_envelope
from dudo_p2p.protocol.kinds import Ack, Reveal
from dudo_p2p.rules import Reveal as RevealDice
from dudo_p2p.rules import RuleSet

from .fakenet import FakeNet
from .scenarios import call_decided_by
from .test_consensus_withheld import restores_alike


def silenced(net: FakeNet, quiet: dict[int, tuple[str, ...]]) -> list[Envelope]:
    """Drop every frame (relayed acks included) of the kinds ``quiet[seat]`` names that
    ``seat`` sends; returns the seats' own reveals so kept back (their true keys)."""
    kept: list[Envelope] = []
    plain = net.route

    def route(src: int, dst: int, frame: bytes, now: float) -> list[float]:
        env = open_envelope(frame)
        inner = open_envelope(env.body.entry) if isinstance(env.body, Ack) else env
        if inner.kind in quiet.get(src, ()):
            own = net.seating.seat_of(inner.author) == src
            if own and isinstance(inner.body, Reveal) and inner not in kept:
                kept.append(inner)
            return []
        return plain(src, dst, frame, now)

    net.route = route
    return kept


def run_to_recovery(net: FakeNet, watcher: int) -> EpochState:
    """Run until the watcher's first epoch after the call with a removal leaves REVEAL and
    RECOVER (resolved or voided); returns that epoch's state."""
    rep = net.machines[watcher].replica
    net.run_until(lambda: rep.phase is EpochPhase.RECOVER)
    ep = rep.epoch
    net.run_until(lambda: rep.epoch is not ep or rep.phase is EpochPhase.SIGN)
    return ep


def check_truth(net: FakeNet, watcher: int, ep: EpochState, true_keys: dict[int, bytes]) -> None:
    """The round of ``ep`` resolved with every seat's true dice (the withholders' from the
    keys they kept back or revealed before their removal), and the withholders left."""
    rep = net.machines[watcher].replica
    assert ep.reveal_at is not None and ep.seed is not None
    at_call = ep.reveal_at[2]
    game, counts = net.seating.game_id, at_call.dice_counts
    keys = {s: true_keys.get(s) or ep.keys[s] for s in ep.participants}
    hands = tuple(
        derive_dice(keys[s], game, ep.number, s, ep.seed, counts[s]) if s in keys else ()
        for s in range(net.seating.n)
    )
    truth = at_call.apply(RevealDice(hands)).results[-1]
    got = rep.engine.results[len(at_call.results)]
    assert got.round_no == ep.number
    assert got.dice == truth.dice
    assert (got.losses, got.gains, got.eliminated) == (truth.losses, truth.gains, truth.eliminated)
    for seat in true_keys:
        assert not rep.engine.alive[seat]


@pytest.mark.parametrize("seed", [3, 11])
def test_two_seats_withholding_their_reveals_are_both_recovered(seed: int, tmp_path: Path) -> None:
    """Five seats (t = 3 of each dealer's 4 others): seats 0 and 1 withhold every reveal.
    Both are voted out in the epoch of the first call; seats 2, 3, 4 each send one
    ``key-share`` holding their shares of both keys; both keys are rebuilt and the round
    resolves with the true dice; the records verify (``dudo-p2p verify`` too), the journals
    replay, the heads agree."""
    net = FakeNet(5, RuleSet(), seed=seed)
    kept = silenced(net, {0: ("reveal", "sync-reply"), 1: ("reveal", "sync-reply")})
    ep = run_to_recovery(net, 2)
    assert sorted(ep.withheld) == [0, 1]
    assert ep.recovered == (0, 1), "both withheld keys rebuilt"
    true = {net.seating.seat_of(e.author): e.body.key for e in kept  # type: ignore[union-attr]
            if e.round_no == ep.number}
    assert sorted(true) == [0, 1]
    check_truth(net, 2, ep, {s: k for s, k in true.items() if s is not None})
    rep = net.machines[2].replica
    shares = [open_envelope(i.data) for i in rep.chain if i.epoch == ep.number and i.data]
    authors = sorted(net.seating.seat_of(e.author) for e in shares if e.kind == "key-share")
    assert authors == [2, 3, 4]
    net.run()
    for s in (2, 3, 4):
        summary = verify_record(net.machines[s].record(net.genesis, net.signatures))
        assert summary.finished
        assert {(0, "timeout"), (1, "timeout")} <= set(summary.removals)
        assert restores_alike(net, s), f"seat {s}'s journal"
    assert net.machines[2].replica.head == net.machines[3].replica.head
    assert net.machines[2].replica.head == net.machines[4].replica.head
    path = tmp_path / "two.dudo"
    path.write_bytes(net.machines[2].record(net.genesis, net.signatures))
    assert verify.run(argparse.Namespace(file=path, json=False)) == 0


@pytest.mark.parametrize("seed", [23, 5])
def test_a_member_that_withholds_its_share_too_is_removed_and_both_keys_rebuilt(
    seed: int,
) -> None:
    """Four seats: seat 0 withholds its reveal in a round its dice decide (the test makes
    the bids: the opener bids a count whose truth hangs on seat 0's hand, the next seat
    calls; any seed), and seat 3 (its partner) withholds its share of seat 0's key in
    RECOVER. Seat 3 is voted out in turn and RECOVER starts again for both keys (seat 3's
    own share of seat 0's key is simply missing): seats 1 and 2 are t = 2 of each dealer's
    3 others, rebuild both, and the round resolves with the true dice. Both leave; the
    records verify, the journals replay."""
    net = FakeNet(4, RuleSet(), seed=seed)
    planted = call_decided_by(net, 0)
    kept = silenced(net, {0: ("reveal", "sync-reply"), 3: ("key-share", "sync-reply")})
    rep = net.machines[1].replica
    net.run_until(lambda: rep.phase is EpochPhase.RECOVER)
    ep = rep.epoch
    assert planted.get("round") == ep.number, "the call the test made"
    assert list(ep.withheld) == [0], "seat 0's dice decide this round"
    net.run_until(lambda: rep.epoch is not ep or rep.phase is EpochPhase.SIGN)
    assert sorted(ep.withheld) == [0, 3]
    assert ep.recovered == (0, 3)
    assert kept and kept[0].round_no == ep.number and isinstance(kept[0].body, Reveal)
    check_truth(net, 1, ep, {0: kept[0].body.key, 3: ep.keys[3]})
    net.run()
    assert net.machines[1].replica.head == net.machines[2].replica.head
    for s in (1, 2):
        summary = verify_record(net.machines[s].record(net.genesis, net.signatures))
        assert summary.finished
        assert restores_alike(net, s)
