"""The default session factory of ``dudo-p2p play``: in-process tables (LocalSession).

Until the lead injects the networked factory (bot peers on loopback, the LAN), ``play`` runs
here: a :class:`~dudo_p2p.session.local.LocalSession` with dice from a seeded RNG and
:func:`simple_bot` in the other seats (bots act one action per ``step()``, so the table scene
paces them and tests drive them deterministically). Hot-seat: :class:`HotseatSeat` makes
``seat`` follow the human to act. Joining by address needs the network: ``Unavailable``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from functools import partial

from dudo_p2p.rules import Action, Calzo, Dudo, Raise, SeatView
from dudo_p2p.session import Event, PlayerInfo, Session
from dudo_p2p.session.local import LocalSession
from dudo_p2p.ui import prob
from dudo_p2p.ui.request import TableRequest, Unavailable

BOT_NAMES = ("Ana", "Bruno", "Carmen", "Diego", "Elena", "Fede")
# (doubt below this chance, calzo when the exact count is at least this likely)
_LEVELS = {"easy": (0.15, 2.0), "normal": (0.35, 0.45), "hard": (0.45, 0.35)}


def simple_bot(view: SeatView, legal: list[Action], *, rng: random.Random, level: str) -> Action:
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


class HotseatSeat:
    """Pass-and-play over a :class:`LocalSession` where every seat is human: ``seat`` follows
    the human the table waits for, so the table scene shows a hand-over screen between turns.
    Implements :class:`dudo_p2p.session.Session` (plus ``step`` for the scene's pacing)."""

    def __init__(self, table: LocalSession) -> None:
        self.table = table
        self._seat = table.seat

    @property
    def seat(self) -> int:
        return self._seat

    def view(self) -> SeatView:
        return self.table.view(self._seat)

    def legal_actions(self) -> list[Action]:
        return self.table.legal_actions(self._seat)

    def submit(self, action: Action) -> None:
        self.table.submit(action)

    def step(self) -> bool:
        """Hand the screen to the human the table waits for; True when the seat changed."""
        waiting = self.table.human_to_act()
        if waiting is None or waiting == self._seat:
            return self.table.step()
        self._seat = waiting
        return True

    def poll_events(self) -> list[Event]:
        return self.table.poll_events()

    def wait(self, timeout: float) -> None:
        self.table.wait(timeout)

    def players(self) -> tuple[PlayerInfo, ...]:
        return self.table.players()

    def close(self) -> None:
        self.table.close()


def local_factory(request: TableRequest,
                  clock: Callable[[], float] = time.monotonic) -> Session:
    """Serve bots/create/hotseat in-process with :class:`LocalSession`; ``join`` needs the
    network (``Unavailable``). ``create`` without the network: bots fill every other seat."""
    rng = random.Random(request.seed)
    if request.kind == "join":
        raise Unavailable(request.address)
    if request.kind == "hotseat":
        n = request.players
        names = tuple(f"#{i + 1}" for i in range(n))
        table = LocalSession(request.rules, n, set(range(n)), {}, rng, clock, names=names)
        return HotseatSeat(table)
    n = max(1, request.bots) + 1
    bot_rng = random.Random(rng.random())
    bots = {i: partial(simple_bot, rng=bot_rng, level=request.bot_level) for i in range(1, n)}
    names = ("", *BOT_NAMES[1:n])
    return LocalSession(request.rules, n, {0}, bots, rng, clock, names=names)
