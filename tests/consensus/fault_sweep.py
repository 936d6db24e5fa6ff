"""A FakeNet random-fault sweep: nobody left hanging, no two logs (issue 19, the evening).

Each seed draws a table of 3 to 6 seats (3 dice each: a game lasts 1 to 6 s of fake time)
and a set of faults, all from the seed:

- *storms*: for a few seconds, the frames to a random set of seats are lost (per kind of
  frame: none, half, most or all), duplicated and delayed (hence reordered) at random;
- *crashes* (at most ``n // 2``, and none that would leave the live seats of the epoch
  short of a majority: the survivors can still vote the crashed out): in the first
  4 s, when the k-th call is signed (the caller itself, half the time), or when the crashing
  seat saw the k-th round resolve, at once or up to a second later; a crashed seat sometimes
  comes back from its journal 0.5 to 4 s later;
- a *pause*: one seat stops (no tick, no frame taken: SIGSTOP, a laptop asleep) for 1 to
  10 s, its incoming frames queued, and goes on.

Every seat whose game ended and who strands nobody leaves (``TableMachine.settled``), as a
node exits, so a survivor that needs a finished seat to tell it something finds nobody. The
run fails when a seat still running (not crashed) has not ended 300 s of fake time after the
last fault, or when two seats that finished (or still run) hold logs that fork; a seat that
ended without a winner (abandoned, the table gone) on another log is noted, not failed.

Run it over a range of seeds (it prints every failing seed with its faults)::

    python -m tests.consensus.fault_sweep FIRST LAST [--seats N] [--any-crash] [-v]
    python -m tests.consensus.fault_sweep FIRST LAST --total-loss SECONDS [--seats N]
    python -m tests.consensus.fault_sweep FIRST LAST --held-call

(``--any-crash``: up to ``n - 2`` seats crash, a majority of them too: the seats left cannot
remove them and must end, "table gone"; ``--total-loss``: no other fault than every frame
to every seat lost for that long from 0.1 s, N seats, 3 by default: ``FaultSweep.total_loss``;
``--held-call``: 3 seats, one dead after a round resolved while votes and result signatures
to another are lost, so that a call is agreed while its removal is held:
``FaultSweep.held_call``).

``tests/consensus/test_fault_sweep.py`` keeps the seeds it found, each fixed at the root.
"""

from __future__ import annotations

import heapq
import random
import sys
import time
from dataclasses import dataclass, field

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus.machine import Timeouts
from dudo_p2p.consensus.reasons import Outcome
from dudo_p2p.protocol.envelope import peek_kind
from dudo_p2p.rules import RuleSet

from .fakenet import FakeNet, call_in

KINDS = ("ack", "act", "sync-reply", "heartbeat", "vote", "commit", "nonce", "reveal",
         "result-sign", "sync-request", "key-share", "proof")
HANG_AFTER = 300.0  # fake seconds after the last fault: any honest end comes well before
MAX_STEPS = 400_000


@dataclass
class Storm:
    """Frames to ``victims`` between ``start`` and ``end`` are lost by kind (``loss``),
    duplicated (``dup``) and delayed up to ``delay`` seconds."""

    start: float
    end: float
    victims: frozenset[int]
    loss: dict[str, float]
    dup: float
    delay: float


@dataclass
class Crash:
    """``seat`` dies when its trigger fires (``at`` a time; ``call``: the k-th call signed;
    ``resolved``: the seat's k-th round resolved), ``delay`` later; back after ``back``."""

    seat: int
    trigger: str
    k: int
    delay: float
    back: float | None
    fire_at: float | None = None
    done: bool = False  # the trigger fired (a seat that had left already is not hit)
    hit: bool = False
    returned: bool = False


@dataclass
class Pause:
    seat: int
    at: float
    length: float
    done: bool = False
    over: bool = False


@dataclass
class Verdict:
    ok: bool
    why: str
    steps: int
    now: float
    outcomes: dict[int, str] = field(default_factory=dict)
    note: str = ""


class SweepNet(FakeNet):
    """FakeNet whose clock never jumps past the sweep's next fault."""

    wake: float = float("inf")

    def _jump(self, live: list[int]) -> None:
        before = self.now
        super()._jump(live)
        if self.now > self.wake - 0.01:
            self.now = max(before, self.wake - 0.01)


