"""Catch-up cannot be used against an honest seat (issue 21 §2, §3; protocol.md §4.4, §4.7).

A scripted cheater on the in-memory network: it pushes acts in sync replies, withholds its
acks from one seat, floods sync requests. Each test fails on the code before the rule.
"""

from __future__ import annotations

import pytest

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus.act_certs import agreed_bytes, checked_certificate
from dudo_p2p.consensus.actions_wire import action_fields
from dudo_p2p.consensus.machine import TableMachine
from dudo_p2p.consensus.replica import EpochPhase
from dudo_p2p.consensus.sync import ANSWER_BURST, ANSWER_RATE
from dudo_p2p.protocol.envelope import Envelope, open_envelope, seal_envelope
from dudo_p2p.protocol.kinds import Ack, Act, Heartbeat, SyncReply, SyncRequest
from dudo_p2p.rules import Raise, RuleSet

from .fakenet import FakeNet
from .test_consensus_faults import honest_finish, removed


def frame_of(data: bytes) -> Envelope:
    return open_envelope(data)


def cheaters_turn(net: FakeNet, cheater: int) -> bool:
    """Every seat agrees the cheater is to raise in BIDDING (a standing bid, so two legal
    raises exist) and no act of the slot is pending anywhere."""
    ms = net.machines
    rep = ms[0].replica
    return (
        all(m.replica.phase is EpochPhase.BIDDING for m in ms)
        and len({m.replica.head for m in ms}) == 1
        and rep.engine.to_act == cheater
        and rep.engine.standing_bid is not None
        and len([a for a in ms[cheater].legal_actions() if isinstance(a, Raise)]) >= 2
    )


def two_raises(net: FakeNet, cheater: int) -> tuple[Envelope, Envelope]:
    """Two legal raises for the cheater's slot, both signed by it (neither sent live)."""
    m = net.machines[cheater]
    raises = [a for a in m.legal_actions() if isinstance(a, Raise)]
    rep = m.replica
    signed = []
    for action in raises[:2]:
        kind, count, face, option = action_fields(action)
        body = Act(rep.head, kind, count, face, option)
        signed.append(seal_envelope(net.ids[cheater], net.seating.game_id, rep.epoch.number,
                                    rep.epoch.acts, body))
    return signed[0], signed[1]


def sealed(net: FakeNet, seat: int, body: object, epoch: int, seq: int = 0) -> bytes:
    return seal_envelope(net.ids[seat], net.seating.game_id, epoch, seq, body).to_bytes()  # type: ignore[arg-type]


def hold_turn_until(net: FakeNet, cheater: int, fired: dict[str, bool]) -> None:
    """The cheater plays at random, but holds its turn answering a standing bid until the
    attack fires, and then never signs a third act for the slot it attacked (its own live
    act would be a plain equivocation, caught whatever catch-up does)."""
    attacked: list[tuple[int, int]] = []

    def policy(m: TableMachine) -> None:
        rep = m.replica
        slot = (rep.epoch.number, rep.epoch.acts)
        ours = (rep.phase is EpochPhase.BIDDING and rep.engine.standing_bid is not None
                and rep.engine.to_act == cheater)
        if ours and not fired["done"]:
            attacked[:] = [slot]  # the attack fires on the slot we hold
            return
        if slot not in attacked:
            net.play_random(cheater)

    net.policies[cheater] = policy


