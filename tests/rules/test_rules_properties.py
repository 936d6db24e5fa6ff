"""Properties of random legal play under random valid rule sets (hypothesis, bounded)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import fields

from hypothesis import given, settings
from hypothesis import strategies as st

from dudo_p2p.errors import IllegalAction
from dudo_p2p.rules import (
    PALIFICO_MODES,
    VARIANTS,
    Action,
    Bid,
    Calzo,
    ChooseDirection,
    ChoosePalifico,
    DoubtClaim,
    Dudo,
    GameState,
    Matar,
    OpenerDraw,
    Pasar,
    Phase,
    Picado,
    PlayerAction,
    Raise,
    Remove,
    Reveal,
    RuleSet,
    Spin,
)
from dudo_p2p.rules.runner import play_game, random_legal_player

MAX_STEPS = 20_000
SETTINGS = settings(max_examples=120, deadline=None)


@st.composite
def rulesets(draw: st.DrawFn) -> RuleSet:
    """Any valid rule set: draw every field, then switch off options their parent excludes."""
    d = {f.name: draw(st.sampled_from(VARIANTS[f.name].allowed)) for f in fields(RuleSet)}
    if not d["calza"]:
        d.update(calza_threshold=False, calza_anyone=False, calza_after_loss=False,
                 calza_full_hand="nothing")
    if not d["palifico"]:
        d.update(palifico_wilds=False, palifico_face_change=False, palifico_open_closed=False,
                 palifico_optional=False, obligar_anytime=False)
    if not d["aces_wild"]:
        d.update(aces_conversion="ceil_half", palifico_wilds=False, juego_sucio=False)
    if not d["pasar"]:
        d["pasar_no_consecutive"] = False
    if d["revolver"]:
        d.update(calza_full_hand="nothing", calza_after_loss=False, siciliana=False)
    return RuleSet.from_dict(d)


Check = Callable[[GameState, random.Random], None]


def drive(rules: RuleSet, n: int, rng: random.Random, check: Check | None = None
          ) -> tuple[GameState, list[Action]]:
    """Random legal play, including out-of-turn calzo (V5) and the odd Remove."""
    state = GameState.new(rules, n)
    dice: tuple[tuple[int, ...], ...] = ()
    dealt = -1
    actions: list[Action] = []
    for _ in range(MAX_STEPS):
        if check is not None:
            check(state, rng)
        if state.phase is Phase.OVER:
            return state, actions
        live = [s for s in range(n) if state.alive[s]]
        action: Action | None
        if rng.random() < 0.005:
            action = Remove(rng.choice(live))
        elif state.phase is Phase.DRAW_OPENER:
            action = OpenerDraw(tuple(rng.randint(1, 6) for _ in state.draw_seats))
        elif state.phase is Phase.REVEAL:
            action = Reveal(dice)
        elif state.phase is Phase.SPIN:
            action = Spin(rng.randint(1, 6))
        else:
            if state.phase is Phase.BIDDING and state.round_no != dealt:
                dice = tuple(tuple(rng.randint(1, 6) for _ in range(c)) for c in state.dice_counts)
                dealt = state.round_no
            others = [s for s in live if s != state.to_act and state.may_act(s)]
            if others and rng.random() < 0.1:
                action = Calzo(rng.choice(others))
            else:
                action = state.random_legal_action(rng)
        assert action is not None, f"no action for the seat to act in {state.phase}"
        state = state.apply(action)
        actions.append(action)
    raise AssertionError(f"no winner after {MAX_STEPS} steps")


@SETTINGS
@given(rules=rulesets(), n=st.integers(2, 6), seed=st.integers(0, 2**32 - 1))
def test_random_legal_play_always_ends_with_exactly_one_winner(
    rules: RuleSet, n: int, seed: int
) -> None:
    final, _ = drive(rules, n, random.Random(seed))
    assert final.phase is Phase.OVER and final.winner is not None
    assert [s for s in range(n) if final.alive[s]] == [final.winner]
    assert final.dice_counts[final.winner] > 0


def _random_candidates(state: GameState, rng: random.Random, k: int) -> list[PlayerAction]:
    n, top = state.n_seats, state.total_dice + 2
    out: list[PlayerAction] = []
    for _ in range(k):
        seat = rng.randrange(n)
        bid = Bid(rng.randint(1, max(1, top)), rng.randint(1, 6))
        choices: list[PlayerAction] = [
            Raise(seat, bid), Picado(seat, bid), Dudo(seat), Calzo(seat), Matar(seat),
            Pasar(seat), DoubtClaim(seat), ChooseDirection(seat, rng.random() < 0.5),
            ChoosePalifico(seat, rng.choice(PALIFICO_MODES)),
        ]
        out.append(rng.choice(choices))
    return out


def _check_listing_matches_acceptance(state: GameState, rng: random.Random) -> None:
    listed = {s: state.legal_actions(s) for s in range(state.n_seats)}
    for seat, actions in listed.items():
        assert len(set(actions)) == len(actions)
        if actions:
            assert state.may_act(seat)
        for action in rng.sample(actions, min(len(actions), 12)):
            assert state.why_illegal(action) is None, action
            state.apply(action)  # must not raise
    for action in _random_candidates(state, rng, 25):
        seat = action.seat
        assert state.is_legal(action) == (action in listed[seat]), action
        if not state.is_legal(action):
            try:
                state.apply(action)
            except IllegalAction as e:
                assert str(e) == state.why_illegal(action)
            else:
                raise AssertionError(f"apply accepted unlisted {action}")
    if state.needs() is not None:
        assert all(not acts for acts in listed.values())


@settings(max_examples=60, deadline=None)
@given(rules=rulesets(), n=st.integers(2, 6), seed=st.integers(0, 2**32 - 1))
def test_apply_accepts_exactly_the_listed_actions(rules: RuleSet, n: int, seed: int) -> None:
    drive(rules, n, random.Random(seed), _check_listing_matches_acceptance)


def _check_dice_bounds(state: GameState, rng: random.Random) -> None:
    start = state.rules.starting_dice
    assert all(0 <= c <= start for c in state.dice_counts)
    assert all(b in (0, 1) for b in state.bank)
    assert all(b == 0 for b in state.bank) or state.rules.calza_full_hand == "bank"
    assert all(0 <= b <= 6 for b in state.bullets)
    assert state.alive == tuple(c > 0 for c in state.dice_counts)
    if state.rules.revolver:
        assert all(c in (0, start) for c in state.dice_counts)


@SETTINGS
@given(rules=rulesets(), n=st.integers(2, 6), seed=st.integers(0, 2**32 - 1))
def test_nobody_ever_holds_more_than_the_starting_dice(rules: RuleSet, n: int, seed: int) -> None:
    drive(rules, n, random.Random(seed), _check_dice_bounds)


@SETTINGS
@given(rules=rulesets(), n=st.integers(2, 6), seed=st.integers(0, 2**32 - 1))
def test_apply_is_deterministic_replaying_the_actions_gives_equal_states(
    rules: RuleSet, n: int, seed: int
) -> None:
    final, actions = drive(rules, n, random.Random(seed))
    replayed = GameState.new(rules, n)
    for action in actions:
        replayed = replayed.apply(action)
    assert replayed == final and hash(replayed) == hash(final)


@settings(max_examples=40, deadline=None)
@given(rules=rulesets(), n=st.integers(2, 6), seed=st.integers(0, 2**32 - 1))
def test_runner_same_seed_same_game(rules: RuleSet, n: int, seed: int) -> None:
    players = [random_legal_player] * n
    a = play_game(rules, n, players, random.Random(seed))
    b = play_game(rules, n, players, random.Random(seed))
    assert a == b and a.final.winner == a.winner
