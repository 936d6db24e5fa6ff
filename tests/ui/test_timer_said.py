"""A turn that runs out is said on every screen (issue 15): "Se acabó el tiempo: la mesa
apostó dos trenes por Ana".

NodeSession over a fake node with an injected clock: our own turn played by the timer bot,
another seat's (inferred: its act was agreed after its deadline on our clock); then the
words, in both languages, on the table scene.
"""

from __future__ import annotations

from typing import cast

import pygame
import pytest

from dudo_p2p.node.node import Node
from dudo_p2p.rules import Bid, Dudo, Raise
from dudo_p2p.session import (
    ActionTaken,
    Event,
    GameOver,
    PlayerLeft,
    Reason,
    TimerPlayed,
    TurnTimer,
)
from dudo_p2p.session.node_session import NodeSession
from dudo_p2p.session.turn_timer import TurnDeadlines
from dudo_p2p.ui import draw, words
from dudo_p2p.ui.i18n import Tr

from .conftest import FakeClock
from .helpers import TextRecorder, table_app


class FakeMachine:
    """Seat 0 of a table where raising two threes is legal (what NodeSession asks of it)."""

    seat = 0

    def __init__(self) -> None:
        self.submitted: list[object] = []

    def legal_actions(self) -> list[Raise]:
        return [Raise(0, Bid(2, 3))]

    def view(self) -> None:
        return None

    def submit(self, action: object, now: float) -> list[object]:
        self.submitted.append(action)
        return []


def test_our_turn_played_by_the_timer_is_said_once_and_only_when_the_time_ran_out() -> None:
    node = FakeNode()
    machine = FakeMachine()
    node.machine = machine  # type: ignore[assignment]
    session = NodeSession(cast(Node, node), timer_bot=lambda view, legal: legal[0])
    node.events = [TurnTimer(0, 110.0)]
    session.wait(0)
    assert not session.poll_events()[1:] and machine.submitted == []  # 10 s left: nothing
    node.now = 110.0
    session.wait(0)
    assert session.poll_events() == [TimerPlayed(0, Raise(0, Bid(2, 3)))]
    assert machine.submitted == [Raise(0, Bid(2, 3))] and session.timer_turns == 1
    node.events = [ActionTaken(Raise(0, Bid(2, 3)))]  # our own act, agreed: not said again
    assert session.poll_events() == [ActionTaken(Raise(0, Bid(2, 3)))]


class FakeNode:
    """What NodeSession reads of a node: its events, machine, clock; carry_out does nothing."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.machine: FakeMachine | None = None
        self.closed = False
        self.now = 100.0

    def clock(self) -> float:
        return self.now

    def carry_out(self, effects: list[object]) -> None:
        assert effects == []

    def step(self, timeout: float) -> None:
        raise AssertionError("the fake node has no loop")


def test_another_seats_act_after_its_deadline_is_said_as_the_timers() -> None:
    node = FakeNode()
    session = NodeSession(cast(Node, node))
    late = Raise(1, Bid(2, 3))
    node.events = [TurnTimer(1, 130.0)]
    session.poll_events()
    node.now = 130.4  # its act is agreed after its deadline: its timer played it
    node.events = [ActionTaken(late), TurnTimer(2, 160.4)]
    assert session.poll_events()[1] == TimerPlayed(1, late)
    node.now = 150.0  # in time: nothing to say
    node.events = [ActionTaken(Raise(2, Bid(3, 3))), TurnTimer(1, None)]
    assert not [e for e in session.poll_events() if isinstance(e, TimerPlayed)]
    node.now = 999.0  # a table with no timer: never said
    node.events = [ActionTaken(Dudo(1))]
    assert not [e for e in session.poll_events() if isinstance(e, TimerPlayed)]


def test_our_deadline_goes_when_we_are_removed_or_the_game_ends_not_when_others_leave() -> None:
    turns = TurnDeadlines()
    assert turns.follow(TurnTimer(0, 110.0), 0, lambda: 100.0) is None
    assert turns.ours == 110.0
    turns.follow(PlayerLeft(1, Reason.QUIT), 0, lambda: 100.0)  # another seat: still ours
    assert turns.ours == 110.0
    turns.follow(PlayerLeft(0, Reason.TIMEOUT), 0, lambda: 100.0)  # we were removed
    assert turns.ours is None
    turns.follow(TurnTimer(0, 120.0), 0, lambda: 100.0)
    turns.follow(GameOver(1), 0, lambda: 100.0)  # the game ended: no timer turn to play
    assert turns.ours is None
    turns.follow(TurnTimer(1, 130.0), 0, lambda: 100.0)  # another seat's turn: not ours
    assert turns.ours is None


def test_the_words_in_both_languages(clock: FakeClock, surface: pygame.Surface,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    names = ["Ana", "Beto"]
    bid = TimerPlayed(0, Raise(0, Bid(2, 3)))
    assert words.event_line(Tr("es"), names, bid) == (
        "Se acabó el tiempo: la mesa apostó dos trenes por Ana")
    assert words.event_line(Tr("en"), names, bid) == (
        "Time ran out: the table bid two threes for Ana")
    call = TimerPlayed(1, Dudo(1))
    assert words.event_line(Tr("es"), names, call) == (
        "Se acabó el tiempo: la mesa jugó por Beto (Beto: ¡Dudo!)")
    # and the table shows it: an event the session reports reaches the screen
    app, scene = table_app(clock, surface, "es", bots=1, seed=5)
    recorder = TextRecorder()
    monkeypatch.setattr(draw, "text", recorder)
    real = scene.session.poll_events
    monkeypatch.setattr(scene.session, "poll_events", lambda: [*real(), bid])
    app.frame()
    monkeypatch.setattr(scene.session, "poll_events", real)
    shown = recorder.frame(app)
    assert any("Se acabó el tiempo: la mesa apostó dos trenes por" in line for line in shown)
