"""The narrow API one seat plays through: bots, the table and the CLI use this and nothing else.

Its events are the values the table reports to a seat (defined in consensus, named here), with
the closed sets of names they carry (a removal's reason, a cheat's kind, a game's end)."""

from dudo_p2p.consensus.evening import Scoreboard, Standing
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
from dudo_p2p.session.api import (
    Ending,
    Gatherer,
    Gathering,
    PlainTable,
    PlayerInfo,
    Session,
)

__all__ = [
    "ActionTaken",
    "CheatDetected",
    "CheatKind",
    "Ending",
    "Event",
    "GameAbandoned",
    "GameOver",
    "GameStarted",
    "Gatherer",
    "Gathering",
    "Notice",
    "Outcome",
    "PlainTable",
    "PlayerInfo",
    "PlayerLeft",
    "Reason",
    "RoundResolved",
    "RoundStarted",
    "Scoreboard",
    "SeatDisconnected",
    "SeatReconnected",
    "Session",
    "Standing",
    "TableGone",
    "TalkHeard",
    "TimerPlayed",
    "TurnTimer",
]
