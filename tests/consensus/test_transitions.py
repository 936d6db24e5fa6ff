"""The epoch's and the lobby's phase changes in two tables (consensus/transitions.py, issue
19): the tables a reader sees in the docstring are the tables the replica and the lobby obey,
and nothing else moves them."""

from __future__ import annotations

import pytest

from dudo_p2p.consensus import lobby, transitions
from dudo_p2p.consensus.transitions import (
    AFTER_CALL,
    DEAL,
    EPOCH_TRANSITIONS,
    LOBBY_TRANSITIONS,
    Deal,
    EpochPhase,
    LobbyPhase,
    LobbyTrigger,
    Trigger,
    act_trigger,
    deal_phase,
    lobby_move,
    next_phase,
)
from dudo_p2p.rules import Phase


def drawn_transitions() -> set[tuple[EpochPhase, Trigger, EpochPhase | Deal]]:
    """The transitions the module docstring draws, row by row."""
    doc = transitions.__doc__
    assert doc is not None
    drawn: set[tuple[EpochPhase, Trigger, EpochPhase | Deal]] = set()
    rows: list[EpochPhase] = []
    for line in doc.split("::", 2)[1].splitlines():
        words = line.split()
        if not words:
            continue
        if words[0] in EpochPhase.__members__:
            rows, words = [EpochPhase[words[0]]], words[1:]
        elif line.strip().startswith("after the call"):
            rows = list(AFTER_CALL)
            continue
        elif line.strip() == "any phase":
            rows = list(EpochPhase)
            continue
        if len(words) < 3 or words[1] != "->":
            break  # the prose after the table
        target: EpochPhase | Deal = DEAL if words[2] == "DEAL" else EpochPhase[words[2]]
        drawn.update((row, Trigger[words[0]], target) for row in rows)
    return drawn


def test_the_docstring_draws_exactly_the_table() -> None:
    table = {(phase, trigger, target) for phase, row in EPOCH_TRANSITIONS.items()
             for trigger, target in row.items()}
    assert drawn_transitions() == table


def test_every_phase_has_a_row_and_a_removal_voids_any_phase() -> None:
    assert set(EPOCH_TRANSITIONS) == set(EpochPhase)
    assert all(row[Trigger.VOIDED] is DEAL for row in EPOCH_TRANSITIONS.values())


def test_a_transition_the_table_does_not_list_is_our_own_bug() -> None:
    assert next_phase(EpochPhase.BIDDING, Trigger.CALLED) is EpochPhase.REVEAL
    with pytest.raises(AssertionError, match="no transition from commit on CALLED"):
        next_phase(EpochPhase.COMMIT, Trigger.CALLED)
    with pytest.raises(AssertionError):
        next_phase(EpochPhase.BIDDING, Trigger.WITHHELD)  # a withhold needs the call chained


def test_dealing_again_opens_where_the_engine_stands() -> None:
    assert deal_phase(Phase.OVER) is EpochPhase.OVER
    assert deal_phase(Phase.SETUP) is EpochPhase.SETUP
    assert deal_phase(Phase.BIDDING) is EpochPhase.COMMIT


def test_an_act_moves_the_epoch_only_when_it_ends_a_step() -> None:
    assert act_trigger(EpochPhase.SETUP, Phase.SETUP) is None  # one of several choices
    assert act_trigger(EpochPhase.SETUP, Phase.BIDDING) is Trigger.CHOSEN
    assert act_trigger(EpochPhase.BIDDING, Phase.BIDDING) is None  # a raise
    assert act_trigger(EpochPhase.BIDDING, Phase.REVEAL) is Trigger.CALLED
    assert act_trigger(EpochPhase.BIDDING, Phase.OVER) is Trigger.WON


def drawn_lobby_transitions() -> set[tuple[LobbyPhase, LobbyTrigger, LobbyPhase]]:
    """The lobby's transitions the module docstring draws, row by row."""
    doc = transitions.__doc__
    assert doc is not None
    drawn: set[tuple[LobbyPhase, LobbyTrigger, LobbyPhase]] = set()
    row: LobbyPhase | None = None
    for line in doc.split("::", 2)[2].splitlines():
        words = line.split()
        if not words:
            continue
        if words[0] in LobbyPhase.__members__:
            row, words = LobbyPhase[words[0]], words[1:]
        if len(words) < 3 or words[1] != "->":
            if row is LobbyPhase.SEATED:
                continue  # its row lists no transition
            break
        assert row is not None
        drawn.add((row, LobbyTrigger[words[0]], LobbyPhase[words[2]]))
    return drawn


def test_the_docstring_draws_exactly_the_lobby_table() -> None:
    table = {(phase, trigger, target) for phase, row in LOBBY_TRANSITIONS.items()
             for trigger, target in row.items()}
    assert drawn_lobby_transitions() == table
    assert set(LOBBY_TRANSITIONS) == set(LobbyPhase)


def test_a_lobby_transition_the_table_does_not_list_is_our_own_bug() -> None:
    assert lobby_move(LobbyPhase.SIGNING, LobbyTrigger.SIGNED) is LobbyPhase.SEATED
    with pytest.raises(AssertionError, match="no lobby transition from seated on WELCOMED"):
        lobby_move(LobbyPhase.SEATED, LobbyTrigger.WELCOMED)  # a seated peer stays seated
    with pytest.raises(AssertionError):
        lobby_move(LobbyPhase.SEEKING, LobbyTrigger.SIGNED)


def test_the_lobby_phase_is_the_one_the_lobby_has_always_named() -> None:
    assert lobby.Phase is LobbyPhase
