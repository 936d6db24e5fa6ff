"""The narrow API one seat plays through: bots, the table and the CLI use this and nothing else."""

from dudo_p2p.session.api import PlayerInfo, Session, Talker
from dudo_p2p.session.events import (
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
    "PlayerInfo",
    "PlayerLeft",
    "RoundResolved",
    "RoundStarted",
    "SeatDisconnected",
    "SeatReconnected",
    "Session",
    "TableGone",
    "TalkHeard",
    "Talker",
    "TurnTimer",
]
