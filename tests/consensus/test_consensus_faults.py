"""Each attack and fault is caught, and the honest peers finish on one log hash."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus.machine import TableMachine, Timeouts
from dudo_p2p.consensus.record import verify_record
from dudo_p2p.consensus.replica import EpochPhase
from dudo_p2p.protocol.envelope import Envelope, open_envelope, seal_envelope
from dudo_p2p.protocol.kinds import Ack, Act, Commit, Reveal, SyncReply, Vote
from dudo_p2p.rules import Bid, Calzo, Raise, RuleSet

from .fakenet import FakeNet, one_eliminated_mid_round


def honest_finish(net: FakeNet, cheater: int | None) -> None:
    """Every honest peer ends the game on one head, and the record of each verifies."""
    net.run()
    honest = [s for s in range(len(net.machines)) if s != cheater]
    heads = {net.machines[s].replica.head for s in honest}
    assert len(heads) == 1
    for s in honest:
        summary = verify_record(net.machines[s].record(net.genesis, net.signatures))
        assert summary.finished


def removed(net: FakeNet, seat: int, observer: int) -> list[str]:
    events = net.events[observer]
    return [e.reason for e in events if isinstance(e, ev.PlayerLeft) and e.seat == seat]


def frame_of(data: bytes) -> Envelope:
    return open_envelope(data)


def test_equivocating_bidder_is_caught_by_the_pair_and_expelled() -> None:
    net = FakeNet(4, RuleSet(), seed=21)
    cheater, victim = 1, 3
    done = {"forged": False}
    original = net.route

    def route(src: int, dst: int, frame: bytes, now: float) -> list[float]:
        env = frame_of(frame)
        standing = net.machines[cheater].replica.engine.standing_bid
        if src == cheater and dst == victim and isinstance(env.body, Act) and not done["forged"]:
            body = env.body
            if body.kind == "raise" and standing is not None:
                # the same slot, another (legal) act: a second signed entry for (epoch, act, seq)
                other = Act(body.prev, "dudo", 0, 0, "")
                forged = seal_envelope(net.ids[cheater], env.game_id, env.round_no, env.seq, other)
                done["forged"] = True
                net.inject(dst, forged.to_bytes())
                return []
        return original(src, dst, frame, now)

    net.route = route
    net.run_until(lambda: done["forged"])
    honest_finish(net, cheater)
    for s in (0, 2, 3):
        caught = [e for e in net.events[s] if isinstance(e, ev.CheatDetected)]
        assert any(e.seat == cheater and e.what == "equivocation" for e in caught)
        assert removed(net, cheater, s)
        assert net.machines[s].proofs, "the proof is kept for the record"
    record = verify_record(net.machines[0].record(net.genesis, net.signatures))
    assert cheater in [seat for seat, _ in record.removals]


def setup_only(net: FakeNet) -> None:
    """Seats make the opener's choices but never bid: the test bids for them."""
    net.act_prob = 1.0
    for seat in range(len(net.machines)):
        net.policies[seat] = lambda m, s=seat: (
            net.play_random(s) if m.replica.phase is EpochPhase.SETUP else None
        )


def play_normally(net: FakeNet) -> None:
    net.act_prob = 0.5
    net.policies.clear()


def _inject_act(net: FakeNet, author: int, body_kind: str, count: int, face: int) -> None:
    m = net.machines[0]
    act = Act(m.replica.head, body_kind, count, face, "")
    env = seal_envelope(net.ids[author], net.seating.game_id, m.replica.epoch.number,
                        m.replica.epoch.acts, act)
    for dst in range(len(net.machines)):
        if dst != author:
            net.inject(dst, env.to_bytes())


def _bidding(net: FakeNet) -> bool:
    m = net.machines[0]
    return m.replica.phase is EpochPhase.BIDDING and m.replica.engine.standing_bid is not None


def test_out_of_turn_and_illegal_bids_are_refused_and_change_nothing() -> None:
    net = FakeNet(3, RuleSet(), seed=3)
    setup_only(net)
    net.run_until(lambda: all(m.replica.phase is EpochPhase.BIDDING for m in net.machines))
    to_act = net.machines[0].replica.engine.to_act
    assert to_act is not None
    intruder = (to_act + 1) % 3
    before = [m.replica.head for m in net.machines]
    _inject_act(net, intruder, "raise", 9, 6)  # not its turn
    _inject_act(net, to_act, "raise", 0 + 1, 1)  # an opening bid on aces: illegal (D5)
    for _ in range(200):
        net.step()
    assert [m.replica.head for m in net.machines] == before, "no refused act reaches the log"
    refusals = [t for s in range(3) for t in net.logs[s] if "rejected act" in t]
    assert any("turn" in t or "act" in t for t in refusals)
    play_normally(net)
    honest_finish(net, None)


