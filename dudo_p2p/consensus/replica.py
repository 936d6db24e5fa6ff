"""The deterministic core of the table log: which entries may come next, and what they do.

A :class:`Replica` holds the seating (the signed genesis), the chain of accepted entries and
the rules engine's state replayed over them. It is the part of consensus that every peer and
the offline verifier run identically: given the same entries in the same order, every replica
reaches the same head hash and the same game state. It knows nothing of timers, acks,
buffering or secrets (that is :mod:`dudo_p2p.consensus.machine`).

Epochs. Epoch 0 is the opener draw (D2): every seat commits to a nonce, reveals it, and the
seed gives the draw. Every later epoch is one deal of the engine:

    SETUP    the opener's choices (direction, palifico), ``act`` entries, one at a time
    COMMIT   every live seat's ``commit``             (concurrent)
    NONCE    every live seat's ``nonce``              (concurrent) -> round seed
    BIDDING  ``act`` entries, one at a time, until a call
    REVEAL   every live seat's ``reveal``             (concurrent) -> dice, resolution
    RECOVER  only after seats withheld their reveals and their dice matter: every other
             seat's ``key-share`` of their dice keys (concurrent) -> keys rebuilt, resolution
    SIGN     every live seat's ``result-sign``        (concurrent) -> next epoch
    OVER     one seat left

Every entry's ``prev`` is the head of the chain when it was made. Concurrent entries are
held until the last one of the phase arrives, then chained in seat order, so the head moves
the same way on every peer whatever the arrival order. A removal voids the epoch: the chain
goes back to the epoch's anchor, a removal item is chained, and a new epoch deals again.

Errors: :class:`NotYet` (the entry may fit later: buffer it), :class:`Stale` (it belongs to
the past: drop it), :class:`~dudo_p2p.errors.RemoteProtocolError` or
:class:`~dudo_p2p.errors.IllegalAction` (refuse it). On any error the replica is unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from dudo_p2p.consensus import entry_checks, resolution, voiding, withheld
from dudo_p2p.consensus.actions_wire import action_from_fields
from dudo_p2p.consensus.chain import (
    CHAIN_TAG,
    REMOVAL_TAG,
    SEALED_SHARE_SIZE,
    ChainItem,
    EpochState,
    NotYet,
    OpenEntry,
    Seating,
    Stale,
    chain_hash,
    removal_digest,
)
from dudo_p2p.consensus.checked import CheckMemo
from dudo_p2p.consensus.transitions import (
    AFTER_CALL,
    CONCURRENT,
    DEAL,
    EpochPhase,
    Trigger,
    act_trigger,
    deal_phase,
    next_phase,
)
from dudo_p2p.crypto.dice import round_seed
from dudo_p2p.crypto.vss import dealt_at, threshold
from dudo_p2p.errors import DecodeError, IllegalAction, RemoteProtocolError
from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.protocol.kinds import Act, Commit, KeyShare, Nonce, Reveal
from dudo_p2p.rules import GameState, Phase, PlayerAction

# the values of the log live in chain.py and the phases in transitions.py; re-exported here,
# where the rest of the code has always found them
__all__ = [
    "AFTER_CALL", "CHAIN_TAG", "CONCURRENT", "REMOVAL_TAG", "SEALED_SHARE_SIZE", "ChainItem",
    "EpochPhase", "EpochState", "NotYet", "OpenEntry", "Replica", "Seating", "Stale",
    "chain_hash", "removal_digest",
]

_T = TypeVar("_T")


class Replica:
    """The table log replayed: see the module docstring for the phases and the contract."""

    def __init__(self, seating: Seating) -> None:
        self.seating = seating
        self.engine = GameState.new(seating.rules, seating.n)
        self.head = seating.digest
        self.chain: list[ChainItem] = []
        # heads[i]: the head once chain[i] was chained (an entry on one of them, or on the
        # genesis, is stale: _check_position)
        self.heads: list[bytes] = []
        self.epoch = self._new_epoch(0, EpochPhase.COMMIT)
        # reveals a void after a withhold dropped before they were ever chained: a journal
        # must still hold them (after the removal) to replay that decision; the machine
        # drains this list into its journal
        self.spilled: list[bytes] = []
        self.checked = CheckMemo()  # an entry's content is not checked twice (checked.py)

    # ---- what the current epoch expects -----------------------------------------------

    @property
    def phase(self) -> EpochPhase:
        return self.epoch.phase

    def palifico_mode(self) -> tuple[str, int | None]:
        """("normal", None), ("open", seat) or ("closed", seat) for the dice of this epoch."""
        info = self.engine.palifico_round
        if info is not None and info.mode in ("open", "closed"):
            return info.mode, info.seat
        return "normal", None

    def deals_keys(self) -> bool:
        """Whether the current epoch's dice keys are dealt (§3.7, crypto/vss.py): a normal
        round after the opener draw, with three or more live seats."""
        mode, _ = self.palifico_mode()
        ep = self.epoch
        return mode == "normal" and ep.number > 0 and dealt_at(len(ep.participants))

    def key_threshold(self) -> int:
        """How many shares rebuild a dice key dealt in the current epoch."""
        return threshold(len(self.epoch.participants) - 1)

    def concurrent_seq(self) -> int:
        """The ``seq`` of a concurrent entry now: 0, but a result signature signed after
        seats were removed after the call carries their number (the head it signs moved:
        a second signature for the epoch is another slot, not an equivocation)."""
        ep = self.epoch
        if ep.phase is EpochPhase.RECOVER:
            # a second seat removed during RECOVER restarts it at another head: the members'
            # new key shares take another slot (not an equivocation of their first ones)
            return len(ep.withheld) - 1
        return len(ep.withheld) if ep.phase is EpochPhase.SIGN else 0

    def members(self) -> tuple[int, ...]:
        """The seats whose entries the current phase needs: the epoch's participants but
        those removed after the call (their dice withheld, see withheld.py)."""
        ep = self.epoch
        return tuple(s for s in ep.participants if s not in ep.withheld)

    def live_seats(self) -> tuple[int, ...]:
        return tuple(s for s in range(self.seating.n) if self.engine.alive[s])

    def waiting_for(self) -> tuple[int, ...]:
        """The seats whose entry the log waits for now (the actor, or the missing ones)."""
        ep = self.epoch
        if ep.phase in CONCURRENT:
            return tuple(s for s in self.members() if s not in ep.pending)
        if ep.phase in (EpochPhase.SETUP, EpochPhase.BIDDING) and self.engine.to_act is not None:
            return (self.engine.to_act,)
        return ()

    # ---- checking entries ---------------------------------------------------------------

    def author_seat(self, env: Envelope) -> int:
        """The seat of a live participant that signed ``env``, else a RemoteProtocolError."""
        seat = self.seating.seat_of(env.author)
        if seat is None:
            raise RemoteProtocolError("the author is not seated at this table")
        if seat not in self.epoch.participants or seat in self.epoch.withheld:
            raise Stale(f"seat {seat} takes no part in epoch {self.epoch.number}")
        return seat

    def _check_position(self, env: Envelope, prev: bytes) -> None:
        if env.round_no < self.epoch.number:
            raise Stale(f"entry of epoch {env.round_no}, log is at {self.epoch.number}")
        if env.round_no > self.epoch.number:
            raise NotYet(f"entry of epoch {env.round_no}, log is at {self.epoch.number}")
        if prev != self.head:
            if prev in self.heads or prev == self.seating.digest:
                raise Stale("entry builds on an earlier head")
            raise NotYet("entry builds on a head we do not hold")

    def check_act(self, env: Envelope) -> PlayerAction:
        """The action ``env`` carries if it may be chained now; raises otherwise (no change)."""
        body = env.body
        if not isinstance(body, Act):
            raise DecodeError("not an act")
        seat = self.author_seat(env)
        self._check_position(env, body.prev)
        if self.epoch.phase not in (EpochPhase.SETUP, EpochPhase.BIDDING):
            raise NotYet(f"no act is expected in phase {self.epoch.phase.value}")
        if env.seq != self.epoch.acts:
            raise (NotYet if env.seq > self.epoch.acts else Stale)(
                f"act number {env.seq}, expected {self.epoch.acts}"
            )
        done = self.checked.action
        if done is not None and self.checked.passed(env, self.epoch, self.head, self.engine):
            return done
        action = action_from_fields(seat, body.kind, body.count, body.face, body.option)
        why = self.engine.why_illegal(action)
        if why is not None:
            raise IllegalAction(why)
        self.checked.remember(env, self.epoch, self.head, self.engine, action)
        return action

    def chain_act(self, env: Envelope) -> PlayerAction:
        """Check and chain an act; returns the action applied. Raises as :meth:`check_act`."""
        action = self.check_act(env)
        self.engine = self.engine.apply(action)
        self._append(ChainItem(self.epoch.number, env.digest(), env.to_bytes()))
        self.epoch.acts += 1
        trigger = act_trigger(self.epoch.phase, self.engine.phase)
        if trigger is not None:
            self.move(trigger)
        if trigger is Trigger.CALLED:  # where REVEAL began: a withhold goes back here
            self.epoch.reveal_at = (len(self.chain), self.head, self.engine)
        return action

    def check_concurrent(self, env: Envelope) -> int:
        """The author's seat if ``env`` is a valid entry of the current concurrent phase and
        the first from its author; raises otherwise (no change)."""
        body = env.body
        seat = self.author_seat(env)
        wanted = CONCURRENT.get(self.epoch.phase)
        prev = getattr(body, "prev", None)
        if not isinstance(prev, bytes):
            raise DecodeError("entry without prev")
        self._check_position(env, prev)
        if wanted is None or not isinstance(body, wanted):
            raise NotYet(f"{type(body).__name__} is not expected in {self.epoch.phase.value}")
        if env.seq != self.concurrent_seq():
            raise DecodeError(f"this {env.kind} carries seq {self.concurrent_seq()}")
        if seat in self.epoch.pending:
            raise Stale(f"seat {seat} already sent its {type(body).__name__}")
        if self.checked.passed(env, self.epoch, self.head, self.engine):
            return seat
        match body:  # the content against its commitments (entry_checks.py)
            case Commit():
                entry_checks.check_commit_shape(self, seat, body)
            case Nonce():
                entry_checks.check_nonce(self, seat, body)
            case Reveal():
                entry_checks.check_reveal(self, seat, body)
            case KeyShare():
                entry_checks.check_key_share(self, seat, body)
        self.checked.remember(env, self.epoch, self.head, self.engine, None)
        return seat

    def add_concurrent(self, env: Envelope) -> bool:
        """Check and hold a concurrent entry; when it completes the phase, chain the phase in
        seat order and move on. Returns True when the phase completed."""
        seat = self.check_concurrent(env)
        ep = self.epoch
        ep.pending[seat] = env
        if isinstance(env.body, Commit):
            ep.commits[seat] = env.body
            ep.commit_digests[seat] = env.digest()
        return self.complete_if_full()

    def complete_if_full(self) -> bool:
        """When every member's entry of the concurrent phase is held, chain them in seat
        order and move on; True when the phase completed."""
        ep = self.epoch
        members = self.members()
        if any(s not in ep.pending for s in members):
            return False
        for s in members:
            held = ep.pending[s]
            self._append(ChainItem(ep.number, held.digest(), held.to_bytes()))
        self._complete_phase()
        return True

    # ---- phase transitions ----------------------------------------------------------------

    def move(self, trigger: Trigger, number: int | None = None) -> None:
        """Move the epoch on ``trigger``, the one way :data:`~dudo_p2p.consensus.transitions.
        EPOCH_TRANSITIONS` allows (AssertionError otherwise: our own bug); dealing again
        starts epoch ``number`` (default: the next) or ends the game in this one."""
        target = next_phase(self.epoch.phase, trigger)
        if target is not DEAL:
            self.epoch.phase = target
        elif deal_phase(self.engine.phase) is EpochPhase.OVER:
            self.epoch.phase = EpochPhase.OVER
        else:
            number = self.epoch.number + 1 if number is None else number
            self.epoch = self._new_epoch(number, deal_phase(self.engine.phase))

    def _complete_phase(self) -> None:
        """Every member's entry of the concurrent phase is chained: what it means, and the
        transition it triggers."""
        ep = self.epoch
        match ep.phase:
            case EpochPhase.COMMIT:
                ep.pending = {}
                self.move(Trigger.COMMITTED)
            case EpochPhase.NONCE:
                ep.nonces = {s: _body(ep.pending[s], Nonce).nonce for s in ep.participants}
                ep.pending = {}
                ep.seed = round_seed(
                    self.seating.game_id,
                    ep.number,
                    [ep.commit_digests[s] for s in ep.participants],
                    [ep.nonces[s] for s in ep.participants],
                )
                if self.engine.phase is Phase.DRAW_OPENER:
                    # epoch 0, or the epoch dealt after a removal voided the draw (numbered
                    # by the removals, §4.6): either way its seed draws the opener
                    self.engine = resolution.draw_opener(self.engine, ep.seed)
                    self.move(Trigger.OPENER_DRAWN)
                else:
                    self.move(Trigger.SEEDED)
            case EpochPhase.REVEAL:
                ep.reveals = dict(ep.pending)
                for s, env in ep.pending.items():
                    reveal = _body(env, Reveal)
                    ep.keys[s] = reveal.key
                    ep.shares[s] = reveal.shares
                ep.pending = {}
                if ep.withheld:
                    withheld.resolve_withheld(self)  # resolved as if revealed, or voided
                    return
                self.engine = resolution.resolved(self)
                self.move(Trigger.RESOLVED)
            case EpochPhase.RECOVER:
                withheld.resolve_recovered(self)
            case EpochPhase.SIGN:
                ep.pending = {}
                self.move(Trigger.WON if self.engine.phase is Phase.OVER else Trigger.SIGNED)
            case _:
                raise AssertionError(f"no concurrent phase {ep.phase}")  # our own bug

    def _new_epoch(self, number: int, phase: EpochPhase) -> EpochState:
        return EpochState(
            number=number,
            anchor=self.head,
            anchor_index=len(self.chain),
            engine_at_anchor=self.engine,
            participants=self.live_seats(),
            phase=phase,
        )

    def _append(self, item: ChainItem) -> None:
        self.chain.append(item)
        self.head = chain_hash(self.head, item.digest)
        self.heads.append(self.head)

    def truncate(self, index: int) -> None:
        """Drop the chain from ``index`` on (a void goes back to the epoch's anchor, a
        withhold to where REVEAL began); the head is again the one it had there."""
        del self.chain[index:]
        del self.heads[index:]
        self.head = self.heads[-1] if self.heads else self.seating.digest

    # ---- removals (voiding.py) ----------------------------------------------------------------

    def remove(self, seat: int, reason: str, epoch: int | None = None) -> None:
        """Take ``seat`` out of the game by a removal of ``epoch`` (default: the current one;
        the caller checked the votes or the proof): the epoch is voided, or, after its call,
        the seat's dice are withheld (:func:`~dudo_p2p.consensus.voiding.remove`). Raises
        IllegalAction if the seat is not in the game, Stale for a removal of an epoch the
        log has moved past."""
        voiding.remove(self, seat, reason, epoch)

    def removal_epoch(self, epoch: int) -> EpochState | None:
        """The state of ``epoch`` if a removal of it may still be applied
        (:func:`~dudo_p2p.consensus.voiding.removal_epoch`), else None."""
        return voiding.removal_epoch(self, epoch)

    def remove_set(self, base: EpochState, gone: tuple[tuple[int, str], ...]) -> None:
        """Void ``base`` by the removals ``gone`` (:func:`.voiding.remove_set`)."""
        voiding.remove_set(self, base, gone)

    def append(self, item: ChainItem) -> None:
        """Chain ``item`` (the caller checked it belongs here)."""
        self._append(item)

    # ---- replay -------------------------------------------------------------------------------

    def replay(self, items: Sequence[ChainItem], open_entry: OpenEntry) -> None:
        """Feed chain items in order (a record, a journal): envelopes go through the same
        checks as live entries. Raises on the first item that does not fit."""
        for item in items:
            if item.removed_seat is not None:
                self.remove(item.removed_seat, item.reason, item.epoch)
                continue
            env = open_entry(item.data)
            if isinstance(env.body, Act):
                self.chain_act(env)
            else:
                self.add_concurrent(env)


def _body(env: Envelope, cls: type[_T]) -> _T:
    body = env.body
    if not isinstance(body, cls):
        raise DecodeError(f"expected {cls.__name__}")
    return body
