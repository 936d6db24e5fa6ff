"""Every reason a seat can leave for, every cheat kind and every way a game can end has its
own sentence in both languages (issue 13 §7: a removal read "left the table" and a caught
cheat "was caught" without the why); a seat that goes quiet is shown disconnected; a game
that ends for us without a winner says why and returns to the lobby."""

from __future__ import annotations

import pygame
import pytest

from dudo_p2p.rules import ChoosePalifico, PalificoMode
from dudo_p2p.session import (
    CheatDetected,
    CheatKind,
    GameAbandoned,
    Outcome,
    PlayerLeft,
    Reason,
    SeatDisconnected,
    SeatReconnected,
    TableGone,
)
from dudo_p2p.session.local import LocalSession
from dudo_p2p.ui import words
from dudo_p2p.ui.app import App
from dudo_p2p.ui.i18n import CATALOGUE, PALIFICO_MODE_KEYS, Tr
from dudo_p2p.ui.table import TableScene

from .conftest import FakeClock
from .helpers import key, table_app

NAMES = ("Ana", "Bruno", "Carmen")


@pytest.mark.parametrize("lang", ["es", "en"])
def test_every_removal_reason_and_cheat_kind_has_its_own_sentence(lang: str) -> None:
    tr = Tr(lang)
    generic_left = tr("left.other", name="Bruno")
    for reason in Reason:
        assert reason.key in CATALOGUE[lang], f"{lang} lacks {reason.key}"
        line = words.event_line(tr, NAMES, PlayerLeft(1, reason))
        assert line is not None and "Bruno" in line, reason
        if reason is not Reason.UNKNOWN:
            assert line != generic_left, f"{reason} reads as a bare 'left the table'"
    for kind in CheatKind:
        assert kind.key in CATALOGUE[lang], f"{lang} lacks {kind.key}"
        line = words.event_line(tr, NAMES, CheatDetected(1, kind))
        assert line is not None and "Bruno" in line
    for outcome in Outcome:
        assert outcome.key in CATALOGUE[lang], f"{lang} lacks {outcome.key}"
    mode_texts = set()
    for mode in PalificoMode:  # each mode its own words, in the history line too
        assert PALIFICO_MODE_KEYS[mode] in CATALOGUE[lang], f"{lang} lacks palifico {mode}"
        text = tr(PALIFICO_MODE_KEYS[mode])
        mode_texts.add(text)
        assert text in words.action_line(tr, NAMES, ChoosePalifico(1, mode))
    assert len(mode_texts) == len(PalificoMode)
    # the names the machine emits and the ones the old catalogue had read the same
    assert words.event_line(tr, NAMES, CheatDetected(1, CheatKind.parse("bad-reveal"))) == \
        words.event_line(tr, NAMES, CheatDetected(1, CheatKind.parse("bad_reveal")))
    assert Reason.parse("something-new") is Reason.UNKNOWN


def _scene(clock: FakeClock, surface: pygame.Surface) -> tuple[App, TableScene, LocalSession]:
    app, scene = table_app(clock, surface, "en", bots=2, seed=3)
    session = scene.session
    assert isinstance(session, LocalSession)
    return app, scene, session


def test_a_quiet_seat_is_shown_disconnected_then_back(
    clock: FakeClock, surface: pygame.Surface
) -> None:
    app, scene, session = _scene(clock, surface)
    session._events += [SeatDisconnected(1, clock() + 25.0)]
    app.frame()
    assert any("disconnected, 25 s to come back" in t for t in scene.model.message_texts(scene.tr))
    session._events += [SeatReconnected(1)]
    app.frame()
    assert any("is back at the table" in t for t in scene.model.message_texts(scene.tr))


@pytest.mark.parametrize("event", [TableGone(), GameAbandoned(1, Reason.SILENT),
                                   PlayerLeft(0, Reason.SILENT)])
def test_a_game_that_ends_without_a_winner_says_why_and_enter_goes_to_the_lobby(
    clock: FakeClock, surface: pygame.Surface, event: object
) -> None:
    app, scene, session = _scene(clock, surface)
    session._events += [event]  # type: ignore[list-item]
    app.frame()
    assert scene.model.ended is not None and scene.blocked
    said = scene.model.ended(scene.tr)
    assert said and "." not in said.split()[0]  # a sentence, not a catalogue key
    assert {b.name for b in scene.buttons} >= {"lobby", "quit"}
    key(app, pygame.K_RETURN)
    assert not isinstance(app.scene, TableScene), "Enter returns to the lobby"


@pytest.mark.parametrize("lang", ["es", "en"])
def test_a_table_gone_says_the_case_that_fired_in_both_languages(
    clock: FakeClock, surface: pygame.Surface, lang: str
) -> None:
    """Only when nobody was heard may the table be gone or our network down; when we heard
    seats, too few of them or one stuck behind our log, the sentence names them instead."""
    nobody = Tr(lang)("outcome.table_gone")
    said = {}
    for gone in (TableGone(), TableGone("too-few", (1, 2)), TableGone("behind", (2,), (1,))):
        app, scene = table_app(clock, surface, lang, bots=2, seed=3)
        assert isinstance(scene.session, LocalSession)
        scene.session._events += [gone]
        app.frame()
        assert scene.model.ended is not None and scene.blocked
        said[gone.why] = scene.model.ended(scene.tr)
    names = words.seat_name(scene.model._names(), 1), words.seat_name(scene.model._names(), 2)
    assert said["nobody"] == nobody
    assert said["too-few"] != nobody and f"{names[0]}, {names[1]}" in said["too-few"]
    assert said["behind"] not in (nobody, said["too-few"])
    assert said["behind"].index(names[1]) < said["behind"].index(names[0])  # silent, behind
    assert "{" not in said["too-few"] + said["behind"]
