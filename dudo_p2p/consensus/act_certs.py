"""Act certificates (protocol.md §4.4, §4.7): the acks that made an act final travel with it.

An act is chained only when every live seat of its epoch has acked it (its author's own
message counts as its ack). Those signed acks are the act's **certificate**: a peer keeps
them for every act it chains (and journals them), and catch-up carries an act only together
with them, as the item ``["act", envelope, [ack envelope, ...]]``. A peer that receives such
an item chains the act only when the acks are signed by every seat of the epoch but the
author and each acks exactly that envelope (:func:`checked_certificate`); an act that comes
without a valid certificate is treated like one that came live (a candidate to ack), so no
act reaches a log except by the agreement of every live seat.

Pure: the machine opens the acks (through the ``open_entry`` it passes) and chains.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from dudo_p2p.consensus.bindings import check_ack
from dudo_p2p.consensus.replica import Seating
from dudo_p2p.errors import DecodeError, RemoteProtocolError
from dudo_p2p.protocol.codec import decode, encode
from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.protocol.kinds import Ack, Act

OpenEntry = Callable[[bytes], Envelope]
AGREED = "act"  # the tag of an act item with its certificate, in sync replies and the journal


def acked_digest(ack: Envelope, open_entry: OpenEntry) -> bytes | None:
    """The digest of the entry ``ack`` acks, or None when it is not an ack, its entry does
    not open, or it is not signed in its entry's context (:func:`~dudo_p2p.consensus.
    bindings.check_ack`: an ack is bound to the (epoch, seq) of what it acks)."""
    if not isinstance(ack.body, Ack):
        return None
    try:
        entry = open_entry(ack.body.entry)
        check_ack(ack, entry)
    except RemoteProtocolError:
        return None
    return entry.digest()


def signed_acks(
    act: Envelope, acks: Iterable[bytes], seating: Seating, open_entry: OpenEntry
) -> dict[int, bytes]:
    """The acks of exactly ``act`` among ``acks``, each checked, by acker (none of its
    author, and none at all when ``acks`` hold more than one per other seat: padding, each
    costing a signature check). Acks that do not open or ack something else are left out."""
    author = seating.seat_of(act.author)
    acks = list(acks)
    if author is None or not isinstance(act.body, Act) or len(acks) >= seating.n:
        return {}
    digest = act.digest()
    signed: dict[int, bytes] = {}
    for data in acks:
        try:
            ack = open_entry(data)
        except RemoteProtocolError:
            continue
        seat = seating.seat_of(ack.author)
        if seat is not None and seat != author and acked_digest(ack, open_entry) == digest:
            signed[seat] = data
    return signed


def checked_certificate(
    act: Envelope,
    acks: Iterable[bytes],
    participants: Iterable[int],
    seating: Seating,
    open_entry: OpenEntry,
) -> list[bytes] | None:
    """The certificate of ``act`` (one signed ack of exactly ``act`` from every seat of
    ``participants`` but its author, in seat order) drawn from ``acks``, or None when
    ``acks`` do not hold one (or hold more than one per other seat: padding). Acks that do
    not open, ack something else or come from other seats are left out; they cannot make a
    certificate valid."""
    author = seating.seat_of(act.author)
    needed = set(participants) - {author}
    signed = signed_acks(act, acks, seating, open_entry)
    if author is None or not needed <= set(signed):
        return None
    return [signed[s] for s in sorted(needed)]


def agreed_bytes(envelope: bytes, acks: Sequence[bytes]) -> bytes:
    """An act with its certificate, as a sync item (and a journal record)."""
    return encode([AGREED, envelope, list(acks)])


def agreed_item(data: bytes) -> tuple[bytes, list[bytes]] | None:
    """The act envelope and ack envelopes of an act item (unchecked: the caller opens
    them), or None when ``data`` is not one. DecodeError on a malformed act item."""
    try:
        decoded = decode(data)
    except DecodeError:
        return None
    if not isinstance(decoded, list) or not decoded or decoded[0] != AGREED:
        return None
    match decoded:
        case [_, bytes() as envelope, list() as acks] if all(isinstance(a, bytes) for a in acks):
            return envelope, list(acks)
    raise DecodeError("an act item is [\"act\", envelope, [ack, ...]]")
