"""A randomized sweep of real peers on the lossy LAN: nobody left hanging (``scripts/lan_sweep``).

FakeNet sweeps (tests/consensus) fault simulated seats; this drives REAL ``dudo-p2p host`` and
``bot --headless`` processes in network namespaces (``dudo-lan-<pid>-*``) joined through the
userspace lossy switch of ``tests/net/lossy_switch.py``. Each seed draws one scenario: 3 or 4
seats, a link profile (delay, jitter, loss, duplication, reordering), with or without a
reconnect grace, and one fault on a random seat (the host too) at a random moment (0-1.5 s
after the host saw round 1-4 resolved: the moments just after a round are where FakeNet found
hangs):

- ``sigstop``: the process is SIGSTOPped 5-20 s, then SIGCONT (a laptop that sleeps);
- ``kill``: kill -9, then restarted from its journal with ``--resume`` 0-5 s or 10-35 s later;
- ``crash``: kill -9 and never restarted (the others must go on without it);
- ``cable``: its switch port is down 10 s, then up (a pulled cable).

The verdict (``judge``): within ``BOUND`` seconds of the fault's end every peer has exited with
a clear, user-visible outcome (0 finished, 3 removed, 4 table gone, 6 abandoned; never 1, a
timeout or crash, and never still running); every peer that finished holds the same log hash
and winner; no seat other than the faulted one was removed; with a grace longer than the
outage, the faulted seat is back in its seat and finishes. One scenario runs at a time (the
machine is shared); every wait is bounded; processes, the switch and the namespaces are
removed on success and failure. A failing seed's peer logs are kept under ``--keep DIR``.

``python tests/lan/lan_sweep.py --seeds 1-10`` prints one JSON line per seed and exits 1 when
any seed failed; ``--seeds N`` replays one (``--hard`` narrows the draw to FakeNet's known hang).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
for _where in (_HERE, _HERE.parent / "node", _HERE.parent / "net"):
    sys.path.insert(0, str(_where))

from lan_helpers import LanTable, left_lines, summary_or_none  # noqa: E402
from netns import NetnsLab  # noqa: E402

START = 90.0  # seconds for every peer to start and the game to begin, on a loaded machine
BOUND = 240.0  # seconds after the fault's end for every peer to reach a clear end
PEER_TIMEOUT = "400"  # each peer's own --timeout: longer than the sweep's bound (not the judge)
CLEAR = {0: "ok", 3: "removed", 4: "table_gone", 6: "abandoned"}


@dataclass
class Scenario:
    """One seed's draw: everything needed to replay it."""

    seed: int
    names: list[str]
    profile: dict[str, float]
    grace: int  # seconds; 0 = none (a silent seat is voted out at once)
    dice: int
    fault: str  # sigstop | kill | cable | crash
    target: str
    round: int  # the fault begins ``after`` seconds after the host saw this round resolved
    after: float
    outage: float  # seconds the target is out (stopped, dead, unplugged)


def draw(seed: int, hard: bool = False) -> Scenario:
    """The scenario of ``seed`` (the same on every machine: ``random.Random(seed)``).

    ``hard``: FakeNet's known hang, on real peers: 3 seats, no grace, 15-25 % loss, a seat
    killed (for good, or restarted 10-35 s later) within 0.4 s of a round resolving."""
    rng = random.Random(seed)
    seats = 3 if hard else rng.choice([3, 4])
    names = ["host", *(f"b{i}" for i in range(1, seats))]
    losses = [0.15, 0.2, 0.25] if hard else [0.0, 0.02, 0.05, 0.10, 0.15]
    profile = {"delay_ms": rng.choice([5, 20, 40, 80]), "jitter_ms": rng.choice([0, 10, 40]),
               "loss": rng.choice(losses),
               "dup": rng.choice([0.0, 0.01, 0.03]), "reorder": rng.choice([0.0, 0.02, 0.05])}
    fault = rng.choice(["kill", "crash"] if hard else ["sigstop", "kill", "cable", "crash"])
    # a restart within seconds (back in its seat with a grace) or after the table went on
    restart = rng.uniform(10, 35) if hard else rng.choice([rng.uniform(0, 5),
                                                           rng.uniform(10, 35)])
    outage = {"sigstop": rng.uniform(5, 20), "kill": restart, "cable": 10.0, "crash": 0.0}[fault]
    return Scenario(seed=seed, names=names, profile=profile,
                    grace=0 if hard else rng.choice([0, 30]),
                    dice=rng.choice([4, 5]), fault=fault, target=rng.choice(names),
                    round=rng.randint(1, 4),
                    after=round(rng.uniform(0, 0.4 if hard else 1.5), 2),
                    outage=round(outage, 2))


@dataclass
class Result:
    scenario: Scenario
    exits: dict[str, int | None] = field(default_factory=dict)
    hashes: dict[str, str | None] = field(default_factory=dict)
    removed: list[str] = field(default_factory=list)
    ended: dict[str, float] = field(default_factory=dict)  # seconds after the fault's end
    faulted: bool = False  # False: the game was over before the fault's moment
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)


def run(scenario: Scenario, work: Path) -> Result:
    """Play ``scenario`` in fresh namespaces; the namespaces are gone when this returns."""
    lab = NetnsLab()
    lab.prefix = f"dudo-lan-{os.getpid()}-"
    table = LanTable(lab, work)
    result = Result(scenario)
    began = time.monotonic()
    try:
        _play(table, scenario, result)
    finally:
        result.seconds = round(time.monotonic() - began, 1)
        (work / "explain.txt").write_text(table.explain())
        for peer in [*table.retired, *table.peers.values()]:
            peer.stop()
            (work / f"{peer.name}-{peer.proc.pid}.log").write_text("\n".join(peer.lines))
        table.close()
        lab.teardown()
    return result


