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

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from dudo_p2p.consensus.actions_wire import action_from_fields
from dudo_p2p.crypto.dice import check_commitment, derive_dice, public_draw, reveal_seed, round_seed
from dudo_p2p.crypto.hashing import tag, tagged_hash
from dudo_p2p.crypto.shares import closed_palifico_key, open_palifico_key
from dudo_p2p.crypto.vss import dealt_at, decode_commitments, key_ok, share_ok, threshold
from dudo_p2p.errors import CommitmentMismatch, DecodeError, IllegalAction, RemoteProtocolError
from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.protocol.kinds import Act, Commit, KeyShare, Nonce, ResultSign, Reveal
from dudo_p2p.rules import GameState, OpenerDraw, Phase, PlayerAction, Remove, RuleSet, Spin
from dudo_p2p.rules import Reveal as RevealDice

_T = TypeVar("_T")
# Authenticates the bytes of a stored entry (size, decoding, signature, game) or raises.
OpenEntry = Callable[[bytes], Envelope]

CHAIN_TAG = tag("chain")
REMOVAL_TAG = tag("removal")
SEALED_SHARE_SIZE = 60
MAX_OPENER_DRAWS = 64


class NotYet(RemoteProtocolError):
    """The entry does not fit the log now but may after entries we have not seen yet."""


class Stale(RemoteProtocolError):
    """The entry belongs to an epoch or a position the log has already moved past."""


class EpochPhase(enum.Enum):
    """Where the current epoch stands (see the module docstring)."""

    SETUP = "setup"
    COMMIT = "commit"
    NONCE = "nonce"
    BIDDING = "bidding"
    REVEAL = "reveal"
    RECOVER = "recover"
    SIGN = "sign"
    OVER = "over"


# the phases of an epoch whose call is chained: a removal then works on the reveals
AFTER_CALL = (EpochPhase.REVEAL, EpochPhase.RECOVER, EpochPhase.SIGN)

CONCURRENT = {
    EpochPhase.COMMIT: Commit,
    EpochPhase.NONCE: Nonce,
    EpochPhase.REVEAL: Reveal,
    EpochPhase.RECOVER: KeyShare,
    EpochPhase.SIGN: ResultSign,
}


@dataclass(frozen=True)
class Seating:
    """Who plays, under which rules: the content of a genesis every seat signed."""

    game_id: bytes
    table: str
    rules: RuleSet
    turn_timer_ms: int
    pubs: tuple[bytes, ...]
    x25519s: tuple[bytes, ...]
    names: tuple[str, ...]
    hosts: tuple[str, ...]
    ports: tuple[int, ...]
    digest: bytes
    grace_ms: int = 0  # the reconnect grace (protocol.md §4.6)

    def seat_of(self, pub: bytes) -> int | None:
        """The seat of the player with Ed25519 key ``pub``, or None."""
        try:
            return self.pubs.index(pub)
        except ValueError:
            return None

    @property
    def n(self) -> int:
        return len(self.pubs)


@dataclass(frozen=True)
class ChainItem:
    """One link of the chain: an entry's envelope bytes, or a removal (``seat`` set)."""

    epoch: int
    digest: bytes
    data: bytes = b""
    removed_seat: int | None = None
    reason: str = ""


def chain_hash(head: bytes, digest: bytes) -> bytes:
    """The head after appending an item with ``digest`` to a chain ending in ``head``."""
    return tagged_hash(CHAIN_TAG, head, digest)


def removal_digest(game_id: bytes, epoch: int, seat: int) -> bytes:
    """The chain digest of "seat left the game in epoch" (the reason stays outside the hash:
    different peers may have voted for different reasons)."""
    return tagged_hash(REMOVAL_TAG, game_id, epoch, seat)


