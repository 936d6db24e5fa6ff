"""A spectator's session (protocol.md §4.9 "Watching"): the table as someone without a seat
sees it, every entry verified before it is shown.

It keeps the :class:`~dudo_p2p.session.api.Session` shape so a window can draw it like a
seat, with these differences:

- ``view()`` is the public state after the last *verified* item, seen from seat 0 with no
  dice: every hand is hidden until its round's reveal (the engine never holds unrevealed
  dice; the revealed ones are in the round results). ``ready`` is False until the genesis and
  every seat's signature are verified; ``view()`` raises InvalidValue before that.
- ``legal_actions()`` is always empty and ``submit`` always raises IllegalAction.
- ``poll_events()`` says ``GameStarted`` once seated, then what a seat is told of the same
  entries, each once it is verified (consensus/watch_events.py): ``ActionTaken``,
  ``RoundStarted``, ``RoundResolved`` followed by ``Notice("watch.verified", (N,))`` at move N
  ("verified to move N"), ``PlayerLeft``, ``GameOver``, ``TurnTimer`` (whose turn, its
  deadline counted from when the move reached us); ``SeatDisconnected`` and
  ``SeatReconnected`` as the seat serving us shows them (its ``away`` frames, not in the log:
  consensus/watch_away.py); and ``Notice("watch.not_verified", (why,))`` once if an item does
  not verify (nothing after it is shown). Table talk is not told.
- ``started`` is ``ready``: a window shows "waiting for the table" until then; ``gatherer()``
  says, until then, why a seat refused us (the table is full, another key answered...).
"""

from __future__ import annotations

from collections.abc import Callable

from dudo_p2p.consensus.events import Event, GameStarted, Notice, RoundResolved
from dudo_p2p.consensus.watch_spectator import Verified
from dudo_p2p.crypto.identity import Identity, KeyPin, fingerprint
from dudo_p2p.errors import IllegalAction, InvalidValue
from dudo_p2p.node.node import Node
from dudo_p2p.node.watcher import Watcher
from dudo_p2p.rules import Action, SeatView
from dudo_p2p.session.api import Gatherer, Gathering, PlainTable, PlayerInfo
from dudo_p2p.session.node_session import NodeSession


