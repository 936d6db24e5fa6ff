"""Play whole games in-process: dice from a seeded ``random.Random``, players as callables.

``play_game`` is the reference loop the p2p layer mirrors with real randomness: it deals each
round's dice when the round's BIDDING starts (after the opener's SETUP choices), keeps them
outside the engine, asks the seat to act for an action through its ``SeatView``, and supplies
``OpenerDraw`` / ``Reveal`` / ``Spin`` itself. Only the seat to act is asked: out-of-turn
¡Calzo! (V5) is not exercised here (the unit tests cover it).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from dudo_p2p.errors import IllegalAction, InvalidValue
from dudo_p2p.rules.actions import Action, OpenerDraw, Reveal, Spin
from dudo_p2p.rules.results import Phase
from dudo_p2p.rules.ruleset import RuleSet
from dudo_p2p.rules.state import GameState, SeatView

__all__ = ["GameRecord", "Player", "StepLimitExceeded", "play_game", "random_legal_player"]

Player = Callable[[SeatView, random.Random], Action]


class StepLimitExceeded(RuntimeError):
    """A game did not end within the step bound (a bug in a player or the engine)."""


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A finished game: the winner, rounds resolved, every applied action, the final state."""

    winner: int
    rounds: int
    actions: tuple[Action, ...]
    final: GameState


def random_legal_player(view: SeatView, rng: random.Random) -> Action:
    """A legal action drawn by ``GameState.random_legal_action`` (raises weighted 3:1 over calls,
    small raises), seeded by ``rng``. Raises ``IllegalAction`` if the seat has no action."""
    action = view.random_legal_action(rng)
    if action is None:
        raise IllegalAction(f"seat {view.seat} has no legal action now")
    return action


def _roll(rng: random.Random, n: int) -> tuple[int, ...]:
    return tuple(rng.randint(1, 6) for _ in range(n))


def play_game(
    rules: RuleSet,
    n_seats: int,
    players: Sequence[Player],
    rng: random.Random,
    *,
    max_steps: int = 100_000,
) -> GameRecord:
    """Play one game to its end; the same ``rng`` seed gives the same game.

    ``players[seat]`` is asked whenever ``seat`` is to act. Raises ``InvalidValue`` if the
    number of players is not ``n_seats``, ``IllegalAction`` if a player returns an illegal
    action, ``StepLimitExceeded`` after ``max_steps`` applied actions.
    """
    if len(players) != n_seats:
        raise InvalidValue(f"{n_seats} seats need {n_seats} players, not {len(players)}")
    state = GameState.new(rules, n_seats)
    dice: tuple[tuple[int, ...], ...] = ()
    dealt = -1
    actions: list[Action] = []
    for _ in range(max_steps):
        phase = state.phase
        if phase is Phase.OVER:
            assert state.winner is not None
            return GameRecord(state.winner, len(state.results), tuple(actions), state)
        action: Action
        if phase is Phase.DRAW_OPENER:
            action = OpenerDraw(_roll(rng, len(state.draw_seats)))
        elif phase is Phase.REVEAL:
            action = Reveal(dice)
        elif phase is Phase.SPIN:
            action = Spin(rng.randint(1, 6))
        else:
            if phase is Phase.BIDDING and state.round_no != dealt:
                dice = tuple(_roll(rng, c) for c in state.dice_counts)
                dealt = state.round_no
            seat = state.to_act
            assert seat is not None
            own = dice[seat] if phase is Phase.BIDDING else None
            others = {s: d for s, d in enumerate(dice) if s != seat} if own else None
            action = players[seat](state.view(seat, own, others=others), rng)
        state = state.apply(action)
        actions.append(action)
    raise StepLimitExceeded(f"no winner after {max_steps} actions")
