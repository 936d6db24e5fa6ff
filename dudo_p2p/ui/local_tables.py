"""In-process tables (LocalSession) for hot-seat play, reproducible screenshots and tests.

A :class:`~dudo_p2p.session.local.LocalSession` with dice from a seeded RNG and bots made by
the injected ``bot_maker`` (the CLI passes ``dudo_p2p.bots``; bots act one action per
``step()``, so the table scene paces them and tests drive them deterministically).
Hot-seat: :class:`HotseatSeat` makes ``seat`` follow the human to act. Joining by address
needs the network: ``Unavailable``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from dudo_p2p.rules import Action, SeatView
from dudo_p2p.session import Event, Gatherer, PlainTable, PlayerInfo, Session
from dudo_p2p.session.local import LocalSession
from dudo_p2p.ui.request import TableRequest, Unavailable, hotseat_names

BOT_NAMES = ("Ana", "Bruno", "Carmen", "Diego", "Elena", "Fede")

BotFn = Callable[[SeatView, list[Action]], Action]
# (level, rng) -> the bot of that level; the CLI passes dudo_p2p.bots (the UI may not import it)
BotMaker = Callable[[str, random.Random], BotFn]


class HotseatSeat(PlainTable):
    """Pass-and-play over a :class:`LocalSession` where every seat is human: ``seat`` follows
    the human the table waits for, so the table scene shows a hand-over screen between turns.
    Implements :class:`dudo_p2p.session.Session`."""

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

    @property
    def started(self) -> bool:
        return self.table.started

    def poll_events(self) -> list[Event]:
        return self.table.poll_events()

    def gatherer(self) -> Gatherer | None:
        return self.table.gatherer()

    def talk(self, phrase: int) -> None:
        self.table.talk(phrase)

    def wait(self, timeout: float) -> None:
        self.table.wait(timeout)

    def players(self) -> tuple[PlayerInfo, ...]:
        return self.table.players()

    def close(self) -> None:
        self.table.close()


def local_factory(request: TableRequest, clock: Callable[[], float] = time.monotonic, *,
                  bot_maker: BotMaker) -> Session:
    """Serve bots/create/hotseat in-process with :class:`LocalSession`, bots made by
    ``bot_maker``; ``join`` needs the network (``Unavailable``). ``create`` without the
    network: bots fill every other seat."""
    rng = random.Random(request.seed)
    if request.kind == "join":
        raise Unavailable(request.address)
    if request.kind == "hotseat":
        n = request.players
        names = hotseat_names(request.names, n)  # "" seats: "Jugador n" at the table
        table = LocalSession(request.rules, n, set(range(n)), {}, rng, clock, names=names)
        return HotseatSeat(table)
    n = max(1, request.bots) + 1
    bot_rng = random.Random(rng.random())
    bots = {i: bot_maker(request.bot_level, bot_rng) for i in range(1, n)}
    names = ("", *BOT_NAMES[1:n])
    return LocalSession(request.rules, n, {0}, bots, rng, clock, names=names)
