"""One more game with the same table: the seat's session from "play again" to the next game.

:class:`AgainSession` takes over the won game's node (still linked to every seat) from the
:class:`~dudo_p2p.session.node_session.NodeSession` that played it (``one_more()``), says
"yes" to the others (``again``, protocol.md §4.9 "One more game") and, on every ``wait``:

- works out who opens the next table (``consensus/again.py``: the previous host while it is
  there, else the next seat in the running; a seat gone silent at the old table counts as
  gone);
- when that is us: opens the next table (same code, a new link port, seats for every seat
  still coming, its genesis naming the won game's final log hash), names it to the others,
  and starts it as soon as every seat still coming sat down (or when the player starts now);
- when it is another seat and it named its table: joins it there (the address we reached
  that seat at, pinned to its key and code, only a genesis that follows our game); if the
  opener changes before the game starts, leaves that table and follows the new one;
- once the next game is seated, closes the old table's node.

Until then it is a gathering session (:class:`~dudo_p2p.session.api.Gatherer`): the waiting
room shows the new table, or whom we wait for, or that nobody is left to open one. Then it
plays exactly as the next game's ``NodeSession``, which it wraps, and can itself go one more.
The evening's records travel along: :meth:`scoreboard` counts every game of the chain.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Protocol

from dudo_p2p.consensus.again import AfterGame, Answer
from dudo_p2p.consensus.evening import Evening, Scoreboard
from dudo_p2p.consensus.events import Event
from dudo_p2p.consensus.lobby_host import HostLobby
from dudo_p2p.crypto.identity import KeyPin
from dudo_p2p.errors import IllegalAction
from dudo_p2p.node.config import NetConfig
from dudo_p2p.node.node import Node
from dudo_p2p.rules import Action, SeatView
from dudo_p2p.session.api import (
    Gatherer,
    Gathering,
    PlayerInfo,
    Session,
)

# Only while the old table stays beside the next one (until the next is seated): two nodes,
# each with its own sockets, run by one thread, so each waits at most this long in turn.
# One node alone sleeps until its earliest deadline or a frame (node/loop.py).
BOTH_TABLES_EVERY = 0.05


class Seat(Session, Gatherer, Protocol):
    """Our seat at the next game's table, as :class:`AgainSession` drives it: a
    :class:`~dudo_p2p.session.node_session.NodeSession` (named here only as a protocol:
    node_session builds us, so we do not import it)."""

    @property
    def node(self) -> Node: ...

    @property
    def has_events(self) -> bool: ...

    def one_more(self, *, host: bool = True) -> Session | None: ...


#: Builds our seat at the next table from its node and the evening so far.
SeatAt = Callable[[Node, Evening], Seat]

class AgainSession:
    """Our seat from "play again" on (module docstring). Build with
    :meth:`NodeSession.one_more`; ``seat_at`` makes our seat at the next table (played as
    the won one); ``host`` False: we never open the table, only follow (a bot)."""

    def __init__(
        self,
        old: Node,
        after: AfterGame,
        evening: Evening,
        seat_at: SeatAt,
        *,
        host: bool = True,
        on_close: list[Callable[[], None]] | None = None,
    ) -> None:
        self.old: Node | None = old
        self.after = after
        self.evening = evening
        self._seat_factory = seat_at
        self.hosts = host
        self._closers = list(on_close or [])
        self.current: Seat | None = None  # our seat at the next table
        self.opened_by: int | None = None  # the old seat whose table ``current`` sits at
        self.no_next_game = False
        self.handed_over = False
        old.say_again(Answer(want=True, host=host))
        self._advance()  # the previous host opens the next table at once

    # ---- the Session API: the next game's, once there is one ----------------------------

    @property
    def started(self) -> bool:
        return self.current is not None and self.current.started

    @property
    def seat(self) -> int:
        return self.current.seat if self.current is not None else 0

    def view(self) -> SeatView:
        if self.current is None:
            raise IllegalAction("the next table is not seated yet")
        return self.current.view()

    def legal_actions(self) -> list[Action]:
        return self.current.legal_actions() if self.current is not None else []

    def submit(self, action: Action) -> None:
        if self.current is None:
            raise IllegalAction("the next table is not seated yet")
        self.current.submit(action)

    def poll_events(self) -> list[Event]:
        self._advance()
        return self.current.poll_events() if self.current is not None else []

    def wait(self, timeout: float) -> None:
        """Run both tables (the old one until the next is seated) for up to ``timeout`` s."""
        clock = self.after_clock
        deadline = clock() + max(0.0, timeout)
        while True:
            self._advance()
            remaining = deadline - clock()
            if remaining <= 0:
                return
            if self.old is not None:
                turn = min(remaining, BOTH_TABLES_EVERY)
                self.old.step(0.0 if self.current is not None else turn)
            if self.current is not None:
                self.current.wait(min(remaining, BOTH_TABLES_EVERY) if self.old is not None
                                  else remaining)
                if self.current.has_events:
                    return

    def step(self) -> bool:
        """Nothing: networked tables move in their peers, which :meth:`wait` runs."""
        return False

    def gatherer(self) -> Gatherer:
        """Its own waiting room: the next table gathers its players first."""
        return self

    def players(self) -> tuple[PlayerInfo, ...]:
        return self.current.players() if self.current is not None else ()

    def talk(self, phrase: int) -> None:
        if self.current is not None:
            self.current.talk(phrase)

    def gathering(self) -> Gathering | None:
        """The waiting room (:class:`~dudo_p2p.session.api.Gatherer`): the next table's
        while we sit at one (ours: with ``waiting_for`` naming those not back yet), else
        whom we wait for; None once the next game plays."""
        self._advance()
        seating = self.after.seating
        if self.current is not None:
            state = self.current.gathering()
            if state is not None and state.hosting:  # our table: whom it still waits for
                return replace(state, waiting_for=", ".join(self._not_back()))
            if state is None or state.refused:
                return state
            # a table the opener named to everyone: never "nobody answered", keep trying
            return replace(state, answered=True, code=state.code or seating.table)
        opener = self._opener()
        return Gathering(
            hosting=False, answered=True, code=seating.table,
            waiting_for=seating.names[opener] if opener is not None else "",
            no_next_game=self.no_next_game,
        )

    def _not_back(self) -> list[str]:
        """The names of the won game's seats we opened the next table for that may still
        come and have not sat down yet (the host's waiting room says them)."""
        if self.current is None or self.old is None:
            return []
        lobby = self.current.node.lobby
        seated = {p.pub for p in lobby.players} if isinstance(lobby, HostLobby) else set()
        seating = self.after.seating
        return [seating.names[s] for s in sorted(self.after.coming(self._away(),
                                                                    self.after_clock()))
                if seating.pubs[s] not in seated]

    def start_now(self, bots: bool = False) -> None:
        """The next table's waiting room (:class:`~dudo_p2p.session.api.Gatherer`), when we
        opened it: start with those who came, or (``bots``, when the won table could call
        bots: ``can_fill``) with bots in the seats of those not back yet."""
        if self.current is not None:
            self.current.start_now(bots)

    def set_seats(self, seats: int) -> None:
        if self.current is not None:
            self.current.set_seats(seats)

    def remove(self, seat: int) -> None:
        if self.current is not None:
            self.current.remove(seat)

    @property
    def can_hurry(self) -> bool:
        return self.current is not None and self.current.can_hurry

    def hurry(self) -> None:
        if self.current is not None:
            self.current.hurry()

    def scoreboard(self) -> Scoreboard | None:
        """The evening so far (:meth:`~dudo_p2p.session.api.Session.scoreboard`)."""
        if self.current is not None:
            return self.current.scoreboard()
        return self.evening.scoreboard()

    def one_more(self, *, host: bool | None = None) -> Session | None:
        """After the next game was won too: one more again
        (:meth:`~dudo_p2p.session.api.Session.one_more`); ``host`` as this session's unless
        given."""
        if self.current is None:
            return None
        session = self.current.one_more(host=self.hosts if host is None else host)
        if isinstance(session, AgainSession):
            self.handed_over = True
            session._closers.extend(self._closers)  # our bot processes play on with it
            self._closers = []
        return session

    def node_now(self) -> Node:
        """The node of the next table once we sit at one, else the old table's."""
        if self.current is not None:
            return self.current.node
        assert self.old is not None
        return self.old

    def close(self) -> None:
        """Leave: the next table (a forfeit if it plays), and the old one with a decline."""
        if self.handed_over:
            return
        if self.current is not None:
            self.current.close()
        self._close_old(declined=True)
        closers, self._closers = self._closers, []
        for closer in closers:
            closer()

    # ---- following the opener ---------------------------------------------------------

    @property
    def after_clock(self) -> Callable[[], float]:
        node = self.old if self.old is not None else (
            self.current.node if self.current is not None else None)
        assert node is not None, "an AgainSession always holds a node until closed"
        return node.clock

    def _away(self) -> set[int]:
        machine = self.old.machine if self.old is not None else None
        return set(machine.presence.away) if machine is not None else set()

    def _opener(self) -> int | None:
        if self.old is None:
            return self.opened_by
        return self.after.opener(self._away(), self.after_clock())

    def _advance(self) -> None:
        """One look at the answers: open, follow, start, or let the old table go."""
        old = self.old
        if old is None or old.closed:
            return
        if self.current is not None and self.current.started:
            self._close_old(declined=False)
            return
        away, now = self._away(), self.after_clock()
        opener = self.after.opener(away, now)
        if opener is None or (opener == self.after.me and not self.after.coming(away, now)):
            self.no_next_game = True
            self._leave_current()
            return
        if self.current is not None and self.opened_by != opener:
            self._leave_current()  # the opener changed before the game started: follow it
        if opener == self.after.me:
            if self.current is None:
                self._open(old, away, now)
            else:
                self._start_when_all_came(away, now)
            return
        offer = self.after.offer(away, now)
        if self.current is None and offer is not None:
            self._follow(old, *offer)

    def _net(self, old: Node, *, discovery: bool) -> NetConfig:
        net = old.net
        return NetConfig(bind=net.bind, port=0, beacon_port=net.beacon_port,
                         broadcast=net.broadcast, discovery=discovery and net.discovery)

    def _open(self, old: Node, away: set[int], now: float) -> None:
        seating = self.after.seating
        node = Node.host(
            old.identity, old.name, self._net(old, discovery=True),
            seats=max(2, 1 + len(self.after.coming(away, now))), rules=seating.rules,
            turn_timer_ms=seating.turn_timer_ms, table=seating.table,
            journal_dir=old.journal.directory, grace_ms=seating.grace_ms, prev=self.after.head,
        )
        self._seat_at(node, self.after.me)
        old.say_again(Answer(want=True, host=True, table=seating.table, port=node.port))

    def _follow(self, old: Node, seat: int, table: str, port: int) -> None:
        assert old.seated is not None
        host = old.seated.addresses[seat][0]  # where we reached that seat all game
        node = Node.join(
            old.identity, old.name, self._net(old, discovery=False), table=table,
            addresses=[(host, port)], discover=False,
            pin=KeyPin(key=self.after.seating.pubs[seat]), journal_dir=old.journal.directory,
            expect_prev=self.after.head,
        )
        self._seat_at(node, seat)

    def _seat_at(self, node: Node, opener: int) -> None:
        self.current = self._seat_factory(node, self.evening)
        self.opened_by = opener

    def _start_when_all_came(self, away: set[int], now: float) -> None:
        """We opened the table: start once every seat still coming sat down (at least two;
        a seat that declined, went silent or did not answer in time is not waited for)."""
        assert self.current is not None
        lobby = self.current.node.lobby
        if not isinstance(lobby, HostLobby) or lobby.signing is not None \
                or lobby.seated is not None:
            return
        seated = {p.pub for p in lobby.players}
        pubs = self.after.seating.pubs
        if len(seated) >= 2 and all(pubs[s] in seated for s in self.after.coming(away, now)):
            self.current.start_now()

    def _leave_current(self) -> None:
        if self.current is not None:
            if self.opened_by == self.after.me and self.old is not None:
                # the table we named is gone: nobody is to follow it any more
                self.old.say_again(Answer(want=True, host=self.hosts))
            self.current.close()
            self.current = None
            self.opened_by = None

    def _close_old(self, *, declined: bool) -> None:
        old, self.old = self.old, None
        if old is None or old.closed:
            return
        if declined:
            decline(old)
        old.close()


def _contracts(session: AgainSession) -> tuple[Session, Gatherer]:
    """Never called: mypy checks here that the session keeps every protocol the window uses."""
    return session, session


DECLINE_FLUSH_S = 0.1  # a decline gets this long to leave before the sockets close


def decline(node: Node) -> None:
    """After a won game we did not answer yet: tell the others we play no more (protocol.md
    §4.9 "One more game"), and run the node a moment so the frame leaves before the links
    close (they close without lingering): the next table does not wait for us."""
    after = node.after
    if after is None or (after.me in after.said and not after.said[after.me].want):
        return
    node.say_again(Answer(want=False, host=True))
    end = node.clock() + DECLINE_FLUSH_S
    while (left := end - node.clock()) > 0:
        node.step(left)
