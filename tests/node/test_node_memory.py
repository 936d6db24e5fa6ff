"""A whole game of real nodes without a socket: three ``Node`` objects on the in-memory twin of
the transport (``MemoryTransport`` over one ``MemoryHub``), one fake clock moved to the
earliest deadline when nothing is left to deliver, a seeded RNG each (issue 19: transport,
clock and RNG injected). Deterministic: no sleep, no port, no thread."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

import dudo_p2p.protocol.envelope as envelope
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.net.transport import MemoryHub, MemoryTransport
from dudo_p2p.node.config import NetConfig
from dudo_p2p.node.node import Node
from dudo_p2p.protocol.codec import decode
from dudo_p2p.rules import RuleSet

NET = NetConfig(bind="127.0.0.1", discovery=False)
RULES = RuleSet.from_dict({**RuleSet().to_dict(), "starting_dice": 3})


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _table(seed: int, journals: Path | None = None) -> tuple[list[Node], Clock, MemoryHub]:
    rng = random.Random(seed)
    clock, hub = Clock(), MemoryHub()

    def inject(key: bytes) -> dict[str, object]:
        return {"clock": clock, "rng": random.Random(rng.random()),
                "transport": MemoryTransport(hub, key, nonces=rng.randbytes)}

    def journal(name: str) -> Path | None:
        return journals / f"{name}.journal" if journals is not None else None

    ids = [Identity.generate(rng.randbytes) for _ in range(3)]
    host = Node.host(ids[0], "ana", NET, seats=3, rules=RULES, turn_timer_ms=0,
                     journal_path=journal("ana"), **inject(ids[0].public_key))
    joiners = [Node.join(ident, name, NET, addresses=[("127.0.0.1", host.port)],
                         discover=False, journal_path=journal(name), **inject(ident.public_key))
               for ident, name in zip(ids[1:], ["bea", "carla"], strict=True)]
    return [host, *joiners], clock, hub


def _run(nodes: list[Node], clock: Clock, hub: MemoryHub, seed: int,
         done: Callable[[], bool] | None = None) -> int:
    """Step every node; act with a random legal action; when nothing moved, jump the clock
    to the earliest deadline; until ``done()`` (default: every node settled). Returns how
    many times the clock jumped."""
    rng = random.Random(seed)
    jumps = 0
    for _ in range(20_000):
        if done() if done is not None else all(n.settled() for n in nodes):
            return jumps
        for node in nodes:
            node.step(0.0)
            machine = node.machine
            legal = machine.legal_actions() if machine is not None else []
            if legal:
                node.carry_out(machine.submit(rng.choice(legal), clock.now))  # type: ignore[union-attr]
        if not any(t.inbox for t in hub.bound.values()):
            due = min(n.next_wake(clock.now) for n in nodes)
            clock.now = max(clock.now, due)
            jumps += 1
    raise AssertionError(f"no end by t={clock.now:.1f}")


def test_three_nodes_play_a_whole_game_in_memory_and_agree() -> None:
    nodes, clock, hub = _table(7)
    try:
        _run(nodes, clock, hub, 7)
        heads = {n.machine.replica.head for n in nodes if n.machine is not None}
        assert len(heads) == 1 and all(n.machine is not None for n in nodes)
        assert all(n.over for n in nodes)
        winners = {n.summary()["winner"] for n in nodes}
        assert len(winners) == 1 and None not in winners
    finally:
        for node in nodes:
            node.close()


def test_a_node_resumed_from_its_journal_in_memory_takes_its_seat_back(tmp_path: Path) -> None:
    """Node.resume takes the same injection as host and join: a seat closed mid-game (no
    leave: a crash) is rebuilt from its journal on the in-memory transport at its old port
    and the fake clock, catches up, and the table finishes on one log with all three."""
    nodes, clock, hub = _table(7, tmp_path)
    try:
        def played() -> bool:  # bea's log holds a few rounds' entries
            bea = nodes[1].machine
            return bea is not None and len(bea.replica.chain) >= 40

        _run(nodes, clock, hub, 7, played)
        assert nodes[1].machine is not None and not nodes[1].over
        before = len(nodes[1].machine.replica.chain)
        identity, port = nodes[1].identity, nodes[1].port
        nodes[1].close()  # a crash: no leave
        nodes[1] = Node.resume(identity, "bea", NET, tmp_path / "bea.journal", clock=clock,
                               rng=random.Random(71),
                               transport=MemoryTransport(hub, identity.public_key, port=port,
                                                         nonces=random.Random(72).randbytes))
        resumed = nodes[1].machine
        assert resumed is not None and len(resumed.replica.chain) >= before
        _run(nodes, clock, hub, 7)
        heads = {n.machine.replica.head for n in nodes if n.machine is not None}
        assert len(heads) == 1 and all(n.over for n in nodes)
        assert nodes[1].machine is not None and not nodes[1].machine.removed_me
    finally:
        for node in nodes:
            node.close()


def test_an_idle_seated_node_in_memory_wakes_only_at_its_deadlines() -> None:
    """Nobody acts: between two wake-ups the clock jumps straight to the next deadline, and
    no deadline is closer than the heartbeat's re-send schedule allows."""
    nodes, clock, hub = _table(11)
    try:
        for _ in range(2000):  # seat them and let the first commitments go round
            for node in nodes:
                node.step(0.0)
            if all(n.machine is not None and not any(t.inbox for t in hub.bound.values())
                   for n in nodes) and clock.now > 105.0:
                break
            if not any(t.inbox for t in hub.bound.values()):
                clock.now = max(clock.now, min(n.next_wake(clock.now) for n in nodes))
        node = nodes[0]
        start, wakes = clock.now, 0
        while clock.now < start + 10.0:
            clock.now = max(clock.now, node.next_wake(clock.now))
            node.step(0.0)
            wakes += 1
            for other in nodes[1:]:
                other.step(0.0)
        assert wakes <= 10.0 * 3  # heartbeat, re-send and at most one more a second
    finally:
        for node in nodes:
            node.close()


def test_a_heartbeat_is_verified_once_though_it_proves_a_link_and_is_received(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The node checks a heartbeat as its link's proof, then hands it to the machine: one
    Ed25519 check between them (the machine's cache of verified frames), not two."""
    beats: Counter[bytes] = Counter()  # heartbeat signature -> Ed25519 checks of it
    real = envelope.verify

    def counting(public_key: bytes, data: bytes, signature: bytes) -> bool:
        signed = decode(data)  # [tag, version, game, round, seq, author, kind, body]
        if isinstance(signed, list) and signed[6] == "heartbeat":
            beats[signature] += 1
        return real(public_key, data, signature)

    monkeypatch.setattr(envelope, "verify", counting)
    nodes, clock, hub = _table(7)
    try:
        _run(nodes, clock, hub, 7)
        assert all(n.over for n in nodes)
    finally:
        for node in nodes:
            node.close()
    assert beats and max(beats.values()) == 1  # addressed to one seat: one receiver
