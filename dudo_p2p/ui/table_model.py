"""What the table shows of a game, folded from the session's events: events in, what is shown
out. Pure: no pygame, no clock (each event comes with ``now``), no session.

:class:`TableModel` keeps the reveal on screen (and the last one, for the bid history), this
round's actions, who left and in which order, the winner or why the game ended for us, every
seat's turn deadline, the messages of the side panel and the toast, and the talk bubbles.
:meth:`TableModel.apply` folds one event and returns a :class:`Reaction`: what the scene must
do that is not drawing (the sounds to cue, the cups to shake, a new round's reset).
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from dudo_p2p.rules import Action, RoundResult, SeatView
from dudo_p2p.session import (
    ActionTaken,
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
from dudo_p2p.ui import words
from dudo_p2p.ui.cues import action_sound, reveal_cues
from dudo_p2p.ui.i18n import Tr
from dudo_p2p.ui.motion import RevealTimeline, lift_order
from dudo_p2p.ui.talk import TalkBoard

TOAST_S = 5.0  # how long an event sentence stays at the top of the table
Words = Callable[[Tr], str]  # a message kept as how to say it: it follows a language switch


def keyed(key: str, **args: object) -> Words:
    """The catalogue message ``key`` with ``args``, said in whatever language is shown."""
    return lambda tr: tr(key, **args)


@dataclass
class RevealShow:
    """A reveal on screen: the result, whether aces counted, when it began, and the actions
    of the round it ends (the table has usually dealt the next round by then, so the view's
    bids are already the new round's: the history panel shows these instead)."""

    result: RoundResult
    wild: bool
    started: float
    actions: tuple[Action, ...] = ()
    palifico: bool = False  # the round it ends was a palifico (the cloth stays wine red)
    timeline: RevealTimeline | None = None  # when each cup lifts, the dice pulse and fly

    @property
    def film(self) -> RevealTimeline:
        """The reveal's timeline (all cups at once when none was made)."""
        return self.timeline or RevealTimeline(self.started, ())


@dataclass
class Reaction:
    """What an event asks of the scene besides what the model now shows: ``cues`` (when,
    sound; when None: now), ``new_round`` (a deal: the cup goes down, the bid history follows
    the newest bid again; ``shake``: the cups rattle now, not after a reveal still up) and
    ``names`` (the table named its seats)."""

    cues: list[tuple[float | None, str]] = field(default_factory=list)
    new_round: bool = False
    shake: bool = False
    names: tuple[str, ...] | None = None


class TableModel:
    """One seat's table as shown (module docstring). ``names`` gives the seats' names as
    shown now and ``tr`` the language shown now (both follow a language switch);
    ``hotseat``: several humans share the screen."""

    def __init__(
        self, names: Callable[[], tuple[str, ...]], tr: Callable[[], Tr], *, hotseat: bool
    ) -> None:
        self._names = names
        self._tr = tr
        self.hotseat = hotseat
        self.reveal: RevealShow | None = None
        self.last_round: RevealShow | None = None  # kept after the reveal closes, for history
        self.round_actions: list[Action] = []  # ActionTaken since the round started
        self.out_order: list[int] = []  # seats in the order they left the game
        self.left: set[int] = set()  # seats that left the table (not only out of dice)
        self.dealt_round: int | None = None  # the round dealt and not yet resolved
        self.winner: int | None = None
        self.ended: Words | None = None  # the game ended for us with no winner: why
        self.deadlines: dict[int, float | None] = {}
        self.messages: collections.deque[Words] = collections.deque(maxlen=6)
        self.toast: tuple[Words, float] | None = None
        self.talk = TalkBoard()
        # a spectator's standing "verified to move N" (or "NOT verified"): the last
        # watch.* notice, kept on screen, not only as a toast and a log line
        self.badge: Words | None = None
        self.badge_warns = False  # the badge says "NOT verified": drawn as a warning

    # ---- events in ----------------------------------------------------------------------

    def apply(self, event: Event, now: float, view: SeatView | None, seat: int) -> Reaction:
        """Fold ``event`` (reported at ``now``; ``view``: the seat's last view, still the
        ended round's at its resolution; ``seat``: ours)."""
        out = Reaction()
        match event:
            case GameStarted(names=names):
                out.names = tuple(names)
            case RoundStarted(round_no=round_no):
                out.new_round = True
                out.shake = self.reveal is None  # else the cups rattle once the reveal closes
                if self.dealt_round is not None and self.dealt_round != round_no:
                    # a new deal with no reveal since the last: the table voided that round (a
                    # peer left mid-round); our dice change and its bids vanish, so say why
                    self.say(keyed("table.round_voided", n=self.dealt_round), now)
                self.round_actions = []
                self.dealt_round = round_no
            case ActionTaken(action=action):
                self.round_actions.append(action)
                sound = action_sound(action)
                if sound is not None:
                    out.cues.append((None, sound))
            case RoundResolved(result=result):
                # the view is still the ended round's: the next one is read after events
                wild = view.state.wild if view is not None else True
                palifico = view is not None and view.palifico_round is not None
                n = view.state.n_seats if view is not None else len(result.dice)
                order = lift_order([s for s, d in enumerate(result.dice) if d], result.target, n)
                timeline = RevealTimeline(now, order)
                self.reveal = RevealShow(result, wild, now, tuple(self.round_actions), palifico,
                                         timeline)
                out.cues.extend(reveal_cues(result, timeline))
                self.last_round = self.reveal
                self.round_actions = []
                self.dealt_round = None  # the round ended the normal way
                self._out(*result.eliminated)
                # the outcome stays in the side panel's log after the reveal closes
                self.messages.append(partial(self._outcome, result))
            case TurnTimer(seat=who, deadline=deadline):
                self.deadlines[who] = deadline
            case GameOver(winner=winner):
                self.winner = winner
            case PlayerLeft(seat=who):
                self._out(who)
                self.left.add(who)
                self.say_event(event, now)
                if who == seat and not self.hotseat:
                    self.ended = keyed("outcome.removed")
            case SeatDisconnected(seat=who) | SeatReconnected(seat=who) if who in self.left:
                pass  # a seat that left is no one the table waits for (seen: a removed seat,
                # watching the rest, told "Cris: disconnected, 0 s to come back" of itself)
            case SeatDisconnected(seat=who, until=until):
                self.say(keyed("seat.disconnected", name=words.seat_name(self._names(), who),
                               s=max(0, round(until - now))), now)
            case SeatReconnected(seat=who):
                self.say(keyed("seat.reconnected", name=words.seat_name(self._names(), who)),
                         now)
            case GameAbandoned(seat=who):
                self.ended = keyed("outcome.abandoned", name=words.seat_name(self._names(), who))
            case TableGone(why="too-few" | "behind" as why, silent=silent, behind=behind):
                # we heard seats: "nobody is heard" would be false (presence.gone_why)
                names = self._names()
                self.ended = keyed("outcome.table_gone_few" if why == "too-few"
                                   else "outcome.table_gone_behind",
                                   names=", ".join(words.seat_name(names, s) for s in silent),
                                   behind=", ".join(words.seat_name(names, s) for s in behind))
            case TableGone():
                self.ended = keyed("outcome.table_gone")
            case TalkHeard(seat=who, phrase=phrase):
                # a bubble at the seat, never a line in the table's log
                if self.talk.heard(who, phrase, now):
                    out.cues.append((None, "talk"))
            case Notice(key=key) if key.startswith("watch."):
                self.badge = partial(self._event_words, event)
                self.badge_warns = key == "watch.not_verified"
                if key == "watch.verified":
                    # good news at every round's end: the badge and a line in the log, not
                    # the red toast over the table that warnings (NOT verified) take
                    self.messages.append(self.badge)
                else:
                    self.say_event(event, now)
            case _:
                self.say_event(event, now)
        return out

    def say(self, said: Words, now: float) -> None:
        """Tell the player something: a toast on the table and a line in the side panel."""
        self.messages.append(said)
        self.toast = (said, now)

    def say_event(self, event: Event, now: float) -> None:
        """Tell the player about ``event`` in words, when it is one they must be told."""
        if words.event_line(self._tr(), self._names(), event) is not None:
            self.say(partial(self._event_words, event), now)

    def _event_words(self, event: Event, tr: Tr) -> str:
        return words.event_line(tr, self._names(), event) or ""

    def _outcome(self, result: RoundResult, tr: Tr) -> str:
        """A round's outcome for the log: "Ronda 3: En la mesa hay... Ana pierde un dado"."""
        lines = words.result_lines(tr, self._names(), result)
        return tr("table.round_outcome", n=result.round_no, what=". ".join(lines[1:]))

    def _out(self, *seats: int) -> None:
        for seat in seats:
            if seat not in self.out_order:
                self.out_order.append(seat)

    # ---- what is shown ------------------------------------------------------------------

    def standings(self, n_seats: int) -> list[int]:
        """Seats from first to last: the winner, then those who left the game latest first
        (seats never seen leaving, e.g. on a table joined late, come last in seat order)."""
        if self.winner is None:
            return []
        order = [self.winner] + [s for s in reversed(self.out_order) if s != self.winner]
        return order + [s for s in range(n_seats) if s not in order]

    def message_texts(self, tr: Tr) -> list[str]:
        """The side panel's messages, oldest first, in ``tr``'s language."""
        return [said(tr) for said in self.messages]

    def toast_text(self, tr: Tr, now: float) -> str | None:
        """The toast to show at ``now`` (in ``tr``'s language), if one is still up."""
        if self.toast is None or now - self.toast[1] > TOAST_S:
            return None
        return self.toast[0](tr)
