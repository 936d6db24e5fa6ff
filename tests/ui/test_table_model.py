"""The table model (ui/table_model.py) alone: events in, what the table shows out, with no
pygame, no clock and no session."""

from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace

import pygame
import pytest

from dudo_p2p.rules import Bid, Dudo, Raise, RoundResult, SeatCounts
from dudo_p2p.session import (
    ActionTaken,
    GameOver,
    Notice,
    PlayerLeft,
    Reason,
    RoundResolved,
    RoundStarted,
    SeatDisconnected,
    SeatReconnected,
    TalkHeard,
    TurnTimer,
)
from dudo_p2p.ui import draw, table_draw, table_model, theme
from dudo_p2p.ui.i18n import Tr
from dudo_p2p.ui.table_layout import own_hand_rect
from dudo_p2p.ui.table_model import TableModel

from .helpers import TextRecorder

NAMES = ("Ana", "Beto", "Caro")


def model(*, hotseat: bool = False) -> TableModel:
    return TableModel(lambda: NAMES, lambda: Tr("en"), hotseat=hotseat)


def result(round_no: int = 1) -> RoundResult:
    return RoundResult(
        round_no=round_no, kind="dudo", caller=1, target=0, bid=Bid(3, 5), held=2,
        dice=((5, 5, 2), (1, 3, 4), (6, 6, 6)), losses=SeatCounts({0: 1}), gains=SeatCounts(),
        banked=SeatCounts(),
        eliminated=(), shots=(), next_opener=0,
    )


def test_the_model_imports_no_pygame() -> None:
    tree = ast.parse(Path(table_model.__file__).read_text(encoding="utf-8"))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert imported and not any(name.split(".")[0] == "pygame" for name in imported)


def test_a_round_is_folded_into_its_actions_then_its_reveal_with_its_sounds() -> None:
    m = model()
    start = m.apply(RoundStarted(1, 0, (3, 3, 3)), 10.0, None, 0)
    assert start.new_round and start.shake and m.dealt_round == 1
    bid = m.apply(ActionTaken(Raise(0, Bid(3, 5))), 11.0, None, 0)
    call = m.apply(ActionTaken(Dudo(1)), 12.0, None, 0)
    assert m.round_actions == [Raise(0, Bid(3, 5)), Dudo(1)]
    assert [s for _, s in bid.cues] and [s for _, s in call.cues]  # each action is heard
    end = m.apply(RoundResolved(result()), 13.0, None, 0)
    assert m.reveal is not None and m.reveal is m.last_round
    assert m.reveal.actions == (Raise(0, Bid(3, 5)), Dudo(1)) and m.reveal.started == 13.0
    assert m.round_actions == [] and m.dealt_round is None
    assert (13.0, "reveal") in end.cues
    assert m.message_texts(Tr("en"))[-1].startswith("Round 1: ")
    # the next deal while the reveal is still up: no shake now (it rattles when it closes)
    assert not m.apply(RoundStarted(2, 0, (2, 3, 3)), 14.0, None, 0).shake


def test_a_new_deal_without_a_reveal_says_the_round_was_voided() -> None:
    m = model()
    m.apply(RoundStarted(3, 0, (3, 3, 3)), 1.0, None, 0)
    m.apply(RoundStarted(4, 0, (3, 3)), 2.0, None, 0)
    assert m.toast_text(Tr("en"), 2.5) == m.message_texts(Tr("en"))[-1]
    assert "3" in m.message_texts(Tr("en"))[-1]
    assert m.toast_text(Tr("en"), 2.0 + table_model.TOAST_S + 0.1) is None


def test_the_end_the_deadlines_and_the_talk_are_kept() -> None:
    m = model()
    m.apply(TurnTimer(2, 99.0), 1.0, None, 0)
    assert m.deadlines == {2: 99.0}
    m.apply(PlayerLeft(1, Reason.QUIT), 2.0, None, 0)
    assert m.ended is None  # another seat left
    m.apply(GameOver(2), 3.0, None, 0)
    assert m.winner == 2 and m.standings(3) == [2, 1, 0]
    heard = m.apply(TalkHeard(1, 1), 4.0, None, 0)
    assert heard.cues == [(None, "talk")] and m.talk.shown(4.0)


