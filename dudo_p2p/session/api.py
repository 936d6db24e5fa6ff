"""The session API: one seat's window on a game, whatever runs it (in-process or peer-to-peer).

Contract:

- ``view()`` is the seat's :class:`~dudo_p2p.rules.SeatView`: the public state plus the dice
  this seat may see (its own, or others' in an open palifico round). Never more.
- ``legal_actions()`` lists what the seat may do now (empty when it is not its turn).
- ``submit(action)`` hands an action to the table; it raises
  :class:`~dudo_p2p.errors.IllegalAction` (and nothing changes) when the action is not legal now.
  A legal action becomes an :class:`~dudo_p2p.session.ActionTaken` event once the table
  has agreed on it.
- ``started`` is False while a networked table still gathers its players (``view()`` raises
  until then); a table that never gathers is started. ``gatherer()`` is the waiting room's
  controls of a table that gathers (a networked one: :class:`Gatherer`), None for one that
  never does.
- ``step()`` moves an in-process table on by one action (a bot's, or hands the screen to the
  next hot-seat player), so a UI paces the bots; a networked table moves in its peer, which
  ``wait`` runs, and ``step()`` does nothing there.
- ``talk(phrase)`` says quick phrase ``phrase`` (an index the UI knows) to the others: on a
  networked table signed, at most one a second (faster calls do nothing), and they get a
  ``TalkHeard`` event; never in the log. A table with nobody else to hear ignores it.
- ``poll_events()`` never blocks; ``wait(timeout)`` blocks at most ``timeout`` seconds or until
  something happened, so a UI loop can sleep in it when nothing moves (an in-process table,
  where nothing runs in the background, just sleeps).
- ``scoreboard()``, ``one_more()``, ``can_hurry``/``hurry()``: the evening's scoreboard, one
  more game with the same table, and "skip to the end" of a table whose bots think at a human
  pace; every session answers them (None, None, False where a table has no such thing), so a
  UI never asks which kind of session it holds.

A networked seat also says how its game ended (:class:`Ending`, from
:meth:`~dudo_p2p.session.node_session.NodeSession.ending`): the CLI's last line and exit code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from dudo_p2p.consensus.evening import Scoreboard
from dudo_p2p.consensus.events import Event, TableGone
from dudo_p2p.consensus.reasons import Outcome, Reason
from dudo_p2p.rules import Action, RuleSet, SeatView


@dataclass(frozen=True)
class PlayerInfo:
    """Who sits in a seat: a display name and the short fingerprint of their key."""

    seat: int
    name: str
    fingerprint: str
    is_bot: bool = False
    connected: bool = True


@dataclass(frozen=True)
class Gathering:
    """A networked table that is not seated yet, as the waiting screen shows it.

    ``hosting``: we host it. ``answered``: a host has welcomed us (always True when
    hosting). ``refused``: "" while still trying, else why the join stopped (a
    :class:`~dudo_p2p.protocol.refusals.RefusalReason` value: "full", "started",
    "wrong_host"...), with ``why`` the node's own line. ``code`` and ``host_fingerprint``:
    the table as a friend types it (``CODE@FINGERPRINT``; "" while unknown). ``names``: the
    seats taken so far, host first; ``seats``: how many the table has (0: not known yet).
    ``addresses``: "ip:port" where the host can be reached (hosting only; empty when only
    loopback exists). ``fingerprints``: each seat's key fingerprint, beside ``names``
    (empty when the host did not send them). ``others``: joining by ``CODE@FINGERPRINT``,
    the ``CODE@FINGERPRINT`` of tables with our code whose host is another key.
    ``can_fill``: hosting, bots can be called to the empty seats (:meth:`Gatherer.start_now`
    with ``bots=True``); ``filling``: how many were called (0: none yet). ``rules`` and
    ``turn_timer_s``: the table's rule set (None: not known yet, or rules this version
    cannot read) and turn timer in seconds (0: none), as the host says. One more
    game (:mod:`~dudo_p2p.session.again`): ``waiting_for`` names the player whose answer or
    table we wait for, or (hosting the next table) the players not back yet, comma-separated
    ("" when none); ``no_next_game``: nobody is left to open the next
    table.
    """

    hosting: bool
    answered: bool
    refused: str = ""
    why: str = ""
    code: str = ""
    host_fingerprint: str = ""
    names: tuple[str, ...] = ()
    seats: int = 0
    addresses: tuple[str, ...] = ()
    fingerprints: tuple[str, ...] = ()
    others: tuple[str, ...] = ()
    can_fill: bool = False
    filling: int = 0
    rules: RuleSet | None = None
    turn_timer_s: float = 0.0
    waiting_for: str = ""
    no_next_game: bool = False


class Gatherer(Protocol):
    """The waiting room of a table that gathers its players first (a networked one):
    ``gathering()`` is the table's state while it is not seated, None once it plays; the
    host's player runs its waiting room with the rest (each does nothing when not hosting a
    table that gathers)."""

    def gathering(self) -> Gathering | None: ...

    def start_now(self, bots: bool = False) -> None:
        """Start before the table is full: with ``bots``, bots take the empty seats (when
        ``Gathering.can_fill``); without, the table shrinks to those seated (two at
        least)."""

    def set_seats(self, seats: int) -> None:
        """The table has ``seats`` seats from now on (2-6, never fewer than are taken)."""

    def remove(self, seat: int) -> None:
        """Take the joiner in ``seat`` (1..) off the table; its window is told why."""


@dataclass(frozen=True)
class Ending:
    """How the game ended for our seat (what the CLI says last, and its exit code).

    ``outcome``: None when no game was seated (refused, or it failed before); else
    :class:`~dudo_p2p.session.Outcome` (UNKNOWN while it runs). ``seat`` and
    ``names``: ours and the table's. ``removed_for``: why the table removed us (REMOVED).
    ``silent_after``: how long the seats were not heard before we called the table gone
    (TABLE_GONE), and ``gone``: which case (``TableGone.why``: nobody heard, too few heard,
    or those heard stuck behind our epoch; the seats silent and behind). ``abandoned_by``:
    the seat that went silent or stalled (ABANDONED), and
    ``other``: the seat left with us of the last two (who claimed it, when it was us).
    ``refused``: never seated, why the tables we asked refused us, in order (one line each;
    empty when none answered).
    """

    outcome: Outcome | None
    seat: int = 0
    names: tuple[str, ...] = ()
    removed_for: Reason | str = Reason.REMOVED
    silent_after: float = 0.0
    gone: TableGone = field(default_factory=TableGone)
    abandoned_by: int | None = None
    other: int | None = None
    refused: tuple[str, ...] = ()


class PlainTable:
    """The answers of a session whose table keeps no evening, has no next game of its own and
    no paced bots of ours (an in-process table, a spectator's): :class:`Session`'s
    ``scoreboard``, ``one_more``, ``can_hurry`` and ``hurry``, for it to inherit."""

    def scoreboard(self) -> Scoreboard | None:
        return None

    def one_more(self) -> Session | None:
        return None  # the window starts a new table with the same request instead

    @property
    def can_hurry(self) -> bool:
        return False

    def hurry(self) -> None:
        """Nothing thinks at a human pace here."""


class Session(Protocol):
    """One seat's handle on a game. See the module docstring for the contract."""

    @property
    def seat(self) -> int: ...

    @property
    def started(self) -> bool: ...

    def view(self) -> SeatView: ...

    def legal_actions(self) -> list[Action]: ...

    def submit(self, action: Action) -> None: ...

    def step(self) -> bool:
        """Move an in-process table on by one action; True when something happened."""

    def gatherer(self) -> Gatherer | None:
        """The waiting room's controls (a table that gathers its players), else None."""

    def talk(self, phrase: int) -> None: ...

    def poll_events(self) -> list[Event]: ...

    def wait(self, timeout: float) -> None: ...

    def players(self) -> tuple[PlayerInfo, ...]: ...

    def scoreboard(self) -> Scoreboard | None:
        """The games won per player over the chained games at this table (None: a table
        that keeps no evening, or before any game was won)."""

    def one_more(self) -> Session | None:
        """After a won game, one more with the same table: says "yes" to the others and
        returns the next game's session (it takes this session's table over: closing this
        one then does nothing); None when this game cannot be followed (not won, or not
        networked)."""

    @property
    def can_hurry(self) -> bool:
        """Whether :meth:`hurry` would do anything: the table's other seats are bots of ours
        that think at a human pace."""

    def hurry(self) -> None:
        """Those bots play the rest of the game at once (the player's "skip to the end",
        once out of the game); nothing when :attr:`can_hurry` is False."""

    def close(self) -> None: ...
