"""What may be done now: ``why_illegal``, ``legal_actions`` and ``random_legal_action``.

Functions of a game state (its fields: :class:`~dudo_p2p.rules.fields.GameFields`) with no
side effects. ``legal_actions`` is built from the same
checks ``why_illegal`` makes (``raise_problem``, ``calzo_problem``, ``bidding_problem``), so the
two cannot drift apart; the property tests hold them to it.

Decisions implemented here (the same words are in protocol.md §1):

- V3: ¡Calzo! is allowed when 2 × count ≥ the dice on the table, with no rounding (15 dice: a
  count of 8 or more).
- V6: "already lost a die" means lost at least one die earlier in this game, even if regained
  since.
- V5: any live seat but the standing bidder may call ¡Calzo! while a bid stands, subject to V3,
  V4 "forbidden" and V6; which of several racing calls counts is decided by the consensus layer.
- A player never doubts, calls or kills their own bid: when passes bring the turn back to the
  standing bidder, they raise, doubt the pass or pass.
"""

from __future__ import annotations

import random

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
from dudo_p2p.rules.legality import RaiseContext, min_raise, why_not_raise
from dudo_p2p.rules.results import Phase

__all__ = [
    "bidding_problem",
    "calzo_problem",
    "legal_actions",
    "palifico_modes",
    "raise_problem",
    "random_legal_action",
    "why_illegal",
]

_ACTION_TYPES = (Raise, Dudo, Calzo, Matar, Pasar, Picado, DoubtClaim, ChooseDirection,
                 ChoosePalifico, OpenerDraw, Reveal, Spin, Remove)
_WAITS = {Phase.DRAW_OPENER: "the opener draw", Phase.REVEAL: "the dice to be revealed",
          Phase.SPIN: "the revolver's spin", Phase.OVER: "nothing: the game is over"}


def palifico_modes(state: GameFields) -> tuple[PalificoMode, ...]:
    """The modes the opener may choose for the pending setup choice ("palifico"/"obligar")."""
    if not state.setup_pending:
        return ()
    rules = state.rules
    if state.setup_pending[0] == "obligar":
        return (PalificoMode.OBLIGAR, PalificoMode.NONE)
    if state.setup_pending[0] != "palifico":
        return ()
    modes = ((PalificoMode.OPEN, PalificoMode.CLOSED) if rules.palifico_open_closed
             else (PalificoMode.NORMAL,))
    return (*modes, PalificoMode.DECLINE) if rules.palifico_optional else modes


def why_illegal(state: GameFields, action: Action) -> str | None:
    """None if ``action`` may be applied to ``state`` now, else the reason in plain words."""
    phase = state.phase
    if not isinstance(action, _ACTION_TYPES):
        return f"not an action: {action!r}"
    if phase is Phase.OVER:
        return "the game is over"
    match action:
        case OpenerDraw(values=values):
            if phase is not Phase.DRAW_OPENER:
                return "the opener has already been drawn"
            if len(values) != len(state.draw_seats):
                return f"the opener draw needs one die for each of seats {list(state.draw_seats)}"
            return None
        case Reveal(dice=dice):
            if phase is not Phase.REVEAL:
                return "no call is waiting for the dice to be revealed"
            if len(dice) != state.n_seats:
                return f"a reveal shows the dice of all {state.n_seats} seats"
            for seat, hand in enumerate(dice):
                if len(hand) != state.dice_counts[seat]:
                    return f"seat {seat} holds {state.dice_counts[seat]} dice, not {len(hand)}"
            return None
        case Spin():
            return None if phase is Phase.SPIN else "no revolver is waiting to be spun"
        case Remove(seat=seat):
            return None if _in_game(state, seat) else f"seat {seat} is not in the game"
    if not _in_game(state, action.seat):
        return f"seat {action.seat} is not in the game"
    if phase is Phase.SETUP:
        return _setup_problem(state, action)
    if phase is Phase.BIDDING:
        return bidding_problem(state, action)
    return f"no player acts now: the game waits for {_WAITS[phase]}"


