"""The narrow API one seat plays through: bots, the table and the CLI use this and nothing else."""

from dudo_p2p.session.api import PlayerInfo, Session, Talker
from dudo_p2p.session.events import (
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
    "PlayerInfo",
    "PlayerLeft",
    "RoundResolved",
    "RoundStarted",
    "Session",
    "TalkHeard",
    "Talker",
    "TurnTimer",
]
