"""One more game with the same friends, in the window (issue 15): three players, each with
their own app (headless) over real nodes on loopback, synthetic clicks and keys.

Game 1: Ana hosts, Beto and Cris join. At the end Beto says "play again" first and waits for
Ana (the previous host opens the next table); Ana says it; all three are seated again at
Ana's new table, whose genesis names game 1's final log hash, and the waiting room and end
screen show the evening's scoreboard. After game 2 Ana goes back to the lobby: the next seat
of game 2 in the running opens game 3 and the other follows; nobody waits for Ana.

The nodes run on real time, pumped with bounded waits; the apps' clock is moved by hand.
"""

from __future__ import annotations

from collections.abc import Callable

import pygame
import pytest

from dudo_p2p.consensus.evening import Ledger
from dudo_p2p.consensus.record import verify_record
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.node.node import Node
from dudo_p2p.rules import RuleSet
from dudo_p2p.session import Scoreboard
from dudo_p2p.session.again import AgainSession
from dudo_p2p.session.node_session import NodeSession
from dudo_p2p.ui import draw
from dudo_p2p.ui.app import App
from dudo_p2p.ui.drive import run_tables
from dudo_p2p.ui.lobby import LobbyScene
from dudo_p2p.ui.request import TableRequest
from dudo_p2p.ui.scoreboard import board_of
from dudo_p2p.ui.table import END_GRACE_S, TableScene

from .conftest import FakeClock
from .helpers import TextRecorder, click_button
from .test_joining import NET

RULES = RuleSet(starting_dice=3)
GAME_S = 90.0  # bound on real time for one game of three on loopback, in one thread


def seat(name: str, port: int | None, nodes: list[Node]) -> NodeSession:
    if port is None:
        node = Node.host(Identity.generate(), name, NET, seats=3, rules=RULES, turn_timer_ms=0)
    else:
        node = Node.join(Identity.generate(), name, NET, addresses=[("127.0.0.1", port)],
                         discover=False)
    nodes.append(node)
    return NodeSession(node)


def run(apps: list[App], clock: FakeClock, until: Callable[[], bool], limit: float) -> None:
    """Every app in turn until ``until()``, within ``limit`` s of real time (ui/drive.py)."""
    run_tables(apps, clock.advance, until, limit)


def over(app: App) -> bool:
    scene = app.scene
    return isinstance(scene, TableScene) and scene.end_shown_at is not None


def playing(app: App) -> bool:
    scene = app.scene
    return isinstance(scene, TableScene) and scene.view is not None and scene.model.winner is None


def head(app: App) -> bytes:
    session = app.scene.session
    assert isinstance(session, NodeSession | AgainSession)
    node = session.node if isinstance(session, NodeSession) else session.node_now()
    assert node.machine is not None
    return node.machine.replica.head


def prev_of(app: App) -> bytes:
    session = app.scene.session
    assert isinstance(session, AgainSession) and session.current is not None
    seated = session.current.node.seated
    assert seated is not None
    return seated.seating.prev


def board(app: App) -> Scoreboard:
    found = board_of(app.scene.session)
    assert found is not None
    return found


@pytest.mark.e2e
def test_one_more_game_seats_the_same_friends_and_counts_the_evening(
        clock: FakeClock, surface: pygame.Surface, nodes: list[Node],
        monkeypatch: pytest.MonkeyPatch) -> None:
    ana = seat("Ana", None, nodes)
    port = ana.node.port
    people = {"Ana": ana, "Beto": seat("Beto", port, nodes), "Cris": seat("Cris", port, nodes)}
    apps = {}
    for name, session in people.items():
        app = App(lambda _request, s=session: s, "es", clock, surface=surface, bot_delay=0.0,
                  reveal_hold=0.0)
        kind = "create" if name == "Ana" else "join"
        app.start_table(TableRequest(kind, rules=RULES, address=f"127.0.0.1:{port}"))
        apps[name] = app
    everyone = list(apps.values())
    run(everyone, clock, lambda: all(over(a) for a in everyone), GAME_S)
    first = head(apps["Ana"])
    assert {head(a) for a in everyone} == {first}
    clock.advance(END_GRACE_S + 0.1)
    recorder = TextRecorder()
    monkeypatch.setattr(draw, "text", recorder)
    shown = recorder.frame(apps["Ana"])
    assert "La noche: 1 partida" in shown  # the end screen counts the evening

    # Beto first: he waits for Ana, the previous host, to open the next table
    click_button(apps["Beto"], "play_again")
    beto = apps["Beto"].scene
    assert isinstance(beto, TableScene) and isinstance(beto.session, AgainSession)
    run(everyone, clock, lambda: True, 1)
    assert "Otra partida: esperando a que Ana abra la mesa..." in recorder.frame(apps["Beto"])
    click_button(apps["Ana"], "play_again")  # before Cris answers: her room waits for him
    assert isinstance(apps["Ana"].scene.session, AgainSession)
    shown = recorder.frame(apps["Ana"])
    assert "Tu mesa" in shown and "La noche: 1 partida" in shown  # the waiting room too
    assert "Esperando a Cris" in shown or "Esperando a Beto, Cris" in shown, shown
    # Beto sits down at once (he said yes first); the room still waits for Cris
    run(everyone, clock, lambda: {"Asientos 2/3", "Esperando a Cris"} <= set(
        recorder.frame(apps["Ana"])), 10)
    click_button(apps["Cris"], "play_again")
    run(everyone, clock, lambda: all(playing(a) for a in everyone), 30)
    assert {prev_of(a) for a in everyone} == {first}  # game 2 names game 1
    assert all(a.scene.view.state.n_seats == 3 for a in everyone)  # type: ignore[union-attr]

    run(everyone, clock, lambda: all(over(a) for a in everyone), GAME_S)
    second = head(apps["Ana"])
    clock.advance(END_GRACE_S + 0.1)
    for app in everyone:
        counted = board(app)
        assert counted.games == 2 and counted.broken == ""
        assert sum(r.wins for r in counted.rows) == 2
        assert {r.name for r in counted.rows} == {"Ana", "Beto", "Cris"}
    assert "La noche: 2 partidas" in recorder.frame(apps["Cris"])

    # Ana leaves for the lobby (a decline); the next seat of game 2 in the running (seat 1:
    # whoever of Beto and Cris sat down first) opens game 3, and the other follows
    successor = [p.name for p in apps["Ana"].scene.session.players()][1]
    click_button(apps["Ana"], "lobby")
    assert isinstance(apps["Ana"].scene, LobbyScene)
    click_button(apps["Cris"], "play_again")
    click_button(apps["Beto"], "play_again")
    two = [apps["Beto"], apps["Cris"]]
    run(two, clock, lambda: all(playing(a) for a in two), 30)
    assert {prev_of(a) for a in two} == {second}
    assert all(a.scene.view.state.n_seats == 2 for a in two)  # type: ignore[union-attr]
    seated = [p.name for p in apps["Cris"].scene.session.players()]
    assert seated[0] == successor and set(seated) == {"Beto", "Cris"}
    # the evening as Cris holds it: two verified games, linked
    cris = apps["Cris"].scene.session
    assert isinstance(cris, AgainSession)
    records = cris.evening.records
    assert len(records) == 2 and verify_record(records[1]).prev == verify_record(
        records[0]).log_hash
    assert Ledger().scoreboard(records).games == 2
    for app in two:  # leave the table: game 3's nodes (made by the sessions) close too
        app.scene.leave()
    assert all(n.closed for n in (cris.node_now(),))
