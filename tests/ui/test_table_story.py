"""The table tells the story of each round: the reveal belongs to the round it ends (round
number, the bids that led to the call, how many dice each seat had of the face), the previous
round stays readable, a palifico round still says whose turn it is, and the end says so."""

from __future__ import annotations

import pygame
import pytest

from dudo_p2p.rules import Bid, Calzo, Dudo, Raise, RoundResult, RuleSet
from dudo_p2p.rules.results import SeatCounts
from dudo_p2p.session import GameOver, PlayerLeft, RoundStarted
from dudo_p2p.session.local import LocalSession
from dudo_p2p.ui import draw, side_panel, table_layout, table_reveal, theme
from dudo_p2p.ui.table_layout import own_hand_rect

from .conftest import FakeClock
from .helpers import TextRecorder, key
from .helpers import play_until as _play_until
from .helpers import table_app as _table


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_reveal_shows_the_round_it_ends_not_the_next_one(
        clock: FakeClock, surface: pygame.Surface, recorder: TextRecorder, lang: str) -> None:
    app, scene = _table(clock, surface, lang, bots=3, seed=5)
    _play_until(app, clock, scene, lambda s: s.model.reveal is not None)
    reveal = scene.model.reveal
    assert reveal is not None and scene.view is not None
    ended = reveal.result.round_no
    assert scene.view.round_no == ended + 1  # the table already dealt the next round
    tr = app.tr
    drawn = recorder.frame(app)
    assert tr("table.round", n=ended) in drawn
    assert tr("table.round", n=ended + 1) not in drawn
    assert tr("table.your_turn") not in drawn  # the next round's turn waits for the reveal
    assert tr("reveal.title") in drawn
    # the history panel lists the bids that led to the call, the call last
    title, actions, past = side_panel.history_shown(scene)
    assert title == tr("table.history_of", n=ended) and past
    assert isinstance(actions[-1], Dudo | Calzo)
    assert all(isinstance(a, Raise) for a in actions[:-1]) and actions[:-1]
    assert actions[-2].bid == reveal.result.bid  # type: ignore[union-attr]
    assert tr("history.action", name=scene.names[actions[-1].seat],
              what=tr("action.dudo" if isinstance(actions[-1], Dudo) else "action.calzo")) in drawn


def test_each_seats_badge_counts_the_dice_that_matched(
        clock: FakeClock, surface: pygame.Surface, recorder: TextRecorder) -> None:
    app, scene = _table(clock, surface, "es", bots=2, seed=3)
    _play_until(app, clock, scene, lambda s: s.model.reveal is not None
                and s.model.reveal.result.kind == "dudo")
    reveal = scene.model.reveal
    assert reveal is not None
    recorder.frame(app)
    n = len(reveal.result.dice)
    me = scene.session.seat
    expected: dict[tuple[int, int], str] = {}
    for seat in range(n):
        x, y = table_layout.seat_pos(seat, me, n)
        expected[table_reveal.count_badge_center((x, y))] = ""
    badges = {r.center: m for m, r, _ in recorder.drawn if r.center in expected}
    assert len(badges) == n
    assert sum(int(m) for m in badges.values()) == reveal.result.held


def test_before_the_first_bid_the_previous_round_stays_readable(
        clock: FakeClock, surface: pygame.Surface) -> None:
    app, scene = _table(clock, surface, "es", bots=3, seed=5)
    _play_until(app, clock, scene, lambda s: s.model.reveal is not None)
    ended = scene.model.reveal
    assert ended is not None
    key(app, pygame.K_SPACE)
    assert scene.model.reveal is None and scene.view is not None and not scene.view.state.bids
    title, actions, past = side_panel.history_shown(scene)
    assert past and actions == ended.actions
    assert title == app.tr("table.history_of", n=ended.result.round_no)
    # the outcome stays in the table's log after the reveal closes
    logged = scene.model.message_texts(scene.tr)
    assert any(m.startswith(f"Ronda {ended.result.round_no}: ") for m in logged)
    _play_until(app, clock, scene, lambda s: s.view is not None and bool(s.view.state.bids))
    title, actions, past = side_panel.history_shown(scene)
    assert not past and title == app.tr("table.history")
    assert actions == tuple(scene.view.state.bids)


