"""Withholding a reveal cannot undo a loss (issue 21 §7; protocol.md §3.7, §4.6).

A seat withholds its reveal after a call (a colluder that sees from the others' keys that
its partner is about to lose a die). Its removal used to void the round: dealt again, the
partner kept the die. Now the round resolves as if revealed whenever the withheld dice
cannot change the outcome; only when they could is it voided (and dealt again) as before.
"""

from __future__ import annotations

from itertools import combinations_with_replacement

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus.machine import TableMachine
from dudo_p2p.consensus.record import verify_record
from dudo_p2p.consensus.replica import EpochPhase, EpochState
from dudo_p2p.crypto.dice import derive_dice
from dudo_p2p.protocol.envelope import Envelope, open_envelope
from dudo_p2p.protocol.kinds import Ack, Reveal, SyncReply
from dudo_p2p.rules import GameState, RuleSet
from dudo_p2p.rules import Reveal as RevealDice

from .fakenet import FakeNet
from .scenarios import call_decided_by

WITHHOLDER, WATCHER = 0, 1


def withholding_game(
    seed: int, *, decided: bool = False
) -> tuple[FakeNet, list[Envelope], EpochState]:
    """Three seats; seat 0's reveals never leave it (not even in catch-up). Runs until the
    watcher removes it; returns the net, the reveals seat 0 kept back (its true key) and
    the watcher's state of the epoch of the call (it keeps its keys, seed, engine).
    ``decided``: the test makes the first call's bids so that seat 0's dice decide it
    (:func:`~tests.consensus.scenarios.call_decided_by`), whatever the seed's dice."""
    net = FakeNet(3, RuleSet(), seed=seed)
    if decided:
        call_decided_by(net, WITHHOLDER)
    kept: list[Envelope] = []
    original = net.route

    def route(src: int, dst: int, frame: bytes, now: float) -> list[float]:
        env = open_envelope(frame)
        inner = open_envelope(env.body.entry) if isinstance(env.body, Ack) else env
        if src == WITHHOLDER and isinstance(inner.body, Reveal | SyncReply):
            if isinstance(inner.body, Reveal):
                kept.append(inner)
            return []
        return original(src, dst, frame, now)

    net.route = route
    rep = net.machines[WATCHER].replica
    net.run_until(lambda: rep.phase is EpochPhase.REVEAL)
    epoch = rep.epoch
    net.run_until(lambda: any(isinstance(e, ev.PlayerLeft) for e in net.events[WATCHER]))
    assert epoch.withheld == {WITHHOLDER: "timeout"}, "removed in the epoch of the call"
    return net, kept, epoch


def restores_alike(net: FakeNet, seat: int) -> bool:
    """The seat's journal replays to the head it holds (removals after a call included)."""
    again = TableMachine.restore(net.ids[seat], net.seating, list(net.journals[seat]),
                                 net.secret_rngs[seat].randbytes, net.now,
                                 timeouts=net.timeouts)
    return again.replica.head == net.machines[seat].replica.head


def outcomes(state: GameState, known: dict[int, tuple[int, ...]], hidden: int) -> set[object]:
    """Every distinct outcome (losses, gains, eliminations, next opener) of the call in
    ``state`` over every hand the hidden seat could hold: brute force with the engine."""
    seen: set[object] = set()
    for hand in combinations_with_replacement(range(1, 7), state.dice_counts[hidden]):
        dice = tuple(hand if s == hidden else known.get(s, ()) for s in range(state.n_seats))
        r = state.apply(RevealDice(dice)).results[-1]
        seen.add((r.losses, r.gains, r.eliminated, r.next_opener))
    return seen


