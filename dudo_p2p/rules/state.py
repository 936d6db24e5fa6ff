"""The game as an immutable state machine: ``GameState.apply(action) -> GameState``.

Every transition is in this module (``apply`` and the ``_`` helpers under it); what is *allowed*
is asked of ``turns.py`` first, so ``apply`` either returns a new state or raises
``IllegalAction`` with the reason, leaving the old state untouched. The engine never holds
unrevealed dice: the caller deals them outside and passes them in with ``Reveal``.

Phases::

    DRAW_OPENER --OpenerDraw (unique highest)--> SETUP or BIDDING   (ties: DRAW_OPENER again)
    SETUP --ChooseDirection / ChoosePalifico (each pending choice)--> BIDDING
    BIDDING --Raise / Picado / Pasar--> BIDDING
    BIDDING --Dudo / Calzo / Matar / DoubtClaim--> REVEAL
    REVEAL --Reveal--> SPIN (V20 loss) | next round's SETUP/BIDDING | OVER
    SPIN --Spin--> next round | OVER
    any but OVER --Remove(seat)--> the round is dealt again without the seat (or OVER)

Decisions implemented here (the same words are in protocol.md §1):

- Seats are numbered 0..n-1; "clockwise" means play passes to seat + 1 (wrapping).
- ``round_no`` is 0 during the opener draw; each deal (SETUP or BIDDING of a new round) gets the
  next number, starting at 1, including a deal that replaces a voided round. The dice of a round
  are dealt when its BIDDING starts: SETUP choices (direction, palifico mode) come first.
- D2/V14: the game's first opener chooses the direction once (D2), or every round's opener does
  (V14), before the round's bids.
- A bid's count is at most the number of dice on the table (banked dice are not on the table).
- D14: the next round opens with the seat that lost or regained a die (the right caller of a
  ¡Calzo! that gained nothing under V4 counts as the one who regained); if that seat is out, the
  next live seat in the round's chosen direction (a picado reversal is not counted).
- D15: the palifico round belongs to the seat that first drops to exactly one die (by any loss,
  two dice under V15 included); that seat opens it. The right is used when the palifico round is
  resolved (a voided palifico round is dealt again as palifico) or when it is declined (V12).
- V11/V12: with V11 the choices are "open" or "closed" (plus "decline" with V12); with V12 alone
  "normal" or "decline". Declining offers no V13 obligar that round.
- V13: an opener who has not yet forced a palifico round may choose "obligar" (a palifico round
  owned by the opener, played "normal": open/closed is not offered) or "none" whenever the round
  is not already palifico; the right is used when that round is resolved.
- V10: a seat other than the palifico owner that holds exactly one die may bid another face with
  a strictly higher count; that face is then the locked face.
- V17 picado: a raise by a seat holding at least two dice, at most once per round for the whole
  table, never the opening bid; the direction is reversed for the rest of the round only.
- V18 pasar: only with exactly 5 dice in hand, never as the opening bid, once per round per
  seat; the standing bid stays with its bidder. A claim (pasar/picado) may be doubted only by
  the seat that acts right after it.
- Remove(seat) voids the round in progress (SETUP, BIDDING or REVEAL) and deals again with the
  same opener (or the next live seat if the opener left) and the same pending palifico (dropped
  if its owner left). During SPIN the resolution stands: a removed spinner's spin is dropped.
  During the opener draw the seat leaves the draw; if one seat is left in the draw it opens.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from dudo_p2p.errors import IllegalAction, InvalidValue
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
    Pasar,
    Picado,
    Raise,
    Remove,
    Reveal,
    Spin,
)
from dudo_p2p.rules.bid import Bid
from dudo_p2p.rules.resolution import judge, settle
from dudo_p2p.rules.results import PalificoInfo, Phase, RoundResult
from dudo_p2p.rules.ruleset import RuleSet
from dudo_p2p.rules.view import SeatView

__all__ = ["GameState"]


@dataclass(frozen=True, slots=True)
class GameState:
    """The public state of one game. Immutable, comparable and hashable; build with ``new``."""

    rules: RuleSet
    n_seats: int
    phase: Phase
    dice_counts: tuple[int, ...]
    alive: tuple[bool, ...]
    round_no: int
    opener: int | None
    clockwise: bool  # the direction in effect now (a picado reverses it within a round)
    to_act: int | None
    bids: tuple[Action, ...]  # this round's bidding actions, the final call included
    standing_bid: Bid | None
    standing_bidder: int | None
    palifico_round: PalificoInfo | None
    winner: int | None
    results: tuple[RoundResult, ...]
    bank: tuple[int, ...]  # V4 banked dice per seat
    bullets: tuple[int, ...]  # V20 bullets per seat
    draw_seats: tuple[int, ...]  # seats still in the opener draw (D2)
    # ---- bookkeeping the public fields do not show ----
    round_clockwise: bool  # the direction chosen for the game (D2) or this round (V14)
    direction_chosen: bool
    setup_pending: tuple[str, ...]  # "direction", "palifico", "obligar": the opener's choices
    palifico_pending: int | None  # seat owed a palifico round
    palifico_used: frozenset[int]
    obligar_used: frozenset[int]
    ever_lost: tuple[bool, ...]  # V6
    sucio: bool  # V19: this round was opened on aces
    passed: frozenset[int]  # V18: seats that passed this round
    picado_done: bool  # V17: a picado was made this round
    raises: int  # bids made this round (V15: a dudo with raises == 1 targets the opening bid)
    pending_result: RoundResult | None  # V20: the result waiting for its spins
    pending_spins: tuple[int, ...]

    # ---- construction and queries ----------------------------------------------------

    @classmethod
    def new(cls, rules: RuleSet, n_seats: int) -> GameState:
        """A game of ``n_seats`` (2..6, else ``InvalidValue``) waiting for the opener draw."""
        if not isinstance(rules, RuleSet):
            raise InvalidValue(f"rules must be a RuleSet, not {rules!r}")
        if not isinstance(n_seats, int) or isinstance(n_seats, bool) or not 2 <= n_seats <= 6:
            raise InvalidValue(f"a game has 2 to 6 seats, not {n_seats!r}")
        seats = tuple(range(n_seats))
        return cls(
            rules=rules, n_seats=n_seats, phase=Phase.DRAW_OPENER,
            dice_counts=(rules.starting_dice,) * n_seats, alive=(True,) * n_seats,
            round_no=0, opener=None, clockwise=True, to_act=None, bids=(),
            standing_bid=None, standing_bidder=None, palifico_round=None, winner=None,
            results=(), bank=(0,) * n_seats, bullets=(0,) * n_seats, draw_seats=seats,
            round_clockwise=True, direction_chosen=False, setup_pending=(),
            palifico_pending=None, palifico_used=frozenset(), obligar_used=frozenset(),
            ever_lost=(False,) * n_seats, sucio=False, passed=frozenset(), picado_done=False,
            raises=0, pending_result=None, pending_spins=(),
        )

    @property
    def total_dice(self) -> int:
        """Dice on the table (banked dice are not rolled)."""
        return sum(self.dice_counts)

    @property
    def claim(self) -> Pasar | Picado | None:
        """The pasar/picado claim the seat to act may doubt now, if any."""
        if self.bids and isinstance(self.bids[-1], Pasar | Picado):
            return self.bids[-1]
        return None

    @property
    def wild(self) -> bool:
        """Whether aces count as the bid face this round (D10, V8, V9, V19, D15)."""
        if not self.rules.aces_wild or self.sucio:
            return False
        return self.palifico_round is None or self.rules.palifico_wilds

    def needs(self) -> str | None:
        """The environment action awaited: "opener_draw", "reveal", "spin", or None."""
        return {Phase.DRAW_OPENER: "opener_draw", Phase.REVEAL: "reveal", Phase.SPIN: "spin"}.get(
            self.phase
        )

    def may_act(self, seat: int) -> bool:
        """True for the seat to act and, with V5, any seat that may call ¡Calzo! now."""
        if seat == self.to_act:
            return True
        return self.phase is Phase.BIDDING and turns.calzo_problem(self, seat) is None

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """Every player action ``seat`` (default: the seat to act) may take now."""
        return turns.legal_actions(self, self.to_act if seat is None else seat)

    def random_legal_action(self, rng: random.Random, seat: int | None = None) -> Action | None:
        """A random legal action without enumerating every bid (see ``turns``); None if none."""
        return turns.random_legal_action(self, rng, self.to_act if seat is None else seat)

    def why_illegal(self, action: Action) -> str | None:
        """None if ``action`` may be applied now, else why not (no side effects)."""
        return turns.why_illegal(self, action)

    def is_legal(self, action: Action) -> bool:
        return turns.why_illegal(self, action) is None

    def view(
        self,
        seat: int,
        own_dice: tuple[int, ...] | None,
        *,
        others: dict[int, tuple[int, ...]] | None = None,
    ) -> SeatView:
        """What ``seat`` may know. In an open palifico round (V11) a seat's own dice are hidden
        from it and ``others`` (passed in by the caller) are carried; in a closed one only the
        palifico owner keeps their dice. Outside an open round ``others`` is dropped."""
        pal = self.palifico_round
        shown: dict[int, tuple[int, ...]] = {}
        if pal is not None and pal.mode == "open":
            own_dice = None
            shown = {s: d for s, d in (others or {}).items() if s != seat}
        elif pal is not None and pal.mode == "closed" and seat != pal.seat:
            own_dice = None
        return SeatView(seat=seat, state=self, own_dice=own_dice, others=shown)

    # ---- transitions ------------------------------------------------------------------

    def apply(self, action: Action) -> GameState:
        """The state after ``action``; raises ``IllegalAction`` (saying why) if not allowed."""
        problem = turns.why_illegal(self, action)
        if problem is not None:
            raise IllegalAction(problem)
        match action:
            case OpenerDraw(values=values):
                return self._opener_draw(values)
            case Remove(seat=seat):
                return self._remove(seat)
            case Reveal(dice=dice):
                return self._reveal(dice)
            case Spin(value=value):
                return self._spin(value)
            case ChooseDirection(clockwise=clockwise):
                return replace(
                    self, clockwise=clockwise, round_clockwise=clockwise, direction_chosen=True
                )._setup_done()
            case ChoosePalifico(seat=seat, mode=mode):
                return self._choose_palifico(seat, mode)
            case Raise(seat=seat, bid=bid):
                return self._bid(action, seat, bid, reverse=False)
            case Picado(seat=seat, bid=bid):
                return self._bid(action, seat, bid, reverse=True)
            case Pasar(seat=seat):
                return replace(
                    self, bids=(*self.bids, action), passed=self.passed | {seat},
                    to_act=self._next_live(seat, self.clockwise),
                )
            case Dudo() | Calzo() | Matar() | DoubtClaim():
                return replace(self, phase=Phase.REVEAL, to_act=None, bids=(*self.bids, action))
        raise IllegalAction(f"not an action: {action!r}")  # unreachable after why_illegal

    def _next_live(self, seat: int, clockwise: bool, alive: tuple[bool, ...] | None = None) -> int:
        alive = self.alive if alive is None else alive
        step = 1 if clockwise else -1
        for k in range(1, self.n_seats + 1):
            s = (seat + k * step) % self.n_seats
            if alive[s]:
                return s
        return seat  # unreachable: callers keep at least one seat alive

    def _start_round(self, opener: int) -> GameState:
        """Deal a new round (new number) opened by ``opener`` (or the palifico owner)."""
        rules = self.rules
        owner = self.palifico_pending
        pending: list[str] = []
        palifico: PalificoInfo | None = None
        if owner is not None:
            opener = owner  # D15: the one-die player opens their palifico round
        if not self.direction_chosen or rules.direction_each_round:
            pending.append("direction")
        if owner is not None:
            if rules.palifico_open_closed or rules.palifico_optional:
                pending.append("palifico")
            else:
                palifico = PalificoInfo(owner, "normal")
        elif rules.obligar_anytime and opener not in self.obligar_used:
            pending.append("obligar")
        return replace(
            self, phase=Phase.SETUP if pending else Phase.BIDDING, round_no=self.round_no + 1,
            opener=opener, to_act=opener, clockwise=self.round_clockwise, bids=(),
            standing_bid=None, standing_bidder=None, palifico_round=palifico,
            setup_pending=tuple(pending), sucio=False, passed=frozenset(), picado_done=False,
            raises=0, draw_seats=(),
        )

    def _setup_done(self) -> GameState:
        rest = self.setup_pending[1:]
        return replace(self, setup_pending=rest, phase=Phase.SETUP if rest else Phase.BIDDING)

    def _choose_palifico(self, seat: int, mode: str) -> GameState:
        state = self
        if mode in ("normal", "open", "closed", "obligar"):
            state = replace(self, palifico_round=PalificoInfo(seat, mode))
        elif mode == "decline":  # V12: the right is used up by declining it
            state = replace(
                self, palifico_pending=None, palifico_used=self.palifico_used | {seat}
            )
        return state._setup_done()

    def _opener_draw(self, values: tuple[int, ...]) -> GameState:
        top = max(values)
        tied = tuple(s for s, v in zip(self.draw_seats, values, strict=True) if v == top)
        if len(tied) > 1:
            return replace(self, draw_seats=tied)  # D2: the tied seats roll again
        return self._start_round(tied[0])

    def _bid(self, action: Raise | Picado, seat: int, bid: Bid, *, reverse: bool) -> GameState:
        palifico = self.palifico_round
        if palifico is not None and palifico.face != bid.face:
            palifico = replace(palifico, face=bid.face)  # the opening (or a V10 change) locks
        opening_sucio = (
            self.standing_bid is None and bid.face == 1 and palifico is None
            and self.rules.juego_sucio
        )
        clockwise = not self.clockwise if reverse else self.clockwise
        return replace(
            self, bids=(*self.bids, action), standing_bid=bid, standing_bidder=seat,
            palifico_round=palifico, sucio=self.sucio or opening_sucio, clockwise=clockwise,
            picado_done=self.picado_done or reverse, raises=self.raises + 1,
            to_act=self._next_live(seat, clockwise),
        )

    def _reveal(self, dice: tuple[tuple[int, ...], ...]) -> GameState:
        call = self.bids[-1]
        claim = self.bids[-2] if isinstance(call, DoubtClaim) else None
        assert isinstance(claim, Pasar | Picado | None)
        verdict = judge(
            call, standing_bid=self.standing_bid, standing_bidder=self.standing_bidder,
            claim=claim, dice=dice, wild=self.wild, opening_bid_stands=self.raises == 1,
            rules=self.rules,
        )
        s = settle(
            verdict, self.rules, dice_counts=self.dice_counts, bank=self.bank,
            bullets=self.bullets, ever_lost=self.ever_lost,
        )
        result = RoundResult(
            round_no=self.round_no, kind=verdict.kind, caller=verdict.caller,
            target=verdict.target, bid=verdict.bid, held=verdict.held, dice=dice,
            losses=s.losses, gains=s.gains, banked=s.banked, eliminated=s.eliminated,
            shots=(), next_opener=None,
        )
        state = replace(
            self, dice_counts=s.dice_counts, bank=s.bank, bullets=s.bullets,
            ever_lost=s.ever_lost, alive=tuple(c > 0 for c in s.dice_counts),
        )
        if s.spin_seat is not None:
            return replace(
                state, phase=Phase.SPIN, pending_result=result, pending_spins=(s.spin_seat,)
            )
        return state._finish_round(result, s.pivot)

    def _spin(self, value: int) -> GameState:
        seat = self.pending_spins[0]
        result = self.pending_result
        assert result is not None
        fired = value <= self.bullets[seat]
        counts, eliminated = self.dice_counts, result.eliminated
        if fired:  # V20: the bullet eliminates the seat
            counts = tuple(0 if s == seat else c for s, c in enumerate(counts))
            eliminated = (*eliminated, seat)
        result = replace(result, shots=(*result.shots, (seat, fired)), eliminated=eliminated)
        state = replace(
            self, dice_counts=counts, alive=tuple(c > 0 for c in counts),
            pending_spins=self.pending_spins[1:], pending_result=result,
        )
        if state.pending_spins:
            return state
        return state._finish_round(result, seat)

    def _finish_round(self, result: RoundResult, pivot: int) -> GameState:
        """Record ``result``; the game ends, or the next round starts (D14, D15, D16)."""
        used, obligar, pending = self.palifico_used, self.obligar_used, self.palifico_pending
        palifico = self.palifico_round
        if palifico is not None and palifico.mode == "obligar":
            obligar = obligar | {palifico.seat}
        elif palifico is not None:
            used, pending = used | {palifico.seat}, None
        live = [s for s in range(self.n_seats) if self.alive[s]]
        if len(live) == 1:
            return replace(
                self, phase=Phase.OVER, to_act=None, winner=live[0], results=(*self.results,
                result), palifico_used=used, obligar_used=obligar, palifico_pending=pending,
                pending_result=None, pending_spins=(),
            )
        opener = pivot if self.alive[pivot] else self._next_live(pivot, self.round_clockwise)
        if self.rules.palifico:
            for seat in result.losses:  # D15: first drop to exactly one die
                if self.dice_counts[seat] == 1 and seat not in used:
                    pending = seat
        result = replace(result, next_opener=pending if pending is not None else opener)
        state = replace(
            self, results=(*self.results, result), palifico_used=used, obligar_used=obligar,
            palifico_pending=pending, pending_result=None, pending_spins=(),
        )
        return state._start_round(opener)

    def _remove(self, seat: int) -> GameState:
        counts = tuple(0 if s == seat else c for s, c in enumerate(self.dice_counts))
        alive = tuple(c > 0 for c in counts)
        state = replace(
            self, dice_counts=counts, alive=alive,
            palifico_pending=None if self.palifico_pending == seat else self.palifico_pending,
        )
        live = [s for s in range(self.n_seats) if alive[s]]
        if len(live) == 1:
            # A result waiting for its spin already happened: keep it in the record.
            done = (self.pending_result,) if self.pending_result is not None else ()
            return replace(
                state, phase=Phase.OVER, winner=live[0], to_act=None, draw_seats=(),
                results=(*self.results, *done), pending_result=None, pending_spins=(),
            )
        if self.phase is Phase.DRAW_OPENER:
            draw = tuple(s for s in self.draw_seats if s != seat)
            if len(draw) == 1:
                return replace(state, draw_seats=draw)._start_round(draw[0])
            return replace(state, draw_seats=draw)
        if self.phase is Phase.SPIN:
            spins = tuple(s for s in self.pending_spins if s != seat)
            state = replace(state, pending_spins=spins)
            if spins:
                return state
            assert self.pending_result is not None
            return state._finish_round(self.pending_result, self.pending_spins[0])
        opener = self.opener if self.opener is not None else seat
        if not alive[opener]:
            opener = self._next_live(opener, self.round_clockwise, alive)
        return state._start_round(opener)
