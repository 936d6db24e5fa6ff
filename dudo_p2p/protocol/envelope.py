"""The signed envelope every message travels in (protocol.md §2.5).

Frame on the wire (canonical msgpack, an array of 8)::

    [version: int = 2, game_id: bin 16, round_no: int, seq: int, author: bin 32,
     kind: str, body: map, signature: bin 64]

(version: :data:`PROTOCOL_VERSION`, the wire's; protocol.md §2.5 "Versions" says what
changed since 1 and how a version-1 hello is answered, :mod:`~dudo_p2p.protocol.older`.)

The signature is Ed25519 by ``author`` over the signed bytes, the canonical encoding of::

    ["dudo-p2p/1/envelope", version, game_id, round_no, seq, author, kind, body]

so the domain tag, protocol version, game, round, sequence number, author and kind are all
bound: an envelope cannot be replayed into another game, round or slot, or read as another
kind. ``digest()`` = tagged_hash("dudo-p2p/1/entry", signed bytes): the signature is left
out, so the entry hash does not depend on how the signature is encoded.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Collection
from dataclasses import dataclass
from typing import Final, TypeGuard

import msgpack

from dudo_p2p.crypto.hashing import PROTOCOL_VERSION, encode_parts, tag
from dudo_p2p.crypto.identity import KEY_SIZE, SIGNATURE_SIZE, Identity, verify
from dudo_p2p.errors import BadSignature, DecodeError, LocalProtocolError, WrongContext
from dudo_p2p.protocol.codec import MAX_FRAME, Wire, decode, encode
from dudo_p2p.protocol.messages import Message, from_wire, kind_of, to_wire

ENVELOPE_TAG: Final = tag("envelope")
ENTRY_TAG: Final = tag("entry")
GAME_ID_SIZE: Final = 16
MAX_COUNTER: Final = 2**63 - 1
_FRAME_ITEMS: Final = 8


def _signed_bytes(
    game_id: bytes, round_no: int, seq: int, author: bytes, kind: str, body: Wire
) -> bytes:
    return encode([ENVELOPE_TAG, PROTOCOL_VERSION, game_id, round_no, seq, author, kind, body])


# Both arrays have 8 items (fixarray header 0x98): the frame's items 0..6 (version .. body)
# are the signed array's items 1..7, after its tag; the frame ends with the signature, bin 8
# of 64 bytes (header c4 40). In canonical msgpack an
# array's encoding is its header followed by its items' encodings, so
#     signed bytes = 0x98 || enc(ENVELOPE_TAG) || frame[1 : -66]
#     frame        = 0x98 || signed bytes[len(_SIGNED_HEAD) :] || c4 40 || signature
# which spares encoding the body again on every frame opened or sealed.
_ARRAY8: Final = b"\x98"
_SIGNED_HEAD: Final = _ARRAY8 + encode(ENVELOPE_TAG)
_SIG_HEAD: Final = b"\xc4\x40"
_SIG_TAIL: Final = len(_SIG_HEAD) + SIGNATURE_SIZE


def _signed_from_frame(data: bytes) -> bytes | None:
    """The signed bytes of a frame ``decode`` accepted as an array of 8 ending in a 64-byte
    bin (so canonical: these are the very bytes ``_signed_bytes`` would encode); None if the
    frame does not have the expected head and tail after all (then encode them)."""
    if data[:1] != _ARRAY8 or data[-_SIG_TAIL:-SIGNATURE_SIZE] != _SIG_HEAD:
        return None
    return _SIGNED_HEAD + data[1:-_SIG_TAIL]


@dataclass(frozen=True)
class Envelope:
    """A message with its context and its author's signature. Build with ``seal_envelope``
    (ours) or ``open_envelope`` (a peer's): both guarantee the signature holds."""

    game_id: bytes
    round_no: int
    seq: int
    author: bytes
    body: Message
    signature: bytes

    @functools.cached_property
    def kind(self) -> str:
        """The body's message kind (kept: asked for several times per frame)."""
        return kind_of(self.body)

    @functools.cached_property
    def signed_bytes(self) -> bytes:
        """The exact bytes the signature covers (module docstring)."""
        return _signed_bytes(
            self.game_id, self.round_no, self.seq, self.author, self.kind, to_wire(self.body)
        )

    def to_bytes(self) -> bytes:
        """The frame to send (canonical msgpack array of 8, module docstring)."""
        return self._frame

    @functools.cached_property
    def _frame(self) -> bytes:
        # cached: an entry is relayed and journaled many times; the value cannot change
        return encode(
            [
                PROTOCOL_VERSION,
                self.game_id,
                self.round_no,
                self.seq,
                self.author,
                self.kind,
                to_wire(self.body),
                self.signature,
            ]
        )

    def digest(self) -> bytes:
        """tagged_hash("dudo-p2p/1/entry", signed_bytes): the hash the table log chains."""
        return self._digest

    @functools.cached_property
    def _digest(self) -> bytes:
        return entry_digest(self.signed_bytes)


# tagged_hash(ENTRY_TAG, signed) is SHA-256 over encode_parts' layout: the tag's length and
# bytes, the count of parts (1), then the one bytes part's type byte and length, then the
# signed bytes. Everything before the length is the same for every entry: hashed from this
# constant prefix, a digest costs the hash alone (every frame opened or sealed takes one);
# test_protocol_envelope checks it against tagged_hash.
_ENTRY_HEAD: Final = encode_parts(ENTRY_TAG, b"")[:-4]


def entry_digest(signed: bytes) -> bytes:
    """``tagged_hash(ENTRY_TAG, signed)``: the digest of an entry whose signed bytes are
    ``signed`` (:meth:`Envelope.digest`)."""
    return hashlib.sha256(_ENTRY_HEAD + len(signed).to_bytes(4, "big") + signed).digest()


def _check_counter(value: object) -> TypeGuard[int]:
    return type(value) is int and 0 <= value <= MAX_COUNTER


@dataclass(frozen=True, slots=True)
class Peek:
    """What a frame *claims* to be, read without checking it: a routing hint (which layer
    gets the frame, whether an ack relays an entry we hold), never a reason to trust it. The
    layer it goes to checks the whole frame, signature included (:func:`open_envelope`)."""

    kind: str
    round_no: int
    seq: int
    body: object = None  # the raw body (msgpack types), only when asked for


def peek(frame: bytes, *, body: bool = False) -> Peek | None:
    """The kind, round and seq of an envelope frame (and its raw body with ``body``), or
    None when the frame does not start like an envelope: an array of 8 whose round and seq
    are counters and whose kind is a short string (with ``body``: and whose body reads as a
    msgpack value). Verifies nothing, never raises."""
    global _last_peek
    last = _last_peek
    if last[0] is not frame:  # else the frame peeked just before (see _last_peek)
        last = _last_peek = (frame, *_peek(frame))
    return last[2] if body else last[1]


def _peek(frame: bytes) -> tuple[Peek | None, Peek | None]:
    """:func:`peek` of ``frame`` without its body and with it."""
    if len(frame) > MAX_FRAME or frame[:1] != _ARRAY8:
        return None, None
    try:
        # the whole frame in one call, when it is one msgpack value (every frame a peer
        # sends is): the same values the reader below gives, at a fraction of its cost
        items = msgpack.unpackb(frame, raw=False)
    except (ValueError, TypeError, msgpack.UnpackException):
        items = None
    if type(items) is list and len(items) == _FRAME_ITEMS:
        round_no, seq, kind, raw = items[2], items[3], items[5], items[6]
        if not _claims_envelope(kind, round_no, seq):
            return None, None
        return Peek(kind, round_no, seq), Peek(kind, round_no, seq, raw)
    unpacker = msgpack.Unpacker(raw=False, max_buffer_size=MAX_FRAME)
    try:
        unpacker.feed(frame)
        unpacker.read_array_header()
        unpacker.skip()  # version
        unpacker.skip()  # game id
        round_no, seq = unpacker.unpack(), unpacker.unpack()
        unpacker.skip()  # author
        kind = unpacker.unpack()
    except (ValueError, TypeError, msgpack.UnpackException):  # not an envelope's start
        return None, None
    if not _claims_envelope(kind, round_no, seq):
        return None, None
    try:
        raw = unpacker.unpack()
    except (ValueError, TypeError, msgpack.UnpackException):  # a head without a body
        return Peek(kind, round_no, seq), None
    return Peek(kind, round_no, seq), Peek(kind, round_no, seq, raw)


def _claims_envelope(kind: object, round_no: object, seq: object) -> bool:
    return (isinstance(kind, str) and len(kind) <= 16 and _check_counter(round_no)
            and _check_counter(seq))


# The last frame peeked, and what it claims without and with its body: every frame is
# peeked twice on its way in (the node routes it by kind, then the inbox asks whether it
# is a duplicate relay), and the second time costs nothing. ``is`` compares the very object,
# which this holds alive, so no other frame can take its place: a pure function's memo.
_last_peek: tuple[object, Peek | None, Peek | None] = (None, None, None)


def peek_kind(frame: bytes) -> str | None:
    """``peek(frame).kind``, or None (see :func:`peek`)."""
    peeked = peek(frame)
    return peeked.kind if peeked is not None else None


def seal_envelope(
    identity: Identity, game_id: bytes, round_no: int, seq: int, body: Message
) -> Envelope:
    """Sign ``body`` in this context as ``identity``.

    Raises LocalProtocolError for a game id that is not 16 bytes, a negative or oversized
    round_no/seq, an unregistered body or one with a bad field, or a frame over MAX_FRAME
    (a peer would refuse it).
    """
    if not isinstance(game_id, bytes) or len(game_id) != GAME_ID_SIZE:
        raise LocalProtocolError(f"a game id is {GAME_ID_SIZE} bytes")
    if not _check_counter(round_no) or not _check_counter(seq):
        raise LocalProtocolError("round_no and seq are ints in 0..2**63-1")
    author = identity.public_key
    signed = _signed_bytes(game_id, round_no, seq, author, kind_of(body), to_wire(body))
    signature = identity.sign(signed)
    envelope = Envelope(game_id, round_no, seq, identity.public_key, body, signature)
    # Both encodings from the one just made (see _SIGNED_HEAD); tests check them against
    # encoding the arrays in full.
    envelope.__dict__["signed_bytes"] = signed
    envelope.__dict__["_frame"] = _ARRAY8 + signed[len(_SIGNED_HEAD):] + _SIG_HEAD + signature
    if len(envelope.to_bytes()) > MAX_FRAME:
        raise LocalProtocolError(f"{envelope.kind} envelope exceeds {MAX_FRAME} bytes")
    return envelope


def open_envelope(
    data: bytes,
    *,
    max_size: int = MAX_FRAME,
    expect_game: bytes | None = None,
    expect_round: int | None = None,
    known_authors: Collection[bytes] | None = None,
) -> Envelope:
    """Check a frame from a peer completely, in this order (protocol.md §2.5's table), and
    return its envelope.

    1. size over ``max_size``                           -> FrameTooLarge (nothing parsed)
    2. not canonical msgpack, not an 8-array, a version that is not an int -> DecodeError
    3. a protocol version other than ours (before any other item is read: another
       version's frame may be shaped otherwise)          -> WrongContext
    4. another item of the wrong type or size, an unknown kind, a bad body
       (missing/extra/mistyped field)                    -> DecodeError
    5. an author not in ``known_authors`` (when given)   -> WrongContext
    6. a signature that does not verify                  -> BadSignature
    7. game_id != ``expect_game`` or round_no != ``expect_round`` (when given)
                                                         -> WrongContext
    The signature is checked before the context, so a WrongContext of step 7 proves that
    the author really signed that message for another game or round (a replay or a stray).
    """
    frame = decode(data, max_size=max_size)
    if not isinstance(frame, list) or len(frame) != _FRAME_ITEMS:
        raise DecodeError(f"an envelope is an array of {_FRAME_ITEMS}")
    version, game_id, round_no, seq, author, kind, body, signature = frame
    if type(version) is not int:
        raise DecodeError("envelope.version: expected int")
    if version != PROTOCOL_VERSION:
        raise WrongContext(f"protocol version {version}, we speak {PROTOCOL_VERSION}")
    if not isinstance(game_id, bytes) or len(game_id) != GAME_ID_SIZE:
        raise DecodeError(f"envelope.game_id: expected {GAME_ID_SIZE} bytes")
    if not _check_counter(round_no):
        raise DecodeError("envelope.round_no: expected an int in 0..2**63-1")
    if not _check_counter(seq):
        raise DecodeError("envelope.seq: expected an int in 0..2**63-1")
    if not isinstance(author, bytes) or len(author) != KEY_SIZE:
        raise DecodeError(f"envelope.author: expected {KEY_SIZE} bytes")
    if not isinstance(kind, str):
        raise DecodeError("envelope.kind: expected str")
    if not isinstance(signature, bytes) or len(signature) != SIGNATURE_SIZE:
        raise DecodeError(f"envelope.signature: expected {SIGNATURE_SIZE} bytes")
    message = from_wire(kind, body)
    if known_authors is not None and author not in known_authors:
        raise WrongContext("envelope from an author who is not at this table")
    signed = _signed_from_frame(data)
    if signed is None:  # cannot happen for a canonical 8-array (module comment); be sure
        signed = _signed_bytes(game_id, round_no, seq, author, kind, body)
    if not verify(author, signed, signature):
        raise BadSignature(f"{kind} envelope: signature does not verify")
    if expect_game is not None and game_id != expect_game:
        raise WrongContext(f"{kind} envelope for another game")
    if expect_round is not None and round_no != expect_round:
        raise WrongContext(f"{kind} envelope for round {round_no}, expected {expect_round}")
    envelope = Envelope(game_id, round_no, seq, author, message, signature)
    # The bytes just checked are the envelope's canonical frame and signed bytes (decode
    # refuses non-canonical input): seed the caches instead of encoding both again.
    envelope.__dict__["signed_bytes"] = signed
    envelope.__dict__["_frame"] = bytes(data)
    return envelope
