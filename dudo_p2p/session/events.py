"""Session events: the values the table reports to a seat (defined in consensus, re-exported)."""

from dudo_p2p.consensus.events import (
    ActionTaken,
    CheatDetected,
    Event,
    GameOver,
    GameStarted,
    Notice,
    PlayerLeft,
    RoundResolved,
    RoundStarted,
    TalkHeard,
    TurnTimer,
)

__all__ = [
    "ActionTaken",
    "CheatDetected",
    "Event",
    "GameOver",
    "GameStarted",
    "Notice",
    "PlayerLeft",
    "RoundResolved",
    "RoundStarted",
    "TalkHeard",
    "TurnTimer",
]
