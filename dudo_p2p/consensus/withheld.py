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
3. otherwise (the hidden dice could change the outcome; a palifico round, whose dice keys
   need every reveal; a V20 spin, seeded by every key; two seats removed after one call)
   the epoch is voided and dealt again without the removed seats, as any removal.

Every peer reaches the same chain: the decision depends only on the call, the members'
signed reveals and the removals, which a record (and a journal) replays in the same order.

Pure: no I/O, no clock; a :class:`~dudo_p2p.consensus.replica.Replica` calls in here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dudo_p2p.consensus import replica as rp
from dudo_p2p.crypto.dice import derive_dice
from dudo_p2p.errors import IllegalAction
from dudo_p2p.rules import Phase, Remove
from dudo_p2p.rules.withheld import resolve_without

if TYPE_CHECKING:
    from dudo_p2p.consensus.replica import Replica


def withhold(rep: Replica, seat: int, reason: str) -> None:
    """Remove ``seat`` from the current epoch after its call (step 1 of the module
    docstring); completes the REVEAL at once when every member's reveal is held."""
    ep = rep.epoch
    if seat not in ep.participants:
        raise IllegalAction(f"seat {seat} takes no part in epoch {ep.number}")
    if seat in ep.withheld:
        return
    assert ep.reveal_at is not None  # the caller checked: the call is chained
    ep.reveals_chained = ep.phase is not rp.EpochPhase.REVEAL
    held = dict(ep.reveals) if ep.reveals_chained else dict(ep.pending)
    ep.withheld[seat] = reason
    index, head, engine = ep.reveal_at
    del rep.chain[index:]
    rep.head = head
    rep.engine = engine
    ep.phase = rp.EpochPhase.REVEAL
    ep.keys, ep.shares, ep.reveals = {}, {}, {}
    ep.pending = {s: env for s, env in held.items() if s not in ep.withheld}
    rep.complete_if_full()


def resolve_withheld(rep: Replica) -> None:
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
    if engine is None:
        if not ep.reveals_chained:
            # these reveals were never chained (so never journalled) and the void drops
            # them: the machine journals them after the removal, so a restart replays the
            # same decision (see Replica.spilled)
            rep.spilled = [ep.reveals[s].to_bytes() for s in sorted(ep.reveals)]
        rep.remove_set(ep, gone)
        return
    for seat, reason in gone:
        digest = rp.removal_digest(game, ep.number, seat)
        rep.append(rp.ChainItem(ep.number, digest, removed_seat=seat, reason=reason))
        if engine.alive[seat] and engine.phase is not Phase.OVER:
            engine = engine.apply(Remove(seat))
    rep.engine = engine
    ep.phase = rp.EpochPhase.SIGN
