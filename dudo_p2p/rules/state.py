"""The game as an immutable state machine: ``GameState.apply(action) -> GameState``.

``GameState`` is the fields (``fields.py``) with the questions (what may be done now:
``turns.py``) and the transitions (``transitions.py``: ``apply`` either returns a new state or
raises ``IllegalAction`` with the reason, leaving the old state untouched) as methods, and
``SeatView``, what one seat may know. The engine never holds unrevealed dice: the caller deals
them outside and passes them in with ``Reveal``.

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
from collections.abc import Mapping
from dataclasses import dataclass, field

from dudo_p2p.errors import InvalidValue
from dudo_p2p.rules import transitions, turns
from dudo_p2p.rules.actions import Action
from dudo_p2p.rules.bid import Bid
from dudo_p2p.rules.fields import GameFields
from dudo_p2p.rules.results import PalificoInfo, Phase
from dudo_p2p.rules.ruleset import RuleSet

__all__ = ["GameState", "SeatView"]


@dataclass(frozen=True, slots=True)
class GameState(GameFields):
    """The public state of one game. Immutable, comparable and hashable; build with ``new``."""

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
        return transitions.apply(self, action)


@dataclass(frozen=True, slots=True, eq=False)
class SeatView:
    """One seat's knowledge (:meth:`GameState.view` builds it): ``state`` (public),
    ``own_dice`` (None: not visible to the seat now), ``others`` (seat -> dice, only in an
    open palifico round). The public state holds no hidden information, so a view is that
    state, plus the seat's own dice when it may see them, plus, in an open palifico round
    (V11), the other seats' dice the caller passed in."""

    seat: int
    state: GameState
    own_dice: tuple[int, ...] | None
    others: Mapping[int, tuple[int, ...]] = field(default_factory=dict)

    @property
    def rules(self) -> RuleSet:
        return self.state.rules

    @property
    def phase(self) -> Phase:
        return self.state.phase

    @property
    def to_act(self) -> int | None:
        return self.state.to_act

    @property
    def is_my_turn(self) -> bool:
        return self.state.to_act == self.seat

    @property
    def dice_counts(self) -> tuple[int, ...]:
        return self.state.dice_counts

    @property
    def total_dice(self) -> int:
        return self.state.total_dice

    @property
    def standing_bid(self) -> Bid | None:
        return self.state.standing_bid

    @property
    def standing_bidder(self) -> int | None:
        return self.state.standing_bidder

    @property
    def palifico_round(self) -> PalificoInfo | None:
        return self.state.palifico_round

    @property
    def round_no(self) -> int:
        return self.state.round_no

    def legal_actions(self) -> list[Action]:
        """Every action this seat may take now (legality never depends on hidden dice)."""
        return self.state.legal_actions(self.seat)

    def may_act(self) -> bool:
        return self.state.may_act(self.seat)

    def random_legal_action(self, rng: random.Random) -> Action | None:
        return self.state.random_legal_action(rng, self.seat)
