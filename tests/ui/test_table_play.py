"""Drive the table scene with synthetic keys and clicks through whole games against bots."""

from __future__ import annotations

import itertools

import pygame
import pytest

from dudo_p2p.rules import Bid, Dudo, Raise, RuleSet
from dudo_p2p.session import CheatDetected, Notice, PlayerLeft
from dudo_p2p.session.local import LocalSession
from dudo_p2p.ui import widgets
from dudo_p2p.ui.app import App
from dudo_p2p.ui.local_tables import HotseatSeat
from dudo_p2p.ui.request import TableRequest
from dudo_p2p.ui.table import END_GRACE_S, TableScene

from .conftest import FakeClock
from .helpers import bot_tables, click, click_button, key


def _app(clock: FakeClock, surface: pygame.Surface, lang: str = "es") -> App:
    return App(bot_tables, lang, clock, surface=surface, bot_delay=0.0, reveal_hold=0.0)


def _table(app: App, **kw: object) -> TableScene:
    app.start_table(TableRequest("bots", **kw))  # type: ignore[arg-type]
    assert isinstance(app.scene, TableScene)
    return app.scene


def _until_my_turn(app: App, clock: FakeClock, scene: TableScene, limit: int = 400) -> None:
    for _ in range(limit):
        if scene.my_turn and scene.model.reveal is None and scene.model.winner is None:
            return
        if scene.model.reveal is not None:
            key(app, pygame.K_SPACE)
        clock.advance(0.05)
        app.frame()
    raise AssertionError("our turn never came")


@pytest.mark.parametrize("lang", ["es", "en"])
def test_a_whole_game_against_bots_with_keys_and_clicks(clock: FakeClock,
                                                       surface: pygame.Surface,
                                                       lang: str) -> None:
    app = _app(clock, surface, lang)
    app.frame()
    click_button(app, "bots_2")
    click_button(app, "play_bots")
    scene = app.scene
    assert isinstance(scene, TableScene)
    session = scene.session
    assert isinstance(session, LocalSession)
    assert session.state.n_seats == 3
    our_moves = 0
    for _ in range(3000):
        clock.advance(0.05)
        app.frame()
        if scene.model.winner is not None:
            break
        if scene.model.reveal is not None:
            (key(app, pygame.K_SPACE) if our_moves % 2 else click(app, (470, 300)))
            continue
        if scene.my_turn and not scene.blocked:
            before = session.state
            if scene.offered(Dudo) is not None and our_moves % 3 == 2:
                key(app, pygame.K_d)
            elif scene.choices():
                click_button(app, "choice_0")
            elif our_moves % 2:
                click_button(app, "bid")
            else:
                key(app, pygame.K_RETURN)
            our_moves += 1
            app.frame()
            assert session.state != before, "our move was not taken"
    assert scene.model.winner is not None, "the game did not end"
    assert our_moves >= 3
    assert scene.model.reveal is not None  # the last round's reveal comes before the winner
    app.frame()
    with pytest.raises(KeyError):
        widgets.find(scene.buttons, "play_again")
    key(app, pygame.K_SPACE)
    app.frame()
    button = widgets.find(scene.buttons, "play_again")
    # issue 17: a second Space (or a held one) meant for the reveal, an Enter or a click in
    # the first moment does not start a new game by accident
    assert not button.enabled
    for k in (pygame.K_SPACE, pygame.K_RETURN):
        key(app, k)
    click(app, button.rect.center)
    assert app.scene is scene
    clock.advance(END_GRACE_S)
    app.frame()
    key(app, pygame.K_SPACE)
    assert app.scene is scene  # Space never plays again: only Enter or the button
    button = widgets.find(scene.buttons, "play_again")
    assert button.enabled
    click(app, button.rect.center)
    assert isinstance(app.scene, TableScene) and app.scene is not scene
    assert not session.bots  # leaving the table closed its session


def test_composer_refuses_an_illegal_bid_and_names_the_minimum(clock: FakeClock,
                                                               surface: pygame.Surface) -> None:
    app = _app(clock, surface, "es")
    scene = _table(app, bots=2, seed=11)
    _until_my_turn(app, clock, scene)
    # Drive until a bid stands at our turn, so "too low" exists.
    for _ in range(50):
        if scene.view is not None and scene.view.standing_bid is not None:
            break
        if scene.choices():
            click_button(app, "choice_0")
        else:
            key(app, pygame.K_RETURN)
        _until_my_turn(app, clock, scene)
    standing = scene.view.standing_bid if scene.view is not None else None
    assert standing is not None
    session = scene.session
    assert isinstance(session, LocalSession)
    # Put the composer on the standing face at the standing count: never a legal raise.
    face_key = pygame.K_0 + standing.face
    key(app, face_key)
    for _ in range(40):
        key(app, pygame.K_DOWN)
    for _ in range(standing.count - 1):
        key(app, pygame.K_UP)
    assert scene.composer.bid == Bid(standing.count, standing.face)
    app.frame()
    bid_button = widgets.find(scene.buttons, "bid")
    assert not bid_button.enabled
    bids_before = session.state.bids
    key(app, pygame.K_RETURN)
    click(app, bid_button.rect.center)
    assert session.state.bids == bids_before  # nothing was submitted
    help_text = scene.composer.help_text(app.tr, {a.bid for a in scene.legal
                                                  if isinstance(a, Raise)}, True, None)
    minimum = Bid(standing.count + 1, standing.face) if standing.face != 1 else \
        Bid(standing.count + 1, 1)
    assert minimum.spoken("es") in help_text
    # One more makes it legal, and Enter bids it.
    key(app, pygame.K_UP)
    app.frame()
    assert widgets.find(scene.buttons, "bid").enabled
    key(app, pygame.K_RETURN)
    assert session.state.bids[len(bids_before)] == Raise(session.seat, minimum)


