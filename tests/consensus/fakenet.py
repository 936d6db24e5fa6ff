"""An in-memory network for consensus tests, in the manner of trio's FakeNet.

Every frame a machine sends becomes a delivery scheduled on a fake clock. ``route`` decides
what happens to each frame: by default it arrives after a small random latency (so arrival
orders vary with the seed); tests override it to drop, delay, duplicate or reorder. Players
are seeded random-legal policies acting through ``machine.submit``. Nothing sleeps.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from dudo_p2p.consensus.genesis import Candidate, propose, seating_from, sign
from dudo_p2p.consensus.machine import Emit, Send, TableMachine, Timeouts
from dudo_p2p.consensus.replica import Seating
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.errors import IllegalAction
from dudo_p2p.rules import RuleSet

Route = Callable[[int, int, bytes, float], list[float]]


def identities(n: int, seed: int) -> list[Identity]:
    rng = random.Random(seed)
    return [Identity.generate(lambda k: rng.randbytes(k)) for _ in range(n)]


def make_seating(ids: list[Identity], rules: RuleSet, *, timer_ms: int = 0) -> Seating:
    players = [
        Candidate(i.public_key, i.x25519_public, f"p{k}", "127.0.0.1", 4000 + k)
        for k, i in enumerate(ids)
    ]
    genesis = propose(ids[0], bytes(range(16)), "ABCDE", rules, timer_ms, players)
    sigs = [sign(i, genesis).to_bytes() for i in ids]
    return seating_from(genesis.to_bytes(), sigs)


@dataclass(order=True)
class _Delivery:
    at: float
    order: int
    dst: int = field(compare=False)
    frame: bytes = field(compare=False)


class FakeNet:
    """Machines joined by a scheduled, fault-injectable network and a fake clock."""

    def __init__(
        self,
        n: int,
        rules: RuleSet,
        seed: int,
        *,
        route: Route | None = None,
        timeouts: Timeouts = Timeouts(),
        timer_ms: int = 0,
        act_prob: float = 0.5,
    ) -> None:
        self.rng = random.Random(seed)
        self.ids = identities(n, seed)
        self.seating = make_seating(self.ids, rules, timer_ms=timer_ms)
        self.now = 0.0
        self.route = route or self.default_route
        self.queue: list[_Delivery] = []
        self.order = 0
        self.events: dict[int, list[object]] = {s: [] for s in range(n)}
        self.dead: set[int] = set()
        self.act_prob = act_prob
        self.policies: dict[int, Callable[[TableMachine], None]] = {}
        self.machines = [
            TableMachine(
                ident,
                self.seating,
                lambda k, r=random.Random(seed * 100 + s): r.randbytes(k),
                self.now,
                timeouts=timeouts,
            )
            for s, ident in enumerate(self.ids)
        ]
        for s, m in enumerate(self.machines):
            self.apply(s, m.start(self.now))

    def default_route(self, src: int, dst: int, frame: bytes, now: float) -> list[float]:
        return [now + self.rng.uniform(0.0005, 0.005)]

    def apply(self, src: int, effects: list[object]) -> None:
        for eff in effects:
            if isinstance(eff, Send):
                targets = [eff.to] if eff.to is not None else [
                    d for d in range(len(self.machines)) if d != src
                ]
                for dst in targets:
                    for at in self.route(src, dst, eff.frame, self.now):
                        self.order += 1
                        heapq.heappush(self.queue, _Delivery(at, self.order, dst, eff.frame))
            elif isinstance(eff, Emit):
                self.events[src].append(eff.event)

    def play_random(self, seat: int) -> None:
        m = self.machines[seat]
        legal = m.legal_actions()
        if not legal:
            return
        # weight calls lower so games end but rounds last a few bids
        action = self.rng.choice(legal)
        try:
            self.apply(seat, m.submit(action, self.now))
        except IllegalAction:
            pass

    def step(self) -> bool:
        """Deliver the next frame (or advance the clock by a tick); False when idle."""
        live = [s for s in range(len(self.machines)) if s not in self.dead]
        for s in live:
            if self.rng.random() < self.act_prob:
                self.policies.get(s, lambda m, s=s: self.play_random(s))(self.machines[s])
        if self.queue and self.queue[0].at <= self.now + 0.01:
            d = heapq.heappop(self.queue)
            self.now = max(self.now, d.at)
            if d.dst not in self.dead:
                self.apply(d.dst, self.machines[d.dst].receive(d.frame, self.now))
            return True
        self.now += 0.01
        for s in live:
            self.apply(s, self.machines[s].tick(self.now))
        return bool(self.queue)

    def run(self, max_steps: int = 200_000) -> int:
        steps = 0
        while steps < max_steps:
            live = [self.machines[s] for s in range(len(self.machines)) if s not in self.dead]
            if all(m.over for m in live):
                return steps
            self.step()
            steps += 1
        raise AssertionError(f"no end after {max_steps} steps at t={self.now:.2f}")

    def heads(self) -> set[bytes]:
        return {
            self.machines[s].replica.head
            for s in range(len(self.machines))
            if s not in self.dead and not self.machines[s].removed_me
        }
