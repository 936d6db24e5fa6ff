"""Every transition of the game: ``apply(state, action)`` and the ``_`` helpers under it.

What is *allowed* is asked of ``turns`` first, so ``apply`` either returns a new state or raises
``IllegalAction`` with the reason, leaving the old state untouched. The functions are generic
over :class:`~dudo_p2p.rules.fields.GameFields`: ``dataclasses.replace`` keeps the type, so a
:class:`~dudo_p2p.rules.state.GameState` in is a ``GameState`` out. The phases and the
decisions they implement are in the docstring of :mod:`~dudo_p2p.rules.state`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TypeVar

from dudo_p2p.errors import IllegalAction
from dudo_p2p.rules import turns
from dudo_p2p.rules.actions import (
    Action,
    Calzo,
    ChooseDirection,
    ChoosePalifico,
    DoubtClaim,
    Dudo,
    Matar,
    OpenerDraw,
    PalificoMode,
    Pasar,
    Picado,
    Raise,
    Remove,
    Reveal,
    Spin,
)
from dudo_p2p.rules.bid import Bid
from dudo_p2p.rules.fields import GameFields
from dudo_p2p.rules.resolution import judge, settle
from dudo_p2p.rules.results import PalificoInfo, Phase, RoundResult

__all__ = ["apply"]

S = TypeVar("S", bound=GameFields)


def apply(game: S, action: Action) -> S:
    """The state after ``action``; raises ``IllegalAction`` (saying why) if not allowed."""
    problem = turns.why_illegal(game, action)
    if problem is not None:
        raise IllegalAction(problem)
    match action:
        case OpenerDraw(values=values):
            return _opener_draw(game, values)
        case Remove(seat=seat):
            return _remove(game, seat)
        case Reveal(dice=dice):
            return _reveal(game, dice)
        case Spin(value=value):
            return _spin(game, value)
        case ChooseDirection(clockwise=clockwise):
            return _setup_done(replace(
                game, clockwise=clockwise, round_clockwise=clockwise, direction_chosen=True
            ))
        case ChoosePalifico(seat=seat, mode=mode):
            return _choose_palifico(game, seat, mode)
        case Raise(seat=seat, bid=bid):
            return _bid(game, action, seat, bid, reverse=False)
        case Picado(seat=seat, bid=bid):
            return _bid(game, action, seat, bid, reverse=True)
        case Pasar(seat=seat):
            return replace(
                game, bids=(*game.bids, action), passed=game.passed | {seat},
                to_act=_next_live(game, seat, game.clockwise),
            )
        case Dudo() | Calzo() | Matar() | DoubtClaim():
            return replace(game, phase=Phase.REVEAL, to_act=None, bids=(*game.bids, action))
    raise IllegalAction(f"not an action: {action!r}")  # unreachable after why_illegal


def _next_live(
    game: GameFields, seat: int, clockwise: bool, alive: tuple[bool, ...] | None = None
) -> int:
    alive = game.alive if alive is None else alive
    step = 1 if clockwise else -1
    for k in range(1, game.n_seats + 1):
        s = (seat + k * step) % game.n_seats
        if alive[s]:
            return s
    return seat  # unreachable: callers keep at least one seat alive


def _start_round(game: S, opener: int) -> S:
    """Deal a new round (new number) opened by ``opener`` (or the palifico owner)."""
    rules = game.rules
    owner = game.palifico_pending
    pending: list[str] = []
    palifico: PalificoInfo | None = None
    if owner is not None:
        opener = owner  # D15: the one-die player opens their palifico round
    if not game.direction_chosen or rules.direction_each_round:
        pending.append("direction")
    if owner is not None:
        if rules.palifico_open_closed or rules.palifico_optional:
            pending.append("palifico")
        else:
            palifico = PalificoInfo(owner, PalificoMode.NORMAL)
    elif rules.obligar_anytime and opener not in game.obligar_used:
        pending.append("obligar")
    return replace(
        game, phase=Phase.SETUP if pending else Phase.BIDDING, round_no=game.round_no + 1,
        opener=opener, to_act=opener, clockwise=game.round_clockwise, bids=(),
        standing_bid=None, standing_bidder=None, palifico_round=palifico,
        setup_pending=tuple(pending), sucio=False, passed=frozenset(), picado_done=False,
        raises=0, draw_seats=(),
    )


def _setup_done(game: S) -> S:
    rest = game.setup_pending[1:]
    return replace(game, setup_pending=rest, phase=Phase.SETUP if rest else Phase.BIDDING)


def _choose_palifico(game: S, seat: int, mode: PalificoMode) -> S:
    state = game
    if mode in (PalificoMode.NORMAL, PalificoMode.OPEN, PalificoMode.CLOSED,
                PalificoMode.OBLIGAR):
        state = replace(game, palifico_round=PalificoInfo(seat, mode))
    elif mode is PalificoMode.DECLINE:  # V12: the right is used up by declining it
        state = replace(
            game, palifico_pending=None, palifico_used=game.palifico_used | {seat}
        )
    return _setup_done(state)


def _opener_draw(game: S, values: tuple[int, ...]) -> S:
    top = max(values)
    tied = tuple(s for s, v in zip(game.draw_seats, values, strict=True) if v == top)
    if len(tied) > 1:
        return replace(game, draw_seats=tied)  # D2: the tied seats roll again
    return _start_round(game, tied[0])


def _bid(game: S, action: Raise | Picado, seat: int, bid: Bid, *, reverse: bool) -> S:
    palifico = game.palifico_round
    if palifico is not None and palifico.face != bid.face:
        palifico = replace(palifico, face=bid.face)  # the opening (or a V10 change) locks
    opening_sucio = (
        game.standing_bid is None and bid.face == 1 and palifico is None
        and game.rules.juego_sucio
    )
    clockwise = not game.clockwise if reverse else game.clockwise
    return replace(
        game, bids=(*game.bids, action), standing_bid=bid, standing_bidder=seat,
        palifico_round=palifico, sucio=game.sucio or opening_sucio, clockwise=clockwise,
        picado_done=game.picado_done or reverse, raises=game.raises + 1,
        to_act=_next_live(game, seat, clockwise),
    )


def _reveal(game: S, dice: tuple[tuple[int, ...], ...]) -> S:
    call = game.bids[-1]
    claim = game.bids[-2] if isinstance(call, DoubtClaim) else None
    assert isinstance(claim, Pasar | Picado | None)
    verdict = judge(
        call, standing_bid=game.standing_bid, standing_bidder=game.standing_bidder,
        claim=claim, dice=dice, wild=game.wild, opening_bid_stands=game.raises == 1,
        rules=game.rules,
    )
    s = settle(
        verdict, game.rules, dice_counts=game.dice_counts, bank=game.bank,
        bullets=game.bullets, ever_lost=game.ever_lost,
    )
    result = RoundResult(
        round_no=game.round_no, kind=verdict.kind, caller=verdict.caller,
        target=verdict.target, bid=verdict.bid, held=verdict.held, dice=dice,
        losses=s.losses, gains=s.gains, banked=s.banked, eliminated=s.eliminated,
        shots=(), next_opener=None,
    )
    state = replace(
        game, dice_counts=s.dice_counts, bank=s.bank, bullets=s.bullets,
        ever_lost=s.ever_lost, alive=tuple(c > 0 for c in s.dice_counts),
    )
    if s.spin_seat is not None:
        return replace(
            state, phase=Phase.SPIN, pending_result=result, pending_spins=(s.spin_seat,)
        )
    return _finish_round(state, result, s.pivot)


def _spin(game: S, value: int) -> S:
    seat = game.pending_spins[0]
    result = game.pending_result
    assert result is not None
    fired = value <= game.bullets[seat]
    counts, eliminated = game.dice_counts, result.eliminated
    if fired:  # V20: the bullet eliminates the seat
        counts = tuple(0 if s == seat else c for s, c in enumerate(counts))
        eliminated = (*eliminated, seat)
    result = replace(result, shots=(*result.shots, (seat, fired)), eliminated=eliminated)
    state = replace(
        game, dice_counts=counts, alive=tuple(c > 0 for c in counts),
        pending_spins=game.pending_spins[1:], pending_result=result,
    )
    if state.pending_spins:
        return state
    return _finish_round(state, result, seat)


def _finish_round(game: S, result: RoundResult, pivot: int) -> S:
    """Record ``result``; the game ends, or the next round starts (D14, D15, D16)."""
    used, obligar, pending = game.palifico_used, game.obligar_used, game.palifico_pending
    palifico = game.palifico_round
    if palifico is not None and palifico.mode == "obligar":
        obligar = obligar | {palifico.seat}
    elif palifico is not None:
        used, pending = used | {palifico.seat}, None
    live = [s for s in range(game.n_seats) if game.alive[s]]
    if len(live) == 1:
        return replace(
            game, phase=Phase.OVER, to_act=None, winner=live[0], results=(*game.results,
            result), palifico_used=used, obligar_used=obligar, palifico_pending=pending,
            pending_result=None, pending_spins=(),
        )
    opener = pivot if game.alive[pivot] else _next_live(game, pivot, game.round_clockwise)
    if game.rules.palifico:
        for seat in result.losses:  # D15: first drop to exactly one die
            if game.dice_counts[seat] == 1 and seat not in used:
                pending = seat
    result = replace(result, next_opener=pending if pending is not None else opener)
    state = replace(
        game, results=(*game.results, result), palifico_used=used, obligar_used=obligar,
        palifico_pending=pending, pending_result=None, pending_spins=(),
    )
    return _start_round(state, opener)


def _remove(game: S, seat: int) -> S:
    counts = tuple(0 if s == seat else c for s, c in enumerate(game.dice_counts))
    alive = tuple(c > 0 for c in counts)
    state = replace(
        game, dice_counts=counts, alive=alive,
        palifico_pending=None if game.palifico_pending == seat else game.palifico_pending,
    )
    live = [s for s in range(game.n_seats) if alive[s]]
    if len(live) == 1:
        # A result waiting for its spin already happened: keep it in the record.
        done = (game.pending_result,) if game.pending_result is not None else ()
        return replace(
            state, phase=Phase.OVER, winner=live[0], to_act=None, draw_seats=(),
            results=(*game.results, *done), pending_result=None, pending_spins=(),
        )
    if game.phase is Phase.DRAW_OPENER:
        draw = tuple(s for s in game.draw_seats if s != seat)
        if len(draw) == 1:
            return _start_round(replace(state, draw_seats=draw), draw[0])
        return replace(state, draw_seats=draw)
    if game.phase is Phase.SPIN:
        spins = tuple(s for s in game.pending_spins if s != seat)
        state = replace(state, pending_spins=spins)
        if spins:
            return state
        assert game.pending_result is not None
        return _finish_round(state, game.pending_result, game.pending_spins[0])
    opener = game.opener if game.opener is not None else seat
    if not alive[opener]:
        opener = _next_live(game, opener, game.round_clockwise, alive)
    return _start_round(state, opener)
