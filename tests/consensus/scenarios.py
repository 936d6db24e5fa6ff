"""Scenario drivers for FakeNet: the test makes the players' choices itself, so a scenario
does not hang on a lucky seed (every game's dice change with any change of the genesis).

The test sees every seat's own dice through FakeNet's machines (each machine's view shows
its own hand once the round is dealt), so it can choose bids whose truth it knows.
"""

from __future__ import annotations

from dudo_p2p.consensus.machine import TableMachine
from dudo_p2p.rules import GameState
from dudo_p2p.rules import Reveal as RevealDice
from dudo_p2p.rules.actions import Dudo, Raise

from .fakenet import FakeNet


def _outcome(state: GameState, hands: tuple[tuple[int, ...], ...]) -> object:
    r = state.apply(RevealDice(hands)).results[-1]
    return (r.losses, r.gains, r.eliminated)


def deciding_raise(
    state: GameState, seat: int, hands: tuple[tuple[int, ...], ...], hidden: int
) -> Raise | None:
    """A legal opening raise by ``seat`` that, called at once by the seat after it, has
    another outcome with the true hands than with ``hidden``'s hand replaced by one that
    matches no face of the bid: the call hangs on ``hidden``'s dice. None if there is none
    (no raise legal now, or ``hidden`` holds no dice)."""
    if not hands[hidden]:
        return None
    for action in state.legal_actions(seat):
        if not isinstance(action, Raise) or action.bid.face == 1:
            continue
        called = state.apply(action)
        caller = called.to_act
        if caller is None or not called.is_legal(Dudo(caller)):
            continue
        called = called.apply(Dudo(caller))
        blank = next(f for f in range(2, 7) if f != action.bid.face)
        other = tuple((blank,) * len(h) if s == hidden else h for s, h in enumerate(hands))
        if _outcome(called, hands) != _outcome(called, other):
            return action
    return None


def call_decided_by(net: FakeNet, hidden: int) -> dict[str, object]:
    """Install policies on every seat of ``net``: in the first round that comes to a bid,
    the seat to open bids a count whose truth hangs on ``hidden``'s dice (see
    :func:`deciding_raise`) and the next seat calls ¡dudo! on it; every other decision
    (before and after) is random, as FakeNet's players. Returns the driver's notes:
    ``bid`` (the raise made) and ``round`` (its round number) once made."""
    notes: dict[str, object] = {}

    def hands_now(round_no: int) -> tuple[tuple[int, ...], ...] | None:
        hands: list[tuple[int, ...]] = []
        for m in net.machines:
            view = m.view()
            if view.round_no != round_no:
                return None
            if view.own_dice is None:
                if view.dice_counts[m.seat]:
                    return None  # that seat has not seen its dice yet
                hands.append(())
            else:
                hands.append(view.own_dice)
        return tuple(hands)

    def policy(m: TableMachine) -> None:
        legal = m.legal_actions()
        if not legal:
            return
        state = m.replica.engine
        bid = notes.get("bid")
        if bid is None and state.standing_bid is None and any(
                isinstance(a, Raise) for a in legal):
            hands = hands_now(state.round_no)
            if hands is None:
                return  # wait until every seat holds its dice of this round
            planted = deciding_raise(state, m.seat, hands, hidden)
            if planted is not None:
                notes.update(bid=planted, round=state.round_no)
                net.apply(m.seat, m.submit(planted, net.now))
                return
        elif (isinstance(bid, Raise) and notes.get("round") == state.round_no
              and state.standing_bid == bid.bid and state.standing_bidder == bid.seat):
            net.apply(m.seat, m.submit(Dudo(m.seat), net.now))
            return
        net.play_random(m.seat)

    for seat in range(len(net.machines)):
        net.policies[seat] = policy
    return notes