def test_an_unasked_sync_reply_cannot_fork_the_table() -> None:
    """On its turn the cheater signs two legal raises X and Y, sends neither live, and pushes
    X in an unasked sync-reply to two seats and Y to the third. Before: all three chained
    the act without acks, the third could not ack the next act and was voted out for
    'timeout'. Now the entries of an unasked reply are ignored: nobody chains X or Y, the
    cheater's turn goes on, no honest seat is removed."""
    net = FakeNet(4, RuleSet(), seed=41, timer_ms=4000)
    cheater = 1
    fired = {"done": False}
    hold_turn_until(net, cheater, fired)
    net.run_until(lambda: cheaters_turn(net, cheater))
    x, y = two_raises(net, cheater)
    rep = net.machines[0].replica
    start = len(rep.chain)
    for dst in range(4):
        if dst == cheater:
            continue
        act = y if dst == 3 else x
        net.inject(dst, sealed(net, cheater, SyncReply(start, (act.to_bytes(),), False),
                               rep.epoch.number))
    for _ in range(100):
        net.step()
    for s in (0, 2, 3):
        chained = {i.digest for i in net.machines[s].replica.chain}
        assert x.digest() not in chained and y.digest() not in chained, f"seat {s} forked"
        assert any("unasked sync-reply" in t for t in net.logs[s])
    fired["done"] = True
    honest_finish(net, cheater)
    for s in (0, 2, 3):
        for victim in (0, 2, 3):
            assert not removed(net, victim, s), f"seat {s} removed honest seat {victim}"


@pytest.mark.parametrize("forged_cert", [False, True])
def test_two_acts_for_one_slot_meeting_through_catch_up_are_an_equivocation_proof(
    forged_cert: bool,
) -> None:
    """The cheater sends its raise Y live and the table agrees it. Then it lies in a
    heartbeat to the victim (a longer log), so the victim asks it to catch up, and answers,
    at the start asked, with another raise X for the same slot (bare, or with a certificate
    of its own making: no other seat's ack). Before: the stale act was dropped unseen. Now
    two signed acts for one slot meeting in catch-up are a proof like any other: relayed,
    and the cheater is expelled by all."""
    net = FakeNet(4, RuleSet(), seed=43)
    cheater, victim = 2, 0
    fired = {"done": False, "asked": False}
    hold_turn_until(net, cheater, fired)
    original = net.route
    x_holder: list[Envelope] = []

    def route(src: int, dst: int, frame: bytes, now: float) -> list[float]:
        env = frame_of(frame)
        if (src, dst) == (victim, cheater) and isinstance(env.body, SyncRequest) and x_holder:
            fired["asked"] = True
            x = x_holder.pop()
            own_ack = sealed(net, cheater, Ack(x.to_bytes()), x.round_no, x.seq)
            item = agreed_bytes(x.to_bytes(), [own_ack]) if forged_cert else x.to_bytes()
            reply = sealed(net, cheater, SyncReply(env.body.have, (item,), False), env.round_no)
            net.inject(victim, reply)
        return original(src, dst, frame, now)

    net.route = route
    net.run_until(lambda: cheaters_turn(net, cheater))
    x, y = two_raises(net, cheater)
    for dst in range(4):
        if dst != cheater:
            net.inject(dst, y.to_bytes())
    net.run_until(lambda: all(y.digest() in {i.digest for i in net.machines[s].replica.chain}
                              for s in (0, 1, 3)))
    x_holder.append(x)
    rep = net.machines[victim].replica
    lie = Heartbeat(bytes(32), len(rep.chain) + 3, 1, net.seating.pubs[victim], b"")
    net.inject(victim, sealed(net, cheater, lie, rep.epoch.number))
    net.run_until(lambda: fired["asked"], 2000)
    fired["done"] = True
    honest_finish(net, cheater)
    for s in (0, 1, 3):
        assert any(isinstance(e, ev.CheatDetected) and e.seat == cheater
                   and e.what == "equivocation" for e in net.events[s]), f"seat {s}"
        assert removed(net, cheater, s)
        assert not removed(net, victim, s)