def _in_game(state: GameFields, seat: int) -> bool:
    return 0 <= seat < state.n_seats and state.alive[seat]


def _setup_problem(state: GameFields, action: Action) -> str | None:
    if action.seat != state.to_act:  # type: ignore[union-attr]  # env actions returned earlier
        return f"seat {state.to_act} makes the opener's choices now"
    choice = state.setup_pending[0]
    if choice == "direction":
        if isinstance(action, ChooseDirection):
            return None
        return "the opener first chooses the direction of play"
    modes = palifico_modes(state)
    if isinstance(action, ChoosePalifico):
        if action.mode in modes:
            return None
        return f"the palifico choice now is one of {', '.join(modes)}"
    what = "whether to force a palifico round" if choice == "obligar" else "the palifico mode"
    return f"the opener first chooses {what} ({', '.join(modes)})"


def bidding_problem(state: GameFields, action: Action) -> str | None:
    """Why a player action is not allowed in BIDDING (the seat is known to be in the game)."""
    rules = state.rules
    if isinstance(action, Calzo):
        return calzo_problem(state, action.seat)
    if isinstance(action, ChooseDirection | ChoosePalifico):
        return "the opener's choices are made before the bidding"
    seat = action.seat  # type: ignore[union-attr]  # env actions never reach here
    if seat != state.to_act:
        return f"it is seat {state.to_act}'s turn"
    bid, bidder = state.standing_bid, state.standing_bidder
    match action:
        case Raise(bid=new):
            return raise_problem(state, seat, new)
        case Picado(bid=new):
            if not rules.picado:
                return "picado is not played at this table (V17)"
            if state.picado_done:
                return "there has already been a picado this round"
            if bid is None:
                return "a picado raises a standing bid: the opening bid cannot be one"
            if state.dice_counts[seat] < 2:
                return "a picado claims two aces: you hold fewer than two dice"
            return raise_problem(state, seat, new)
        case Dudo() | Matar():
            if isinstance(action, Matar) and not rules.matar:
                return "matar is not played at this table (V16)"
            if bid is None:
                return "there is no bid yet: the opener must bid"
            if bidder == seat:
                return "you cannot challenge your own bid"
            return None
        case Pasar():
            if not rules.pasar:
                return "pasar is not played at this table (V18)"
            if bid is None:
                return "the opener must bid: there is nothing to pass on"
            if state.dice_counts[seat] != 5:
                return "only a player holding five dice may pass"
            if seat in state.passed:
                return "you have already passed this round"
            if rules.pasar_no_consecutive and isinstance(state.claim, Pasar):
                return "no pass right after another pass"
            return None
        case DoubtClaim():
            if state.claim is None:
                return "there is no pass or picado to doubt"
            return None
    return "that action is not a bidding action"


def raise_problem(state: GameFields, seat: int, bid: Bid) -> str | None:
    """Why ``seat`` may not bid ``bid`` now (the turn is known to be theirs)."""
    total = state.total_dice
    if bid.count > total:
        return f"there are only {total} dice on the table: the highest count is {total}"
    return why_not_raise(state.standing_bid, bid, raise_context(state, seat))


def raise_context(state: GameFields, seat: int) -> RaiseContext:
    """What a raise by ``seat`` is judged against now: the rules, a palifico or sucio round,
    and V10 (a one-die seat other than the palifico owner may change the face)."""
    palifico = state.palifico_round
    face_change = (
        palifico is not None and state.rules.palifico_face_change and seat != palifico.seat
        and state.dice_counts[seat] == 1
    )
    return RaiseContext(state.rules, palifico=palifico is not None, sucio=state.sucio,
                        face_change=face_change)


