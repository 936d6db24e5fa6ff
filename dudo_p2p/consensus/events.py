"""What a seat is told happened at the table, in order (re-exported by the session layer).

They are defined here, in the lowest layer that produces them, so that consensus can emit
them and the session hand them on unchanged.

Events are plain frozen values; the UI turns them into words through its catalogue and never
shows a traceback. ``reason`` and ``what`` are short machine keys (``"timeout"``,
``"equivocation"``...) with an optional human detail, so every language can render them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
    """A seat left the game; ``reason`` is the removal's reason: "timeout", "silent",
    "quit", "equivocation", "bad-reveal"..."""

    seat: int
    reason: str
    detail: str = ""


@dataclass(frozen=True)
class CheatDetected:
    """A peer was caught: ``what`` is "equivocation", "bad_reveal", "bad_signature"...; the proof
    is in the log."""

    seat: int
    what: str
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


Event = (
    GameStarted
    | RoundStarted
    | ActionTaken
    | RoundResolved
    | PlayerLeft
    | CheatDetected
    | TurnTimer
    | GameOver
    | Notice
    | TalkHeard
)
