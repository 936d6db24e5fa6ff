"""One catalogue key per kind of action (``action.*``): the window's history line and the
terminal's list of moves say an action in the same words, the terminal in English."""

from __future__ import annotations

from typing import Any, cast

import pytest

from dudo_p2p.cli import host_terminal
from dudo_p2p.rules import (
    Action,
    Bid,
    Calzo,
    ChooseDirection,
    ChoosePalifico,
    DoubtClaim,
    Dudo,
    Matar,
    Pasar,
    Picado,
    Raise,
)
from dudo_p2p.rules.actions import PalificoMode, PlayerAction
from dudo_p2p.ui import words
from dudo_p2p.ui.i18n import CATALOGUE, Tr

NAMES = ["Ana", "Bruno"]
# every kind of action a player takes, each direction and each palifico mode
ACTIONS: list[PlayerAction] = [
    Raise(0, Bid(4, 5)), Picado(0, Bid(2, 1)), Dudo(1), Calzo(0), Matar(1), Pasar(0),
    DoubtClaim(1), ChooseDirection(0, True), ChooseDirection(1, False),
    *(ChoosePalifico(0, mode) for mode in PalificoMode),
]
# the window's history lines, as they read before the terminal shared their words
WINDOW = {
    "es": ["Ana: cuatro quinas", "Ana: dos ases, ¡picado!", "Bruno: ¡Dudo!", "Ana: ¡Calzo!",
           "Bruno: ¡Mato!", "Ana: paso", "Bruno: ¡dudo!", "Ana: sentido horario",
           "Bruno: sentido antihorario", "Ana: palifico normal", "Ana: palifico abierto",
           "Ana: palifico cerrado", "Ana: palifico rechazado", "Ana: palifico ¡obligo!",
           "Ana: palifico sin palifico"],
    "en": ["Ana: four fives", "Ana: two aces, picado!", "Bruno: ¡Dudo!", "Ana: ¡Calzo!",
           "Bruno: kill!", "Ana: pass", "Bruno: doubt!", "Ana: clockwise",
           "Bruno: counter-clockwise", "Ana: palifico normal", "Ana: palifico open",
           "Ana: palifico closed", "Ana: palifico declined", "Ana: palifico forced!",
           "Ana: palifico no palifico"],
}


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_history_line_is_the_name_then_the_actions_words(lang: str) -> None:
    tr = Tr(lang)
    assert [words.action_line(tr, NAMES, a) for a in ACTIONS] == WINDOW[lang]
    for action in ACTIONS:
        what = words.action_words(tr, action)
        assert what and not what.startswith("action.")  # a key the catalogue lacks
        assert words.action_line(tr, NAMES, action) == f"{NAMES[action.seat]}: {what}"
    # each kind of action its own words
    assert len({words.action_words(tr, a) for a in ACTIONS}) == len(ACTIONS)


def test_one_catalogue_key_per_kind_of_action() -> None:
    kinds = {key for key in CATALOGUE["en"] if key.startswith("action.")}
    assert kinds == {"action.raise", "action.picado", "action.dudo", "action.calzo",
                     "action.matar", "action.pasar", "action.doubt_claim",
                     "action.direction_cw", "action.direction_ccw", "action.palifico"}
    # no line per action left beside them (the old near-copy: history.raise, history.dudo...)
    assert [k for k in CATALOGUE["en"] if k.startswith("history.")] == ["history.action"]


class _Seat:
    """What play_turn reads of a session: legal actions and a view."""

    def __init__(self, legal: list[Action]) -> None:
        self.legal = legal
        self.played: list[Action] = []

    def legal_actions(self) -> list[Action]:
        return self.legal

    def view(self) -> Any:
        class View:
            standing_bid = Bid(3, 5)
            own_dice = (2, 5, 5)
        return View()

    def submit(self, action: Action) -> None:
        self.played.append(action)


def test_the_terminal_lists_the_moves_in_the_english_catalogues_words(
        capsys: pytest.CaptureFixture[str]) -> None:
    legal: list[Action] = [Raise(0, Bid(4, 5)), Picado(0, Bid(2, 1)), Dudo(0), Calzo(0),
                           Matar(0), Pasar(0), DoubtClaim(0), ChooseDirection(0, False),
                           ChoosePalifico(0, PalificoMode.OPEN)]
    seat = _Seat(legal)
    shown = host_terminal.play_turn(cast(Any, seat), [], None)
    assert shown == legal
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "your dice: 2 5 5; standing bid: three fives"
    assert out[1:-1] == [
        "  0: four fives", "  1: two aces, picado!", "  2: ¡Dudo!", "  3: ¡Calzo!",
        "  4: kill!", "  5: pass", "  6: doubt!", "  7: counter-clockwise",
        "  8: palifico open",
    ]
    # the very words of the window's English history line
    en = Tr("en")
    assert [line.split(": ", 1)[1] for line in out[1:-1]] == \
        [words.action_line(en, ["Ana"], a).split(": ", 1)[1] for a in legal]
    # a number plays the action listed under it
    assert host_terminal.play_turn(cast(Any, seat), shown, "2") == []
    assert seat.played == [Dudo(0)]