@dataclass
class EpochState:
    """What the replica holds about the epoch in progress (reset at each epoch)."""

    number: int
    anchor: bytes
    anchor_index: int
    engine_at_anchor: GameState
    participants: tuple[int, ...]
    phase: EpochPhase
    acts: int = 0
    pending: dict[int, Envelope] = field(default_factory=dict)
    commits: dict[int, Commit] = field(default_factory=dict)
    commit_digests: dict[int, bytes] = field(default_factory=dict)
    nonces: dict[int, bytes] = field(default_factory=dict)
    keys: dict[int, bytes] = field(default_factory=dict)
    shares: dict[int, tuple[bytes, ...]] = field(default_factory=dict)
    seed: bytes | None = None
    # after the call (withheld.py): where REVEAL began (chain index, head, engine), the
    # reveals that completed it, and the seats removed since the call (their dice withheld)
    reveal_at: tuple[int, bytes, GameState] | None = None
    reveals: dict[int, Envelope] = field(default_factory=dict)
    withheld: dict[int, str] = field(default_factory=dict)
    reveals_chained: bool = False  # the reveals above were chained before a withhold
    recovered: tuple[int, ...] = ()  # the seats whose withheld keys their shares rebuilt (§3.7)
    # set when this epoch was started by removals: the voided epoch and who left in it, so a
    # removal of that same epoch learnt later can still join them (see Replica.remove)
    voided: tuple[EpochState, tuple[tuple[int, str], ...]] | None = None


