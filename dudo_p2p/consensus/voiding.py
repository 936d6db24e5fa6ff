"""A removal voids its epoch (protocol.md §4.6), unless it comes after the epoch's call.

The replica's removals: :func:`remove` takes a seat out of the game by a removal of an epoch
(the caller checked the votes or the proof). The epoch is voided: the chain goes back to its
anchor, one removal item per seat is chained *in seat order*, and a new epoch numbered
``epoch + number of seats removed`` deals again without them (:func:`remove_set`). After the
epoch's call, the seat's dice are withheld instead (:mod:`~dudo_p2p.consensus.withheld`). A
removal of the epoch just voided by other removals joins them (:func:`removal_epoch`).

Pure: no I/O, no clock; works on the replica through
:class:`~dudo_p2p.consensus.chain.EpochLog`, as withheld.py does.
"""

from __future__ import annotations

from dudo_p2p.consensus import withheld
from dudo_p2p.consensus.chain import ChainItem, EpochLog, EpochState, Stale, removal_digest
from dudo_p2p.consensus.transitions import AFTER_CALL, Trigger
from dudo_p2p.errors import IllegalAction
from dudo_p2p.rules import Remove


def remove(rep: EpochLog, seat: int, reason: str, epoch: int | None = None) -> None:
    """Take ``seat`` out of the game by a removal of ``epoch`` (default: the current one;
    the caller checked the votes or the proof). The epoch is voided: the chain goes back
    to its anchor, one removal item per seat is chained *in seat order*, and a new epoch
    numbered ``epoch + number of seats removed`` deals again without them.

    A removal of the epoch just voided by other removals (two seats died at once and the
    votes against them completed in a different order on different peers) joins them, as
    long as nothing was chained since: the result is the same set of removals, in the
    same order, with the same next epoch number, whatever the order they were learnt in.
    Raises IllegalAction if the seat is not in the game, Stale for a removal of an epoch
    the log has moved past."""
    ep = rep.epoch
    if epoch is None or epoch == ep.number:
        if not ep.engine_at_anchor.alive[seat]:
            raise IllegalAction(f"seat {seat} is not in the game")
        if ep.reveal_at is not None and ep.phase in AFTER_CALL:
            withheld.withhold(rep, seat, reason)  # after the call: its dice may not matter
            return
        remove_set(rep, ep, ((seat, reason),))
        return
    if ep.voided is None or ep.voided[0].number != epoch or len(rep.chain) != ep.anchor_index:
        raise Stale(f"a removal of epoch {epoch}: the log is at {ep.number}")
    base, gone = ep.voided
    if any(s == seat for s, _ in gone):
        return
    if not base.engine_at_anchor.alive[seat]:
        raise IllegalAction(f"seat {seat} is not in the game")
    remove_set(rep, base, (*gone, (seat, reason)))


def removal_epoch(rep: EpochLog, epoch: int) -> EpochState | None:
    """The state of ``epoch`` if a removal of it may still be applied (it is current, or it
    was just voided by removals and nothing was chained since), else None."""
    ep = rep.epoch
    if epoch == ep.number:
        return ep
    voided = ep.voided
    if voided is not None and voided[0].number == epoch and len(rep.chain) == ep.anchor_index:
        return voided[0]
    return None


def remove_set(rep: EpochLog, base: EpochState, gone: tuple[tuple[int, str], ...]) -> None:
    """Void ``base`` by the removals ``gone`` (see :func:`remove`)."""
    gone = tuple(sorted(gone))
    rep.truncate(base.anchor_index)  # the head is base.anchor again
    engine = base.engine_at_anchor
    for seat, reason in gone:
        engine = engine.apply(Remove(seat))
        digest = removal_digest(rep.seating.game_id, base.number, seat)
        rep.append(ChainItem(base.number, digest, removed_seat=seat, reason=reason))
    rep.engine = engine
    rep.epoch = base
    rep.move(Trigger.VOIDED, base.number + len(gone))
    if rep.epoch is not base:
        rep.epoch.voided = (base, gone)
