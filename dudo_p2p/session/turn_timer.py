"""The turn deadlines a networked seat follows: when our seat's turn runs out (its timer bot
plays it then: :class:`~dudo_p2p.session.node_session.NodeSession`), and which other seat's
agreed action came after its own deadline (its timer played it: said as ``TimerPlayed``).

Pure bookkeeping on the events it is shown and the clock it is handed: the deadlines are
the ``TurnTimer`` events' (the machine's, on our clock), no I/O.
"""

from __future__ import annotations

from collections.abc import Callable

from dudo_p2p.consensus.events import (
    ActionTaken,
    Event,
    GameOver,
    PlayerLeft,
    TimerPlayed,
    TurnTimer,
)


class TurnDeadlines:
    """Our seat's turn deadline (:attr:`ours`, None: not our turn or no timer) and every
    seat's last one (to tell a turn another seat's timer played)."""

    def __init__(self) -> None:
        self.ours: float | None = None
        self._seats: dict[int, float] = {}  # every seat's turn deadline

    def follow(self, event: Event, me: int, clock: Callable[[], float]) -> TimerPlayed | None:
        """Note what ``event`` says of the turn deadlines (``me``: our seat, -1 before the
        table is seated). Another seat's action agreed after its turn's deadline (on
        ``clock``): its timer played it, and the TimerPlayed to say (our own timer turns are
        said when our bot plays them)."""
        match event:
            case TurnTimer(seat=seat, deadline=deadline):
                self.ours = deadline if seat == me else None
                self._seats.pop(seat, None)
                if deadline is not None:
                    self._seats[seat] = deadline
            case ActionTaken(action=action):
                self.ours = None
                actor = getattr(action, "seat", None)
                if actor is None:
                    return None
                deadline = self._seats.pop(actor, None)
                if actor != me and deadline is not None and clock() >= deadline:
                    return TimerPlayed(actor, action)
            case GameOver():
                self.ours = None
            case PlayerLeft(seat=seat) if seat == me:
                self.ours = None
            case _:
                pass
        return None
