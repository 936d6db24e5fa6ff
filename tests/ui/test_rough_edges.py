"""Issue 17's rough edges, each as the player met it: the probability line, the face names,
sorted dice, the dice on the table, the revolver's bullets, the opener's direction, neutral
words, the lobby's two bot counts, and the bid history scrolled back to its first bid."""

from __future__ import annotations

from collections.abc import Callable

import pygame
import pytest

from dudo_p2p.rules import RuleSet, odds
from dudo_p2p.ui import draw, widgets
from dudo_p2p.ui.app import App
from dudo_p2p.ui.i18n import CATALOGUE, Tr
from dudo_p2p.ui.lobby import LobbyScene
from dudo_p2p.ui.side_panel import HISTORY_LINES, history_window
from dudo_p2p.ui.table import TableScene
from dudo_p2p.ui.table_layout import own_hand_rect

from .conftest import FakeClock
from .helpers import TextRecorder, bot_tables, click_button, key, play_until, table_app


def _bid_stands_at_our_turn(scene: TableScene) -> bool:
    view = scene.view
    return (view is not None and scene.my_turn and not scene.blocked
            and view.standing_bid is not None)


def _hotseat_until(clock: FakeClock, surface: pygame.Surface, seed: int,
                   done: Callable[[TableScene], bool]) -> tuple[App, TableScene]:
    """A two-player hot-seat table, each raising by the least (Enter), until ``done``."""
    app, scene = table_app(clock, surface, "es", "hotseat", players=2, seed=seed)
    for _ in range(400):
        clock.advance(0.05)
        app.frame()
        if scene.handover_seat is not None:
            key(app, pygame.K_SPACE)
        elif done(scene):
            return app, scene
        elif scene.my_turn and not scene.blocked:
            if scene.choices():
                click_button(app, "choice_0")
            else:
                key(app, pygame.K_RETURN)
    raise AssertionError("the hot-seat table never got there")


def _our_hand_matters(scene: TableScene) -> bool:
    """A bid stands at our turn whose odds change, in whole percent, with our hand."""
    view = scene.view
    if not _bid_stands_at_our_turn(scene) or view is None or view.own_dice is None:
        return False
    bid = view.standing_bid
    assert bid is not None
    own = odds.chance_at_least(bid.count, bid.face, view.own_dice,
                               view.total_dice - len(view.own_dice), wild=view.state.wild)
    blind = odds.chance_at_least(bid.count, bid.face, (), view.total_dice, wild=view.state.wild)
    return round(own * 100) != round(blind * 100)


def test_the_probability_counts_our_dice_with_the_cup_down(
        clock: FakeClock, surface: pygame.Surface, recorder: TextRecorder) -> None:
    app, scene = table_app(clock, surface, "es", bots=2, seed=4)
    play_until(app, clock, scene, _our_hand_matters)
    assert not scene.looking
    view = scene.view
    assert view is not None and view.standing_bid is not None and view.own_dice is not None
    bid = view.standing_bid
    p = odds.chance_at_least(bid.count, bid.face, view.own_dice,
                             view.total_dice - len(view.own_dice), wild=view.state.wild)
    drawn = recorder.frame(app)
    assert f"Probabilidad de que se cumpla: {round(p * 100)}%" in drawn  # not the blind one
    assert any(t.startswith("Con tus dados") for t in drawn)


def test_hotseat_with_the_cup_down_says_it_leaves_our_dice_out(
        clock: FakeClock, surface: pygame.Surface, recorder: TextRecorder) -> None:
    app, scene = _hotseat_until(clock, surface, 2, _bid_stands_at_our_turn)
    assert not scene.looking
    assert any(t.startswith("Sin contar tus dados") for t in recorder.frame(app))