def test_dudo_and_calzo_are_disabled_on_the_opening(clock: FakeClock,
                                                    surface: pygame.Surface) -> None:
    app = _app(clock, surface, "en")
    scene = _table(app, bots=1, seed=2)
    for _ in range(200):
        if scene.my_turn and scene.view is not None and scene.view.standing_bid is None \
                and not scene.choices():
            break
        if scene.choices():
            click_button(app, "choice_0")
        if scene.my_turn and scene.view is not None and scene.view.standing_bid is not None:
            key(app, pygame.K_d)
        if scene.model.reveal is not None:
            key(app, pygame.K_SPACE)
        clock.advance(0.05)
        app.frame()
    assert scene.view is not None and scene.view.standing_bid is None and scene.my_turn
    app.frame()
    assert not widgets.find(scene.buttons, "dudo").enabled
    assert not widgets.find(scene.buttons, "calzo").enabled
    session = scene.session
    assert isinstance(session, LocalSession)
    before = session.state.bids
    key(app, pygame.K_d)
    key(app, pygame.K_c)
    assert session.state.bids == before


def test_events_are_told_in_plain_words(clock: FakeClock, surface: pygame.Surface) -> None:
    app = _app(clock, surface, "es")
    scene = _table(app, bots=3, seed=4)
    session = scene.session
    assert isinstance(session, LocalSession)
    session._events += [PlayerLeft(2, "timeout"), CheatDetected(1, "equivocation"),
                       CheatDetected(3, "something_new"), Notice("no.such.notice", ("x",)),
                       PlayerLeft(3, "weird_reason")]
    app.frame()
    text = " | ".join(scene.model.message_texts(scene.tr))
    assert "Carmen se quedó sin tiempo" in text
    assert "¡Trampa! Bruno firmó dos jugadas distintas" in text
    assert "¡Trampa! Diego fue descubierto" in text
    assert "no.such.notice x" in text
    assert "Traceback" not in text


def test_look_toggles_with_m_and_a_click_on_the_cup(clock: FakeClock,
                                                    surface: pygame.Surface) -> None:
    app = _app(clock, surface, "es")
    scene = _table(app, bots=1, seed=3)
    app.frame()
    assert not scene.looking
    # issue 17: we open and choose the direction first. An M before the dice are dealt means
    # "show them when they come" (it used to flip an invisible state, so the first M after
    # the choice hid the dice); another M before the deal does not take it back
    assert scene.choices() and scene.view is not None and scene.view.own_dice is None
    key(app, pygame.K_m)
    key(app, pygame.K_m)
    assert scene.looking
    click_button(app, "choice_0")
    assert scene.view is not None and scene.view.own_dice is not None
    assert scene.looking  # the dice show at once
    key(app, pygame.K_m)
    assert not scene.looking
    key(app, pygame.K_m)
    assert scene.looking
    click(app, (170, 700))
    assert not scene.looking


def test_menu_rules_and_language_switch(clock: FakeClock, surface: pygame.Surface) -> None:
    app = _app(clock, surface, "es")
    scene = _table(app, bots=2, rules=RuleSet(calza=False, starting_dice=4), seed=5)
    key(app, pygame.K_r)
    assert scene.overlay == "rules"
    app.frame()
    key(app, pygame.K_ESCAPE)
    assert scene.overlay is None
    key(app, pygame.K_ESCAPE)
    assert scene.overlay == "menu"
    app.frame()
    click_button(app, "language")
    assert app.tr.lang == "en"
    click_button(app, "resume")
    assert scene.overlay is None
    key(app, pygame.K_ESCAPE)
    app.frame()
    click_button(app, "lobby")
    assert not isinstance(app.scene, TableScene)


def test_hotseat_hands_over_between_turns_and_hides_dice(clock: FakeClock,
                                                        surface: pygame.Surface) -> None:
    app = _app(clock, surface, "es")
    app.start_table(TableRequest("hotseat", players=3, seed=9))
    scene = app.scene
    assert isinstance(scene, TableScene)
    session = scene.session
    assert isinstance(session, HotseatSeat)
    handovers = []
    for _ in range(60):
        clock.advance(0.05)
        app.frame()
        if scene.handover_seat is not None:
            handovers.append(scene.handover_seat)
            assert not scene.looking
            assert widgets.find.__name__  # the overlay is modal: no buttons to press
            assert scene.buttons == []
            before = session.table.state
            key(app, pygame.K_RETURN)  # Enter on the hand-over screen only takes the device
            assert session.table.state == before
            click(app, (640, 400))
            assert scene.handover_seat is None and scene.shown_seat == handovers[-1]
        elif scene.model.reveal is not None:
            key(app, pygame.K_SPACE)
        elif scene.my_turn:
            if scene.choices():
                click_button(app, "choice_0")
            else:
                key(app, pygame.K_RETURN)
    assert len(handovers) >= 4
    assert len(set(handovers)) == 3  # every player got the device
    assert all(a != b for a, b in itertools.pairwise(handovers))
