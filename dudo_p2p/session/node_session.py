"""A seat at a networked table: :class:`NodeSession` implements the Session API over a Node.

Single-threaded: nothing runs in the background. :meth:`NodeSession.wait` runs the node's
loop for up to ``timeout`` seconds (it returns early once an event is waiting), so a UI that
calls ``wait`` once a frame keeps the peer alive and sleeps in ``poll`` when nothing moves.
Before the table is seated ``view``/``legal_actions`` say so (``IllegalAction`` / ``[]``);
:attr:`NodeSession.started` tells when the game runs.

Turn timer: when the table has one, our seat is to act and the deadline of the last
``TurnTimer`` event for our seat passes with no action from us, our seat's own bot
(``bots.make_bot(level)``) plays that one turn: only the owner can act on its dice, and the
others would otherwise vote the seat out. The bot is injected (``timer_bot``, e.g.
``bots.make_bot(level).decide``) so that this layer does not import the bots above it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from dudo_p2p.consensus.evening import Evening, Scoreboard
from dudo_p2p.consensus.events import Event, TimerPlayed
from dudo_p2p.consensus.lobby_host import HostLobby
from dudo_p2p.consensus.lobby_joiner import JoinerLobby
from dudo_p2p.consensus.reasons import Outcome, Reason
from dudo_p2p.crypto.identity import fingerprint
from dudo_p2p.errors import IllegalAction
from dudo_p2p.node.node import Node
from dudo_p2p.node.reachable import reachable
from dudo_p2p.rules import Action, GameState, PlayerAction, SeatView
from dudo_p2p.session.again import AgainSession, decline
from dudo_p2p.session.api import (
    Ending,
    Gatherer,
    Gathering,
    PlayerInfo,
    Session,
)
from dudo_p2p.session.turn_timer import TurnDeadlines

BotFn = Callable[[SeatView, list[Action]], Action]


class NodeSession:
    """Our seat at the table a :class:`Node` plays (see the module docstring).

    ``timer_bot`` plays a turn whose timer ran out (None: nobody does); ``is_bot`` marks
    our seat as played by a bot in :meth:`players`; ``on_close`` runs after the node closed
    (``start_bot_table`` stops its bot processes there). ``filler`` (hosting) calls ``n``
    bots to the empty seats of our table at link port ``port`` (``filler(n, port)``) and
    returns what stops them (run at close): the bot processes are started above this layer;
    the next game's seat keeps it (one more game: the table we open has another port).
    ``evening``: the games played before this one at this table (one more game:
    :mod:`~dudo_p2p.session.again`); ``hurry_dir``: where our paced bot processes look for
    "skip to the end" (``--hurry-dir``).
    """

    def __init__(
        self,
        node: Node,
        *,
        timer_bot: BotFn | None = None,
        is_bot: bool = False,
        on_close: list[Callable[[], None]] | None = None,
        filler: Callable[[int, int], Callable[[], None]] | None = None,
        evening: Evening | None = None,
        hurry_dir: Path | None = None,
    ) -> None:
        self.node = node
        self.hurry_dir = hurry_dir  # our bot processes' "skip to the end" (hurry)
        self.evening = evening or Evening()
        self._record: bytes | None = None  # this game's record, once it was won
        self.handed_over = False  # one_more() took the node: close() leaves it open
        self.is_bot = is_bot
        self._timer_bot = timer_bot
        self._turns = TurnDeadlines()  # ours (the timer bot plays then) and the others'
        self._queue: list[Event] = []
        self._closers = list(on_close or [])
        self.timer_turns = 0  # turns the timer bot played for us
        self._filler = filler
        self._filling = 0  # bots called to the empty seats

    # ---- Session API --------------------------------------------------------------------

    @property
    def started(self) -> bool:
        return self.node.machine is not None

    @property
    def seat(self) -> int:
        machine = self.node.machine
        return machine.seat if machine is not None else 0

    def view(self) -> SeatView:
        machine = self.node.machine
        if machine is None:
            raise IllegalAction("the table is not seated yet")
        return machine.view()

    def legal_actions(self) -> list[Action]:
        machine = self.node.machine
        return list(machine.legal_actions()) if machine is not None else []

    def submit(self, action: Action) -> None:
        machine = self.node.machine
        if machine is None:
            raise IllegalAction("the table is not seated yet")
        if not isinstance(action, PlayerAction):
            raise IllegalAction("only player actions can be submitted")
        self.node.carry_out(machine.submit(action, self.node.clock()))
        self._turns.ours = None

    def poll_events(self) -> list[Event]:
        self._inspect()
        out, self._queue = self._queue, []
        return out

    def wait(self, timeout: float) -> None:
        """Run the node for up to ``timeout`` s; return early when an event is waiting or
        the game has settled (:meth:`Node.settled`: safe to leave). The node sleeps until a
        frame or its next deadline, or our seat's turn deadline (the timer bot plays then)."""
        node = self.node
        deadline = node.clock() + max(0.0, timeout)
        while True:
            self._inspect()
            self._play_if_timed_out()
            now = node.clock()
            remaining = deadline - now
            if self._queue or remaining <= 0 or node.closed:
                return
            if node.over_at is not None and node.settled():
                return
            ours = self._turns.ours
            if ours is not None and self._timer_bot is not None and ours > now:
                remaining = min(remaining, ours - now)
            node.step(remaining)

    def step(self) -> bool:
        """Nothing: a networked table moves in its peer, which :meth:`wait` runs."""
        return False

    def gatherer(self) -> Gatherer:
        """Its own waiting room: a networked table gathers its players first."""
        return self

    def players(self) -> tuple[PlayerInfo, ...]:
        machine = self.node.machine
        if machine is None:
            return ()
        seating = machine.seating
        live = set(machine.replica.live_seats())
        return tuple(
            PlayerInfo(
                seat,
                seating.names[seat],
                fingerprint(pub),
                is_bot=self.is_bot if seat == machine.seat else False,
                # out of the game, or silent past the silence timeout (§4.6)
                connected=seat in live and seat not in machine.presence.away,
            )
            for seat, pub in enumerate(seating.pubs)
        )

    def gathering(self) -> Gathering | None:
        """The table while it gathers (the Session contract), None once
        seated: the roster so far, the code and host fingerprint, our reachable addresses
        when we host, and why a join stopped (the lobby's refusal reason)."""
        node = self.node
        if node.machine is not None:
            return None
        lobby = node.lobby
        code = lobby.table or ""
        match lobby:
            case HostLobby():
                return Gathering(
                    hosting=True, answered=True, code=code,
                    host_fingerprint=fingerprint(node.identity.public_key),
                    names=tuple(p.name for p in lobby.players), seats=lobby.seats_total,
                    addresses=reachable(node),
                    fingerprints=tuple(fingerprint(p.pub) for p in lobby.players),
                    can_fill=self._filler is not None, filling=self._filling,
                    rules=lobby.rules, turn_timer_s=lobby.turn_timer_ms / 1000,
                )
            case JoinerLobby():
                host, reason = lobby.host_pub, node.gave_up
                return Gathering(
                    hosting=False, answered=host is not None,
                    refused=reason.value if reason is not None else "",
                    why=node.seeker.why if reason is not None else "",
                    code=code, host_fingerprint=fingerprint(host) if host is not None else "",
                    names=lobby.roster, seats=lobby.seats_total,
                    fingerprints=tuple(fingerprint(k) for k in lobby.roster_keys),
                    others=tuple(f"{code}@{fp}" for fp in node.seeker.other_hosts.values()),
                    rules=lobby.told_rules, turn_timer_s=lobby.told_timer_ms / 1000,
                )
        return None  # a resumed peer's lobby: seated already

    def start_now(self, bots: bool = False) -> None:
        """Hosting, gathering (:class:`~dudo_p2p.session.api.Gatherer`): with ``bots``, call
        bots to every empty seat (the table starts when they are seated, like any full
        table; once); without, start with the players who joined so far (at least two; the
        table shrinks to them). Does nothing otherwise."""
        lobby = self.node.lobby
        if self.node.machine is not None or not isinstance(lobby, HostLobby):
            return
        if not bots:
            self.node.start_now()
            return
        empty = lobby.seats_total - lobby.seats_taken
        if self._filler is not None and empty > 0 and not self._filling:
            self._filling = empty
            self._closers.append(self._filler(empty, self.node.port))

    def set_seats(self, seats: int) -> None:
        """Hosting, gathering: the table has ``seats`` seats from now on (InvalidValue for a
        count it cannot have: :meth:`HostLobby.set_seats`)."""
        if self.node.machine is None and not self._filling:
            self.node.set_seats(seats)

    def remove(self, seat: int) -> None:
        """Hosting, gathering: take the joiner in ``seat`` (1..) off the table."""
        lobby = self.node.lobby
        if (self.node.machine is None and isinstance(lobby, HostLobby)
                and 1 <= seat < len(lobby.players)):
            self.node.remove(lobby.players[seat].pub)

    def talk(self, phrase: int) -> None:
        """Table talk: say quick phrase ``phrase`` (nothing before the game is seated, nor
        faster than once a second)."""
        self.node.talk(phrase)

    # ---- what the CLI shows -----------------------------------------------------------------

    def public_state(self) -> GameState | None:
        """The game as everyone at the table knows it (no dice of ours: nothing our secrets
        open), None before the table is seated."""
        machine = self.node.machine
        return machine.replica.engine if machine is not None else None

    def ending(self) -> Ending:
        """How the game ended (or stands) for our seat; ``outcome`` None: never seated."""
        machine = self.node.machine
        if machine is None:
            return Ending(None, refused=tuple(r.text for r in self.node.stats.refusals))
        me = machine.seat
        removed_for = next((i.reason for i in machine.replica.chain if i.removed_seat == me),
                           Reason.REMOVED)
        other = next((s for s in machine.replica.epoch.participants if s != me), None)
        return Ending(
            machine.outcome or Outcome.UNKNOWN, me, machine.seating.names,
            removed_for=removed_for, gone=machine.gone,
            silent_after=machine.presence.gone_after(len(machine.replica.epoch.participants)),
            abandoned_by=machine.abandoned_by, other=other,
        )

    def now(self) -> float:
        """The session's clock: the one event times are on (``SeatDisconnected.until``)."""
        return self.node.clock()

    def record(self) -> tuple[str, bytes] | None:
        """The game record (what ``dudo-p2p verify`` reads) and its file name
        (``CODE-GAMEID-seatN.dudo``, GAMEID the game id's first 8 hex digits: the games of
        one evening share the code); None before the table is seated."""
        machine, seated = self.node.machine, self.node.seated
        if machine is None or seated is None:
            return None
        seating = seated.seating
        name = f"{seating.table}-{seating.game_id.hex()[:8]}-seat{machine.seat}.dudo"
        return name, machine.record(seated.genesis, list(seated.signatures))

    @property
    def can_hurry(self) -> bool:
        """Our table's other seats are paced bots of ours
        (:meth:`~dudo_p2p.session.api.Session.hurry`)."""
        return self.hurry_dir is not None and self.node.seated is not None

    def hurry(self) -> None:
        """Our bots play the rest of this game at once (they look for this game's file)."""
        seated = self.node.seated
        if self.hurry_dir is not None and seated is not None:
            (self.hurry_dir / seated.seating.game_id.hex()).touch()

    def scoreboard(self) -> Scoreboard | None:
        """The evening's scoreboard (:meth:`~dudo_p2p.session.api.Session.scoreboard`): the games
        before this one and this one once it was won; None before any game was won."""
        return self.evening.scoreboard(self.won_record())

    def one_more(self, *, host: bool = True) -> Session | None:
        """After a won game: "yes" to one more (:meth:`~dudo_p2p.session.api.Session.one_more`).
        The returned :class:`~dudo_p2p.session.again.AgainSession` takes our node and our
        closers over (closing this session then does nothing); None when the game was not
        won (nothing to follow). ``host`` False: never open the next table, only follow."""
        record, after = self.won_record(), self.node.after
        if after is None or record is None or self.handed_over or self.node.closed:
            return None
        self.handed_over = True
        closers, self._closers = self._closers, []
        return AgainSession(self.node, after, self.evening.then(record), self._next_seat,
                            host=host, on_close=closers)

    def _next_seat(self, node: Node, evening: Evening) -> NodeSession:
        """Our seat at the next game's table, played as this one (the AgainSession's)."""
        return NodeSession(node, timer_bot=self._timer_bot, is_bot=self.is_bot,
                           evening=evening, hurry_dir=self.hurry_dir, filler=self._filler)

    @property
    def has_events(self) -> bool:
        """Events are waiting for :meth:`poll_events`."""
        self._inspect()
        return bool(self._queue)

    def won_record(self) -> bytes | None:
        """This game's record once it was won (None before): what the scoreboard counts."""
        node, machine = self.node, self.node.machine
        if self._record is None and node.after is not None and machine is not None \
                and node.seated is not None:
            self._record = machine.record(node.seated.genesis, list(node.seated.signatures))
        return self._record

    def close(self) -> None:
        """Leave the table (a forfeit if the game still runs; after a won game, "no more
        games for me" to the others), close the node, run closers. A session whose node
        :meth:`one_more` handed over closes nothing."""
        if self.handed_over:
            return
        if not self.node.closed:
            self.node.leave()
            decline(self.node)
            self.node.close()
        closers, self._closers = self._closers, []
        for closer in closers:
            closer()

    # ---- the turn timer ---------------------------------------------------------------------

    def _inspect(self) -> None:
        """Move new node events to our queue, following the turn deadlines (turn_timer.py)."""
        events = self.node.events
        if not events:
            return
        self.node.events = []
        machine = self.node.machine
        me = machine.seat if machine is not None else -1
        for event in events:
            self._queue.append(event)
            late = self._turns.follow(event, me, self.node.clock)
            if late is not None:
                self._queue.append(late)

    def _play_if_timed_out(self) -> None:
        ours = self._turns.ours
        if self._timer_bot is None or ours is None or self.node.clock() < ours:
            return
        legal = self.legal_actions()
        if not legal:
            return  # the table has not agreed on the last act yet; try again next turn
        self._turns.ours = None
        self.timer_turns += 1
        action = self._timer_bot(self.view(), legal)
        self.submit(action)
        self._queue.append(TimerPlayed(self.seat, action))


def _contracts(session: NodeSession) -> tuple[Session, Gatherer]:
    """Never called: mypy checks here that the session keeps every protocol the window uses."""
    return session, session