def test_our_dice_are_sorted_and_the_dice_on_the_table_counted(
        clock: FakeClock, surface: pygame.Surface, recorder: TextRecorder,
        monkeypatch: pytest.MonkeyPatch) -> None:
    app, scene = table_app(clock, surface, "en", bots=3, seed=9)
    play_until(app, clock, scene, lambda s: s.my_turn and not s.blocked and not s.choices()
               and s.view is not None and sorted(s.view.own_dice or ()) != list(
                   s.view.own_dice or ()))
    key(app, pygame.K_m)
    faces: list[int] = []
    real_die = draw.die

    def spy(surface: pygame.Surface, center: tuple[int, int], size: int, face: int,
            **kw: object) -> pygame.Rect:
        if own_hand_rect().collidepoint(center):
            faces.append(face)
        return real_die(surface, center, size, face, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(draw, "die", spy)
    clock.advance(2.0)  # past the cups' shake
    drawn = recorder.frame(app)
    view = scene.view
    assert view is not None and view.own_dice is not None
    assert faces == sorted(view.own_dice)
    assert f"On the table: {view.total_dice} dice" in drawn


def test_the_face_has_its_name_and_a_legend_names_them_all(
        clock: FakeClock, surface: pygame.Surface, recorder: TextRecorder) -> None:
    app, scene = table_app(clock, surface, "es", bots=1, seed=3)
    play_until(app, clock, scene, lambda s: s.my_turn and not s.blocked and not s.choices())
    scene.pick_face(5)
    drawn = recorder.frame(app)
    assert "Pinta: quinas" in drawn
    at = next(i for i, t in enumerate(drawn) if t.startswith("Pintas:"))
    legend = " ".join(drawn[at:at + 2])  # drawn as two wrapped lines
    for name in ("As", "Tonto", "Tren", "Cuadra", "Quina", "Sexto"):
        assert name in legend


def test_the_revolver_shows_each_seats_bullets(
        clock: FakeClock, surface: pygame.Surface, recorder: TextRecorder) -> None:
    app, scene = table_app(clock, surface, "es", bots=2, seed=1,
                           rules=RuleSet(revolver=True, calza_full_hand="nothing"))
    play_until(app, clock, scene, lambda s: s.view is not None and any(s.view.state.bullets)
               and s.model.reveal is None)
    view = scene.view
    assert view is not None
    drawn = " | ".join(recorder.frame(app))
    for seat, n in enumerate(view.state.bullets):
        if view.state.alive[seat]:
            assert f"balas {n}/6" in drawn
    assert any(view.state.bullets)


def test_the_opener_is_told_what_the_direction_means_and_the_rules_say_it(
        clock: FakeClock, surface: pygame.Surface, recorder: TextRecorder) -> None:
    app, scene = table_app(clock, surface, "es", bots=1, seed=3)
    app.frame()
    assert scene.choices()
    drawn = recorder.frame(app)
    assert "izquierda" in " ".join(drawn)  # draw.text_block draws line by line
    key(app, pygame.K_r)
    assert any("elige el sentido" in t for t in recorder.frame(app))


def test_players_out_of_dice_are_not_called_eliminated() -> None:
    for catalogue in CATALOGUE.values():
        for text in catalogue.values():
            assert "eliminad" not in text.lower() and "eliminated" not in text.lower()
    assert Tr("es")("reveal.eliminated", name="Ana") == "Ana se queda sin dados"


def test_the_lobby_keeps_quick_play_and_a_created_tables_bots_apart(
        clock: FakeClock, surface: pygame.Surface) -> None:
    app = App(bot_tables, "es", clock, surface=surface, bot_delay=0.0)
    lobby = app.scene
    assert isinstance(lobby, LobbyScene)
    click_button(app, "create_bots_0")
    app.frame()
    assert widgets.find(lobby.buttons, "play_bots").label == "Jugar contra 3 bots"
    assert lobby.request("create").bots == 0 and lobby.request("bots").bots == 3
    click_button(app, "bots_1")
    app.frame()
    assert widgets.find(lobby.buttons, "play_bots").label == "Jugar contra 1 bot"
    assert lobby.request("create").bots == 0


def test_history_window_reaches_the_first_bid_and_comes_back() -> None:
    n = 20
    assert history_window(5, 3) == (0, 5)
    first, end = history_window(n, 0)
    assert end == n and end - first == HISTORY_LINES - 1  # one line says "more above"
    assert history_window(n, 100) == (0, HISTORY_LINES)  # the very first bid, a full window


def test_the_earliest_bids_come_back_with_the_wheel_and_page_keys(
        clock: FakeClock, surface: pygame.Surface, recorder: TextRecorder) -> None:
    # both players raise by the least until the round is long
    app, scene = _hotseat_until(clock, surface, 5, lambda s: s.view is not None and len(
        s.view.state.bids) > HISTORY_LINES + 3)
    view = scene.view
    assert view is not None
    first_line = f"{scene.names[view.state.bids[0].seat]}: un tonto"
    drawn = recorder.frame(app)
    assert first_line not in drawn and any("más arriba" in t for t in drawn)
    app.dispatch(pygame.event.Event(pygame.MOUSEMOTION, pos=(1000, 200), rel=(0, 0),
                                    buttons=(0, 0, 0)))
    for _ in range(10):
        app.dispatch(pygame.event.Event(pygame.MOUSEWHEEL, x=0, y=1, flipped=False))
    drawn = recorder.frame(app)
    assert first_line in drawn and not any("más arriba" in t for t in drawn)
    for _ in range(10):
        key(app, pygame.K_PAGEDOWN)
    drawn = recorder.frame(app)
    assert first_line not in drawn