def test_reveal_that_does_not_open_its_commitment_names_the_cheater() -> None:
    net = FakeNet(3, RuleSet(), seed=8)
    cheater = 2
    done = {"sent": False}
    original = net.route

    def route(src: int, dst: int, frame: bytes, now: float) -> list[float]:
        env = frame_of(frame)
        if src == cheater and isinstance(env.body, Reveal):
            done["sent"] = True
            lie = Reveal(env.body.prev, bytes(32), env.body.shares)
            fake = seal_envelope(net.ids[cheater], env.game_id, env.round_no, env.seq, lie)
            net.inject(dst, fake.to_bytes())  # the route decides timing; the lie is injected
            return []
        return original(src, dst, frame, now)

    net.route = route
    net.run_until(lambda: done["sent"])
    net.crash(cheater)  # its later frames (resends of the true reveal) never leave
    honest_finish(net, cheater)
    for s in (0, 1):
        assert any(
            isinstance(e, ev.CheatDetected) and e.seat == cheater and e.what == "bad-reveal"
            for e in net.events[s]
        )
        assert removed(net, cheater, s)


def test_withheld_reveal_gets_the_peer_removed_and_the_game_goes_on() -> None:
    """Whether the round then resolves or is dealt again: test_consensus_withheld.py."""
    net = FakeNet(3, RuleSet(), seed=9)
    cheater = 0
    original = net.route

    def route(src: int, dst: int, frame: bytes, now: float) -> list[float]:
        env = frame_of(frame)
        inner = frame_of(env.body.entry) if isinstance(env.body, Ack) else env
        if src == cheater and isinstance(inner.body, Reveal | SyncReply):
            return []  # its key never leaves, not even in a catch-up reply
        return original(src, dst, frame, now)

    net.route = route
    honest_finish(net, cheater)
    for s in (1, 2):
        assert removed(net, cheater, s) == ["timeout"]


def test_stalled_turn_is_removed_after_the_turn_timer_and_grace() -> None:
    timeouts = Timeouts(step=2.0, silence=4.0, turn_grace=1.0)
    net = FakeNet(3, RuleSet(), seed=10, timer_ms=3000, timeouts=timeouts)
    staller = 1
    net.policies[staller] = lambda m: None  # never acts, but heartbeats and acks
    honest_finish(net, staller)
    for s in (0, 2):
        assert removed(net, staller, s) == ["timeout"]


def test_replays_from_an_earlier_round_or_another_game_are_refused() -> None:
    net = FakeNet(3, RuleSet(), seed=12)
    early: list[bytes] = []
    original = net.route

    def route(src: int, dst: int, frame: bytes, now: float) -> list[float]:
        if len(early) < 30:
            early.append(frame)
        return original(src, dst, frame, now)

    net.route = route
    net.run_until(lambda: net.machines[0].replica.epoch.number >= 3)
    for frame in early:
        for dst in range(3):
            net.inject(dst, frame)
    # the same author signing for another game (game id 0) is refused as a stray
    foreign = seal_envelope(
        net.ids[0], bytes(16), 1, 0, Act(bytes(32), "dudo", 0, 0, "")
    ).to_bytes()
    net.inject(1, foreign)
    honest_finish(net, None)
    assert any("WrongContext" in t for t in net.logs[1])


def test_forged_author_fails_its_signature() -> None:
    net = FakeNet(3, RuleSet(), seed=13)
    setup_only(net)
    net.run_until(lambda: all(m.replica.phase is EpochPhase.BIDDING for m in net.machines))
    m = net.machines[0]
    to_act = m.replica.engine.to_act
    assert to_act is not None
    impostor = (to_act + 1) % 3
    act = Act(m.replica.head, "raise", 3, 4, "")
    real = seal_envelope(net.ids[impostor], net.seating.game_id, m.replica.epoch.number, 0, act)
    forged = Envelope(real.game_id, real.round_no, real.seq, net.ids[to_act].public_key,
                      real.body, real.signature)
    victim = (to_act + 2) % 3
    net.inject(victim, forged.to_bytes())
    before = net.machines[victim].replica.head
    for _ in range(50):
        net.step()
    assert any("BadSignature" in t for t in net.logs[victim])
    assert net.machines[victim].replica.head == before
    play_normally(net)
    honest_finish(net, None)


