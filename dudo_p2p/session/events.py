"""Session events: the values the table reports to a seat (defined in consensus, re-exported)."""

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
    TurnTimer,
)

__all__ = [
    "ActionTaken",
    "CheatDetected",
    "Event",
    "GameAbandoned",
    "GameOver",
    "GameStarted",
    "Notice",
    "PlayerLeft",
    "RoundResolved",
    "RoundStarted",
    "SeatDisconnected",
    "SeatReconnected",
    "TableGone",
    "TalkHeard",
    "TurnTimer",
]
