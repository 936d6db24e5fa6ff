"""The values the table log is made of: who sits, the chain's items, the epoch in progress.

:class:`Seating` (the signed genesis), :class:`ChainItem` (an entry or a removal) and
:func:`chain_hash`/:func:`removal_digest` (how the head moves), :class:`EpochState` (what the
replica holds about the epoch in progress), the replica's errors :class:`NotYet` and
:class:`Stale`, and :class:`EpochLog`: what the helpers of the replica
(:mod:`~dudo_p2p.consensus.withheld`, :mod:`~dudo_p2p.consensus.voiding`,
:mod:`~dudo_p2p.consensus.entry_checks`) may read and call on it, so that they need not
import it (the replica imports them). The phases and how they change are
:mod:`~dudo_p2p.consensus.transitions`. Pure values: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from dudo_p2p.consensus.transitions import EpochPhase, Trigger
from dudo_p2p.crypto.hashing import tag, tagged_hash
from dudo_p2p.errors import RemoteProtocolError
from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.protocol.kinds import Commit
from dudo_p2p.rules import GameState, RuleSet

# Authenticates the bytes of a stored entry (size, decoding, signature, game) or raises.
OpenEntry = Callable[[bytes], Envelope]

CHAIN_TAG = tag("chain")
REMOVAL_TAG = tag("removal")
SEALED_SHARE_SIZE = 60


class NotYet(RemoteProtocolError):
    """The entry does not fit the log now but may after entries we have not seen yet."""


class Stale(RemoteProtocolError):
    """The entry belongs to an epoch or a position the log has already moved past."""


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
    prev: bytes = b""  # the final log hash of the game this one follows (§4.9), b"": none

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


class EpochLog(Protocol):
    """The part of :class:`~dudo_p2p.consensus.replica.Replica` its helpers work on."""

    seating: Seating
    engine: GameState
    head: bytes
    chain: list[ChainItem]
    epoch: EpochState
    spilled: list[bytes]

    def palifico_mode(self) -> tuple[str, int | None]: ...
    def deals_keys(self) -> bool: ...
    def key_threshold(self) -> int: ...
    def members(self) -> tuple[int, ...]: ...
    def complete_if_full(self) -> bool: ...
    def append(self, item: ChainItem) -> None: ...
    def truncate(self, index: int) -> None: ...
    def move(self, trigger: Trigger, number: int | None = None) -> None: ...
    def remove_set(self, base: EpochState, gone: tuple[tuple[int, str], ...]) -> None: ...
