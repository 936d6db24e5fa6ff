"""An in-process table: the rules engine, dice from a seeded RNG, bots in the other seats.

:class:`LocalSession` serves hot-seat play on one screen and quick tests: no network, no
cryptography, the same :class:`~dudo_p2p.session.api.Session` contract as a networked seat.
It holds every seat's dice (it *is* the whole table), so ``view(seat)`` of any seat can be
asked for — the hot-seat screen asks only for the seat whose turn it is.

Determinism: the RNG and the clock are injected; bots act only inside :meth:`step`, one
action per call, so a test decides exactly when the table moves.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping

from dudo_p2p.consensus import events as ev
from dudo_p2p.errors import IllegalAction
from dudo_p2p.rules import (
    Action,
    GameState,
    OpenerDraw,
    Phase,
    PlayerAction,
    Reveal,
    RuleSet,
    SeatView,
    Spin,
)
from dudo_p2p.session.api import Gatherer, PlainTable, PlayerInfo

BotFn = Callable[[SeatView, list[Action]], Action]


class LocalSession(PlainTable):
    """The whole table in one process; ``seat`` is the (first) human seat."""

    def __init__(
        self,
        rules: RuleSet,
        n_seats: int,
        human_seats: set[int],
        bots: Mapping[int, BotFn],
        rng: random.Random,
        clock: Callable[[], float],
        *,
        names: tuple[str, ...] | None = None,
    ) -> None:
        missing = set(range(n_seats)) - set(human_seats) - set(bots)
        if missing:
            raise IllegalAction(f"seats {sorted(missing)} have neither a human nor a bot")
        self.rules = rules
        self.humans = set(human_seats)
        self.bots = dict(bots)
        self.rng = rng
        self.clock = clock
        self.names = names or tuple(
            f"Jugador {s + 1}" if s in self.humans else f"Bot {s + 1}" for s in range(n_seats)
        )
        self._seat = min(self.humans) if self.humans else 0
        self.state = GameState.new(rules, n_seats)
        self.dice: tuple[tuple[int, ...], ...] = ()
        self._dealt = -1  # the round the dice above belong to
        self._events: list[ev.Event] = [ev.GameStarted(self.names, rules)]
        self._settle()

    # ---- Session API ----------------------------------------------------------------------

    @property
    def seat(self) -> int:
        return self._seat

    def view(self, seat: int | None = None) -> SeatView:
        """The view of ``seat`` (default: our seat); only that seat's dice are in it."""
        s = self._seat if seat is None else seat
        own = self.dice[s] if self.state.phase is Phase.BIDDING and self.dice else None
        others = {i: d for i, d in enumerate(self.dice) if i != s}
        return self.state.view(s, own, others=others)

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        s = self._seat if seat is None else seat
        if s not in self.humans or not self.state.may_act(s):
            return []
        return self.state.legal_actions(s)

    def submit(self, action: Action) -> None:
        seat = getattr(action, "seat", None)
        if seat not in self.humans:
            raise IllegalAction("that seat is not played from this screen")
        self._apply(action)

    def poll_events(self) -> list[ev.Event]:
        out, self._events = self._events, []
        return out

    @property
    def started(self) -> bool:
        """Always: an in-process table never gathers."""
        return True

    def wait(self, timeout: float) -> None:
        """Sleep ``timeout`` s: nothing runs in the background here (bots move in
        :meth:`step`), so nothing can happen meanwhile."""
        time.sleep(max(0.0, timeout))

    def gatherer(self) -> Gatherer | None:
        return None  # every seat is here from the start: no waiting room

    def talk(self, phrase: int) -> None:
        """Nobody else to hear (bots, or every player at this screen)."""

    def players(self) -> tuple[PlayerInfo, ...]:
        return tuple(
            PlayerInfo(s, self.names[s], "local", is_bot=s in self.bots)
            for s in range(self.state.n_seats)
        )

    def close(self) -> None:
        self.bots.clear()

    # ---- driving the table ----------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.state.phase is Phase.OVER

    def human_to_act(self) -> int | None:
        """The human seat the table waits for, if any (hot-seat hands the screen to it)."""
        to_act = self.state.to_act
        return to_act if to_act in self.humans else None

    def step(self) -> bool:
        """Let one bot act if a bot is to act; True when something happened."""
        to_act = self.state.to_act
        if to_act is None or to_act not in self.bots or self.over:
            return False
        bot_view = self.view(to_act)
        action = self.bots[to_act](bot_view, self.state.legal_actions(to_act))
        self._apply(action)
        return True

    def _apply(self, action: Action) -> None:
        self.state = self.state.apply(action)  # raises IllegalAction: nothing changed
        if isinstance(action, PlayerAction):
            self._events.append(ev.ActionTaken(action))
        self._settle()

    def _settle(self) -> None:
        """Run the environment's steps (draws, reveals, spins) and announce what changed."""
        results_before = len(self.state.results)
        while True:
            phase = self.state.phase
            if phase is Phase.DRAW_OPENER:
                draw = tuple(self.rng.randint(1, 6) for _ in self.state.draw_seats)
                self.state = self.state.apply(OpenerDraw(draw))
            elif phase is Phase.REVEAL:
                self.state = self.state.apply(Reveal(self.dice))
            elif phase is Phase.SPIN:
                self.state = self.state.apply(Spin(self.rng.randint(1, 6)))
            else:
                break
        for result in self.state.results[results_before:]:
            self._events.append(ev.RoundResolved(result))
        if self.state.phase is Phase.OVER and self.state.winner is not None:
            self._events.append(ev.GameOver(self.state.winner))
            return
        if self.state.phase is Phase.BIDDING and self.state.round_no != self._dealt:
            self._dealt = self.state.round_no
            self.dice = tuple(
                tuple(self.rng.randint(1, 6) for _ in range(c)) for c in self.state.dice_counts
            )
            info = self.state.palifico_round
            self._events.append(
                ev.RoundStarted(
                    self.state.round_no,
                    self.state.to_act,
                    self.state.dice_counts,
                    info.seat if info is not None else None,
                )
            )
        if self.state.to_act is not None:
            self._events.append(ev.TurnTimer(self.state.to_act, None))