def test_crash_mid_round_and_restart_from_the_journal_keeps_the_seat() -> None:
    net = FakeNet(4, RuleSet(), seed=14)
    victim = 2
    net.run_until(
        lambda: net.machines[0].replica.epoch.number >= 2
        and net.machines[0].replica.phase is EpochPhase.BIDDING
    )
    net.crash(victim)
    crashed_at = net.now
    net.run_until(lambda: net.now > crashed_at + 1.5)
    net.restart(victim)
    net.run()
    assert len(net.heads()) == 1
    assert not removed(net, victim, 0), "restarted within the timeouts: the seat is kept"
    restarted = net.machines[victim]
    assert restarted.replica.engine.winner == net.machines[0].replica.engine.winner


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))))
def test_racing_calzos_settle_alike_on_every_peer_whatever_the_order(
    order: tuple[int, ...],
) -> None:
    """Seat 1 raises while seats 2 and 3 call ¡Calzo! on the same standing bid (V5)."""
    net = FakeNet(4, RuleSet(calza_anyone=True), seed=15)
    setup_only(net)
    net.run_until(lambda: all(m.replica.phase is EpochPhase.BIDDING for m in net.machines))
    m0 = net.machines[0]
    opener = m0.replica.engine.to_act
    assert opener is not None
    net.policies = {s: (lambda m: None) for s in range(4)}
    net.apply(opener, net.machines[opener].submit(Raise(opener, Bid(2, 3)), net.now))
    net.run_until(lambda: all(m.replica.engine.standing_bid is not None for m in net.machines))
    to_act = m0.replica.engine.to_act
    assert to_act is not None
    callers = [s for s in range(4) if s not in (opener, to_act)]
    contenders = [(to_act, Raise(to_act, Bid(3, 3))), *((c, Calzo(c)) for c in callers)]
    held: list[tuple[int, list[tuple[int, bytes]]]] = []
    for seat, action in contenders:
        out = net.machines[seat].submit(action, net.now)
        frames = [(s, e.frame) for e in out if hasattr(e, "frame") for s in range(4) if s != seat]
        held.append((seat, frames))
    # deliver the three contenders' frames in the given order, with growing delays
    for rank, index in enumerate(order):
        _, frames = held[index]
        for dst, frame in frames:
            net.inject(dst, frame, delay=0.001 * (rank + 1))
    opening = Raise(opener, Bid(2, 3))

    def next_action(seat: int) -> object | None:
        taken = [e.action for e in net.events[seat] if isinstance(e, ev.ActionTaken)]
        after = taken[taken.index(opening) + 1 :] if opening in taken else []
        return after[0] if after else None

    net.run_until(lambda: all(next_action(s) is not None for s in range(4)), 20_000)
    agreed = {next_action(s) for s in range(4)}
    assert len(agreed) == 1, f"peers disagree: {agreed}"
    (winner,) = agreed
    assert isinstance(winner, Calzo), "a call beats the raise that raced it"
    winners = {winner.seat}
    direction = 1 if m0.replica.engine.clockwise else -1
    nearest = min(callers, key=lambda c: ((c - opener) * direction) % 4)
    # the winning call is the one nearest after the bidder in the direction of play
    assert winners == {nearest}


def test_two_different_commitments_to_different_peers_are_caught_when_the_table_stalls() -> None:
    """Concurrent entries are relayed only when the log is stuck; a seat that commits one way
    to some peers and another way to others splits their heads, stalls them, and the relays
    then put both signed commitments side by side."""
    net = FakeNet(4, RuleSet(), seed=22)
    cheater, victim = 2, 0
    done = {"forged": False}
    original = net.route

    def route(src: int, dst: int, frame: bytes, now: float) -> list[float]:
        env = frame_of(frame)
        body = env.body
        if (src == cheater and dst == victim and isinstance(body, Commit)
                and env.round_no >= 2 and not done["forged"]):
            other = replace(body, key_c=bytes(32))
            forged = seal_envelope(net.ids[cheater], env.game_id, env.round_no, env.seq, other)
            done["forged"] = True
            net.inject(dst, forged.to_bytes())
            return []
        return original(src, dst, frame, now)

    net.route = route
    honest_finish(net, cheater)
    assert done["forged"]
    for s in (0, 1, 3):
        assert any(
            isinstance(e, ev.CheatDetected) and e.seat == cheater and e.what == "equivocation"
            for e in net.events[s]
        )
        assert removed(net, cheater, s)


