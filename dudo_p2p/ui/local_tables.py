"""The UI's own offline table: an in-process Session over the rules engine, with simple bots.

This is the default session factory of ``dudo-p2p play`` until the lead injects the real one
(LocalSession / bot peers on loopback / the LAN). It implements the session contract with dice
from a seeded ``random.Random``; bots act one action per ``step()``, so the table scene paces
them and tests drive them deterministically. Hot-seat: every seat is human and ``seat`` follows
the seat to act. Joining by address needs the network: ``Unavailable``.
"""

from __future__ import annotations

import random

from dudo_p2p.errors import IllegalAction
from dudo_p2p.rules import (
    Action,
    Calzo,
    Dudo,
    GameState,
    OpenerDraw,
    Phase,
    Raise,
    Reveal,
    SeatView,
    Spin,
)
from dudo_p2p.session import (
    ActionTaken,
    Event,
    GameOver,
    GameStarted,
    PlayerInfo,
    RoundResolved,
    RoundStarted,
)
from dudo_p2p.ui import prob
from dudo_p2p.ui.request import TableRequest, Unavailable

BOT_NAMES = ("Ana", "Bruno", "Carmen", "Diego", "Elena", "Fede")
# (doubt below this chance, calzo when the exact count is at least this likely)
_LEVELS = {"easy": (0.15, 2.0), "normal": (0.35, 0.45), "hard": (0.45, 0.35)}


def simple_bot(view: SeatView, legal: list[Action], rng: random.Random, level: str) -> Action:
    """A plain bot: doubts a bid unlikely given its own dice, else makes the smallest raise on
    the face it holds most of. ``easy`` also plays at random half the time."""
    if level == "easy" and rng.random() < 0.5:
        return rng.choice(legal)
    doubt_below, _ = _LEVELS.get(level, _LEVELS["normal"])
    own = view.own_dice or ()
    wild = view.state.wild
    unseen = view.total_dice - len(own)
    bid = view.standing_bid
    raises = [a for a in legal if isinstance(a, Raise)]
    dudo = next((a for a in legal if isinstance(a, Dudo)), None)
    if bid is not None and dudo is not None:
        chance = prob.chance_at_least(bid.count, bid.face, own, unseen, wild=wild)
        if chance < doubt_below or not raises:
            return dudo
    if raises:
        def score(a: Raise) -> float:
            return prob.chance_at_least(a.bid.count, a.bid.face, own, unseen, wild=wild)

        best = max(raises, key=lambda a: (round(score(a), 2), -a.bid.count, a.bid.face))
        if bid is None or dudo is None or score(best) >= doubt_below:
            return best
        return dudo
    calzo = next((a for a in legal if isinstance(a, Calzo)), None)
    others = [a for a in legal if not isinstance(a, Calzo)]
    return rng.choice(others) if others else (calzo or rng.choice(legal))


class InProcessTable:
    """A whole table in this process; ``humans`` are seats the screen plays. See the module
    docstring. Implements :class:`dudo_p2p.session.Session`."""

    def __init__(self, request: TableRequest) -> None:
        if request.kind == "hotseat":
            n_seats = request.players
            self.humans = frozenset(range(n_seats))
        else:
            n_seats = request.bots + 1
            self.humans = frozenset({0})
        self.rng = random.Random(request.seed)
        self.level = request.bot_level
        self.state = GameState.new(request.rules, n_seats)
        self.dice: tuple[tuple[int, ...], ...] = ()
        self._seat = 0
        self._dealt = -1
        self._names = tuple(
            (f"#{i + 1}" if request.kind == "hotseat" else ("" if i == 0 else BOT_NAMES[i]))
            for i in range(n_seats)
        )
        self.events: list[Event] = [GameStarted(self._names, request.rules)]
        self.closed = False
        self._settle()

    @property
    def seat(self) -> int:
        return self._seat

    def _settle(self) -> None:
        """Apply environment actions (opener draw, reveal, spin) until a player must act."""
        while self.state.phase is not Phase.OVER:
            s = self.state
            if s.phase is Phase.DRAW_OPENER:
                self.state = s.apply(OpenerDraw(tuple(self.rng.randint(1, 6)
                                                      for _ in s.draw_seats)))
            elif s.phase is Phase.REVEAL:
                self.state = s.apply(Reveal(self.dice))
                self.events.append(RoundResolved(self.state.results[-1]))
            elif s.phase is Phase.SPIN:
                self.state = s.apply(Spin(self.rng.randint(1, 6)))
            elif s.phase is Phase.BIDDING and self._dealt != s.round_no:
                self._dealt = s.round_no
                self.dice = tuple(tuple(self.rng.randint(1, 6) for _ in range(n))
                                  for n in s.dice_counts)
                pal = s.palifico_round.seat if s.palifico_round is not None else None
                self.events.append(RoundStarted(s.round_no, s.opener, s.dice_counts, pal))
            else:
                return
        if self.state.winner is not None and not any(isinstance(e, GameOver)
                                                     for e in self.events):
            self.events.append(GameOver(self.state.winner))

    def _view_of(self, seat: int) -> SeatView:
        s = self.state
        dealt = s.phase in (Phase.BIDDING, Phase.SETUP) and self._dealt == s.round_no
        own = self.dice[seat] if dealt and seat < len(self.dice) else None
        others = {i: d for i, d in enumerate(self.dice) if i != seat} if dealt else {}
        return s.view(seat, own, others=others)

    def view(self) -> SeatView:
        return self._view_of(self._seat)

    def legal_actions(self) -> list[Action]:
        if self.state.to_act != self._seat:
            return []
        return self.state.legal_actions(self._seat)

    def submit(self, action: Action) -> None:
        if action not in self.legal_actions():
            raise IllegalAction(f"not allowed now: {action}")
        self._apply(action)

    def _apply(self, action: Action) -> None:
        self.state = self.state.apply(action)
        self.events.append(ActionTaken(action))
        self._settle()

    def step(self) -> bool:
        """Let one bot act; with several humans, move ``seat`` to the human to act. Returns
        True when something happened."""
        s = self.state
        if s.to_act is None:
            return False
        if s.to_act in self.humans:
            moved = self._seat != s.to_act
            self._seat = s.to_act
            return moved
        legal = s.legal_actions(s.to_act)
        self._apply(simple_bot(self._view_of(s.to_act), legal, self.rng, self.level))
        return True

    def poll_events(self) -> list[Event]:
        out, self.events = self.events, []
        return out

    def wait(self, timeout: float) -> None:
        return None  # nothing happens here between steps

    def players(self) -> tuple[PlayerInfo, ...]:
        return tuple(PlayerInfo(i, name, f"{(i * 40503 + 7) % 65536:04x}",
                                is_bot=i not in self.humans)
                     for i, name in enumerate(self._names))

    def close(self) -> None:
        self.closed = True


def local_factory(request: TableRequest) -> InProcessTable:
    """Serve bots/create/hotseat in-process; ``join`` needs the network (``Unavailable``)."""
    if request.kind == "join":
        raise Unavailable(request.address)
    if request.kind == "create":
        # Without the network nobody can sit down: the bots fill the seats, as asked for.
        request = TableRequest("bots", rules=request.rules, bots=max(1, request.bots),
                               bot_level=request.bot_level, seed=request.seed)
    return InProcessTable(request)
