"""The game record: the whole table log in one file, and its offline verification.

Format (protocol.md §4.8): one canonical msgpack map ::

    {"format": "dudo-p2p-record/1",
     "genesis": bin,                 the host's signed genesis envelope
     "signatures": [bin, ...],       every seat's genesis-sign envelope
     "items": [item, ...],           the chain in order
     "proofs": [[bin, bin], ...]}    equivocation proofs seen (informative)

    item = bin                       an entry's signed envelope
         | ["removal", epoch, seat, reason, [vote envelope, ...]]

:func:`verify_record` replays the items through a fresh
:class:`~dudo_p2p.consensus.replica.Replica`, which re-checks every signature, hash link,
commitment, derived die, rule and result, and checks each removal's votes (a strict majority
of the other seats of that epoch). Pure: the caller reads the file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from dudo_p2p.consensus.bindings import check_vote
from dudo_p2p.consensus.genesis import seating_from
from dudo_p2p.consensus.replica import ChainItem, Replica, Seating
from dudo_p2p.errors import DecodeError, DudoError, RemoteProtocolError
from dudo_p2p.protocol.codec import decode, encode
from dudo_p2p.protocol.envelope import Envelope, open_envelope
from dudo_p2p.rules import GameState

FORMAT = "dudo-p2p-record/1"
LOG_KINDS = frozenset({"act", "commit", "nonce", "reveal", "result-sign"})
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


def encode_record(
    genesis: bytes,
    signatures: Sequence[bytes],
    chain: Sequence[ChainItem],
    certificates: dict[tuple[int, int], list[bytes]],
    proofs: Sequence[tuple[bytes, bytes]] = (),
) -> bytes:
    """The record file's bytes for a chain (as a machine holds it)."""
    items: list[object] = []
    for item in chain:
        if item.removed_seat is None:
            items.append(item.data)
        else:
            votes = certificates.get((item.epoch, item.removed_seat), [])
            items.append(["removal", item.epoch, item.removed_seat, item.reason, list(votes)])
    return encode(
        {
            "format": FORMAT,
            "genesis": genesis,
            "signatures": list(signatures),
            "items": items,
            "proofs": [list(p) for p in proofs],
        }
    )


def check_certificate(
    seating: Seating, replica: Replica, number: int, seat: int, votes: list[object]
) -> None:
    """A removal of ``seat`` in epoch ``number`` (the current one, or the one just voided by
    other removals) needs signed votes from a strict majority of that epoch's other
    participants; RemoteProtocolError otherwise."""
    epoch = replica.removal_epoch(number)
    if epoch is None:
        raise RemoteProtocolError(f"a removal of epoch {number}: the log is past it")
    voters: set[int] = set()
    for raw in votes:
        if not isinstance(raw, bytes):
            raise DecodeError("a vote is an envelope")
        env = open_envelope(
            raw, expect_game=seating.game_id, expect_round=epoch.number,
            known_authors=seating.pubs,
        )
        voter = seating.seat_of(env.author)
        if check_vote(env, seating) != seat:
            raise RemoteProtocolError("a vote for someone else")
        if voter is None or voter == seat or voter not in epoch.participants:
            raise RemoteProtocolError(f"seat {voter} may not vote on seat {seat}")
        voters.add(voter)
    others = len(epoch.participants) - 1
    if len(voters) * 2 <= others:
        raise RemoteProtocolError(
            f"removal of seat {seat} has {len(voters)} votes of {others}: not a strict majority"
        )


def check_proof(a: Envelope, b: Envelope) -> None:
    """Two authenticated envelopes prove equivocation when one author signed two different
    log entries for one slot (epoch, kind, seq); RemoteProtocolError otherwise."""
    same_slot = (a.author, a.round_no, a.kind, a.seq) == (b.author, b.round_no, b.kind, b.seq)
    if not same_slot or a.digest() == b.digest() or a.kind not in LOG_KINDS:
        raise RemoteProtocolError("not a proof of equivocation")


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
    if set(doc) != RECORD_KEYS:  # an unknown key would be a byte no signature covers
        raise RecordViolation(-1, f"a record has exactly the keys {sorted(RECORD_KEYS)}")
    genesis, sigs, items = doc.get("genesis"), doc.get("signatures"), doc.get("items")
    if not isinstance(genesis, bytes) or not isinstance(sigs, list) or not isinstance(items, list):
        raise RecordViolation(-1, "record lacks genesis, signatures or items")
    try:
        if not all(isinstance(s, bytes) for s in sigs):
            raise DecodeError("a signature is an envelope")
        seating = seating_from(genesis, [s for s in sigs if isinstance(s, bytes)])
    except DudoError as exc:
        raise RecordViolation(-1, f"genesis: {exc}") from exc
    replica = Replica(seating)
    removals: list[tuple[int, str]] = []

    def open_entry(raw: bytes) -> Envelope:
        return open_envelope(raw, expect_game=seating.game_id, known_authors=seating.pubs)

    for index, item in enumerate(items):
        try:
            match item:
                case bytes():
                    replica.replay([ChainItem(replica.epoch.number, b"", item)], open_entry)
                case ["removal", int() as epoch, int() as seat, str() as reason, list() as votes]:
                    if not 0 <= seat < seating.n:
                        raise RemoteProtocolError(f"removal of seat {seat} in epoch {epoch}")
                    check_certificate(seating, replica, epoch, seat, list(votes))
                    replica.remove(seat, reason, epoch)
                    removals.append((seat, reason))
                case _:
                    raise DecodeError("an item is an entry or a removal")
        except DudoError as exc:
            raise RecordViolation(index, str(exc)) from exc
        if observe is not None:
            observe(index, replica.engine)
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
    engine = replica.engine
    return Summary(
        names=seating.names,
        winner=engine.winner,
        rounds=len(engine.results),
        epochs=replica.epoch.number,
        items=len(items),
        removals=tuple(removals),
        log_hash=replica.head.hex(),
        finished=engine.winner is not None,
    )