def calzo_problem(state: GameFields, seat: int) -> str | None:
    """Why ``seat`` may not call ¡Calzo! now (D11, D13, V3–V7), or None."""
    rules = state.rules
    if state.phase is not Phase.BIDDING or not _in_game(state, seat):
        return "nobody may call ¡Calzo! now"
    if not rules.calza:
        return "¡Calzo! is not played at this table (V7)"
    bid = state.standing_bid
    if bid is None:
        return "there is no bid yet: the opener must bid"
    if seat == state.standing_bidder:
        return "you cannot call ¡Calzo! on your own bid"
    if seat != state.to_act and not rules.calza_anyone:
        return f"it is seat {state.to_act}'s turn"
    total = state.total_dice
    if rules.calza_threshold and 2 * bid.count < total:
        return (
            f"¡Calzo! needs a bid of at least half the {total} dice on the table: "
            f"a count of {(total + 1) // 2} or more (V3)"
        )
    if rules.calza_full_hand == "forbidden" and state.dice_counts[seat] >= rules.starting_dice:
        return "a player holding all their starting dice may not call ¡Calzo! (V4)"
    if rules.calza_after_loss and not state.ever_lost[seat]:
        return "only a player who has already lost a die may call ¡Calzo! (V6)"
    return None


def _raise_floors(state: GameFields, seat: int) -> list[Bid]:
    """Per face, the lowest legal bid that fits on the table."""
    context = raise_context(state, seat)
    total = state.total_dice
    floors = []
    for face in range(1, 7):
        low = min_raise(state.standing_bid, face, context)
        if low is not None and low.count <= total:
            floors.append(low)
    return floors


def _calls(state: GameFields, seat: int) -> list[Action]:
    """The non-raise bidding actions ``seat`` may take now."""
    options: list[Action] = []
    if seat == state.to_act:
        for action in (Dudo(seat), Matar(seat), Pasar(seat), DoubtClaim(seat)):
            if bidding_problem(state, action) is None:
                options.append(action)
    if calzo_problem(state, seat) is None:
        options.append(Calzo(seat))
    return options


def _picado_allowed(state: GameFields, seat: int) -> bool:
    return (
        state.rules.picado and not state.picado_done and state.standing_bid is not None
        and state.dice_counts[seat] >= 2
    )


def legal_actions(state: GameFields, seat: int | None) -> list[Action]:
    """Every player action ``seat`` may take now (all raises up to the dice on the table)."""
    if seat is None or not _in_game(state, seat):
        return []
    if state.phase is Phase.SETUP:
        if seat != state.to_act:
            return []
        if state.setup_pending[0] == "direction":
            return [ChooseDirection(seat, True), ChooseDirection(seat, False)]
        return [ChoosePalifico(seat, mode) for mode in palifico_modes(state)]
    if state.phase is not Phase.BIDDING:
        return []
    actions: list[Action] = []
    if seat == state.to_act:
        picado = _picado_allowed(state, seat)
        for low in _raise_floors(state, seat):
            for count in range(low.count, state.total_dice + 1):
                bid = Bid(count, low.face)
                actions.append(Raise(seat, bid))
                if picado:
                    actions.append(Picado(seat, bid))
    return actions + _calls(state, seat)


def random_legal_action(state: GameFields, rng: random.Random, seat: int | None) -> Action | None:
    """A random legal action for ``seat``, cheap enough for fast simulation.

    Setup choices are uniform. In bidding, a raise is chosen with probability 3/4 when one
    exists (a random face among those that fit, a count at most two above its floor; one raise
    in ten is a picado where allowed), otherwise a uniform pick among the calls. Keeping raises
    small and calls frequent makes random games end quickly. None if ``seat`` has no action.
    """
    if state.phase is not Phase.BIDDING or seat is None:
        options = legal_actions(state, seat)
        return rng.choice(options) if options else None
    calls = _calls(state, seat)
    floors = _raise_floors(state, seat) if seat == state.to_act else []
    if floors and (not calls or rng.random() < 0.75):
        low = rng.choice(floors)
        count = rng.randint(low.count, min(low.count + 2, state.total_dice))
        bid = Bid(count, low.face)
        if _picado_allowed(state, seat) and rng.random() < 0.1:
            return Picado(seat, bid)
        return Raise(seat, bid)
    return rng.choice(calls) if calls else None