def test_acks_withheld_from_one_seat_do_not_get_it_removed() -> None:
    """The cheater sends its acks to everyone but the victim, never answers the victim's
    sync-requests, and its heartbeats reach the victim first. Before: the victim asked only
    the cheater (the first heartbeat showing a longer log), never caught up, and was voted
    out for 'timeout' by the other two. Now the victim asks the seats ahead of it in turn:
    the honest one answers with the act and the acks that made it final (the cheater's
    included), and the victim keeps its seat to the end of the game."""
    net = FakeNet(3, RuleSet(), seed=47)
    cheater, victim = 1, 2
    original = net.route

    def route(src: int, dst: int, frame: bytes, now: float) -> list[float]:
        if (src, dst) == (cheater, victim):
            env = frame_of(frame)
            body = env.body
            if isinstance(body, SyncReply):
                return []  # never answers the victim
            if isinstance(body, Ack) and isinstance(frame_of(body.entry).body, Act):
                return []  # its acks of acts reach everyone but the victim
            return [now + 0.0001]  # and its heartbeats always arrive first
        return original(src, dst, frame, now)

    net.route = route
    honest_finish(net, None)
    for s in range(3):
        assert not removed(net, victim, s), f"seat {s} removed the victim"
    m = net.machines[victim]
    assert m.replica.engine.winner is not None
    agreed = [i for i in m.replica.chain if i.digest in m.act_certs]
    assert agreed, "the victim took acts with their certificates through catch-up"


@pytest.mark.parametrize("vary", [False, True])
def test_a_flood_of_sync_requests_gets_a_bounded_trickle_of_replies(vary: bool) -> None:
    """A seat sends sync-request{have: 0} at about 200/s for 2 s (``vary``: a different
    ``have`` each time). Before: each got a full chunk (many times the bytes asked). Now
    one ``have`` is answered once a heartbeat interval, and one asker's requests at most
    ANSWER_BURST at once and ANSWER_RATE a second after."""
    net = FakeNet(3, RuleSet(), seed=49)
    flooder, target = 1, 0
    net.run_until(lambda: net.machines[target].replica.epoch.number >= 3)
    replies: list[int] = []
    sent: list[int] = []
    original = net.route

    def route(src: int, dst: int, frame: bytes, now: float) -> list[float]:
        if (src, dst) == (target, flooder) and isinstance(frame_of(frame).body, SyncReply):
            replies.append(len(frame))
        return original(src, dst, frame, now)

    net.route = route
    began = net.now
    m: TableMachine = net.machines[flooder]
    for i in range(400):
        have = i % 20 if vary else 0
        request = sealed(net, flooder, SyncRequest(have), m.replica.epoch.number)
        sent.append(len(request))
        net.inject(target, request)
        net.run_until(lambda i=i: net.now >= began + (i + 1) * 0.005)
    seconds = net.now - began
    bound = ANSWER_BURST + ANSWER_RATE * seconds + 1 if vary else seconds / 0.9 + 1
    assert len(replies) <= bound, f"{len(replies)} replies to {len(sent)} requests"
    assert sum(replies) < (6 if vary else 1) * sum(sent), f"{sum(replies)} B for {sum(sent)}"
    honest_finish(net, None)


def test_a_certificate_holds_one_signed_ack_of_the_act_from_every_other_live_seat() -> None:
    """checked_certificate: every other seat's bound ack makes one; a missing seat, an ack
    of another act, an ack not bound to the act's (epoch, seq), or padding does not."""
    net = FakeNet(3, RuleSet(), seed=51)
    net.run_until(lambda: cheaters_turn(net, 1))
    x, y = two_raises(net, 1)
    epoch, parts = x.round_no, (0, 1, 2)

    def ack(seat: int, act: Envelope, seq: int | None = None) -> bytes:
        return sealed(net, seat, Ack(act.to_bytes()), act.round_no, act.seq if seq is None else seq)

    def check(acks: list[bytes]) -> list[bytes] | None:
        return checked_certificate(x, acks, parts, net.seating, open_envelope)

    good = [ack(0, x), ack(2, x)]
    assert check(good) == good
    assert check(list(reversed(good))) == good, "seat order"
    assert check([ack(0, x)]) is None, "seat 2's ack missing"
    assert check([ack(0, x), ack(2, y)]) is None, "an ack of another act"
    assert check([ack(0, x), ack(2, x, seq=x.seq + 1)]) is None, "not bound to the act's slot"
    assert check([ack(1, x), ack(0, x), ack(2, x)]) is None, "padding past one per other seat"
    assert epoch == net.machines[0].replica.epoch.number