def test_a_peer_restarted_after_a_joined_removal_rebuilds_the_same_chain() -> None:
    """Two seats die at once; seat 1's vote against seat 2 reaches seat 0 late, after seat 0
    removed seat 3, so seat 0 *joins* the two removals of one epoch (§4.6). Its journal then
    replays to the same head: each removal is applied at the epoch the journal names (it
    was applied at the current epoch, which chained the second removal under the wrong epoch
    number and left a restarted peer on a head no one else holds)."""
    net = FakeNet(4, RuleSet(), seed=5, act_prob=0.0)
    net.run_until(lambda: all(m.replica.epoch.number >= 1 for m in net.machines))
    epoch = net.machines[0].replica.epoch.number
    original = net.route

    def route(src: int, dst: int, frame: bytes, now: float) -> list[float]:
        env = frame_of(frame)
        body = env.body
        if (src, dst) == (1, 0) and isinstance(body, Vote) and body.target == net.ids[2].public_key:
            return [now + 2.0]
        return original(src, dst, frame, now)

    net.route = route
    net.crash(2)
    net.crash(3)
    net.run_until(lambda: not net.machines[0].replica.engine.alive[2], max_steps=20_000)
    chain = net.machines[0].replica.chain
    assert [(i.epoch, i.removed_seat) for i in chain if i.removed_seat is not None] == [
        (epoch, 2), (epoch, 3)
    ], "seat 0 removed both seats in one epoch, joining the removal it learnt second"
    restored = TableMachine.restore(
        net.ids[0], net.seating, list(net.journals[0]), net.secret_rngs[0].randbytes, net.now,
        timeouts=net.timeouts,
    )
    assert restored.replica.head == net.machines[0].replica.head
    assert restored.replica.epoch.number == epoch + 2


def test_a_crash_that_abandons_a_two_seat_endgame_reaches_the_eliminated_seat() -> None:
    """Three seats, one eliminated (it follows the log, signs nothing). One of the last two
    crashes mid-round: with two seats left its silence cannot hand the other a win (§4.6),
    so the game ends abandoned, and the eliminated seat, whose copy of the claim was lost,
    is told on its next heartbeat (soak seed 1229's situation, where it hung)."""
    net, observer, crashed, survivor = one_eliminated_mid_round()
    original = net.route

    def route(src: int, dst: int, frame: bytes, now: float) -> list[float]:
        if ((src, dst) == (survivor, observer) and isinstance(frame_of(frame).body, Vote)
                and not net.machines[survivor].abandoned):
            return []  # the live claim is lost; the telling after it is not
        return original(src, dst, frame, now)

    net.route = route
    net.crash(crashed)
    net.run_until(lambda: net.machines[survivor].over, max_steps=50_000)
    assert net.machines[survivor].abandoned and net.machines[survivor].replica.engine.winner is None
    net.run_until(lambda: net.machines[observer].over, max_steps=50_000)
    assert net.machines[observer].abandoned
    assert net.machines[observer].replica.head == net.machines[survivor].replica.head
    for s in (observer, survivor):
        summary = verify_record(net.machines[s].record(net.genesis, net.signatures))
        assert summary.abandoned and summary.winner is None


def test_a_slow_acker_after_a_long_think_without_turn_timer_is_not_voted_out() -> None:
    """No turn timer: the seat to act may think as long as it likes (here 8 s, past the 5 s
    step timeout). Every frame of one honest seat then takes 200 ms (a starved process).
    The step timeout for the acks of the act counts from the act, not from the last move of
    the log: counted from the log, every peer voted the slow seat out for 'timeout' at its
    first tick after the act (a real 4-peer game under load lost an untouched bot so)."""
    net = FakeNet(4, RuleSet(), seed=0)
    thinker, slow = 0, 2
    turn_began: dict[tuple[int, int], float] = {}

    def think_then_play(m: TableMachine) -> None:
        rep = m.replica
        if rep.phase is EpochPhase.BIDDING and m.legal_actions():
            began = turn_began.setdefault((rep.epoch.number, rep.epoch.acts), net.now)
            if net.now - began < 8.0:
                return
        net.play_random(thinker)

    net.policies[thinker] = think_then_play
    original = net.route

    def route(src: int, dst: int, frame: bytes, now: float) -> list[float]:
        return [now + 0.2] if src == slow else original(src, dst, frame, now)

    net.route = route
    net.run()
    assert len(turn_began) >= 2  # the thinker did think past the step timeout, more than once
    assert [removed(net, slow, s) for s in range(4)] == [[]] * 4
    assert all(not isinstance(e, ev.PlayerLeft) for s in range(4) for e in net.events[s])
    honest_finish(net, None)