@pytest.mark.parametrize("lang", ["es", "en"])
def test_a_palifico_round_still_says_whose_turn_it_is(
        clock: FakeClock, surface: pygame.Surface, recorder: TextRecorder, lang: str) -> None:
    app, scene = _table(clock, surface, lang, bots=2, seed=7, rules=RuleSet(starting_dice=3))
    _play_until(app, clock, scene, lambda s: s.view is not None and s.model.reveal is None
                and s.view.palifico_round is not None and not s.blocked)
    drawn = recorder.frame(app)
    tr = app.tr
    assert tr("table.palifico") in drawn
    assert tr("table.palifico_rule") in drawn
    view = scene.view
    assert view is not None and view.to_act is not None
    turn = (tr("table.your_turn") if scene.my_turn
            else tr("table.turn_of", name=scene.names[view.to_act]))
    assert turn in drawn


def test_the_end_of_the_game_says_so_instead_of_waiting(
        clock: FakeClock, surface: pygame.Surface, recorder: TextRecorder) -> None:
    app, scene = _table(clock, surface, "en", bots=1, seed=2, rules=RuleSet(starting_dice=3))
    _play_until(app, clock, scene, lambda s: s.model.winner is not None and s.model.reveal is None)
    drawn = recorder.frame(app)
    assert "Game over" in drawn
    assert app.tr("table.waiting") not in drawn
    last = scene.model.last_round
    assert last is not None
    assert side_panel.history_shown(scene) == (app.tr("table.history_of", n=last.result.round_no),
                                               last.actions, True)


def test_the_log_keeps_the_newest_messages_that_fit_whole() -> None:
    long = "Ronda 9: " + "la mesa tenía muchos dados y alguien perdió uno " * 3
    messages = [f"m{i} " + long for i in range(10)]
    height = 160
    shown = side_panel.messages_shown(messages, 298, height)
    assert shown and shown[-1] == messages[-1]  # the newest is always there
    assert shown == messages[-len(shown):]  # oldest first, no gaps
    line_h = pygame.font.Font(None, side_panel.MESSAGE_SIZE).get_linesize() + 4
    used = sum(len(draw.wrap(m, side_panel.MESSAGE_SIZE, 298)) * line_h
               + side_panel.MESSAGE_GAP for m in shown)
    assert used <= height
    assert side_panel.messages_shown(["short"], 298, 10) == []


def test_the_reveal_keeps_the_cloth_of_the_round_it_ends(
        clock: FakeClock, surface: pygame.Surface) -> None:
    """A reveal that deals into a palifico round stays on green felt (it ended a normal
    round), and the palifico round's own reveal is on wine red."""
    app, scene = _table(clock, surface, "es", bots=2, seed=7, rules=RuleSet(starting_dice=3))
    felt_point = (300, 470)  # on the cloth, clear of the seats and the reveal box

    def cloth() -> str:
        app.frame(update=False)
        r, g, _ = tuple(surface.get_at(felt_point))[:3]
        return "red" if r > g else "green"

    _play_until(app, clock, scene, lambda s: s.model.reveal is not None and s.view is not None
                and s.view.palifico_round is not None and not s.model.reveal.palifico)
    assert cloth() == "green"
    key(app, pygame.K_SPACE)
    assert cloth() == "red"  # now the palifico round itself
    _play_until(app, clock, scene, lambda s: s.model.reveal is not None and s.model.reveal.palifico)
    assert cloth() == "red"


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_end_names_every_place_in_the_order_players_went_out(
        clock: FakeClock, surface: pygame.Surface, recorder: TextRecorder, lang: str) -> None:
    app, scene = _table(clock, surface, lang, bots=3, seed=4, rules=RuleSet(starting_dice=3))
    _play_until(app, clock, scene, lambda s: s.model.winner is not None and s.model.reveal is None)
    session = scene.session
    assert isinstance(session, LocalSession)
    went_out = [seat for result in session.state.results for seat in result.eliminated]
    assert len(went_out) == 3
    assert scene.standings() == [session.state.winner, *reversed(went_out)]
    recorder.frame(app)
    summary = " ".join(m for m, _, _ in recorder.drawn)
    tr = app.tr
    for place, seat in enumerate(scene.standings()[1:], start=2):
        assert tr("over.place", n=place, name=scene.names[seat]) in summary
    assert tr("over.rounds", n=session.state.results[-1].round_no) in summary


