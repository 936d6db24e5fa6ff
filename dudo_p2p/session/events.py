"""Session events: the values the table reports to a seat (defined in consensus, re-exported),
and the closed sets of names they carry (a removal's reason, a cheat's kind, a game's end)."""

from dudo_p2p.consensus.events import (
    ActionTaken,
    CheatDetected,
    Event,
    GameAbandoned,
    GameOver,
    GameStarted,
    Notice,
    PlayerLeft,
    RoundResolved,
    RoundStarted,
    SeatDisconnected,
    SeatReconnected,
    TableGone,
    TalkHeard,
    TimerPlayed,
    TurnTimer,
)
from dudo_p2p.consensus.reasons import CheatKind, Outcome, Reason

__all__ = [
    "ActionTaken",
    "CheatDetected",
    "CheatKind",
    "Event",
    "GameAbandoned",
    "GameOver",
    "GameStarted",
    "Notice",
    "Outcome",
    "PlayerLeft",
    "Reason",
    "RoundResolved",
    "RoundStarted",
    "SeatDisconnected",
    "SeatReconnected",
    "TableGone",
    "TalkHeard",
    "TimerPlayed",
    "TurnTimer",
]
