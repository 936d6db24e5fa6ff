"""A hello of an older protocol version, answered in that version (protocol.md §2.5
"Versions", §4.9 refusal reasons).

Every envelope carries and signs the wire's version (:data:`PROTOCOL_VERSION`) and a peer
refuses any other (``WrongContext``): the bodies, kinds and checks of two versions differ, so
a peer of the old wire would otherwise be seated, fail to read the next frames and wait
without a word. A host therefore answers a ``hello`` of a version it still knows how to frame
(:data:`OLDER_VERSIONS`) with a signed ``refused`` (reason ``version``) framed and signed as
that version frames it: the old peer reads a refusal (its code names the reason "other", still
a refusal) and stops. Only the hello is read this way; any other frame of another version is
refused as before. Pure: decodes, verifies and seals, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from dudo_p2p.crypto.hashing import PROTOCOL_VERSION, tag
from dudo_p2p.crypto.identity import KEY_SIZE, SIGNATURE_SIZE, Identity, verify
from dudo_p2p.errors import DecodeError
from dudo_p2p.protocol.codec import MAX_FRAME, decode, encode
from dudo_p2p.protocol.kinds import Hello, Refusal
from dudo_p2p.protocol.messages import from_wire, to_wire
from dudo_p2p.protocol.refusals import RefusalReason

#: The versions whose hello we answer: 1 framed every envelope as version 2 does (the array of
#: 8 of §2.5, signed under the same "dudo-p2p/1/envelope" tag with its own version number) and
#: its hello and refused bodies are those of version 2.
OLDER_VERSIONS: Final = frozenset({1})
assert PROTOCOL_VERSION not in OLDER_VERSIONS

_LOBBY_GAME_ID: Final = bytes(16)  # lobby frames travel with a zero game id, round 0, seq 0
_ENVELOPE_TAG: Final = tag("envelope")
# an envelope frame is an array of 8 (0x98) whose first item is the version (a positive
# fixint): the first two bytes say whether a frame can be an older hello at all
_HEADS: Final = frozenset(bytes([0x98, v]) for v in OLDER_VERSIONS)


@dataclass(frozen=True)
class OlderHello:
    """A hello of an older ``version``, signed by ``author`` (checked as that version signs)."""

    version: int
    author: bytes
    hello: Hello


def older_hello(frame: bytes) -> OlderHello | None:
    """The frame as a hello of a version in :data:`OLDER_VERSIONS`, its lobby context and its
    signature checked; None for any other frame (it goes the ordinary way). Never raises."""
    if frame[:2] not in _HEADS or len(frame) > MAX_FRAME:
        return None
    try:
        items = decode(frame)
    except DecodeError:
        return None
    if not isinstance(items, list) or len(items) != 8:
        return None
    version, game_id, round_no, seq, author, kind, body, signature = items
    if not isinstance(version, int) or version not in OLDER_VERSIONS:
        return None
    if (kind != "hello" or game_id != _LOBBY_GAME_ID or round_no != 0 or seq != 0
            or not isinstance(author, bytes) or len(author) != KEY_SIZE
            or not isinstance(signature, bytes) or len(signature) != SIGNATURE_SIZE):
        return None
    try:
        hello = from_wire("hello", body)
    except DecodeError:
        return None
    signed = encode([_ENVELOPE_TAG, version, game_id, 0, 0, author, "hello", body])
    if not isinstance(hello, Hello) or not verify(author, signed, signature):
        return None
    return OlderHello(version, author, hello)


def refusal_for(older: OlderHello, identity: Identity, table: str) -> bytes:
    """Our signed ``refused`` (reason ``version``) to ``older``, as its version frames it."""
    body = to_wire(Refusal(table=table, to=older.author, reason=RefusalReason.VERSION.value))
    context = [older.version, _LOBBY_GAME_ID, 0, 0, identity.public_key, "refused", body]
    signature = identity.sign(encode([_ENVELOPE_TAG, *context]))
    return encode([*context, signature])
