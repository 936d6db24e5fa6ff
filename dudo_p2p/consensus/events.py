"""What a seat is told happened at the table, in order (re-exported by the session layer).

They are defined here, in the lowest layer that produces them, so that consensus can emit
them and the session hand them on unchanged.

Events are plain frozen values; the UI turns them into words through its catalogue and never
shows a traceback. ``reason`` and ``what`` are short machine keys (``"timeout"``,
``"equivocation"``...) with an optional human detail, so every language can render them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dudo_p2p.consensus.reasons import CheatKind, Reason
from dudo_p2p.rules import Action, RoundResult, RuleSet


@dataclass(frozen=True)
class GameStarted:
    """The table is seated and the rule set agreed; ``names[i]`` sits in seat i."""

    names: tuple[str, ...]
    rules: RuleSet


@dataclass(frozen=True)
class RoundStarted:
    """A deal: every live seat has its dice; ``palifico`` is the palifico seat or None."""

    round_no: int
    opener: int | None
    dice_counts: tuple[int, ...]
    palifico: int | None = None


@dataclass(frozen=True)
class ActionTaken:
    """A player's action the whole table agreed on (a bid, a call, a choice)."""

    action: Action


@dataclass(frozen=True)
class RoundResolved:
    """The round's outcome after every cup was lifted."""

    result: RoundResult


@dataclass(frozen=True)
class PlayerLeft:
    """A seat left the game for ``reason`` (a :class:`~dudo_p2p.consensus.reasons.Reason`;
    ``PlayerLeft(our seat, ...)`` means the table removed us)."""

    seat: int
    reason: Reason
    detail: str = ""


@dataclass(frozen=True)
class CheatDetected:
    """A peer was caught: ``what`` is a :class:`~dudo_p2p.consensus.reasons.CheatKind`; the
    proof (two entries it signed) is kept for the record."""

    seat: int
    what: CheatKind
    detail: str = ""


@dataclass(frozen=True)
class TurnTimer:
    """Seat ``seat`` must act before ``deadline`` (seconds on the session's clock), or None
    when the table has no turn timer."""

    seat: int
    deadline: float | None


@dataclass(frozen=True)
class GameOver:
    """The game ended; ``winner`` is a seat index."""

    winner: int


@dataclass(frozen=True)
class SeatDisconnected:
    """Nothing heard from ``seat`` for the silence timeout: it is shown as disconnected and
    the table waits for it until ``until`` (seconds on the session's clock: the end of the
    table's reconnect grace), then votes it out (or, with two seats, ends the game)."""

    seat: int
    until: float


@dataclass(frozen=True)
class SeatReconnected:
    """``seat``, shown as disconnected, is heard from again and keeps its seat."""

    seat: int


@dataclass(frozen=True)
class GameAbandoned:
    """Two seats were left and ``seat`` went silent or stalled past the grace (or said so
    itself): the game ends with no winner (protocol.md §4.6, the two-seat rule)."""

    seat: int
    reason: Reason


@dataclass(frozen=True)
class TableGone:
    """The table can never move again for us: the game ends for us with no winner. ``why``
    says which case (``presence.table_gone``): ``"nobody"``, no other seat heard for the
    table-gone delay (every other seat left, or we are cut off); ``"too-few"``, the seats of
    our epoch ``silent`` that long are more than those heard can vote out; ``"behind"``, as
    too-few once the seats heard but stuck in an epoch before ours (``behind``, their
    heartbeats short of its start) are counted out, our log not moving for that delay
    either: we heard them, so neither the table nor our network is gone."""

    why: str = "nobody"
    silent: tuple[int, ...] = ()
    behind: tuple[int, ...] = ()


@dataclass(frozen=True)
class Notice:
    """Anything else worth telling the player: ``key`` names a catalogue entry."""

    key: str
    args: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class TalkHeard:
    """Seat ``seat`` said quick phrase ``phrase`` (table talk: signed, rate-limited, never in
    the log; the UI knows the words)."""

    seat: int
    phrase: int


@dataclass(frozen=True)
class TimerPlayed:
    """Seat ``seat``'s turn ran out and the table played ``action`` for it. Said by the
    session, not the machine: for our own seat when our timer bot played, for another seat
    when its action was agreed after its deadline on our clock (an inference: the log does
    not say who chose an action)."""

    seat: int
    action: Action


Event = (
    GameStarted
    | RoundStarted
    | ActionTaken
    | RoundResolved
    | PlayerLeft
    | CheatDetected
    | TurnTimer
    | GameOver
    | SeatDisconnected
    | SeatReconnected
    | GameAbandoned
    | TableGone
    | Notice
    | TalkHeard
    | TimerPlayed
)