def test_a_withheld_reveal_resolves_the_round_when_the_hidden_dice_cannot_change_it() -> None:
    partner_lost = 0
    for seed in range(1, 9):
        net, kept, ep = withholding_game(seed)
        rep = net.machines[WATCHER].replica
        assert kept, "the withholder was removed for its withheld reveal"
        assert ep.reveal_at is not None
        at_call = ep.reveal_at[2]  # the engine when the call was chained
        seed_bytes = ep.seed
        assert seed_bytes is not None
        known = {
            s: derive_dice(ep.keys[s], net.seating.game_id, ep.number, s, seed_bytes,
                           at_call.dice_counts[s])
            for s in (1, 2)
        }
        true_key = kept[0]
        assert isinstance(true_key.body, Reveal)
        true_hand = derive_dice(true_key.body.key, net.seating.game_id, ep.number, WITHHOLDER,
                                seed_bytes, at_call.dice_counts[WITHHOLDER])
        truth = at_call.apply(RevealDice((true_hand, known[1], known[2]))).results[-1]
        possible = outcomes(at_call, known, WITHHOLDER)
        if len(possible) == 1:
            # resolved as if revealed: the very losses the true dice gave
            assert len(rep.engine.results) == len(at_call.results) + 1, f"seed {seed}"
            got = rep.engine.results[len(at_call.results)]
            assert (got.losses, got.gains, got.eliminated) == (
                truth.losses, truth.gains, truth.eliminated), f"seed {seed}"
            assert got.dice[WITHHOLDER] == (), "the withheld hand is not invented"
            assert not rep.engine.alive[WITHHOLDER]
            partner_lost += any(s != WITHHOLDER for s in truth.losses)
        else:
            # the hidden dice could change the outcome: voided and dealt again, as before
            assert len(rep.engine.results) == len(at_call.results), f"seed {seed}"
        net.run()
        for s in (1, 2):
            summary = verify_record(net.machines[s].record(net.genesis, net.signatures))
            assert summary.finished
            assert WITHHOLDER in [seat for seat, _ in summary.removals]
            assert restores_alike(net, s), f"seed {seed}: seat {s}'s journal"
        assert net.machines[1].replica.head == net.machines[2].replica.head
    assert partner_lost, "some seed shows another seat's loss standing despite the withholding"


def test_a_withheld_reveal_whose_dice_matter_is_recovered_from_the_shares_it_dealt() -> None:
    """A call whose truth hangs on the withheld hand (the test makes the bids so, whatever
    the seed's dice). The others publish their
    shares of the withholder's key (``key-share``, §3.7), rebuild it, and the round resolves
    with its **real** dice (those of the key it kept back): the loss the true dice give
    stands, the withholder leaves, the records verify and the journals replay it."""
    net, kept, ep = withholding_game(23, decided=True)
    rep = net.machines[WATCHER].replica
    assert kept and ep.reveal_at is not None and ep.seed is not None
    at_call = ep.reveal_at[2]
    known = {s: derive_dice(ep.keys[s], net.seating.game_id, ep.number, s, ep.seed,
                            at_call.dice_counts[s]) for s in (1, 2)}
    assert len(outcomes(at_call, known, WITHHOLDER)) > 1, "the hidden dice matter here"
    net.run_until(lambda: (rep.phase is not EpochPhase.RECOVER and rep.epoch is not ep)
                  or len(rep.engine.results) > len(at_call.results))
    assert ep.recovered == (WITHHOLDER,)
    true_key = kept[0].body
    assert isinstance(true_key, Reveal)
    true_hand = derive_dice(true_key.key, net.seating.game_id, ep.number, WITHHOLDER,
                            ep.seed, at_call.dice_counts[WITHHOLDER])
    truth = at_call.apply(RevealDice((true_hand, known[1], known[2]))).results[-1]
    got = rep.engine.results[len(at_call.results)]
    assert got.dice[WITHHOLDER] == true_hand
    assert (got.losses, got.gains, got.eliminated) == (
        truth.losses, truth.gains, truth.eliminated)
    assert not rep.engine.alive[WITHHOLDER]
    shares = [open_envelope(i.data) for i in rep.chain if i.epoch == ep.number and i.data]
    assert sorted(net.seating.seat_of(e.author) for e in shares if e.kind == "key-share") == [1, 2]
    net.run()
    for s in (1, 2):
        summary = verify_record(net.machines[s].record(net.genesis, net.signatures))
        assert summary.finished
        assert (WITHHOLDER, "timeout") in summary.removals
        assert restores_alike(net, s)
    assert net.machines[1].replica.head == net.machines[2].replica.head


def test_a_peer_restarted_in_the_middle_of_a_removal_after_the_call_rejoins_the_table() -> None:
    """The watcher crashes right after it removed the withholder (its journal holds the
    removal and, for a void, the reveals the void dropped) and comes back from its journal:
    it replays the same decision and finishes the game on the others' head."""
    # a seeded game (its round resolved as if revealed, or voided), and one whose hidden
    # dice matter (the test makes the bids so)
    for seed, decided in ((6, False), (23, True)):
        net, _, _ = withholding_game(seed, decided=decided)
        net.crash(WATCHER)
        net.restart(WATCHER)
        net.run()
        assert net.machines[1].replica.head == net.machines[2].replica.head, f"seed {seed}"
        assert not net.machines[WATCHER].removed_me
