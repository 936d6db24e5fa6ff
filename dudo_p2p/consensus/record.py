"""The game record: the whole table log in one file, and its offline verification.

Format (protocol.md §4.8): one canonical msgpack map ::

    {"format": "dudo-p2p-record/1",
     "genesis": bin,                 the host's signed genesis envelope
     "signatures": [bin, ...],       every seat's genesis-sign envelope
     "items": [item, ...],           the chain in order
     "proofs": [[bin, bin], ...],    equivocation proofs seen (informative)
     "abandoned": [bin, ...]}        only when the game ended abandoned: the claim votes

    item = bin                       an entry's signed envelope
         | ["removal", epoch, seat, reason, [envelope, ...]]   votes, then any evidence

:func:`verify_record` replays the items through a fresh
:class:`~dudo_p2p.consensus.replica.Replica`, which re-checks every signature, hash link,
commitment, derived die, rule and result, and checks each removal's votes (a strict majority
of the other seats still in that epoch, a seat removed in it having no vote: the removals of
one epoch must have some order that works; with two seats, also the removed seat's own vote
or evidence of its cheat: never the winner's word alone) and an abandonment's claim. Pure: the
caller reads the file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from dudo_p2p.consensus.bindings import check_vote
from dudo_p2p.consensus.evidence import LOG_KINDS, check_proof, proves_cheat
from dudo_p2p.consensus.faults import remaining, removal_order
from dudo_p2p.consensus.genesis import seating_from
from dudo_p2p.consensus.replica import ChainItem, EpochPhase, EpochState, Replica, Seating
from dudo_p2p.errors import DecodeError, DudoError, RemoteProtocolError
from dudo_p2p.protocol.codec import decode, encode
from dudo_p2p.protocol.envelope import Envelope, open_envelope
from dudo_p2p.rules import GameState

__all__ = [
    "FORMAT",
    "LOG_KINDS",
    "RecordVerifier",
    "RecordViolation",
    "Summary",
    "check_proof",
    "encode_record",
    "verify_record",
]

FORMAT = "dudo-p2p-record/1"
MAX_RECORD = 64 << 20
RECORD_KEYS = frozenset({"format", "genesis", "signatures", "items", "proofs"})


class RecordViolation(DudoError):
    """The record breaks a rule; ``index`` is the item (-1: the header), ``reason`` says what."""

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(f"item {index}: {reason}" if index >= 0 else reason)
        self.index = index
        self.reason = reason


@dataclass(frozen=True)
class Summary:
    """What a valid record shows."""

    names: tuple[str, ...]
    winner: int | None
    rounds: int
    epochs: int
    items: int
    removals: tuple[tuple[int, str], ...]
    log_hash: str
    finished: bool
    abandoned: bool = False  # two seats left and one went silent or stalled: no winner
    pubs: tuple[bytes, ...] = ()  # each seat's key (who won, across an evening's games)
    prev: str = ""  # the final log hash of the game this one follows (§4.9), hex; "": none


def encode_record(
    genesis: bytes,
    signatures: Sequence[bytes],
    chain: Sequence[ChainItem],
    certificates: dict[tuple[int, int], list[bytes]],
    proofs: Sequence[tuple[bytes, bytes]] = (),
    abandoned: Sequence[bytes] = (),
) -> bytes:
    """The record file's bytes for a chain (as a machine holds it); ``abandoned``: the claims
    that ended it abandoned (§4.6), if it was."""
    items: list[object] = []
    for item in chain:
        if item.removed_seat is None:
            items.append(item.data)
        else:
            votes = certificates.get((item.epoch, item.removed_seat), [])
            items.append(["removal", item.epoch, item.removed_seat, item.reason, list(votes)])
    doc: dict[str, object] = {
        "format": FORMAT,
        "genesis": genesis,
        "signatures": list(signatures),
        "items": items,
        "proofs": [list(p) for p in proofs],
    }
    if abandoned:
        doc["abandoned"] = list(abandoned)
    return encode(doc)


def read_certificate(
    seating: Seating, replica: Replica, number: int, seat: int, votes: list[object]
) -> tuple[EpochState, frozenset[int], bool]:
    """The votes of a removal of ``seat`` in epoch ``number`` (the current one, or the one
    just voided by other removals): each a signed vote of that epoch against ``seat`` by one
    of its participants, or the seat's own (it quit), then any entries it signed (evidence).
    Returns the epoch's state, the voters, and whether the seat's consent or a proof of its
    cheat is held (what a removal at two seats needs, §4.6); RemoteProtocolError if a vote
    is not one. Whether the voters are enough depends on the epoch's other removals
    (:func:`~dudo_p2p.consensus.faults.removal_order`, :meth:`RecordVerifier.settle`)."""
    epoch = replica.removal_epoch(number)
    if epoch is None:
        raise RemoteProtocolError(f"a removal of epoch {number}: the log is past it")
    voters: set[int] = set()
    consent = False
    evidence: list[Envelope] = []
    for raw in votes:
        if not isinstance(raw, bytes):
            raise DecodeError("a vote is an envelope")
        env = open_envelope(raw, expect_game=seating.game_id, known_authors=seating.pubs)
        voter = seating.seat_of(env.author)
        if voter == seat and env.kind in LOG_KINDS:
            evidence.append(env)
            continue
        if env.round_no != epoch.number:
            raise RemoteProtocolError(
                f"a vote signed for round {env.round_no} in a removal of epoch {epoch.number}"
            )
        if check_vote(env, seating) != seat:
            raise RemoteProtocolError("a vote for someone else")
        if voter == seat:
            consent = True
            continue
        if voter is None or voter not in epoch.participants:
            raise RemoteProtocolError(f"seat {voter} may not vote on seat {seat}")
        voters.add(voter)
    return epoch, frozenset(voters), consent or proves_cheat(seating, seat, evidence)


class RecordVerifier:
    """The items of a record checked one at a time, as they come (``verify`` feeds a whole
    file; a spectator feeds what it pulls while the game goes on): each goes through the
    :class:`~dudo_p2p.consensus.replica.Replica` exactly as :func:`verify_record` does.
    :meth:`add` raises :class:`RecordViolation` naming the item; after one the verifier
    must not be fed again (its replica may be half-way through the item)."""

    def __init__(self, seating: Seating) -> None:
        self.seating = seating
        self.replica = Replica(seating)
        self.removals: list[tuple[int, str]] = []
        self.count = 0  # items taken so far: the next one is item ``count``
        # the removals of one epoch taken last (chained together, in seat order): seat ->
        # (its voters, consent or evidence held), their epoch, and whether some order makes
        # each a majority of the seats left (checked at each, required once they end)
        self.group: dict[int, tuple[frozenset[int], bool]] = {}
        self.group_epoch: EpochState | None = None
        self.group_ok = True

    def open_entry(self, raw: bytes) -> Envelope:
        """Open an entry of this game: signed by a seat, for this game id."""
        return open_envelope(raw, expect_game=self.seating.game_id, known_authors=self.seating.pubs)

    def add(self, item: object) -> None:
        """Check and take item number :attr:`count`: an entry's envelope (bytes) or a removal
        ``["removal", epoch, seat, reason, [vote, ...]]``; RecordViolation if it breaks a rule."""
        replica, seating = self.replica, self.seating
        try:
            match item:
                case bytes():
                    self.settle()
                    replica.replay([ChainItem(replica.epoch.number, b"", item)], self.open_entry)
                case ["removal", int() as epoch, int() as seat, str() as reason, list() as votes]:
                    if not 0 <= seat < seating.n:
                        raise RemoteProtocolError(f"removal of seat {seat} in epoch {epoch}")
                    if self.group_epoch is not None and self.group_epoch.number != epoch:
                        self.settle()
                    state, voters, proven = read_certificate(
                        seating, replica, epoch, seat, list(votes))
                    replica.remove(seat, reason, epoch)
                    self.removals.append((seat, reason))
                    self.group_epoch = state
                    self.group[seat] = (voters, proven)
                    self.group_ok = removal_order(state.participants, self.group) is not None
                case _:
                    raise DecodeError("an item is an entry or a removal")
        except RecordViolation:
            raise  # the removals before this item (settle): named already
        except DudoError as exc:
            raise RecordViolation(self.count, str(exc)) from exc
        self.count += 1

    def settle(self) -> None:
        """The removals of one epoch taken last are all there (an entry or another epoch's
        removal follows, or the record ends): RecordViolation unless they can have been made
        one after the other, each by votes of a strict majority of its other seats still in
        the epoch (§4.6: a removed seat's votes count no more), with two seats left only
        with the seat's consent or evidence. Named: the last removal of them."""
        epoch, ok, group = self.group_epoch, self.group_ok, self.group
        self.group, self.group_epoch, self.group_ok = {}, None, True
        if epoch is None or ok:
            return
        if len(group) > 1:
            why = (f"removal of seats {sorted(group)} in epoch {epoch.number}: no order in "
                   "which each has the votes of a strict majority of the seats left (a "
                   "removed seat's votes count no more; two seats left need consent or "
                   "evidence)")
        else:
            ((seat, (voters, _)),) = group.items()
            others = remaining(epoch.participants, (), seat)
            count = len(voters & set(others))
            why = (f"removal of seat {seat} of two on the other's word alone: a claim, not "
                   "a forfeit" if len(others) == 1 and count else
                   f"removal of seat {seat} has {count} votes of {len(others)}: not a "
                   "strict majority")
        raise RecordViolation(self.count - 1, why)


def verify_record(
    data: bytes, observe: Callable[[int, GameState], None] | None = None
) -> Summary:
    """Re-check a whole record; raises RecordViolation naming the first violation.
    ``observe(index, engine)`` is called after each item is checked, with the engine state
    it led to (the replay viewer steps through these)."""
    try:
        doc = decode(data, max_size=MAX_RECORD)
    except RemoteProtocolError as exc:
        raise RecordViolation(-1, f"not a record: {exc}") from exc
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise RecordViolation(-1, f"not a {FORMAT} file")
    # an unknown key would be a byte no signature covers ("abandoned" holds signed claims)
    if set(doc) - {"abandoned"} != RECORD_KEYS:
        raise RecordViolation(-1, f"a record has exactly the keys {sorted(RECORD_KEYS)} "
                                  "(and \"abandoned\" when the game was)")
    genesis, sigs, items = doc.get("genesis"), doc.get("signatures"), doc.get("items")
    if not isinstance(genesis, bytes) or not isinstance(sigs, list) or not isinstance(items, list):
        raise RecordViolation(-1, "record lacks genesis, signatures or items")
    try:
        if not all(isinstance(s, bytes) for s in sigs):
            raise DecodeError("a signature is an envelope")
        seating = seating_from(genesis, [s for s in sigs if isinstance(s, bytes)])
    except DudoError as exc:
        raise RecordViolation(-1, f"genesis: {exc}") from exc
    verifier = RecordVerifier(seating)
    replica = verifier.replica
    open_entry = verifier.open_entry
    for item in items:
        verifier.add(item)
        if observe is not None:
            observe(verifier.count - 1, replica.engine)
    verifier.settle()
    proofs = doc["proofs"]
    for index, proof in enumerate(proofs if isinstance(proofs, list) else [None]):
        try:
            match proof:
                case [bytes() as first, bytes() as second]:
                    check_proof(open_entry(first), open_entry(second))
                case _:
                    raise DecodeError("a proof is a pair of envelopes")
        except DudoError as exc:
            raise RecordViolation(len(items) + index, f"proof: {exc}") from exc
    abandoned = doc.get("abandoned")
    if abandoned is not None:
        try:
            check_abandoned(seating, replica, abandoned)
        except DudoError as exc:
            raise RecordViolation(-1, f"abandoned: {exc}") from exc
    engine = replica.engine
    # the game is won once every seat of its last epoch signed the result (phase OVER), not
    # when the last round resolves: a game abandoned between the two (the winner's
    # signature never came) names no winner (soak seeds 503, 702)
    finished = replica.phase is EpochPhase.OVER and engine.winner is not None
    return Summary(
        names=seating.names,
        winner=engine.winner if finished else None,
        rounds=len(engine.results),
        epochs=replica.epoch.number,
        items=len(items),
        removals=tuple(verifier.removals),
        log_hash=replica.head.hex(),
        finished=finished,
        abandoned=abandoned is not None,
        pubs=seating.pubs,
        prev=seating.prev.hex(),
    )


def check_abandoned(seating: Seating, replica: Replica, claims: object) -> None:
    """A game ends abandoned only with two seats left, unfinished, on a signed claim by one
    of them against the other of the last epoch or the one before (§4.6);
    RemoteProtocolError otherwise."""
    epoch = replica.epoch
    parts = epoch.participants
    if replica.phase is EpochPhase.OVER or len(parts) != 2:
        raise RemoteProtocolError("only an unfinished game of two seats is abandoned")
    if not isinstance(claims, list) or not claims:
        raise DecodeError("a list of claim votes")
    for raw in claims:
        if not isinstance(raw, bytes):
            raise DecodeError("a claim is a vote envelope")
        env = open_envelope(raw, expect_game=seating.game_id, known_authors=seating.pubs)
        voter = seating.seat_of(env.author)
        target = check_vote(env, seating)
        if voter not in parts:
            raise RemoteProtocolError("a claim is a vote by one of the two seats")
        if target not in parts or target == voter or env.round_no > epoch.number:
            raise RemoteProtocolError("a claim names the other seat, in this epoch")
