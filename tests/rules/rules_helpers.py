"""Helpers that drive a GameState to a chosen situation through real actions."""

from __future__ import annotations

from dataclasses import replace

from dudo_p2p.rules import (
    Action,
    Bid,
    ChooseDirection,
    GameState,
    OpenerDraw,
    Phase,
    Raise,
    RuleSet,
)


def started(
    rules: RuleSet | None = None, n: int = 3, opener: int = 0, clockwise: bool = True
) -> GameState:
    """A game past the opener draw (``opener`` drew the only 6) and the direction choice."""
    state = GameState.new(rules or RuleSet(), n)
    state = state.apply(OpenerDraw(tuple(6 if s == opener else 1 for s in range(n))))
    if state.phase is Phase.SETUP and state.setup_pending[0] == "direction":
        state = state.apply(ChooseDirection(opener, clockwise))
    return state


def play(state: GameState, *actions: Action) -> GameState:
    for action in actions:
        state = state.apply(action)
    return state


def bid(seat: int, text: str) -> Raise:
    return Raise(seat, Bid.parse(text))


def with_counts(state: GameState, counts: tuple[int, ...]) -> GameState:
    """Test shortcut: set every seat's dice count (as if earlier rounds had been played)."""
    return replace(
        state, dice_counts=counts, alive=tuple(c > 0 for c in counts),
        ever_lost=tuple(c < state.rules.starting_dice for c in counts),
    )


def hands(counts: tuple[int, ...], **fixed: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Dice for a Reveal: seat ``s<k>`` as given; every other seat's dice are 4s, so they
    never count for a bid on 5s or aces."""
    out = []
    for seat, count in enumerate(counts):
        hand = fixed.get(f"s{seat}", (4,) * count)
        assert len(hand) == count
        out.append(hand)
    return tuple(out)