def _play(table: LanTable, s: Scenario, result: Result) -> None:
    table.build(s.names, seed=s.seed).set(None, **s.profile)
    rules = ["--rule", f"starting_dice={s.dice}", "--timeout", PEER_TIMEOUT]
    host = table.host(len(s.names), *rules, "--grace", str(s.grace))
    for name in s.names[1:]:
        table.bot(name, "--timeout", PEER_TIMEOUT)
    if host.wait_line(f"round {s.round} resolved", START) is None:
        result.problems.append(f"no round {s.round} resolved within {START:.0f} s")
        return
    time.sleep(s.after)
    peer = table.peers[s.target]
    if peer.proc.poll() is None:
        result.faulted = True
        _fault(table, s)
    back = time.monotonic()
    result.exits = dict.fromkeys(s.names)  # None: still running, as the verdict says
    while None in result.exits.values() and time.monotonic() < back + BOUND:
        for name in s.names:
            code = table.peers[name].proc.poll()
            if result.exits[name] is None and code is not None:
                result.exits[name] = code
                result.ended[name] = round(time.monotonic() - back, 1)
        time.sleep(0.1)  # a poll of the processes' exits, not a wait for the game
    for name in s.names:
        current = table.peers[name]
        current.stop()  # also joins its readers: stdout is complete
        current.finish(timeout=1)
        summary = summary_or_none(current)
        result.hashes[name] = None if summary is None else summary.get("log_hash")
        result.removed += [f"{name}: {line.strip()}" for line in left_lines(current)]
    judge(result)


def _fault(table: LanTable, s: Scenario) -> None:
    if s.fault == "sigstop":
        table.pause(s.target)
        time.sleep(s.outage)  # the scenario itself: the laptop sleeps
        table.wake(s.target)
    elif s.fault == "cable":
        table.switch.down(s.target)
        time.sleep(s.outage)  # the scenario itself: the cable is out
        table.switch.up(s.target)
    elif s.fault == "crash":
        table.peers[s.target].kill9()
    else:
        table.peers[s.target].kill9()
        time.sleep(s.outage)  # the scenario itself: the time to start the program again
        command = "host" if s.target == "host" else "bot"
        args = table.resume_args(s.target, command)
        args[args.index("--timeout") + 1] = PEER_TIMEOUT
        table.restart(s.target, *args)


def judge(result: Result) -> None:
    """Fill ``result.problems``: what a user of this LAN would call a hang or a fork."""
    s = result.scenario
    for name, code in result.exits.items():
        if name == s.target and s.fault == "crash":
            continue  # killed for good: its -9 is the scenario
        if code is None:
            result.problems.append(f"{name} still running {BOUND:.0f} s after the fault")
        elif code not in CLEAR:
            result.problems.append(f"{name} exited {code} (not a clear end)")
        elif code != 0 and name != s.target:  # one fault, 3+ seats: the others play on
            result.problems.append(f"{name} was not faulted but ended {CLEAR[code]}")
    finished = {n: h for n, h in result.hashes.items() if result.exits.get(n) == 0}
    if len({*finished.values()}) > 1 or None in finished.values():
        result.problems.append(f"finished peers disagree on the log: {finished}")
    if result.exits and not finished and 6 not in result.exits.values():
        result.problems.append("nobody finished the game")
    others = [line for line in result.removed if f"{s.target} left" not in line]
    if others:
        result.problems.append(f"a seat other than the faulted {s.target} was removed: {others}")
    gone = result.ended.get(s.target)
    if result.exits.get(s.target) == 4 and gone is not None:
        playing = [n for n, at in result.ended.items() if n != s.target and at > gone + 1.0]
        if playing:
            result.problems.append(f"{s.target} said table gone {gone} s after the fault while "
                                   f"{playing} still played")
    # a grace longer than the outage (plus start-up and the silence limit) brings it back
    if result.faulted and s.fault != "crash" and s.grace and s.outage + 15 < s.grace \
            and result.exits.get(s.target) != 0:
        result.problems.append(f"{s.target} was out {s.outage:.0f} s within a {s.grace} s grace "
                               f"but did not finish (exit {result.exits.get(s.target)})")


def seeds_of(text: str) -> list[int]:
    """``"1-5,9"`` -> [1, 2, 3, 4, 5, 9]."""
    out: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        out += list(range(int(low), int(high or low) + 1))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="1-5", help="seeds to run, e.g. 1-10,42")
    parser.add_argument("--hard", action="store_true",
                        help="only FakeNet's known-hang shape (see draw)")
    parser.add_argument("--keep", type=Path, default=None,
                        help="keep every failing seed's logs in DIR/seed-N")
    args = parser.parse_args(argv)
    reason = NetnsLab.unavailable()
    if reason is not None:
        print(f"lan_sweep: {reason}", file=sys.stderr)
        return 2
    failed = []
    for seed in seeds_of(args.seeds):
        work = Path(tempfile.mkdtemp(prefix=f"dudo-lan-sweep-{seed}-"))
        os.environ["XDG_DATA_HOME"] = str(work / "data")  # journals stay in the run's dir
        result = run(draw(seed, args.hard), work)
        line: dict[str, Any] = asdict(result)
        line["ok"] = not result.problems
        print(json.dumps(line), flush=True)
        if result.problems:
            failed.append(seed)
            if args.keep is not None:
                shutil.copytree(work, args.keep / f"seed-{seed}", dirs_exist_ok=True)
        shutil.rmtree(work, ignore_errors=True)
    print(f"lan_sweep: {len(failed)} failing seed(s): {failed}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
