"""Signed envelopes: what is signed, and every refusal in its documented order."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_examples import BID, TABLE, BidExample, TableExample

from dudo_p2p.crypto import Identity, tagged_hash, verify
from dudo_p2p.errors import (
    BadSignature,
    DecodeError,
    FrameTooLarge,
    LocalProtocolError,
    WrongContext,
)
from dudo_p2p.protocol import Envelope, decode, encode, open_envelope, seal_envelope, to_wire
from dudo_p2p.protocol.envelope import entry_digest

GAME = bytes(range(16))
OTHER_GAME = bytes(range(1, 17))


def ident(label: str) -> Identity:
    return Identity.generate(lambda n: hashlib.sha512(label.encode()).digest()[:n])


ALICE, MALLORY = ident("alice"), ident("mallory")


def reframe(envelope: Envelope, index: int, value: object) -> bytes:
    """The envelope's frame with one item replaced (signature kept)."""
    frame = decode(envelope.to_bytes())
    assert isinstance(frame, list)
    frame[index] = value  # type: ignore[call-overload]
    return encode(frame)


def test_the_signature_covers_the_documented_signed_bytes() -> None:
    envelope = seal_envelope(ALICE, GAME, 3, 9, BID)
    signed = encode(
        ["dudo-p2p/1/envelope", 2, GAME, 3, 9, ALICE.public_key, "test-bid", to_wire(BID)]
    )
    assert envelope.signed_bytes == signed
    assert verify(ALICE.public_key, signed, envelope.signature)
    assert envelope.digest() == tagged_hash("dudo-p2p/1/entry", signed)
    frame = [2, GAME, 3, 9, ALICE.public_key, "test-bid", to_wire(BID), envelope.signature]
    assert envelope.to_bytes() == encode(frame)


def test_an_envelope_opens_back_to_itself_with_every_check_on() -> None:
    envelope = seal_envelope(ALICE, GAME, 3, 9, TABLE)
    opened = open_envelope(
        envelope.to_bytes(), expect_game=GAME, expect_round=3, known_authors={ALICE.public_key}
    )
    assert opened == envelope
    assert opened.digest() == envelope.digest()
    assert opened.kind == "test-table"


@settings(derandomize=True, max_examples=40)
@given(
    round_no=st.integers(0, 2**63 - 1),
    seq=st.integers(0, 2**63 - 1),
    count=st.integers(1, 30),
    note=st.none() | st.text(max_size=20),
)
def test_envelopes_round_trip(round_no: int, seq: int, count: int, note: str | None) -> None:
    body = BidExample(count=count, face=2, commitment=bytes(32), note=note)
    envelope = seal_envelope(ALICE, GAME, round_no, seq, body)
    assert open_envelope(envelope.to_bytes()) == envelope


@settings(derandomize=True, max_examples=60)
@given(
    round_no=st.integers(0, 2**63 - 1),
    seq=st.integers(0, 2**63 - 1),
    names=st.lists(st.text(max_size=300), max_size=6),
    blob=st.binary(max_size=70000),
    flag=st.booleans(),
)
def test_sealed_and_opened_bytes_are_the_full_encodings_whatever_the_sizes(
    round_no: int, seq: int, names: list[str], blob: bytes, flag: bool
) -> None:
    # seal_envelope and open_envelope build the frame and the signed bytes from each other
    # (same items 1..6 after one header); here both are encoded in full and compared, with
    # ints, strs, bins and the frame crossing every msgpack header size.
    body = TableExample(rules={"a": 1}, names=tuple(names), dice=((1,),),
                        pair=(round_no, blob), flag=flag)
    signed = encode(["dudo-p2p/1/envelope", 2, GAME, round_no, seq, ALICE.public_key,
                     "test-table", to_wire(body)])
    try:
        envelope = seal_envelope(ALICE, GAME, round_no, seq, body)
    except LocalProtocolError:
        assert len(signed) > 65000  # only a frame over the limit is refused
        return
    frame = encode([2, GAME, round_no, seq, ALICE.public_key, "test-table", to_wire(body),
                    envelope.signature])
    assert envelope.signed_bytes == signed and envelope.to_bytes() == frame
    assert verify(ALICE.public_key, signed, envelope.signature)
    opened = open_envelope(frame)
    assert opened.signed_bytes == signed and opened.to_bytes() == frame
    assert opened.digest() == tagged_hash("dudo-p2p/1/entry", signed)


def test_digests_differ_when_anything_signed_differs() -> None:
    digests = {
        seal_envelope(ALICE, GAME, 1, 1, BID).digest(),
        seal_envelope(ALICE, GAME, 1, 2, BID).digest(),
        seal_envelope(ALICE, GAME, 2, 1, BID).digest(),
        seal_envelope(ALICE, OTHER_GAME, 1, 1, BID).digest(),
        seal_envelope(MALLORY, GAME, 1, 1, BID).digest(),
        seal_envelope(ALICE, GAME, 1, 1, TABLE).digest(),
    }
    assert len(digests) == 6


