"""The picado (V17) from the window: a "¡Picado!" button under the felt and the I key make the
composed bid as a picado when the rules allow one (the bid raised, the direction reversed);
nothing offers it at a table that does not play it; doubting a picado is named for it."""

from __future__ import annotations

from collections.abc import Callable

import pygame
import pytest

from dudo_p2p.rules import (
    Action,
    DoubtClaim,
    Dudo,
    Picado,
    Raise,
    RuleSet,
    SeatView,
)
from dudo_p2p.session import Session
from dudo_p2p.ui import widgets
from dudo_p2p.ui.app import App
from dudo_p2p.ui.local_tables import local_factory
from dudo_p2p.ui.request import TableRequest
from dudo_p2p.ui.table import TableScene

from .conftest import FakeClock
from .helpers import click, key

PICADO = RuleSet().with_option("picado", "true")


def _bot(picado: bool) -> Callable[[SeatView, list[Action]], Action]:
    """A bot that opens low and otherwise doubts; with ``picado``, makes one when it may."""

    def decide(_view: SeatView, legal: list[Action]) -> Action:
        for kind in ((Picado,) if picado else ()) + (Dudo, DoubtClaim):
            offered = [a for a in legal if isinstance(a, kind)]
            if offered:
                return offered[0]
        raises = [a for a in legal if isinstance(a, Raise)]
        return raises[0] if raises else legal[0]

    return decide


def _table(clock: FakeClock, surface: pygame.Surface, lang: str, rules: RuleSet, *,
           bot_picado: bool = False, seed: int = 3) -> tuple[App, TableScene]:
    def tables(request: TableRequest) -> Session:
        return local_factory(request, clock, bot_maker=lambda _l, _r: _bot(bot_picado))

    app = App(tables, lang, clock, surface=surface, bot_delay=0.0, reveal_hold=0.0)
    app.start_table(TableRequest("bots", rules=rules, bots=1, seed=seed))
    assert isinstance(app.scene, TableScene)
    return app, app.scene


def _until(app: App, clock: FakeClock, scene: TableScene, done: Callable[[TableScene], bool],
           limit: int = 2000) -> None:
    """Advance the table (dismissing reveals, choosing the first setup choice, opening with
    the composer's bid) until ``done(scene)``."""
    for _ in range(limit):
        clock.advance(0.05)
        app.frame()
        if done(scene):
            return
        if scene.model.reveal is not None:
            key(app, pygame.K_SPACE)
        elif scene.my_turn and not scene.blocked:
            if scene.choices():
                scene.submit(scene.choices()[0])
            elif scene.view is not None and scene.view.standing_bid is None:
                key(app, pygame.K_RETURN)
            else:
                key(app, pygame.K_d)
    raise AssertionError("the table never got there")


def _may_picado(scene: TableScene) -> bool:
    view = scene.view
    return (scene.my_turn and not scene.blocked and scene.model.reveal is None
            and view is not None and view.standing_bid is not None
            and view.state.dice_counts[scene.session.seat] >= 2)


@pytest.mark.parametrize(("lang", "label", "how"), [("es", "¡Picado!", "key"),
                                                      ("en", "Picado!", "click")])
def test_the_composed_bid_is_made_as_a_picado_by_its_button_or_key(
        clock: FakeClock, surface: pygame.Surface, lang: str, label: str, how: str) -> None:
    app, scene = _table(clock, surface, lang, PICADO)
    _until(app, clock, scene, _may_picado)
    app.frame()
    button = widgets.find(scene.buttons, "picado")
    assert button.label == label and button.hotkey == "I"
    assert button.enabled, "the composer starts on a legal raise: it may be a picado"
    view = scene.view
    assert view is not None
    clockwise, bid = view.state.clockwise, scene.composer.bid
    if how == "key":
        key(app, pygame.K_i)
    else:
        click(app, button.rect.center)
    after = scene.session.view()
    assert after.state.bids[-1] == Picado(scene.session.seat, bid)
    assert after.state.picado_done and after.state.clockwise is not clockwise
    app.frame()
    with pytest.raises(KeyError):  # once a round: no more button
        widgets.find(scene.buttons, "picado")


def test_the_picado_button_is_dark_for_a_bid_that_is_not_a_legal_raise(
        clock: FakeClock, surface: pygame.Surface) -> None:
    app, scene = _table(clock, surface, "es", PICADO)
    _until(app, clock, scene, _may_picado)
    view = scene.view
    assert view is not None and view.standing_bid is not None
    scene.composer.set_face(view.standing_bid.face, view.standing_bid)  # the standing bid
    app.frame()
    assert not widgets.find(scene.buttons, "picado").enabled
    key(app, pygame.K_i)  # refused: nothing submitted
    assert scene.session.view().state.bids == view.state.bids


def test_no_picado_is_offered_at_a_table_that_does_not_play_it(
        clock: FakeClock, surface: pygame.Surface) -> None:
    app, scene = _table(clock, surface, "es", RuleSet())
    _until(app, clock, scene, _may_picado)
    app.frame()
    with pytest.raises(KeyError):
        widgets.find(scene.buttons, "picado")
    bids = scene.session.view().state.bids
    key(app, pygame.K_i)
    assert scene.session.view().state.bids == bids


@pytest.mark.parametrize(("lang", "label"), [("es", "¡Dudo del picado!"),
                                             ("en", "Doubt the picado!")])
def test_doubting_a_picado_says_so(clock: FakeClock, surface: pygame.Surface, lang: str,
                                   label: str) -> None:
    app, scene = _table(clock, surface, lang, PICADO, bot_picado=True)

    def claim_to_doubt(s: TableScene) -> bool:
        return (s.my_turn and not s.blocked and s.model.reveal is None and s.view is not None
                and isinstance(s.view.state.claim, Picado))

    _until(app, clock, scene, claim_to_doubt)
    app.frame()
    button = widgets.find(scene.buttons, "extra_doubtclaim")
    assert button.label == label

