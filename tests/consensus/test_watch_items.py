"""The spectator's sync items as record items (watch_spectator.record_item): it decodes only
items that may be tagged (an act with its acks, a removal) and hands envelopes to the
verifier as they are; what it returns, or raises, is what decoding every item gave (the
reference below: record_item before the shortcut). Deterministic: a FakeNet game."""

from __future__ import annotations

import pytest

from dudo_p2p.consensus.act_certs import agreed_item
from dudo_p2p.consensus.watch_items import record_item
from dudo_p2p.consensus.watch_spectator import Spectator
from dudo_p2p.consensus.watching import Note
from dudo_p2p.errors import DecodeError
from dudo_p2p.protocol.codec import decode, encode
from dudo_p2p.protocol.envelope import open_envelope, peek_kind
from dudo_p2p.protocol.kinds import SyncReply

from .fakenet import FakeNet
from .test_consensus_watch import THREE_DICE, mid_bidding, watch_game


def decoding_every_item(data: bytes) -> object:
    """record_item as it was: every item decoded (twice for an envelope)."""
    agreed = agreed_item(data)
    if agreed is not None:
        return agreed[0]
    try:
        decoded = decode(data)
    except DecodeError:
        return data
    if isinstance(decoded, list) and decoded and decoded[0] == "removal":
        return decoded
    return data


def outcome(fn: object, data: bytes) -> object:
    assert callable(fn)
    try:
        return fn(data)
    except DecodeError:
        return DecodeError


class Keeping(Spectator):
    """A spectator that keeps every entry the seats' sync-replies brought it."""

    served: list[bytes]

    def receive(self, frame: bytes, now: float, sender: bytes | None = None) -> list[Note]:
        body = open_envelope(frame).body
        if isinstance(body, SyncReply):
            self.served = [*getattr(self, "served", []), *body.entries]
        return super().receive(frame, now, sender)


def test_every_item_of_a_watched_game_with_a_removal_reads_as_when_each_was_decoded() -> None:
    # the sync items a seat served in a game where seat 2 died mid-bidding and was removed
    # (acts, concurrent entries, the removals): the same record items (the seat serves an
    # act as its envelope; an act with its acks is in the crafted items below)
    net = FakeNet(3, THREE_DICE, seed=5)
    (spec,) = watch_game(net, crash=(mid_bidding(net), 2), kind=Keeping)
    assert isinstance(spec, Keeping) and spec.finished and spec.flagged is None
    read = [record_item(d) for d in spec.served]
    assert any(isinstance(r, list) for r in read)  # a removal
    assert {peek_kind(d) for d in spec.served} >= {"act", "commit", "nonce", "reveal"}
    assert len(spec.served) >= len(spec.items)
    for data in spec.served:
        assert outcome(record_item, data) == outcome(decoding_every_item, data)


@pytest.mark.parametrize("data", [
    b"", b"\x00", b"\xc1", b"\x98", b"\x93", b"\x93\xa3act", b"\x90",
    encode(["act", b"env", [b"ack"]]),
    encode(["act", b"env", [b"ack", 3]]),       # a malformed act item: DecodeError
    encode(["act", 1, 2, 3, 4, 5, 6, 7]),         # an 8-array tagged "act": DecodeError
    encode(["removal", 2, 1, "silent", [b"vote"]]),
    encode(["removal"]),
    encode([1, b"g" * 16, 0, 0, b"k" * 32, "act", {}, b"s" * 64]),  # an envelope's shape
    encode(["x" * 40, 1]),                          # str8 first
    encode(["act", *range(20)]),                    # array16 header, tagged "act"
    encode(["removal", *range(20)]),                # array16 header, tagged "removal"
    encode([*range(20)]),                           # array16 header, an int first
    encode({"act": 1}),
    encode("act"),
    encode(["act", b"env", [b"ack"]])[:-1],         # truncated
    encode(["act", b"env", [b"ack"]]) + b"\x00",   # trailing bytes
], ids=lambda d: d[:12].hex() or "empty")
def test_a_crafted_item_reads_as_when_every_item_was_decoded(data: bytes) -> None:
    assert outcome(record_item, data) == outcome(decoding_every_item, data)