class FaultSweep:
    """One seed's table and faults (module docstring); :meth:`play` then :meth:`verdict`."""

    def __init__(self, seed: int, seats: int | None = None, *, majority: bool = True) -> None:
        self.seed = seed
        self.rng = r = random.Random(seed * 104729 + 17)
        self.n = n = seats or r.randint(3, 6)
        rules = RuleSet.from_dict({**RuleSet().to_dict(), "starting_dice": 3})
        self.net = SweepNet(n, rules, seed=seed, timeouts=Timeouts(), jump=True)
        self.storms = [self._storm() for _ in range(r.randint(0, 3))]
        # majority: at most n // 2, none leaving the epoch's live seats short of a majority
        # (so the removals can be made); else up to n - 2: the seats left end "table gone"
        crashed = r.sample(range(n), r.randint(0, n // 2 if majority else n - 2))
        self.majority = majority
        self.crashes = [self._crash(s) for s in crashed]
        self.pause = (Pause(r.randrange(n), r.uniform(0, 4), r.uniform(1, 10))
                      if r.random() < 0.4 else None)
        self.calls = 0
        self.left: set[int] = set()  # seats that ended and left (settled)
        self.over_at: dict[int, float] = {}
        self.last_fault = max([s.end for s in self.storms] + [0.0])
        self._route = self.net.route
        self.net.route = self.route

    @classmethod
    def total_loss(cls, seed: int, seats: int, length: float, start: float = 0.1) -> FaultSweep:
        """Seed ``seed``'s table of ``seats`` with one fault alone: every frame to every seat
        lost for ``length`` seconds from ``start`` (the switch down: a total outage)."""
        sweep = cls(seed, seats)
        sweep.crashes, sweep.pause = [], None
        sweep.storms = [Storm(start, start + length, frozenset(range(seats)),
                              dict.fromkeys(KINDS, 1.0), 0.0, 0.005)]
        sweep.last_fault = start + length
        return sweep

    @classmethod
    def held_call(cls, seed: int) -> FaultSweep:
        """3 seats: seat 1 dies just after a round resolves, and for a second or two the
        result signatures and votes to seat 0 are lost (frames to 0 and 2 delayed up to 5 ms
        for 60 s): a call may be agreed while the dead seat's removal is held
        (removal_hold.py). The search that found seed 156: session 9's seed56 notes
        (``lan_sweep --hard`` seed 56's shape)."""
        sweep = cls(seed, 3)
        r = random.Random(seed)
        sweep.crashes = [Crash(1, "resolved", r.randint(1, 3),
                               r.choice([0.0, 0.005, 0.02, 0.05]), None)]
        sweep.pause = None
        start, length = r.uniform(0, 4), r.uniform(1, 6)
        loss = {"result-sign": 1.0, "vote": r.choice([0.0, 1.0]),
                "sync-reply": r.choice([0.0, 1.0]), "ack": r.choice([0.0, 0.5])}
        sweep.storms = [Storm(start, start + length, frozenset({0}), loss, 0.0, 0.005),
                        Storm(0, 60, frozenset({0, 2}),
                              dict.fromkeys(KINDS, r.choice([0.0, 0.1, 0.25])), 0.0, 0.005)]
        sweep.last_fault = 60
        return sweep

    def _storm(self) -> Storm:
        r = self.rng
        start = r.uniform(0, 4)
        victims = frozenset(r.sample(range(self.n), r.randint(1, self.n)))
        loss = {k: r.choice([0.0, 0.0, 0.5, 0.9, 1.0]) for k in KINDS}
        return Storm(start, start + r.uniform(1, 12), victims, loss,
                     r.choice([0.0, 0.1, 0.3]), r.choice([0.005, 0.05, 0.3, 1.0]))

    def _crash(self, seat: int) -> Crash:
        r = self.rng
        trigger = r.choice(["at", "call", "resolved"])
        k = r.randint(1, 3)
        delay = r.choice([0.0, r.uniform(0, 0.05), r.uniform(0, 1.0)])
        back = r.uniform(0.5, 4) if r.random() < 0.3 else None
        crash = Crash(seat, trigger, k, delay, back)
        if trigger == "at":
            crash.fire_at = r.uniform(0, 4)
        return crash

    def describe(self) -> str:
        storms = "; ".join(
            f"{s.start:.1f}-{s.end:.1f}s to {sorted(s.victims)} dup {s.dup} delay {s.delay} "
            f"loss {({k: v for k, v in s.loss.items() if v})}" for s in self.storms)
        crashes = "; ".join(self._crash_text(c) for c in self.crashes)
        pause = ("" if self.pause is None else
                 f"seat {self.pause.seat} paused at {self.pause.at:.1f}s for "
                 f"{self.pause.length:.1f}s")
        return f"{self.n} seats | storms: {storms or '-'} | crashes: {crashes or '-'} | {pause}"

    @staticmethod
    def _crash_text(c: Crash) -> str:
        when = f" at {c.fire_at:.2f}s" if c.fire_at is not None else ""
        back = "" if c.back is None else f" back after {c.back:.1f}s"
        k = "" if c.trigger == "at" else f" #{c.k}"
        return f"seat {c.seat} {c.trigger}{k} +{c.delay:.2f}s{when}{back}"

    # ---- the network -------------------------------------------------------------------

    def route(self, src: int, dst: int, frame: bytes, now: float) -> list[float]:
        if call_in(self.net, frame) is not None:
            self.calls += 1
            for c in self.crashes:
                if c.trigger == "call" and c.fire_at is None and self.calls >= c.k:
                    call = call_in(self.net, frame)
                    if call is not None and self.rng.random() < 0.5:
                        c.seat = call[0] if not self._taken(call[0], c) else c.seat
                    c.fire_at = now + c.delay
        times = self._route(src, dst, frame, now)
        kind = peek_kind(frame) or ""
        for s in self.storms:
            if s.start <= now < s.end and dst in s.victims:
                if self.rng.random() < s.loss.get(kind, 0.0):
                    return []
                copies = 2 if self.rng.random() < s.dup else 1
                times = [now + self.rng.uniform(0.0005, s.delay) for _ in range(copies)]
        p = self.pause
        if p is not None and p.done and not p.over and dst == p.seat:
            resume = p.at + p.length
            times = [max(t, resume + 0.02) for t in times]
        return times

    def _taken(self, seat: int, crash: Crash) -> bool:
        return any(c is not crash and c.seat == seat for c in self.crashes)

    # ---- the faults --------------------------------------------------------------------

    def _faults(self) -> None:
        net = self.net
        now = net.now
        for c in self.crashes:
            if c.trigger == "resolved" and c.fire_at is None:
                seen = sum(isinstance(e, ev.RoundResolved) for e in net.events[c.seat])
                if seen >= c.k:
                    c.fire_at = now + c.delay
            if not c.done and c.fire_at is not None and now >= c.fire_at:
                c.done = True
                if c.seat not in self.left and (not self.majority or self._majority_left(c.seat)):
                    c.hit = True
                    net.crash(c.seat)
                    self.last_fault = max(self.last_fault, now)
            if c.done and c.back is not None and not c.returned and c.fire_at is not None:
                if not c.hit:
                    c.returned = True
                elif now >= c.fire_at + c.back:
                    c.returned = True
                    net.restart(c.seat)
                    self.last_fault = max(self.last_fault, now)
        p = self.pause
        if p is not None and not p.done and now >= p.at and p.seat not in net.dead:
            p.done = True
            net.dead.add(p.seat)  # no tick, no action; its frames wait (route, below)
            resume = p.at + p.length
            for d in net.queue:
                if d.dst == p.seat:
                    d.at = max(d.at, resume + 0.02)
            heapq.heapify(net.queue)
        elif p is not None and p.done and not p.over and now >= p.at + p.length:
            p.over = True
            if not self._crashed(p.seat):
                net.dead.discard(p.seat)
            self.last_fault = max(self.last_fault, now)
        for s in range(self.n):
            m = net.machines[s]
            if s in net.dead or s in self.left or not m.over:
                continue
            self.over_at.setdefault(s, now)
            if m.settled(self.over_at[s], now):
                self.left.add(s)
                net.dead.add(s)  # a node whose game ended and who strands nobody exits
        pending = [c.fire_at for c in self.crashes if not c.done and c.fire_at is not None]
        pending += [c.fire_at + c.back for c in self.crashes
                    if c.done and c.back is not None and not c.returned and c.fire_at]
        if p is not None and not p.over:
            pending.append(p.at + p.length if p.done else p.at)
        net.wake = min(pending, default=float("inf"))

    def _majority_left(self, seat: int) -> bool:
        """Crashing ``seat`` leaves the live seats of the epoch a strict majority of a crashed
        seat's others (the seats without dice vote not): else no removal can be made, a
        limit of the design (§4.6), not a hang to find."""
        net = self.net
        up = [m for s, m in enumerate(net.machines) if s not in net.dead]
        if not up:
            return True
        parts = max(up, key=lambda m: m.replica.epoch.number).replica.epoch.participants
        live = [s for s in parts if s != seat and not self._crashed(s)]
        return len(live) * 2 > len(parts) - 1

    def _running(self) -> list[int]:
        net = self.net
        return [s for s in range(self.n)
                if s not in self.left and not self._crashed(s) and not net.machines[s].over]

    def _crashed(self, seat: int) -> bool:
        return any(c.seat == seat and c.hit and not c.returned for c in self.crashes)

    def play(self) -> Verdict:
        net = self.net
        step = 0
        for step in range(MAX_STEPS):
            self._faults()
            pausing = self.pause is not None and self.pause.done and not self.pause.over
            waiting = any(not c.done for c in self.crashes if c.fire_at is not None) or any(
                c.back is not None and not c.returned and c.done for c in self.crashes)
            if not self._running() and not pausing and not waiting:
                return self.verdict(step)
            if net.now > self.last_fault + HANG_AFTER and not pausing and not waiting:
                return self.verdict(step)
            net.step()
        return self.verdict(step)

    def verdict(self, steps: int) -> Verdict:
        net = self.net
        outcomes = {s: "crashed" if self._crashed(s) else str(getattr(
            net.machines[s].outcome, "value", "running")) for s in range(self.n)}
        # the seats that finished or still run must hold one log; one that ended without a
        # winner (abandoned, the table gone) may hold another: noted, not failed
        alive = [s for s in range(self.n)
                 if not self._crashed(s) and not net.machines[s].removed_me]
        chains = {s: [i.digest for i in net.machines[s].replica.chain] for s in alive}
        why = [] if steps < MAX_STEPS - 1 else [f"no end after {MAX_STEPS} steps"]
        table = [s for s in alive if net.machines[s].outcome in (None, Outcome.FINISHED)]
        note = ""
        if table:
            longest = max((chains[s] for s in table), key=len)
            split = [s for s in table if chains[s] != longest[: len(chains[s])]]
            if split:
                why.append(f"seats {split} hold another log")
            other = [s for s in alive if s not in table
                     and chains[s][: len(longest)] != longest[: len(chains[s])]]
            if other:
                note = f"seats {other} ended without a winner on another log"
        running = self._running()
        if running:
            phases = {s: f"e{net.machines[s].replica.epoch.number}:"
                         f"{net.machines[s].replica.phase.value}" for s in running}
            why.append(f"seats {running} never end {phases}")
        return Verdict(not why, "; ".join(why), steps, net.now, outcomes, note)


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    seats = loss = None
    if "--seats" in argv:
        seats = int(argv[argv.index("--seats") + 1])
    if "--total-loss" in argv:
        loss = float(argv[argv.index("--total-loss") + 1])
    nums = [int(a) for i, a in enumerate(argv)
            if not a.startswith("-") and (i == 0 or argv[i - 1] not in ("--seats", "--total-loss"))]
    first, last = nums[0], nums[1]
    failed = 0
    cpu = time.process_time()
    for seed in range(first, last):
        if loss is not None:
            sweep = FaultSweep.total_loss(seed, seats or 3, loss)
        elif "--held-call" in argv:
            sweep = FaultSweep.held_call(seed)
        else:
            sweep = FaultSweep(seed, seats, majority="--any-crash" not in argv)
        v = sweep.play()
        if not v.ok or v.note or verbose:
            print(f"seed {seed}: {'ok' if v.ok else 'FAIL ' + v.why} {v.note} "
                  f"(t={v.now:.0f}s, {v.steps} steps, {v.outcomes}) | {sweep.describe()}",
                  flush=True)
        failed += not v.ok
    print(f"{failed} of {last - first} seeds failed ({time.process_time() - cpu:.0f} s CPU)",
          flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
