"""A minimal in-process Session test double over the rules engine (seeded, no clock).

Used where a test needs exact control (a chosen rule set, a forced palifico, a scripted
event such as a cheat) that the lead's LocalSession does not expose. Bots play
``random_legal_action`` from a seeded RNG, one action per ``step()``.
"""

from __future__ import annotations

import random

from dudo_p2p.errors import IllegalAction
from dudo_p2p.rules import Action, GameState, OpenerDraw, Phase, Reveal, RuleSet, SeatView, Spin
from dudo_p2p.session import (
    ActionTaken,
    Event,
    GameOver,
    GameStarted,
    PlayerInfo,
    RoundResolved,
    RoundStarted,
)


class FakeSession:
    """Seat ``seat`` is human; the others are random bots acting on ``step()``."""

    def __init__(self, rules: RuleSet, n_seats: int, seat: int = 0, seed: int = 1,
                 humans: frozenset[int] | None = None) -> None:
        self.rng = random.Random(seed)
        self.humans = humans if humans is not None else frozenset({seat})
        self._seat = seat
        self.state = GameState.new(rules, n_seats)
        self.dice: tuple[tuple[int, ...], ...] = ()
        self.events: list[Event] = [GameStarted(self.names(), rules)]
        self.closed = False
        self._settle()

    @property
    def seat(self) -> int:
        return self._seat

    def names(self) -> tuple[str, ...]:
        return tuple(["Ana", "Bruno", "Carmen", "Diego", "Elena", "Fede"][: self.state.n_seats])

    def _settle(self) -> None:
        """Apply environment actions until a player must act."""
        while True:
            s = self.state
            if s.phase is Phase.DRAW_OPENER:
                draw = tuple(self.rng.randint(1, 6) for _ in s.draw_seats)
                self.state = s.apply(OpenerDraw(draw))
            elif s.phase is Phase.REVEAL:
                self.state = s.apply(Reveal(self.dice))
                result = self.state.results[-1]
                self.events.append(RoundResolved(result))
                if self.state.phase is Phase.OVER:
                    assert self.state.winner is not None
                    self.events.append(GameOver(self.state.winner))
            elif s.phase is Phase.SPIN:
                self.state = s.apply(Spin(self.rng.randint(1, 6)))
            elif s.phase is Phase.BIDDING and not s.bids and self._dealt != s.round_no:
                self._dealt = s.round_no
                self.dice = tuple(tuple(self.rng.randint(1, 6) for _ in range(n))
                                  for n in s.dice_counts)
                pal = s.palifico_round.seat if s.palifico_round else None
                self.events.append(RoundStarted(s.round_no, s.opener, s.dice_counts, pal))
            else:
                return
            if self.state.phase is Phase.OVER:
                return

    _dealt = -1

    def view(self) -> SeatView:
        s = self.state
        own = self.dice[self._seat] if s.phase is Phase.BIDDING and self.dice else None
        others = {i: d for i, d in enumerate(self.dice) if i != self._seat}
        return s.view(self._seat, own, others=others)

    def legal_actions(self) -> list[Action]:
        if self.state.to_act != self._seat:
            return []
        return self.state.legal_actions(self._seat)

    def submit(self, action: Action) -> None:
        if action not in self.legal_actions():
            raise IllegalAction(f"not legal now: {action}")
        self.state = self.state.apply(action)
        self.events.append(ActionTaken(action))
        self._settle()

    def step(self) -> bool:
        """One bot action (or, with several humans, move our seat to the one to act)."""
        s = self.state
        if s.to_act is None or s.phase is Phase.OVER:
            return False
        if s.to_act in self.humans:
            self._seat = s.to_act
            return False
        action = s.random_legal_action(self.rng)
        assert action is not None
        self.state = s.apply(action)
        self.events.append(ActionTaken(action))
        self._settle()
        return True

    def poll_events(self) -> list[Event]:
        out, self.events = self.events, []
        return out

    def wait(self, timeout: float) -> None:
        return None

    def players(self) -> tuple[PlayerInfo, ...]:
        return tuple(PlayerInfo(i, n, f"{(i * 7919) % 65536:04x}", is_bot=i not in self.humans)
                     for i, n in enumerate(self.names()))

    def close(self) -> None:
        self.closed = True
