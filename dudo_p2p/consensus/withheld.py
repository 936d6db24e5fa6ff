"""A seat removed after the call (protocol.md §3.7, §4.6): withholding cannot undo a loss.

Before, removing a seat voided its epoch whatever the phase: a seat that saw, from the keys
revealed before its own, that its partner would lose a die could withhold its reveal; it
lost its seat, but the round was dealt again and the partner kept the die. Now a removal of
an epoch whose call is chained (REVEAL or SIGN) works on the reveals instead:

1. the chain goes back to where REVEAL began (just after the call), the removed seat's
   reveal (if any peer held it) is set aside and the others' reveals are held again: the
   REVEAL phase now needs only the seats not removed (its *members*);
2. once every member's reveal is held (at once, or when the last arrives), they are chained
   in seat order and the round is **resolved as if revealed** when its outcome is the same
   whatever the removed seat's dice are (:func:`~dudo_p2p.rules.withheld.resolve_without`:
   a bid that holds on the other hands alone, or fails even if every hidden die counted);
   the removal items follow the reveals, the removed seat leaves the game (unless the dice
   already eliminated it) and the members sign the result as usual;
3. otherwise, when the round dealt its dice keys (§3.7: a normal round of three seats or
   more, crypto/vss.py) and the members are at least t (the threshold of every dealer:
   the seats removed after the call are not a majority of any dealer's others), the epoch
   goes to RECOVER: every member publishes its share of each withheld key in one
   ``key-share`` (each checked against its dealer's Feldman commitments; a withholder's own
   shares of another withholder's key are simply not among them); once all are in they are
   chained in seat order, each key is rebuilt from the first t of them
   (:func:`resolve_recovered`) and the round resolves with the withheld seats' **real**
   dice; the removal items come first, as in 2. A member that withholds its shares too is
   removed in turn and RECOVER starts again with one more key to rebuild (or voids);
4. otherwise (a palifico round, whose dice keys need every reveal and are not dealt; fewer
   than t members left) the epoch is voided and dealt again without the removed seats, as
   any removal.

Every peer reaches the same chain: the decision depends only on the call, the members'
signed reveals and the removals, which a record (and a journal) replays in the same order.

Pure: no I/O, no clock; a :class:`~dudo_p2p.consensus.replica.Replica` calls in here, and
every phase it moves to is a transition of :mod:`~dudo_p2p.consensus.transitions`.
"""

from __future__ import annotations

from dudo_p2p.consensus.chain import ChainItem, EpochLog, removal_digest
from dudo_p2p.consensus.resolution import resolved
from dudo_p2p.consensus.transitions import EpochPhase, Trigger
from dudo_p2p.crypto.dice import check_commitment, derive_dice
from dudo_p2p.crypto.vss import recover
from dudo_p2p.errors import IllegalAction
from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.protocol.kinds import KeyShare
from dudo_p2p.rules import GameState, Phase, Remove
from dudo_p2p.rules.withheld import resolve_without


def withhold(rep: EpochLog, seat: int, reason: str) -> None:
    """Remove ``seat`` from the current epoch after its call (step 1 of the module
    docstring); completes the REVEAL at once when every member's reveal is held."""
    ep = rep.epoch
    if seat not in ep.participants:
        raise IllegalAction(f"seat {seat} takes no part in epoch {ep.number}")
    if seat in ep.withheld:
        return
    assert ep.reveal_at is not None  # the caller checked: the call is chained
    ep.reveals_chained = ep.phase is not EpochPhase.REVEAL
    held = dict(ep.reveals) if ep.reveals_chained else dict(ep.pending)
    ep.withheld[seat] = reason
    index, _, engine = ep.reveal_at
    rep.truncate(index)  # the head where REVEAL began
    rep.engine = engine
    rep.move(Trigger.WITHHELD)
    ep.keys, ep.shares, ep.reveals = {}, {}, {}
    ep.pending = {s: env for s, env in held.items() if s not in ep.withheld}
    rep.complete_if_full()


def resolve_withheld(rep: EpochLog) -> None:
    """Every member revealed (step 2 or 3 of the module docstring): resolve the round as if
    revealed when the removed seat's dice cannot change its outcome, else void the epoch."""
    ep = rep.epoch
    game = rep.seating.game_id
    engine = None
    mode, _ = rep.palifico_mode()
    if mode == "normal" and len(ep.withheld) == 1 and ep.seed is not None:
        (hidden,) = ep.withheld
        counts = rep.engine.dice_counts
        known = {
            s: derive_dice(ep.keys[s], game, ep.number, s, ep.seed, counts[s])
            for s in rep.members()
        }
        engine = resolve_without(rep.engine, known, hidden)
    gone = tuple(sorted(ep.withheld.items()))
    if engine is None and rep.deals_keys() and len(rep.members()) >= rep.key_threshold():
        # step 3: the removal items are chained now, before the shares, so a record or a
        # journal replays the removal (and so this RECOVER) before it meets a share
        _chain_removals(rep, gone)
        rep.move(Trigger.REBUILD)
        return
    if engine is None:
        if not ep.reveals_chained:
            # these reveals were never chained (so never journalled) and the void drops
            # them: the machine journals them after the removal, so a restart replays the
            # same decision (see Replica.spilled)
            rep.spilled = [ep.reveals[s].to_bytes() for s in sorted(ep.reveals)]
        rep.remove_set(ep, gone)
        return
    _chain_removals(rep, gone)
    _leave(rep, engine, gone)


def _chain_removals(rep: EpochLog, gone: tuple[tuple[int, str], ...]) -> None:
    """Chain one removal item per seat that withheld, in seat order."""
    ep = rep.epoch
    for seat, reason in gone:
        digest = removal_digest(rep.seating.game_id, ep.number, seat)
        rep.append(ChainItem(ep.number, digest, removed_seat=seat, reason=reason))


def _leave(rep: EpochLog, engine: GameState, gone: tuple[tuple[int, str], ...]) -> None:
    """The round resolved into ``engine``: the seats that withheld leave the game (unless
    the dice already took them out) and the members sign."""
    for seat, _ in gone:
        if engine.alive[seat] and engine.phase is not Phase.OVER:
            engine = engine.apply(Remove(seat))
    rep.engine = engine
    rep.move(Trigger.RESOLVED)


def resolve_recovered(rep: EpochLog) -> None:
    """Every member's shares of the withheld keys are chained (step 3): rebuild each key
    from the first t shares of it in seat order and resolve the round with the real dice.
    The shares were checked against each withheld seat's commitments, so any t rebuild the
    key its ``C_0`` commits to; the key commitment is checked too (a dealer whose ``key_c``
    and ``C_0`` disagree could never have revealed either): the epoch is voided then."""
    ep = rep.epoch
    bodies = {s: _key_share(ep.pending[s]) for s in rep.members()}
    ep.pending = {}
    game = rep.seating.game_id
    gone = tuple(sorted(ep.withheld.items()))
    keys: dict[int, bytes] = {}
    for i, (hidden, _) in enumerate(gone):
        key = recover({s: b.shares[i] for s, b in bodies.items()}, rep.key_threshold())
        if not check_commitment("key", game, ep.number, hidden, key, ep.commits[hidden].key_c):
            rep.remove_set(ep, gone)
            return
        keys[hidden] = key
    ep.keys.update(keys)
    rep.engine = resolved(rep)
    ep.recovered = tuple(keys)
    _leave(rep, rep.engine, gone)


def _key_share(env: Envelope) -> KeyShare:
    body = env.body
    if not isinstance(body, KeyShare):
        raise AssertionError("RECOVER holds key shares only")  # the replica checked
    return body
