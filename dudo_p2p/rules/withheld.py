"""A round whose call is made but one hand stays hidden: does that hand matter?

When a seat withholds its dice after a call (its key never comes), the round can still be
resolved if the outcome is the same **whatever those dice are**: a bid that holds on the
other hands alone, or that fails even if every hidden die counted. :func:`resolve_without`
tries every possible hand of the hidden seat (multisets: a hand's order never matters to a
count; at most 252 hands of five dice) and returns the state after the call if every one
gives the same state, the hidden hand aside; None when the hidden dice could change
anything (who loses or gains, how many, the bank, a revolver spin to draw, the next opener).

Pure: standard library and the engine only.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations_with_replacement

from dudo_p2p.rules.actions import Reveal
from dudo_p2p.rules.results import Phase, RoundResult
from dudo_p2p.rules.state import GameState

__all__ = ["resolve_without"]


def _outcome(state: GameState) -> tuple[GameState, RoundResult]:
    """The state with the last result's dice and count set aside (what the hidden dice may
    change without changing the outcome), and that result."""
    result = state.results[-1]
    bare = replace(result, dice=(), held=0)
    return replace(state, results=(*state.results[:-1], bare)), result


def resolve_without(
    state: GameState, known: dict[int, tuple[int, ...]], hidden: int
) -> GameState | None:
    """The state after the call of ``state`` (in REVEAL) with the dice ``known`` for every
    seat in the round but ``hidden``, if the outcome does not depend on ``hidden``'s dice;
    else None. The result records ``hidden``'s hand as empty and ``held`` as the least
    count any hidden hand gives (the dice shown that counted)."""
    if state.phase is not Phase.REVEAL:
        raise ValueError("resolve_without needs a state waiting for the reveal")
    count = state.dice_counts[hidden]
    outcome: GameState | None = None
    held: int | None = None
    for hand in combinations_with_replacement(range(1, 7), count):
        dice = tuple(
            hand if s == hidden else known.get(s, ()) for s in range(state.n_seats)
        )
        after = state.apply(Reveal(dice))
        if after.phase is Phase.SPIN:
            return None  # the revolver spins on every key, the hidden one too
        bare, result = _outcome(after)
        if outcome is None:
            outcome = bare
        elif bare != outcome:
            return None
        held = result.held if held is None else min(held, result.held)
    if outcome is None or held is None:
        return None
    last = outcome.results[-1]
    shown = tuple(() if s == hidden else known.get(s, ()) for s in range(state.n_seats))
    return replace(outcome, results=(*outcome.results[:-1], replace(last, dice=shown, held=held)))
