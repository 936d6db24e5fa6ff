"""From public randomness and revealed keys to the engine's next state (protocol.md §3).

:func:`draw_opener` draws who opens the game from a round seed; :func:`dice_key` and
:func:`resolved` turn an epoch's revealed keys (or rebuilt ones, withheld.py) into every
seat's dice, the engine's resolution of the call and the revolver's spin. Every peer and
the offline verifier compute the same values from the same chain. Pure: no I/O, no clock.
"""

from __future__ import annotations

from dudo_p2p.consensus.chain import EpochLog
from dudo_p2p.crypto.dice import derive_dice, public_draw, reveal_seed
from dudo_p2p.crypto.shares import closed_palifico_key, open_palifico_key
from dudo_p2p.rules import GameState, OpenerDraw, Phase, Spin
from dudo_p2p.rules import Reveal as RevealDice

MAX_OPENER_DRAWS = 64


def draw_opener(engine: GameState, seed: bytes) -> GameState:
    """The engine after the opener draw read from ``seed`` (ties drawn again)."""
    attempt = 0
    while engine.phase is Phase.DRAW_OPENER:
        if attempt >= MAX_OPENER_DRAWS:
            raise AssertionError("opener draw did not settle")  # 6^-64: cannot happen
        seats = engine.draw_seats
        values = tuple(public_draw(seed, f"opener/{attempt}", s, 6) for s in seats)
        engine = engine.apply(OpenerDraw(values))
        attempt += 1
    return engine


def dice_key(rep: EpochLog, seat: int) -> bytes:
    """Seat's dice key for this epoch once every reveal is in (see protocol.md §3)."""
    ep = rep.epoch
    mode, owner = rep.palifico_mode()
    game, number = rep.seating.game_id, ep.number
    if mode == "open":
        shares = [ep.shares[j][seat] for j in ep.participants if j != seat]
        return open_palifico_key(game, number, seat, shares)
    if mode == "closed" and seat != owner:
        return closed_palifico_key(game, number, seat, [ep.keys[j] for j in ep.participants])
    return ep.keys[seat]


def resolved(rep: EpochLog) -> GameState:
    """The engine fed every participant's dice (every key is in ``epoch.keys``), the
    revolver spun if it must."""
    ep = rep.epoch
    assert ep.seed is not None
    counts = rep.engine.dice_counts
    dice = tuple(
        derive_dice(dice_key(rep, s), rep.seating.game_id, ep.number, s, ep.seed, counts[s])
        if s in ep.participants
        else ()
        for s in range(rep.seating.n)
    )
    engine = rep.engine.apply(RevealDice(dice))
    if engine.phase is Phase.SPIN:
        spin_seed = reveal_seed(ep.seed, [ep.keys[s] for s in ep.participants])
        engine = engine.apply(Spin(public_draw(spin_seed, "spin", 0, 6)))
    return engine