class WatchSession(PlainTable):
    """Watch the table of the seat at ``host:port`` (see the module docstring)."""

    def __init__(self, identity: Identity, host: str, port: int, *, table: str = "",
                 pin: KeyPin | None = None, bind: str = "0.0.0.0", quiet_until: int = 0,
                 on_close: list[Callable[[], None]] | None = None) -> None:
        """``quiet_until``: the first items of the log are verified without being told
        (a seat that goes on watching saw them); ``on_close`` runs after the sockets close."""
        self.watcher = Watcher(identity, host, port, table=table, pin=pin, bind=bind)
        self.watcher.spectator.tell_from = quiet_until
        self._closers = list(on_close or [])
        self._told_start = False
        self._told_flag = False

    @property
    def seat(self) -> int:
        """The seat the view is drawn from (0); a spectator sees no seat's dice."""
        return 0

    @property
    def started(self) -> bool:
        """The table is seated and its genesis verified (as a seat's ``started``)."""
        return self.ready

    @property
    def ready(self) -> bool:
        """The genesis and every seat's signature are verified."""
        return self.watcher.spectator.verifier is not None

    @property
    def verified(self) -> Verified | None:
        """How far the log is verified (None before the genesis)."""
        return self.watcher.spectator.progress()

    def view(self) -> SeatView:
        verifier = self.watcher.spectator.verifier
        if verifier is None:
            raise InvalidValue("not watching yet: the genesis is not verified")
        return verifier.replica.engine.view(self.seat, None)

    def legal_actions(self) -> list[Action]:
        return []

    def submit(self, action: Action) -> None:
        raise IllegalAction("a spectator does not play")

    def poll_events(self) -> list[Event]:
        spec = self.watcher.spectator
        out: list[Event] = []
        if spec.seating is not None and not self._told_start:
            self._told_start = True
            out.append(GameStarted(spec.seating.names, spec.seating.rules))
        # what each item verified since we last looked did at the table (watch_events.py),
        # as a seat is told it; after each round's reveal, the badge line
        for event, moves in spec.take_told():
            out.append(event)
            if isinstance(event, RoundResolved):
                out.append(Notice("watch.verified", (str(moves),)))
        if spec.flagged is not None and not self._told_flag:
            self._told_flag = True
            out.append(Notice("watch.not_verified", (str(spec.flagged),)))
        return out

    def wait(self, timeout: float) -> None:
        self.watcher.step(timeout)

    def players(self) -> tuple[PlayerInfo, ...]:
        seating = self.watcher.spectator.seating
        if seating is None:
            return ()
        return tuple(PlayerInfo(seat, seating.names[seat], fingerprint(pub))
                     for seat, pub in enumerate(seating.pubs))

    def close(self) -> None:
        self.watcher.close()
        closers, self._closers = self._closers, []
        for closer in closers:
            closer()

    # ---- the rest of the Session shape: a spectator gathers nothing and says nothing ----

    def step(self) -> bool:
        return False  # the watcher runs in wait()

    def gatherer(self) -> Gatherer | None:
        return self  # only to say a refusal: a spectator gathers nobody

    def gathering(self) -> Gathering | None:
        """Before the genesis: why a seat would not let us watch (``refused``: "full",
        "wrong_host"...), or "" while we wait (``answered``: a table not started yet is
        silent to a spectator, so silence is no failure); None once we watch."""
        if self.ready:
            return None
        refused = self.watcher.spectator.refused
        return Gathering(hosting=False, answered=True,
                         refused=refused.value if refused is not None else "",
                         why=refused.text if refused is not None else "")

    def start_now(self, bots: bool = False) -> None:
        """A spectator starts nothing."""

    def set_seats(self, seats: int) -> None:
        """A spectator sets no seats."""

    def remove(self, seat: int) -> None:
        """A spectator removes nobody."""

    def talk(self, phrase: int) -> None:
        """A spectator does not talk to the table."""


def seat_to_watch_from(node: Node) -> tuple[str, int] | None:
    """Where a seat that left its game (the table removed it, or it is out of dice and
    closes its seat) can keep watching it: the link address of a seat still in the game
    (its key may watch: protocol.md §4.9). Call before closing ``node``; None when it was
    never seated or no seat is left in the game."""
    machine = node.machine
    if machine is None:
        return None
    alive = machine.replica.engine.alive
    endpoints = node.links.peers()
    for seat, pub in enumerate(machine.seating.pubs):
        if seat != machine.seat and alive[seat] and pub in endpoints:
            host, _, port = endpoints[pub].removeprefix("tcp://").rpartition(":")
            return host.strip("[]"), int(port)
    return None


def watch_the_rest(session: object) -> WatchSession | None:
    """The window's seat that the table removed goes on watching its game (issue 20: a
    removed seat becomes a spectator of its table): a :class:`WatchSession` with our key,
    from a seat still in the game (:func:`seat_to_watch_from`), telling only what follows
    the log we held; our node is closed now, and ``session``'s own closers (bots it
    started) run when the watch closes. None when ``session`` is not a networked seat the
    table removed, or no seat is left to watch from."""
    if not isinstance(session, NodeSession):
        return None
    node = session.node
    machine = node.machine
    if machine is None or not machine.removed_me:
        return None
    where = seat_to_watch_from(node)
    if where is None:
        return None
    held = len(machine.replica.chain)
    table = node.table_code or ""
    node.close()  # our seat is gone: its sockets go now (session.close skips a closed node)
    host, port = where
    return WatchSession(node.identity, host, port, table=table, quiet_until=held,
                        on_close=[session.close])
