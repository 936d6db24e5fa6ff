"""What a spectator is told as it verifies the log (protocol.md §4.9 "Watching"): the events a
seat's machine emits for the same entries, so a spectator's table moves as a seated player's
does (the bid slides in, its sound plays, the round is dealt, the cups lift, a removed seat
leaves, the game ends), and only ever for entries already verified.

A seat's machine emits its events while it *builds* the log (phases.py, machine.py,
removal.py); a spectator only replays the log, so the same events are read here from what
one verified item changed:

- an act: :class:`ActionTaken` with the action it carries;
- a removal: :class:`PlayerLeft` with the removal's reason;
- the NONCE phase completing into BIDDING: :class:`RoundStarted` (a deal);
- each round result the item added: :class:`RoundResolved` (after a reveal, a key
  recovery, or a removal after the call that resolved the round as if it had revealed);
- the phase becoming OVER with a winner: :class:`GameOver`;
- the turn passing (after an act, a deal, a removal, or a new epoch opening with the
  opener's choice): :class:`TurnTimer` for the seat to act, its deadline counted, as a seat
  counts it, from when the move reached us (the genesis' turn timer after the spectator's
  ``now``: it runs at most a push interval behind the seats').

Disconnections are no entries: a seat tells its spectators whom it shows disconnected with
an ``away`` frame (watch_desk.py, watch_spectator.py). Table talk and ``TimerPlayed`` (a
seat's own bot playing its timed-out turn) are not told.

Pure: no I/O, no clock; the spectator (watch_spectator.py) calls :func:`item_events` per item.
"""

from __future__ import annotations

from dataclasses import dataclass

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus.actions_wire import action_from_fields
from dudo_p2p.consensus.reasons import Reason
from dudo_p2p.consensus.replica import EpochPhase, Replica
from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.protocol.kinds import Act


@dataclass(frozen=True)
class Before:
    """What :func:`item_events` compares an item's effect with: the replica before it."""

    phase: EpochPhase
    results: int

    @classmethod
    def of(cls, replica: Replica) -> Before:
        """The replica's state now (call before feeding it the item)."""
        return cls(replica.phase, len(replica.engine.results))


def item_events(before: Before, replica: Replica, item: object,
                entry: Envelope | None, now: float) -> list[ev.Event]:
    """The events of one item just verified into ``replica`` (``before``: its state before
    the item; ``entry``: the item's opened envelope, None for a removal; ``now``: when it
    reached us, for a turn's deadline), in the order a seat's machine emits them (see the
    module docstring)."""
    out: list[ev.Event] = []
    turn = entry is not None and isinstance(entry.body, Act)  # the turn passes
    match item:
        case ["removal", int(), int() as gone, str() as reason, *_]:
            out.append(ev.PlayerLeft(gone, Reason.parse(reason)))
            turn = True
    if entry is not None and isinstance(entry.body, Act):
        body = entry.body
        author = replica.seating.seat_of(entry.author)
        if author is not None:  # verified: an act's author is seated
            out.append(ev.ActionTaken(
                action_from_fields(author, body.kind, body.count, body.face, body.option)))
    engine = replica.engine
    if before.phase is EpochPhase.NONCE and replica.phase is EpochPhase.BIDDING:
        info = engine.palifico_round
        out.append(ev.RoundStarted(replica.epoch.number, engine.to_act, engine.dice_counts,
                                   info.seat if info is not None else None))
    turn = turn or (replica.phase is not before.phase
                    and replica.phase in (EpochPhase.SETUP, EpochPhase.BIDDING))
    if turn and engine.to_act is not None and replica.phase in (EpochPhase.SETUP,
                                                                 EpochPhase.BIDDING):
        timer = replica.seating.turn_timer_ms / 1000
        out.append(ev.TurnTimer(engine.to_act, now + timer if timer > 0 else None))
    out.extend(ev.RoundResolved(r) for r in engine.results[before.results:])
    if (before.phase is not EpochPhase.OVER and replica.phase is EpochPhase.OVER
            and engine.winner is not None):
        out.append(ev.GameOver(engine.winner))
    return out
