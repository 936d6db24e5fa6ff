"""``protocol.envelope.peek``: what a frame claims (kind, round, seq, raw body), read without
decoding or verifying the rest, for routing; garbage gives None, never an exception."""

from __future__ import annotations

import random

import pytest

from dudo_p2p.crypto.identity import Identity
from dudo_p2p.protocol.codec import encode
from dudo_p2p.protocol.envelope import Peek, open_envelope, peek, peek_kind, seal_envelope
from dudo_p2p.protocol.kinds import Ack, Heartbeat, SyncRequest, Vote

GAME = bytes(range(16))


def _ident(seed: int) -> Identity:
    rng = random.Random(seed)
    return Identity.generate(lambda k: rng.randbytes(k))


def test_peek_reads_what_open_envelope_checks() -> None:
    me, other = _ident(1), _ident(2)
    inner = seal_envelope(other, GAME, 3, 4, SyncRequest(7)).to_bytes()
    for round_no, seq, body in [(0, 0, Heartbeat(b"h" * 32, 5, 1, other.public_key, b"n" * 8)),
                                (3, 4, Ack(inner)),
                                (9, 2, Vote(other.public_key, "silent"))]:
        frame = seal_envelope(me, GAME, round_no, seq, body).to_bytes()
        env = open_envelope(frame)
        got = peek(frame)
        assert got is not None
        assert (got.kind, got.round_no, got.seq, got.body) == (env.kind, round_no, seq, None)
        assert peek_kind(frame) == env.kind
    ack = peek(seal_envelope(me, GAME, 3, 4, Ack(inner)).to_bytes(), body=True)
    assert ack is not None and isinstance(ack.body, dict) and ack.body["entry"] == inner


@pytest.mark.parametrize("frame", [
    b"", b"\x00", b"\x98", b"\xc1" * 10, encode([1, 2, 3]), encode({"kind": "ack"}),
    encode([1, GAME, -1, 0, b"a" * 32, "ack", {}, b"s" * 64]),  # a negative round
    encode([1, GAME, 0, 0, b"a" * 32, 5, {}, b"s" * 64]),  # a kind that is no string
    encode([1, GAME, 0, 0, b"a" * 32, "k" * 17, {}, b"s" * 64]),  # a kind too long
    encode([1, GAME, 0, 0, b"a" * 32, "ack"]),  # cut short before the body
    b"\x98" + b"\xff" * 40,
])
def test_garbage_peeks_as_nothing(frame: bytes) -> None:
    assert peek(frame, body=True) is None
    assert peek_kind(frame) is None


def test_a_cut_envelope_still_peeks_its_kind_but_never_opens() -> None:
    """Peek is a hint: the head of a frame is enough, the layer it routes to refuses it."""
    frame = seal_envelope(_ident(1), GAME, 0, 0, SyncRequest(1)).to_bytes()
    assert peek_kind(frame[:-10]) == "sync-request"


def test_a_frame_peeked_again_gives_the_same_answers_with_and_without_its_body() -> None:
    """The node peeks a frame for its kind, the inbox again with its body: the second answer
    (remembered) is the one a first peek gives, and another frame is peeked afresh."""
    inner = seal_envelope(_ident(2), GAME, 3, 4, SyncRequest(7)).to_bytes()
    ack = seal_envelope(_ident(1), GAME, 3, 4, Ack(inner)).to_bytes()
    vote = seal_envelope(_ident(1), GAME, 9, 2, Vote(_ident(2).public_key, "silent")).to_bytes()
    for frame in (ack, vote, ack[:-10], b"\x98" + b"\xff" * 40):
        twin = bytes(bytearray(frame))  # equal bytes, another object: peeked afresh
        first = (peek(twin), peek(twin, body=True))
        assert (peek(frame), peek(frame, body=True), peek(frame)) == (*first, first[0])
        assert peek_kind(frame) == (first[0].kind if first[0] is not None else None)
    with_body = peek(ack, body=True)
    assert with_body is not None and isinstance(with_body.body, dict)
    assert with_body.body["entry"] == inner
    assert peek(ack) == Peek("ack", 3, 4)  # without: no body
    # a frame whose head reads but whose body does not: a kind to route by, nothing more
    head_only = encode([2, GAME, 0, 0, b"a" * 32, "ack"])[1:]
    cut = b"\x98" + head_only + b"\xc1"
    assert peek_kind(cut) == "ack" and peek(cut, body=True) is None
