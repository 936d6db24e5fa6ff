"""The journal's records (protocol.md §4.7): what a seat writes, and reading it back.

One canonical msgpack list per record, written through ``Persist`` effects in the order the
machine emits them:

    ["item", envelope]                            a chained entry (no fsync needed)
    ["act", envelope, [ack...]]                   a chained act with its certificate (idem)
    ["removal", epoch, seat, reason, [vote...]]   a removal with its votes (durable)
    ["secrets", [epoch, key, nonce, shares...]]   our secrets of an epoch (durable, before
                                                  the commitment that depends on them)
    ["own", envelope]                             our own act (durable, before it is sent)
    ["abandoned", seat, reason, [vote...]]        the two-seat game ended abandoned: the
                                                  claim(s) against ``seat`` (durable)

:func:`read_journal` decodes them lazily, in order, so a restore replays each record before
it reads the next (the first record that does not replay is the one reported).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from dudo_p2p.consensus.act_certs import agreed_bytes
from dudo_p2p.consensus.sync import removal_bytes
from dudo_p2p.errors import DecodeError
from dudo_p2p.protocol.codec import decode, encode

MAX_RECORD = 1 << 20


@dataclass(frozen=True)
class Item:
    """A chained entry's envelope."""

    data: bytes


@dataclass(frozen=True)
class Removal:
    """A removal of ``target`` in ``epoch`` and the votes that made it (bytes only)."""

    epoch: int
    target: int
    reason: str
    votes: list[bytes]


@dataclass(frozen=True)
class Secrets:
    """Our secrets of one epoch (:meth:`EpochSecrets.from_record` reads the fields)."""

    fields: list[object]


@dataclass(frozen=True)
class Own:
    """One of our own acts, signed before it was sent."""

    data: bytes


@dataclass(frozen=True)
class Agreed:
    """A chained act and the acks that made it final (its certificate, bytes only)."""

    data: bytes
    acks: list[bytes]


@dataclass(frozen=True)
class Abandoned:
    """The game ended abandoned (two seats left, §4.6): the claims against ``seat``."""

    seat: int
    reason: str
    claims: list[bytes]


Record = Item | Agreed | Removal | Secrets | Own | Abandoned


def item_record(data: bytes) -> bytes:
    return encode(["item", data])


def agreed_record(data: bytes, acks: list[bytes]) -> bytes:
    return agreed_bytes(data, acks)


def removal_record(epoch: int, target: int, reason: str, cert: list[bytes]) -> bytes:
    return removal_bytes(epoch, target, reason, cert)


def abandoned_record(seat: int, reason: str, claims: list[bytes]) -> bytes:
    return encode(["abandoned", seat, reason, list(claims)])


def secrets_record(fields: list[object]) -> bytes:
    return encode(["secrets", fields])


def own_record(data: bytes) -> bytes:
    return encode(["own", data])


def read_journal(records: Iterable[bytes]) -> Iterator[Record]:
    """The journal's records in order; DecodeError on one that is not a record."""
    for raw in records:
        record = decode(raw, max_size=MAX_RECORD)
        if not isinstance(record, list) or not record or not isinstance(record[0], str):
            raise DecodeError("bad journal record")
        match record:
            case ["item", bytes() as data]:
                yield Item(data)
            case ["act", bytes() as data, list() as acks]:
                yield Agreed(data, [b for b in acks if isinstance(b, bytes)])
            case ["removal", int() as epoch, int() as target, str() as reason, list() as cert]:
                yield Removal(epoch, target, reason, [b for b in cert if isinstance(b, bytes)])
            case ["secrets", list() as fields]:
                yield Secrets(fields)
            case ["own", bytes() as data]:
                yield Own(data)
            case ["abandoned", int() as seat, str() as reason, list() as claims]:
                yield Abandoned(seat, reason, [b for b in claims if isinstance(b, bytes)])
            case _:
                raise DecodeError(f"unknown journal record {record[0]!r}")