class Replica:
    """The table log replayed: see the module docstring for the phases and the contract."""

    def __init__(self, seating: Seating) -> None:
        self.seating = seating
        self.engine = GameState.new(seating.rules, seating.n)
        self.head = seating.digest
        self.chain: list[ChainItem] = []
        self.epoch = self._new_epoch(0, EpochPhase.COMMIT)
        # reveals a void after a withhold dropped before they were ever chained: a journal
        # must still hold them (after the removal) to replay that decision; the machine
        # drains this list into its journal
        self.spilled: list[bytes] = []

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
            if any(item.digest == prev for item in self.chain) or prev == self.seating.digest:
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
        action = action_from_fields(seat, body.kind, body.count, body.face, body.option)
        why = self.engine.why_illegal(action)
        if why is not None:
            raise IllegalAction(why)
        return action

    def chain_act(self, env: Envelope) -> PlayerAction:
        """Check and chain an act; returns the action applied. Raises as :meth:`check_act`."""
        action = self.check_act(env)
        self.engine = self.engine.apply(action)
        self._append(ChainItem(self.epoch.number, env.digest(), env.to_bytes()))
        self.epoch.acts += 1
        if self.epoch.phase is EpochPhase.SETUP and self.engine.phase is not Phase.SETUP:
            self.epoch.phase = EpochPhase.COMMIT
        elif self.epoch.phase is EpochPhase.BIDDING and self.engine.phase is Phase.REVEAL:
            self.epoch.phase = EpochPhase.REVEAL
            self.epoch.reveal_at = (len(self.chain), self.head, self.engine)
        elif self.engine.phase is Phase.OVER:
            self.epoch.phase = EpochPhase.OVER
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
        match body:
            case Commit():
                self._check_commit_shape(seat, body)
            case Nonce():
                commit = self.epoch.commits[seat]
                if not check_commitment(
                    "nonce", self.seating.game_id, self.epoch.number, seat, body.nonce,
                    commit.nonce_c,
                ):
                    raise CommitmentMismatch(f"seat {seat}'s nonce does not open its commitment")
            case Reveal():
                self._check_reveal(seat, body)
            case KeyShare():
                self._check_key_share(seat, body)
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

    def _check_commit_shape(self, seat: int, body: Commit) -> None:
        if self.deals_keys():
            boxes = SEALED_SHARE_SIZE * (len(self.epoch.participants) - 1)
            if len(body.vss_cs) != self.key_threshold() or len(body.vss_boxes) != boxes:
                raise DecodeError(f"a commit of this round deals its key in "
                                  f"{self.key_threshold()} commitments and {boxes} bytes")
        elif body.vss_cs or body.vss_boxes:
            raise DecodeError("a dice key is dealt only in a normal round of three seats or more")
        mode, _ = self.palifico_mode()
        if mode != "open" or self.epoch.number == 0:
            if body.share_cs or body.sealed:
                raise DecodeError("shares are only dealt in an open palifico round")
            return
        n = self.seating.n
        if len(body.share_cs) != n or len(body.sealed) != n:
            raise DecodeError(f"an open palifico commit deals {n} shares")
        parts = self.epoch.participants
        for subject in range(n):
            dealt = subject in parts and subject != seat
            want_c = 32 if dealt else 0
            recipients = [r for r in parts if r not in (subject, seat)] if dealt else []
            if len(body.share_cs[subject]) != want_c:
                raise DecodeError(f"share commitment for seat {subject} has the wrong size")
            if len(body.sealed[subject]) != SEALED_SHARE_SIZE * len(recipients):
                raise DecodeError(f"sealed shares for seat {subject} have the wrong size")

    def _check_reveal(self, seat: int, body: Reveal) -> None:
        game, number = self.seating.game_id, self.epoch.number
        commit = self.epoch.commits[seat]
        if not check_commitment("key", game, number, seat, body.key, commit.key_c):
            raise CommitmentMismatch(f"seat {seat}'s revealed key does not open its commitment")
        if commit.vss_cs and not key_ok(commit.vss_cs[0], body.key):
            # the key its shares rebuild must be the key it reveals: else withholding
            # would pick between two hands
            raise CommitmentMismatch(f"seat {seat}'s revealed key is not the key it dealt")
        mode, _ = self.palifico_mode()
        if mode != "open":
            if body.shares:
                raise DecodeError("shares are only revealed in an open palifico round")
            return
        if len(body.shares) != self.seating.n:
            raise DecodeError("an open palifico reveal carries one share slot per seat")
        for subject, share in enumerate(body.shares):
            expected = commit.share_cs[subject]
            if not expected:
                if share:
                    raise DecodeError(f"seat {seat} revealed a share it never dealt")
                continue
            if not check_commitment(
                "share", game, number, seat, share, expected, subject=subject
            ):
                raise CommitmentMismatch(
                    f"seat {seat}'s share for seat {subject} does not open its commitment"
                )

    def _check_key_share(self, seat: int, body: KeyShare) -> None:
        """A key share names every seat withheld, in seat order, and each share checks
        against that seat's commitments (the author checked its boxes at COMMIT: a share that
        does not check now is its own fault)."""
        ep = self.epoch
        if body.seats != tuple(sorted(ep.withheld)) or len(body.shares) != len(body.seats):
            raise DecodeError(f"the keys of seats {sorted(ep.withheld)} are being recovered")
        for hidden, share in zip(body.seats, body.shares, strict=True):
            points = decode_commitments(ep.commits[hidden].vss_cs)
            if points is None or not share_ok(points, seat, share):
                raise CommitmentMismatch(
                    f"seat {seat}'s share of seat {hidden}'s key does not check"
                )

    # ---- phase transitions ----------------------------------------------------------------

    def _complete_phase(self) -> None:
        ep = self.epoch
        match ep.phase:
            case EpochPhase.COMMIT:
                ep.pending = {}
                ep.phase = EpochPhase.NONCE
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
                    self._draw_opener(ep.seed)
                    self._start_epoch()
                else:
                    ep.phase = EpochPhase.BIDDING
            case EpochPhase.REVEAL:
                ep.reveals = dict(ep.pending)
                for s, env in ep.pending.items():
                    reveal = _body(env, Reveal)
                    ep.keys[s] = reveal.key
                    ep.shares[s] = reveal.shares
                ep.pending = {}
                if ep.withheld:
                    from dudo_p2p.consensus.withheld import resolve_withheld  # builds on us

                    resolve_withheld(self)  # resolved as if revealed, or voided
                    return
                self.resolve()
                ep.phase = EpochPhase.SIGN
            case EpochPhase.RECOVER:
                from dudo_p2p.consensus.withheld import resolve_recovered  # builds on us

                resolve_recovered(self)
            case EpochPhase.SIGN:
                ep.pending = {}
                if self.engine.phase is Phase.OVER:
                    ep.phase = EpochPhase.OVER
                else:
                    self._start_epoch()
            case _:
                raise AssertionError(f"no concurrent phase {ep.phase}")  # our own bug

    def _draw_opener(self, seed: bytes) -> None:
        attempt = 0
        while self.engine.phase is Phase.DRAW_OPENER:
            if attempt >= MAX_OPENER_DRAWS:
                raise AssertionError("opener draw did not settle")  # 6^-64: cannot happen
            seats = self.engine.draw_seats
            values = tuple(public_draw(seed, f"opener/{attempt}", s, 6) for s in seats)
            self.engine = self.engine.apply(OpenerDraw(values))
            attempt += 1

    def dice_key(self, seat: int) -> bytes:
        """Seat's dice key for this epoch once every reveal is in (see protocol.md §3)."""
        ep = self.epoch
        mode, owner = self.palifico_mode()
        game, number = self.seating.game_id, ep.number
        if mode == "open":
            shares = [ep.shares[j][seat] for j in ep.participants if j != seat]
            return open_palifico_key(game, number, seat, shares)
        if mode == "closed" and seat != owner:
            return closed_palifico_key(game, number, seat, [ep.keys[j] for j in ep.participants])
        return ep.keys[seat]

    def resolve(self) -> None:
        """Feed the engine every participant's dice (every key is in ``epoch.keys``) and
        spin the revolver if it must."""
        ep = self.epoch
        assert ep.seed is not None
        counts = self.engine.dice_counts
        dice = tuple(
            derive_dice(
                self.dice_key(s), self.seating.game_id, ep.number, s, ep.seed, counts[s]
            )
            if s in ep.participants
            else ()
            for s in range(self.seating.n)
        )
        self.engine = self.engine.apply(RevealDice(dice))
        if self.engine.phase is Phase.SPIN:
            spin_seed = reveal_seed(ep.seed, [ep.keys[s] for s in ep.participants])
            self.engine = self.engine.apply(Spin(public_draw(spin_seed, "spin", 0, 6)))

    def _new_epoch(self, number: int, phase: EpochPhase) -> EpochState:
        return EpochState(
            number=number,
            anchor=self.head,
            anchor_index=len(self.chain),
            engine_at_anchor=self.engine,
            participants=self.live_seats(),
            phase=phase,
        )

    def _start_epoch(self, number: int | None = None) -> None:
        if self.engine.phase is Phase.OVER:
            self.epoch.phase = EpochPhase.OVER
            return
        phase = EpochPhase.SETUP if self.engine.phase is Phase.SETUP else EpochPhase.COMMIT
        self.epoch = self._new_epoch(self.epoch.number + 1 if number is None else number, phase)

    def _append(self, item: ChainItem) -> None:
        self.chain.append(item)
        self.head = chain_hash(self.head, item.digest)

    # ---- removals ---------------------------------------------------------------------------

    def remove(self, seat: int, reason: str, epoch: int | None = None) -> None:
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
        ep = self.epoch
        if epoch is None or epoch == ep.number:
            if not ep.engine_at_anchor.alive[seat]:
                raise IllegalAction(f"seat {seat} is not in the game")
            if ep.reveal_at is not None and ep.phase in AFTER_CALL:
                from dudo_p2p.consensus.withheld import withhold  # builds on us

                withhold(self, seat, reason)  # after the call: its dice may not matter
                return
            self._remove_set(ep, ((seat, reason),))
            return
        if ep.voided is None or ep.voided[0].number != epoch or len(self.chain) != ep.anchor_index:
            raise Stale(f"a removal of epoch {epoch}: the log is at {ep.number}")
        base, gone = ep.voided
        if any(s == seat for s, _ in gone):
            return
        if not base.engine_at_anchor.alive[seat]:
            raise IllegalAction(f"seat {seat} is not in the game")
        self._remove_set(base, (*gone, (seat, reason)))

    def removal_epoch(self, epoch: int) -> EpochState | None:
        """The state of ``epoch`` if a removal of it may still be applied (it is current, or it
        was just voided by removals and nothing was chained since), else None."""
        ep = self.epoch
        if epoch == ep.number:
            return ep
        voided = ep.voided
        if voided is not None and voided[0].number == epoch and len(self.chain) == ep.anchor_index:
            return voided[0]
        return None

    def remove_set(self, base: EpochState, gone: tuple[tuple[int, str], ...]) -> None:
        """Void ``base`` by the removals ``gone`` (see :meth:`remove`)."""
        self._remove_set(base, gone)

    def append(self, item: ChainItem) -> None:
        """Chain ``item`` (the caller checked it belongs here)."""
        self._append(item)

    def _remove_set(self, base: EpochState, gone: tuple[tuple[int, str], ...]) -> None:
        gone = tuple(sorted(gone))
        del self.chain[base.anchor_index :]
        self.head = base.anchor
        engine = base.engine_at_anchor
        for seat, reason in gone:
            engine = engine.apply(Remove(seat))
            digest = removal_digest(self.seating.game_id, base.number, seat)
            self._append(ChainItem(base.number, digest, removed_seat=seat, reason=reason))
        self.engine = engine
        self.epoch = base
        self._start_epoch(base.number + len(gone))
        if self.epoch is not base:
            self.epoch.voided = (base, gone)

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
