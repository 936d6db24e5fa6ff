"""One link per peer, per-connection flood limits and link proofs (issue 13 §1 and §5).

The connection bookkeeping is pure (an injected clock); one test seats a joiner at a host,
both real nodes in this process on loopback, to check the joiner is left with one link."""

from __future__ import annotations

import random
import time

from dudo_p2p.consensus.lobby import Phase, Rekey
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.net.flood import FLOOD_BURST, FloodLimiter
from dudo_p2p.node.config import NetConfig
from dudo_p2p.node.conns import Connections
from dudo_p2p.node.node import Node
from dudo_p2p.rules import RuleSet

LIVE = b"\x01" + b"\x0a" * 32 + b"live-sea"  # the seat's own connection
SPOOF = b"\x01" + b"\x0a" * 32 + b"spoofer!"  # another connection claiming the same key


def test_a_spoofer_claiming_a_seats_key_drains_only_its_own_bucket() -> None:
    conns = Connections()
    assert conns.prove(LIVE, 2, counter=1)
    now = 10.0
    for _ in range(2000):  # a second of a 2 000 frames/s flood
        conns.admit(SPOOF, now)
        now += 0.0005
    assert conns.dropped > 0  # the flood went over its budget ...
    assert all(conns.admit(LIVE, now) for _ in range(int(FLOOD_BURST) - 1))  # ... not ours
    assert conns.seat_of(SPOOF) is None and conns.seat_of(LIVE) == 2


def test_a_proof_needs_a_fresh_counter_and_a_connection_proves_one_seat() -> None:
    conns = Connections()
    assert not conns.prove(LIVE, 1, counter=0)  # counters start at 1
    assert conns.prove(LIVE, 1, counter=5)
    assert not conns.prove(LIVE, 1, counter=5)  # a replay
    assert not conns.prove(LIVE, 1, counter=4)  # an older one
    assert conns.prove(LIVE, 1, counter=6)
    assert not conns.prove(LIVE, 3, counter=7)  # another seat cannot take the link over
    assert conns.seat_of(LIVE) == 1


def test_unproven_connections_are_bounded_and_the_oldest_forgotten() -> None:
    conns = Connections(FloodLimiter(max_unproven=4))
    for n in range(10):
        conns.admit(b"\x01k" + bytes([n]) * 8, 0.0)
    assert conns.flood.unproven == 4
    assert conns.prove(LIVE, 0, 1) and conns.admit(LIVE, 0.0)  # proven ones are apart


def _seat_one_joiner(host: Node, joiner: Node, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while joiner.lobby.phase is Phase.SEEKING and time.monotonic() < deadline:
        host.step(0.01)
        joiner.step(0.01)
    return joiner.lobby.phase is not Phase.SEEKING


def test_the_placeholder_link_becomes_the_hosts_link_after_the_welcome() -> None:
    """A ``--join`` joiner reached the host under a placeholder key; after the welcome it
    holds exactly one link to the host, the very socket (same link nonce) it said hello on:
    no second connection sharing a routing id on the host's ROUTER. Before, it kept both
    and the host heard whichever connected last."""
    rng = random.Random(13)
    net = NetConfig(bind="127.0.0.1", discovery=False)
    host_id, joiner_id = (Identity.generate(rng.randbytes) for _ in range(2))
    host = Node.host(host_id, "host", net, seats=3, rules=RuleSet(), turn_timer_ms=0)
    joiner = Node.join(joiner_id, "joiner", net, addresses=[("127.0.0.1", host.links.port)],
                       discover=False)
    try:
        (placeholder,) = joiner.links.peers()
        nonce = joiner.links.nonce(placeholder)
        assert _seat_one_joiner(host, joiner)
        assert list(joiner.links.peers()) == [host_id.public_key]
        assert joiner.links.nonce(host_id.public_key) == nonce
        assert placeholder.startswith(b"join:")
    finally:
        joiner.close()
        host.close()


def test_the_welcome_rekeys_the_target_that_reached_the_host_and_closes_the_others() -> None:
    from dudo_p2p.consensus.lobby import Connect
    from dudo_p2p.consensus.lobby_joiner import JoinerLobby
    from dudo_p2p.protocol.envelope import seal_envelope
    from dudo_p2p.protocol.kinds import Welcome

    rng = random.Random(5)
    host_id, joiner_id = (Identity.generate(rng.randbytes) for _ in range(2))
    lobby = JoinerLobby(joiner_id, "j", "127.0.0.1", 4001)
    lobby.add_target(b"join:a", "10.0.0.1", 4000, 0.0)
    lobby.add_target(b"join:b", "10.0.0.2", 4000, 0.0)
    welcome = Welcome("KQ7XM", bytes(range(1, 17)), ("host", "j"),
                      (host_id.public_key, joiner_id.public_key), 3, 4000)
    frame = seal_envelope(host_id, bytes(16), 0, 0, welcome).to_bytes()
    out = lobby.receive(frame, b"join:b", "10.0.0.2", 1.0)
    rekeys = [e for e in out if isinstance(e, Rekey)]
    assert sorted(rekeys, key=lambda e: e.old) == [Rekey(b"join:a", None),
                                                    Rekey(b"join:b", host_id.public_key)]
    connect = next(e for e in out if isinstance(e, Connect))
    assert out.index(connect) > max(out.index(e) for e in rekeys)  # re-keyed, then kept
    assert connect == Connect(host_id.public_key, "10.0.0.2", 4000)
