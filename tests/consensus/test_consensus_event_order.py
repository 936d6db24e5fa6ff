"""A seat's machine tells the session what the log did in the log's order (events.py): the
acts one by one as they are chained, each deal naming the seat whose turn opens it. Before,
an act whose acks all came before the act ahead of it was chained was told first: the
session heard a call before the bid it answers (watch saw it at FakeNet seed 11; the log
was right), and a deal's opener read off the round after its first bid."""

from __future__ import annotations

import pytest

from dudo_p2p.consensus.events import ActionTaken, RoundStarted
from dudo_p2p.protocol.envelope import open_envelope
from dudo_p2p.protocol.kinds import Ack, Act, Nonce
from dudo_p2p.rules import RuleSet
from dudo_p2p.rules.actions import PlayerAction

from .fakenet import FakeNet

THREE_DICE = RuleSet.from_dict({**RuleSet().to_dict(), "starting_dice": 3})


def log_acts(net: FakeNet, seat: int) -> list[tuple[int, int]]:
    """(epoch, acting seat) of every act in ``seat``'s chain, in order."""
    acts = []
    for item in net.machines[seat].replica.chain:
        if item.data:
            env = open_envelope(item.data)
            if isinstance(env.body, Act):
                author = net.seating.seat_of(env.author)
                assert author is not None
                acts.append((env.round_no, author))
    return acts


def check_order(net: FakeNet) -> None:
    """Every seat was told every act of its log, in the log's order, and each deal's opener
    is the seat of the round's first act (its choice of direction, or its bid)."""
    for seat in range(len(net.machines)):
        events = net.events[seat]
        told: list[PlayerAction] = [e.action for e in events if isinstance(e, ActionTaken)]
        assert [a.seat for a in told] == [s for _, s in log_acts(net, seat)], f"seat {seat}"
        for at, event in enumerate(events):
            if isinstance(event, RoundStarted):
                first = next(e for e in events[at:] if isinstance(e, ActionTaken))
                assert event.opener == first.action.seat, f"seat {seat}, event {at}"


def delayed(net: FakeNet, src: int, dst: int, kinds: tuple[type, ...], by: float) -> None:
    """Every frame from ``src`` to ``dst`` whose body (or acked entry) is one of ``kinds``
    reaches ``dst`` ``by`` seconds late: what comes after it on other links gets there
    first."""
    plain = net.route

    def route(s: int, d: int, frame: bytes, now: float) -> list[float]:
        at = plain(s, d, frame, now)
        env = open_envelope(frame)
        if s == src and d == dst and isinstance(env.body, kinds):
            return [t + by for t in at]
        return at

    net.route = route


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_act_whose_acks_come_first_is_told_after_the_act_before_it(seed: int) -> None:
    """Seat 2's acks reach seat 0 half a second late, so seat 0 holds the next act and all
    its other acks before it can chain the one ahead of it (the next player chained that one
    at once): both are chained in one step, and told in the log's order."""
    net = FakeNet(3, THREE_DICE, seed=seed)
    delayed(net, 2, 0, (Ack,), 0.5)
    net.run()
    check_order(net)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_deal_whose_first_bid_comes_before_its_last_nonce_names_its_opener(seed: int) -> None:
    """Seat 2's nonces reach seat 0 half a second late: the opening bid and its acks are
    held by seat 0 before its NONCE phase completes, and chained in the same step as the
    deal; the deal is told first, naming the opener, then the bid."""
    net = FakeNet(3, THREE_DICE, seed=seed)
    delayed(net, 2, 0, (Nonce,), 0.5)
    net.run()
    check_order(net)


@pytest.mark.parametrize("seed", [11, 12])
def test_every_seat_is_told_the_acts_in_the_logs_order(seed: int) -> None:
    """The seeds where it was seen (11: watch's; 12: 3 of 3 seats told acts out of order)."""
    net = FakeNet(3, THREE_DICE, seed=seed)
    net.run()
    check_order(net)
