"""The game's genesis: the host proposes seating, rules and timer; every seat signs it.

The genesis envelope is signed by the host (seat 0) with ``round_no`` 0 and ``seq`` 0; each
seat then signs a ``genesis-sign`` carrying the genesis digest. :func:`seating_from` checks
the whole bundle and returns the :class:`~dudo_p2p.consensus.replica.Seating` the log starts
from; its ``digest`` (the chain's first head) binds the genesis and every signature in seat
order, so all peers start from the same head.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dudo_p2p.consensus.replica import Seating
from dudo_p2p.crypto.hashing import tag, tagged_hash
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.errors import DecodeError, InvalidValue, RemoteProtocolError, WrongContext
from dudo_p2p.protocol import names
from dudo_p2p.protocol.envelope import Envelope, open_envelope, seal_envelope
from dudo_p2p.protocol.kinds import HASH_LEN, Genesis, GenesisSign
from dudo_p2p.rules import RuleSet

GENESIS_HEAD_TAG = tag("genesis-head")


@dataclass(frozen=True)
class Candidate:
    """A player about to be seated: keys, display name and link address."""

    pub: bytes
    x25519: bytes
    name: str
    host: str
    port: int


def propose(
    host: Identity,
    game_id: bytes,
    table: str,
    rules: RuleSet,
    turn_timer_ms: int,
    players: Sequence[Candidate],
    grace_ms: int = 0,
    prev: bytes = b"",
) -> Envelope:
    """The host's signed genesis; ``players[0]`` must be the host itself; ``grace_ms`` is
    the reconnect grace (protocol.md §4.6); ``prev`` the final log hash of the game this one
    follows at the same table (one more game, §4.9), b"" for none."""
    if not players or players[0].pub != host.public_key:
        raise InvalidValue("the host sits in seat 0")
    body = Genesis(
        table=table,
        rules=rules.to_dict(),
        turn_timer_ms=turn_timer_ms,
        pubs=tuple(p.pub for p in players),
        x25519s=tuple(p.x25519 for p in players),
        names=tuple(p.name for p in players),
        hosts=tuple(p.host for p in players),
        ports=tuple(p.port for p in players),
        grace_ms=grace_ms,
        prev=prev,
    )
    return seal_envelope(host, game_id, 0, 0, body)


def sign(identity: Identity, genesis: Envelope) -> Envelope:
    """Our signature on ``genesis`` (after checking we are seated in it)."""
    body = genesis.body
    if not isinstance(body, Genesis) or identity.public_key not in body.pubs:
        raise InvalidValue("we are not seated in this genesis")
    return seal_envelope(identity, genesis.game_id, 0, 0, GenesisSign(genesis.digest()))


def open_genesis(data: bytes) -> tuple[Envelope, Genesis, RuleSet]:
    """Authenticate a genesis envelope and check its content (seats, columns, the signer,
    the rules, names clean and distinct: :func:`names.problem`); RemoteProtocolError if bad."""
    env = open_envelope(data, expect_round=0)
    body = env.body
    if not isinstance(body, Genesis):
        raise DecodeError("not a genesis")
    if env.seq != 0:
        raise DecodeError("a genesis travels with seq 0")
    n = len(body.pubs)
    if not 2 <= n <= 6:
        raise DecodeError(f"a game seats 2 to 6 players, not {n}")
    columns = (body.x25519s, body.names, body.hosts, body.ports)
    if any(len(c) != n for c in columns) or len(set(body.pubs)) != n:
        raise DecodeError("genesis seat columns disagree or repeat a player")
    if len(body.prev) not in (0, HASH_LEN):
        raise DecodeError("a genesis names no previous game or a 32-byte log hash")
    bad_names = names.problem(body.names)
    if bad_names is not None:
        raise DecodeError(f"genesis names: {bad_names}")
    if body.pubs[0] != env.author:
        raise WrongContext("the genesis is signed by someone other than seat 0")
    try:
        rules = RuleSet.from_dict(body.rules)
    except InvalidValue as exc:
        raise DecodeError(f"genesis rule set: {exc}") from exc
    return env, body, rules


def seating_from(genesis: bytes, signatures: Sequence[bytes]) -> Seating:
    """The seating of a genesis every seat signed; RemoteProtocolError if anything is off."""
    env, body, rules = open_genesis(genesis)
    digest = env.digest()
    by_seat: dict[int, Envelope] = {}
    for data in signatures:
        sig = open_envelope(data, expect_game=env.game_id, expect_round=0, known_authors=body.pubs)
        if not isinstance(sig.body, GenesisSign) or sig.body.digest != digest:
            raise RemoteProtocolError("a genesis signature for another genesis")
        if sig.seq != 0:
            raise DecodeError("a genesis signature travels with seq 0")
        by_seat[body.pubs.index(sig.author)] = sig
    if len(by_seat) != len(body.pubs):
        raise RemoteProtocolError("the genesis lacks a seat's signature")
    head = tagged_hash(
        GENESIS_HEAD_TAG, digest, *(by_seat[s].digest() for s in range(len(body.pubs)))
    )
    return Seating(
        game_id=env.game_id,
        table=body.table,
        rules=rules,
        turn_timer_ms=body.turn_timer_ms,
        pubs=body.pubs,
        x25519s=body.x25519s,
        names=body.names,
        hosts=body.hosts,
        ports=body.ports,
        digest=head,
        grace_ms=body.grace_ms,
        prev=body.prev,
    )