def test_our_own_seat_removed_ends_the_game_for_us_but_not_at_a_hot_seat_table() -> None:
    alone = model()
    alone.apply(PlayerLeft(0, Reason.QUIT), 1.0, None, 0)
    assert alone.ended is not None and alone.ended(Tr("en"))
    shared = model(hotseat=True)
    shared.apply(PlayerLeft(0, Reason.QUIT), 1.0, None, 0)
    assert shared.ended is None


def test_a_spectators_verified_badge_is_no_red_toast_but_not_verified_is() -> None:
    # session 10 (watchux): "Verified to move 16" came up at every round's end in the red
    # toast over the table that warnings take; it is good news, shown in the badge and the log
    m = model()
    m.apply(Notice("watch.verified", ("16",)), 1.0, None, 0)
    assert m.toast_text(Tr("en"), 1.5) is None
    assert m.message_texts(Tr("en"))[-1] == "Verified to move 16"
    assert m.badge is not None and m.badge(Tr("en")) == "Verified to move 16"
    m.apply(Notice("watch.not_verified", ("item 17: bad signature",)), 2.0, None, 0)
    assert m.toast_text(Tr("en"), 2.5) == "NOT verified: item 17: bad signature"
    assert m.badge(Tr("en")) == "NOT verified: item 17: bad signature"


def test_not_verified_names_the_item_in_the_players_language_and_stands_whole_in_red(
        surface: pygame.Surface, monkeypatch: pytest.MonkeyPatch) -> None:
    # session 10 (watchux): in Spanish it said "NO verificado: item 127: ...", and the panel
    # drew it in the good news' gold on one line shrunk to ~11 px and cut ("signature d...")
    said = "item 127: act envelope: signature does not verify"
    m = model()
    m.apply(Notice("watch.not_verified", (said,)), 1.0, None, 0)
    es = Tr("es")
    assert m.badge is not None and m.badge_warns
    assert m.badge(es) == "NO verificado: elemento 127: act envelope: signature does not verify"
    assert m.badge(Tr("en")) == f"NOT verified: {said}"
    odd = model()  # a reason without an item number is shown as it came
    odd.apply(Notice("watch.not_verified", ("genesis: bad",)), 1.0, None, 0)
    assert odd.badge is not None and odd.badge(es) == "NO verificado: genesis: bad"
    recorder = TextRecorder()
    monkeypatch.setattr(draw, "text", recorder)
    scene = SimpleNamespace(tr=es, view=object(), watching=True, model=m)
    table_draw._own_hand(scene, surface, False)  # type: ignore[arg-type]
    box = own_hand_rect()
    drawn = [(text, rect, size, colour) for (text, rect, _), (size, colour)
             in zip(recorder.drawn, recorder.styles, strict=True)]
    assert all(box.contains(rect) for _, rect, _, _ in drawn)
    assert drawn[0][0] == "Mirando"
    helped = next(i for i, (text, _, _, _) in enumerate(drawn) if text.startswith("No se muestra"))
    badge = drawn[1:helped]  # between the title and the help below it
    assert " ".join(text for text, _, _, _ in badge) == m.badge(es)  # whole...
    assert {(size, colour) for _, _, size, colour in badge} == {(20, theme.CREAM)}  # readable


def test_a_seat_that_left_is_never_said_disconnected_or_back() -> None:
    # seen in a removed seat's window, watching the rest: "Cris: disconnected, 0 s to come
    # back" of itself, after "Cris ran out of time and leaves the table"
    m = model()
    m.apply(SeatDisconnected(2, 30.0), 1.0, None, 0)
    assert m.message_texts(Tr("en"))[-1] == "Caro: disconnected, 29 s to come back"
    m.apply(PlayerLeft(2, Reason.TIMEOUT), 2.0, None, 0)
    said = len(m.message_texts(Tr("en")))
    m.apply(SeatDisconnected(2, 40.0), 3.0, None, 0)
    m.apply(SeatReconnected(2), 4.0, None, 0)
    assert len(m.message_texts(Tr("en"))) == said
    m.apply(SeatDisconnected(1, 40.0), 5.0, None, 0)  # a seat still at the table: said
    assert m.message_texts(Tr("en"))[-1] == "Beto: disconnected, 35 s to come back"