def test_a_player_who_left_the_table_counts_as_gone_out_at_that_moment(
        clock: FakeClock, surface: pygame.Surface) -> None:
    app, scene = _table(clock, surface, "es", bots=3, seed=4)
    session = scene.session
    assert isinstance(session, LocalSession)
    session._events += [PlayerLeft(2, "timeout"), PlayerLeft(3, "forfeit"), GameOver(1)]
    app.frame()
    assert scene.standings() == [1, 3, 2, 0]  # 3 left after 2; seat 0 never seen going out


def test_the_next_hand_stays_under_the_cup_until_the_reveal_is_over(
        clock: FakeClock, surface: pygame.Surface, monkeypatch: pytest.MonkeyPatch) -> None:
    app, scene = _table(clock, surface, "es", bots=2, seed=3)
    _play_until(app, clock, scene, lambda s: s.model.reveal is not None and s.model.winner is None)
    scene.looking = True
    hand = own_hand_rect()
    dice_in_hand: list[tuple[int, int]] = []
    real_die = draw.die

    def die(surface: pygame.Surface, center: tuple[int, int], size: int, face: int,
            **kw: object) -> pygame.Rect:
        if hand.collidepoint(center):
            dice_in_hand.append(center)
        return real_die(surface, center, size, face, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(draw, "die", die)
    app.frame(update=False)
    assert dice_in_hand == []  # only the cup: the new hand is not shown beside the old one
    clock.advance(0.5)
    app.frame()
    assert scene.model.reveal is not None and scene.shake_started != clock.now
    key(app, pygame.K_SPACE)
    assert scene.model.reveal is None and scene.shake_started == clock.now  # the new round rattles
    assert scene.animating(clock.now)
    app.frame(update=False)
    assert scene.view is not None and scene.view.own_dice
    assert len(dice_in_hand) == len(scene.view.own_dice)


def test_our_seat_next_without_moves_yet_reads_as_waiting_not_as_our_name(
        clock: FakeClock, surface: pygame.Surface, recorder: TextRecorder,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A networked table names our seat to act before it has agreed what came before (the
    round still being dealt): seen in a real game as "Turno de Jugador-1YCB", buttons off."""
    app, scene = _table(clock, surface, "es", bots=2, seed=3)
    _play_until(app, clock, scene, lambda s: s.my_turn and not s.blocked)
    monkeypatch.setattr(scene.session, "legal_actions", lambda: [])
    scene.refresh()
    assert scene.view is not None and scene.view.to_act == scene.session.seat
    assert not scene.my_turn
    drawn = recorder.frame(app)
    assert drawn.count(app.tr("table.waiting")) == 2  # the top bar and the composer's line
    assert not any(m.startswith("Turno de") for m in drawn)
    assert app.tr("table.not_your_turn") not in drawn


def test_a_round_dealt_again_without_a_reveal_is_said_to_be_called_off(
        clock: FakeClock, surface: pygame.Surface) -> None:
    """When a peer leaves mid-round the table voids the round and deals again: our dice
    change and its bids vanish from the history, so the table says why (with or without
    bids: in a real game the peer left before the first bid and the dice just changed)."""
    app, scene = _table(clock, surface, "es", bots=3, seed=5)
    _play_until(app, clock, scene, lambda s: s.model.reveal is not None)
    key(app, pygame.K_SPACE)
    logged = scene.model.message_texts(scene.tr)
    assert not any("anulada" in m for m in logged)  # a normal round end
    _play_until(app, clock, scene, lambda s: s.view is not None and not s.blocked)
    session = scene.session
    assert isinstance(session, LocalSession) and scene.view is not None
    voided = scene.view.round_no
    session._events += [PlayerLeft(2, "timeout"),
                        RoundStarted(voided + 1, 0, scene.view.dice_counts, None)]
    app.frame()
    said = app.tr("table.round_voided", n=voided)
    assert said in scene.model.message_texts(scene.tr)
    assert scene.model.toast_text(scene.tr, scene.now) == said


def _result(kind: str, bid: Bid | None, target: int = 1) -> RoundResult:
    dice = ((1, 1, 5, 5, 3), (2, 1, 6), (4, 4))
    return RoundResult(round_no=3, kind=kind, caller=0, target=target, bid=bid, held=0,
                       dice=dice, losses=SeatCounts({}), gains=SeatCounts({}),
                       banked=SeatCounts({}), eliminated=(), shots=(), next_opener=0)


def test_the_reveal_rings_the_dice_that_decided_the_call() -> None:
    # rules.md's worked case: 1,1,5,5,3 with aces wild holds four fives
    dudo = _result("dudo", Bid(4, 5))
    assert table_reveal.lit_dice(dudo, True, 0) == {0, 1, 2, 3}
    assert table_reveal.lit_dice(dudo, False, 0) == {2, 3}  # palifico: only the fives
    assert table_reveal.lit_dice(_result("calzo", Bid(3, 1)), True, 0) == {0, 1}  # on aces
    assert table_reveal.lit_dice(dudo, True, 2) == set()  # nothing: every die dimmed, badge 0
    # a doubted picado is about the claimer's aces; a doubted pass about a whole hand
    picado = _result("picado", Bid(5, 6), target=1)
    assert table_reveal.lit_dice(picado, True, 1) == {1}
    assert table_reveal.lit_dice(picado, True, 0) is None
    assert table_reveal.lit_dice(_result("pasar", Bid(4, 5)), True, 0) is None


def test_once_we_are_out_the_composer_says_so_instead_of_wait_for_your_turn(
        clock: FakeClock, surface: pygame.Surface, recorder: TextRecorder) -> None:
    app, scene = _table(clock, surface, "es", bots=3, seed=4, rules=RuleSet(starting_dice=3))
    me = scene.session.seat
    _play_until(app, clock, scene, lambda s: s.view is not None and s.model.winner is None
                and s.model.reveal is None and not s.view.state.alive[me])
    drawn = recorder.frame(app)
    assert app.tr("table.you_are_out") in drawn
    assert app.tr("table.not_your_turn") not in drawn
    names = {b.name for b in scene.buttons}
    assert not names & {"bid", "dudo", "calzo", "count_plus", "face_1"}


def test_the_turn_timer_counts_down_in_the_top_bar_and_turns_red_at_the_end(
        clock: FakeClock, surface: pygame.Surface, recorder: TextRecorder) -> None:
    app, scene = _table(clock, surface, "es", bots=2, seed=3, turn_timer_s=30.0)
    _play_until(app, clock, scene, lambda s: s.my_turn and not s.blocked and not s.choices())
    me = scene.session.seat
    scene.model.deadlines[me] = clock.now + 25.5
    scene.now = clock.now
    recorder.frame(app)
    styles = dict(zip((m for m, _, _ in recorder.drawn), recorder.styles, strict=True))
    assert styles["¡Tu turno!  ·  25 s"][1] == theme.GOLD
    scene.now = clock.now + 18
    recorder.frame(app)
    styles = dict(zip((m for m, _, _ in recorder.drawn), recorder.styles, strict=True))
    assert styles["¡Tu turno!  ·  7 s"][1] == theme.RED  # hurry
    scene.model.deadlines[me] = None
    assert "¡Tu turno!" in recorder.frame(app)  # no timer, no count
