"""A peer of the old wire (protocol version 1) asking to sit at a version 2 table is refused
in words it reads (protocol.md §2.5 "Versions", protocol/older.py), not seated to wait for
frames it cannot decode."""

from __future__ import annotations

import random

from dudo_p2p.consensus.effects import Log
from dudo_p2p.consensus.lobby import Connect, SendTo
from dudo_p2p.consensus.lobby_host import HostLobby
from dudo_p2p.crypto.identity import Identity, verify
from dudo_p2p.errors import WrongContext
from dudo_p2p.protocol.codec import decode, encode
from dudo_p2p.protocol.envelope import open_envelope, seal_envelope
from dudo_p2p.protocol.kinds import Hello, Refusal
from dudo_p2p.protocol.messages import from_wire, to_wire
from dudo_p2p.protocol.older import older_hello
from dudo_p2p.protocol.refusals import RefusalReason
from dudo_p2p.rules import RuleSet

ZERO = bytes(16)
V1_TAG = "dudo-p2p/1/envelope"  # version 1 signed [tag, 1, game, round, seq, author, kind, body]


def person(seed: int) -> Identity:
    rng = random.Random(seed)
    return Identity.generate(lambda k: rng.randbytes(k))


def old_hello(who: Identity, *, version: int = 1, kind: str = "hello", table: str = "KQ7XM",
              host: str = "127.0.0.1", port: int = 4100) -> bytes:
    """A hello as a peer of the old wire frames and signs it (version 1: same array of 8,
    its own version number in the frame and the signed bytes)."""
    body = to_wire(Hello(table=table, name="Vieja", x25519=who.x25519_public,
                         host=host, port=port))
    context = [version, ZERO, 0, 0, who.public_key, kind, body]
    return encode([*context, who.sign(encode([V1_TAG, *context]))])


def host() -> HostLobby:
    return HostLobby(person(1), "host", "0.0.0.0", 4000, table="KQ7XM",
                     game_id=bytes(range(1, 17)), seats=3, rules=RuleSet(), turn_timer_ms=0)


def test_an_old_hello_is_refused_in_version_1_and_nobody_is_seated() -> None:
    lobby, old = host(), person(2)
    out = lobby.receive(old_hello(old), b"link", "10.0.0.7", 0.0)
    assert Connect(old.public_key, "10.0.0.7", 4100) in out
    sent = [e for e in out if isinstance(e, SendTo)]
    assert [e.peer for e in sent] == [old.public_key]
    assert any(isinstance(e, Log) and "version 1" in e.text for e in out)
    assert len(lobby.players) == 1, "the old peer holds no seat"
    # what the old peer reads: a version-1 frame, signed as version 1 signs, a refusal to it
    items = decode(sent[0].frame)
    assert isinstance(items, list)
    version, game, round_no, seq, author, kind, body, signature = items
    assert (version, game, round_no, seq, kind) == (1, ZERO, 0, 0, "refused")
    assert author == lobby.identity.public_key
    assert isinstance(signature, bytes) and isinstance(author, bytes)
    assert verify(author, encode([V1_TAG, *items[:7]]), signature)
    refusal = from_wire("refused", body)
    assert isinstance(refusal, Refusal)
    assert (refusal.to, refusal.table, refusal.reason) == (old.public_key, "KQ7XM", "version")
    assert RefusalReason.from_wire(refusal.reason) is RefusalReason.VERSION
    # and a peer of this version never takes that frame for one of its own
    try:
        open_envelope(sent[0].frame)
    except WrongContext as exc:
        assert "protocol version 1" in str(exc)
    else:
        raise AssertionError("a version 1 frame opened as version 2")


def test_only_a_well_signed_old_hello_is_answered() -> None:
    old = person(3)
    good = old_hello(old)
    assert older_hello(good) is not None
    forged = good[:-1] + bytes([good[-1] ^ 1])  # the signature's last byte
    assert older_hello(forged) is None
    assert older_hello(old_hello(old, version=3)) is None  # a version we never spoke
    assert older_hello(old_hello(old, kind="leave")) is None  # only a hello
    current = seal_envelope(old, ZERO, 0, 0, Hello(table="", name="Nueva",
                                                 x25519=old.x25519_public, host="", port=4101))
    assert older_hello(current.to_bytes()) is None  # ours: the ordinary way
    lobby = host()
    out = lobby.receive(forged, b"link", "10.0.0.7", 0.0)
    assert not any(isinstance(e, SendTo) for e in out), "a forged old hello gets no answer"
    assert len(lobby.players) == 1