def test_a_replay_into_another_round_or_game_is_wrong_context() -> None:
    data = seal_envelope(ALICE, GAME, 3, 9, BID).to_bytes()
    with pytest.raises(WrongContext, match="round 3, expected 4"):
        open_envelope(data, expect_game=GAME, expect_round=4)
    with pytest.raises(WrongContext, match="another game"):
        open_envelope(data, expect_game=OTHER_GAME, expect_round=3)


def test_a_stranger_is_wrong_context() -> None:
    data = seal_envelope(MALLORY, GAME, 3, 9, BID).to_bytes()
    with pytest.raises(WrongContext, match="not at this table"):
        open_envelope(data, known_authors={ALICE.public_key})


def test_a_context_rewritten_by_a_relay_breaks_the_signature() -> None:
    envelope = seal_envelope(ALICE, GAME, 3, 9, BID)
    for index, value in ((1, OTHER_GAME), (2, 4), (3, 10), (5, "test-table")):
        data = reframe(envelope, index, value)
        with pytest.raises((BadSignature, DecodeError)):
            open_envelope(data)
    # Same game/round/seq but a relay changed the round: BadSignature, not WrongContext,
    # even when the forged round is the one we expect.
    with pytest.raises(BadSignature):
        open_envelope(reframe(envelope, 2, 4), expect_game=GAME, expect_round=4)


def test_forged_or_altered_signatures_are_bad_signatures() -> None:
    envelope = seal_envelope(ALICE, GAME, 3, 9, BID)
    sig = envelope.signature
    forged_by_mallory = seal_envelope(MALLORY, GAME, 3, 9, BID).signature
    for bad in (bytes([sig[0] ^ 1]) + sig[1:], forged_by_mallory, bytes(64)):
        with pytest.raises(BadSignature):
            open_envelope(reframe(envelope, 7, bad))
    altered_body = to_wire(BidExample(count=5, face=5, commitment=bytes(range(32))))
    with pytest.raises(BadSignature):
        open_envelope(reframe(envelope, 6, altered_body))
    with pytest.raises(BadSignature):
        open_envelope(reframe(envelope, 4, MALLORY.public_key))  # claims another author


@pytest.mark.parametrize(
    ("index", "value", "match"),
    [
        (1, bytes(15), "game_id"),
        (2, -1, "round_no"),
        (2, "3", "round_no"),
        (3, True, "seq"),
        (4, bytes(31), "author"),
        (5, 7, "kind"),
        (5, "no-such-kind", "unknown message kind"),
        (6, {"count": 4}, "missing field"),
        (7, bytes(63), "signature"),
        (0, "1", "version"),
    ],
)
def test_malformed_envelope_fields_are_decode_errors(index: int, value: object, match: str) -> None:
    envelope = seal_envelope(ALICE, GAME, 3, 9, BID)
    with pytest.raises(DecodeError, match=match):
        open_envelope(reframe(envelope, index, value))


@pytest.mark.parametrize("version", [1, 3])  # 1: the old wire (protocol/older.py answers it)
def test_another_protocol_version_is_wrong_context(version: int) -> None:
    envelope = seal_envelope(ALICE, GAME, 3, 9, BID)
    with pytest.raises(WrongContext, match=f"protocol version {version}, we speak 2"):
        open_envelope(reframe(envelope, 0, version))


def test_frames_of_the_wrong_shape_size_or_encoding_are_refused() -> None:
    envelope = seal_envelope(ALICE, GAME, 3, 9, BID)
    data = envelope.to_bytes()
    with pytest.raises(FrameTooLarge):
        open_envelope(data, max_size=len(data) - 1)
    with pytest.raises(DecodeError, match="array of 8"):
        open_envelope(encode(decode(data)[:7]))  # type: ignore[index]
    with pytest.raises(DecodeError):
        open_envelope(data[:-1])
    with pytest.raises(DecodeError, match="non-canonical"):
        # The same array with a 16-bit array header: same value, other bytes.
        open_envelope(b"\xdc\x00\x08" + data[1:])


def test_seal_envelope_refuses_what_a_peer_would_refuse() -> None:
    with pytest.raises(LocalProtocolError):
        seal_envelope(ALICE, bytes(15), 1, 1, BID)
    with pytest.raises(LocalProtocolError):
        seal_envelope(ALICE, GAME, -1, 1, BID)
    with pytest.raises(LocalProtocolError):
        seal_envelope(ALICE, GAME, 1, 2**63, BID)
    with pytest.raises(LocalProtocolError):
        seal_envelope(ALICE, GAME, 1, 1, object())  # type: ignore[arg-type]


@pytest.mark.parametrize("size", [0, 1, 255, 256, 65_535, 65_536, 70_000])
def test_entry_digest_is_the_tagged_hash_of_the_signed_bytes(size: int) -> None:
    """The digest's fast path (a constant prefix hashed once per entry) gives tagged_hash's
    bytes for every length, the lengths where an encoded size grows a byte included."""
    signed = hashlib.sha512(b"%d" % size).digest() * (size // 64 + 1)
    assert entry_digest(signed[:size]) == tagged_hash("dudo-p2p/1/entry", signed[:size])
