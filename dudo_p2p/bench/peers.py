"""Figures that need whole peers in separate processes on 127.0.0.1.

* :func:`bid_final`: 6 ``dudo_p2p.bench.peer`` processes play easy bots at a person's pace;
  each bid's latency is from its submitter's ``submit`` stamp to the last ``taken`` stamp
  among the 6 peers (every peer holds it as agreed).
* :func:`dudo_p2p.bench.spectators.with_spectators` (its own module): the same tables with
  spectators attached.
* :func:`dead_peer`: a table of bench peers, one killed with SIGKILL mid-game; the figure is
  from the kill to the last survivor showing that seat disconnected (and, apart, removing it);
  then another peer is killed and restarted at once from its journal: the time from that
  kill to the restarted peer's first action agreed by the whole table (back in its seat).
* :func:`sim_game`: ``dudo-p2p sim --peers 6 --level easy --json`` end to end (the shipped
  commands: host, bots, discovery on 127.255.255.255, journals), with the peak resident
  memory of its peer processes read from /proc while it runs.

Stamps come from the peers' ``time.monotonic()``, one clock for all processes on Linux.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from dudo_p2p.bench.figures import Value, percentile
from dudo_p2p.bench.procs import (
    Child,
    ChildFailed,
    children_of,
    cpu_seconds,
    peak_rss_mb,
    schedule,
    stop_all,
)

START_TIMEOUT_S = 30.0  # the host's first line: Python start-up on a loaded 2-core machine
WATCH_READY = "watch: waiting for the table"  # what `dudo-p2p watch` says once it is up
# how a spectator process runs while the game is measured (see Table): "normal", as a
# person's program would on this machine; "idle": under SCHED_IDLE, it runs only when a
# core would otherwise idle (the nearest this one machine comes to a spectator on a machine
# of its own, as on a LAN)
SPECTATOR_PRIORITIES = ("normal", "idle")


def bytecode_cached() -> dict[str, str]:
    """Our environment with Python's bytecode cache on, kept under the temporary directory
    (PYTHONPYCACHEPREFIX, not in the source tree): where PYTHONDONTWRITEBYTECODE is set, each
    process started compiled every module of ours again, ~0.3 s of CPU (0.55 against 0.85 s
    to import the peer and `watch`, 3 runs each at load 10): 10 processes a run with
    spectators. A cache of the sources, not a measured figure: the runs start measuring once
    seated."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.setdefault("PYTHONPYCACHEPREFIX", os.path.join(tempfile.gettempdir(),
                                                       "dudo-bench-pycache"))
    return env


PEER_MODULE = "dudo_p2p.bench.peer"
BID_KIND = "Raise"


@dataclass
class PeerLog:
    """What one bench peer said, parsed (see ``dudo_p2p.bench.peer`` for the lines)."""

    seat: int | None = None
    submits: dict[int, tuple[float, str, str]] = field(default_factory=dict)
    taken: dict[int, tuple[float, str, str]] = field(default_factory=dict)
    left: dict[int, float] = field(default_factory=dict)  # seat -> first PlayerLeft stamp
    away: dict[int, float] = field(default_factory=dict)  # seat -> first SeatDisconnected
    over: float | None = None
    rss_mb: float | None = None
    done: float | None = None  # when it stopped (the game settled, stdin closed or timeout)
    cpu_s: float | None = None  # CPU seconds used from seated to done
    links: dict[str, int] = field(default_factory=dict)  # the peer's link counters

    def shown_gone(self, seat: int) -> float | None:
        """When this peer first showed ``seat`` as not at the table any more: disconnected,
        or removed outright. Without a reconnect grace (a table of bots) a seat's silence
        timeout and the table's vote against it fall due together, so a peer whose own
        timeout is a few ms later than the others' may get their votes first and remove the
        seat before it ever shows it disconnected (seen on 1 peer in 5 at 6 seats)."""
        stamps = [t for t in (self.away.get(seat), self.left.get(seat)) if t is not None]
        return min(stamps, default=None)

    def feed(self, line: str) -> None:
        kind, _, rest = line.partition(" ")
        parts = rest.split(" ", 3)
        match kind:
            case "seated":
                self.seat = int(parts[1])
            case "submit" | "taken":
                record = (float(parts[0]), parts[2], parts[3] if len(parts) > 3 else "")
                (self.submits if kind == "submit" else self.taken)[int(parts[1])] = record
            case "left":
                self.left.setdefault(int(parts[1]), float(parts[0]))
            case "away":
                self.away.setdefault(int(parts[1]), float(parts[0]))
            case "over":
                self.over = float(parts[0])
            case "links":
                self.links = json.loads(rest)
            case "done":
                self.done = float(parts[0])
                self.rss_mb = float(parts[1])
                if len(parts) > 2:
                    self.cpu_s = float(parts[2])
            case _:
                pass


class Table:
    """``n`` bench peers (peer 0 hosts, the others join it by address), each a process, with
    journals in a temporary directory (``profile``: each writes cProfile stats to
    ``{profile}{i}.prof``, timed by ``profile_clock``, "wall" or "cpu"). ``spectators``:
    that many ``dudo-p2p watch`` processes join the host, started at ``priority`` (one of
    SPECTATOR_PRIORITIES). ``env``: every process's environment (None: ours). Use as a
    context manager: every process is stopped (and killed if need be) on exit."""

    def __init__(self, n: int, *, pace: float, level: str = "easy", seed: int = 1,
                 journal: bool = True, profile: str | None = None,
                 profile_clock: str = "wall", spectators: int = 0,
                 priority: str = "normal", env: dict[str, str] | None = None) -> None:
        if priority not in SPECTATOR_PRIORITIES:
            raise ValueError(f"spectator priority {priority!r}")
        self._tmp = tempfile.TemporaryDirectory(prefix="dudo-bench-")
        work = Path(self._tmp.name)
        self.children: list[Child] = []
        self.logs = [PeerLog() for _ in range(n)]
        self.killed: set[int] = set()  # peers we killed on purpose
        self.watchers: list[Child] = []
        self.idle = False  # the spectators run under SCHED_IDLE (priority "idle")
        self.watched: list[int] = []  # moves each spectator had verified when stopped

        def common(i: int) -> list[str]:
            return ["--name", f"peer{i}", "--level", level, "--seed", str(seed + i),
                    "--pace", str(pace), "--identity", str(work / f"id{i}"),
                    *(["--journal", str(work / f"journal{i}")] if journal else []),
                    *(["--profile", f"{profile}{i}.prof", "--profile-clock", profile_clock]
                      if profile else [])]

        self.common = common

        try:
            host = Child.python(PEER_MODULE, "--players", str(n), *common(0), env=env)
            self.children.append(host)
            kind, _, port = host.read_line(START_TIMEOUT_S).partition(" ")
            if kind != "port":
                raise ChildFailed(f"host said {kind!r}, not its port")
            # spectators of the host (`dudo-p2p watch`), not peers: not in children/logs.
            # Started, and up (imports done, socket bound), before the joiners: a Python
            # start costs ~1 s of CPU, which 4 of them spent during the first bids measured
            self.watchers = [Child([
                sys.executable, "-m", "dudo_p2p", "watch", "--join", f"127.0.0.1:{port}",
                "--bind", "127.0.0.1", "--identity", str(work / f"spectator{k}"), "--json",
                "--timeout", "120",
            ], env=env) for k in range(spectators)]
            deadline = time.monotonic() + START_TIMEOUT_S
            while not all(WATCH_READY in w.stderr_tail() for w in self.watchers):
                if time.monotonic() > deadline:
                    raise ChildFailed("a spectator did not start: " + " / ".join(
                        w.stderr_tail() for w in self.watchers))
                time.sleep(0.02)
            # idle once up: started at SCHED_IDLE, a spectator's start (~1 s of CPU) could
            # wait behind a loaded machine's other work longer than START_TIMEOUT_S
            self.idle = priority == "idle"
            for watcher in self.watchers if self.idle else []:
                schedule(watcher.pid, os.SCHED_IDLE)
            for i in range(1, n):
                self.children.append(Child.python(PEER_MODULE, "--join", port, *common(i),
                                                  env=env))
        except BaseException:
            self.close()
            raise

    def restart(self, i: int) -> None:
        """Start peer ``i`` again from its journal (it was killed): a fresh log for it."""
        self.children[i].stop(5.0)  # reaped, its pipes closed
        self.children[i] = Child.python(PEER_MODULE, "--resume", *self.common(i))
        self.logs[i] = PeerLog(seat=self.logs[i].seat)
        self.killed.discard(i)

    def pump(self) -> None:
        """Parse every line the peers said since the last call."""
        # (fewer children than logs when closing a table that failed to start)
        for child, log in zip(self.children, self.logs, strict=False):
            for line in child.ready_lines():
                log.feed(line)

    def run_until(self, done: Callable[[], bool], timeout: float, what: str) -> None:
        """Pump until ``done()``; ``ChildFailed`` after ``timeout`` s or if a peer exits."""
        deadline = time.monotonic() + timeout
        while not done():
            if time.monotonic() > deadline:
                raise ChildFailed(f"{what}: not within {timeout:g} s")
            for i, child in enumerate(self.children):
                log = self.logs[i]
                gone = child.exited and log.over is None and log.rss_mb is None
                if gone and i not in self.killed:
                    raise ChildFailed(f"peer{i} exited early: {child.stderr_tail()}")
            time.sleep(0.01)  # the stamps are the peers'; our own latency does not count
            self.pump()

    def close(self) -> None:
        # the seats stop first, so the same moment ends the runs with and without spectators
        # (stopping the spectators first, the seats played ~8 more actions meanwhile: 113-119
        # actions against 106-107, with links to spectators that had gone)
        for child in self.children:
            child.close_stdin()
        for watcher in self.watchers:  # SIGTERM: `watch` prints its --json line and exits
            if self.idle:  # (at once, even on a machine busy with other work)
                schedule(watcher.pid, os.SCHED_OTHER)
            watcher.proc.terminate()
        stop_all(self.watchers)
        for watcher in self.watchers:
            lines = [ln for ln in watcher.ready_lines() if ln.startswith("{")]
            self.watched.append(int(json.loads(lines[-1]).get("moves", 0)) if lines else 0)
        stop_all(self.children)
        self.pump()
        self._tmp.cleanup()

    def __enter__(self) -> Table:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def agreed_bids(logs: list[PeerLog]) -> list[float]:
    """Milliseconds from each bid's submission to the last of ``logs`` holding it as agreed,
    for every bid all of them hold (and that matches what was submitted)."""
    out: list[float] = []
    for log in logs:
        for index, (submitted, kind, text) in log.submits.items():
            if kind != BID_KIND:
                continue
            stamps = [other.taken.get(index) for other in logs]
            if all(s is not None and s[1:] == (kind, text) for s in stamps):
                out.append((max(s[0] for s in stamps if s is not None) - submitted) * 1000)
    return out


def bid_final(quick: bool, rtt_us: Value, idle_rtt_us: Value = None) -> dict[str, Value]:
    """6 peers, 30 (quick) or 150 bids; see :func:`measure_bids`. Adds "consensus_ratio_idle":
    the p50 over the round trip between processes that were asleep (``bare_rtt_idle_us``)."""
    if quick:
        result = measure_bids(6, 30, rtt_us, timeout=45.0)
    else:
        result = measure_bids(6, 150, rtt_us, timeout=90.0)
    p50 = result["bid_final_ms_p50"]
    result["consensus_ratio_idle"] = _ratio(p50, idle_rtt_us)
    return result


def _ratio(ms: Value, us: Value) -> float | None:
    if isinstance(ms, float) and isinstance(us, float) and us > 0:
        return ms * 1000 / us
    return None


def measure_bids(n: int, want: int, rtt_us: Value, *, pace: float = 0.02,
                 timeout: float = 60.0, journal: bool = True,
                 spectators: int = 0, priority: str = "normal",
                 keep: list[float] | None = None,
                 env: dict[str, str] | None = None) -> dict[str, Value]:
    """``n`` peers, bots acting after a ``pace`` pause; stops once ``want`` bids are agreed
    by all or the game ends. Keys: bid_final_ms_p50/_p99, consensus_ratio (p50 over the bare
    RTT, None without one), bids_measured. ``spectators``: that many ``dudo-p2p watch``
    processes watch the host's table the whole time, at ``priority`` (Table). ``keep``: each
    bid's latency (ms) is appended to it (to pool several runs' bids). ``env``: the
    processes' environment (Table)."""
    with Table(n, pace=pace, journal=journal, spectators=spectators,
               priority=priority, env=env) as table:
        # each spectator's CPU from once it is up (before any seat joins) to the measure's end
        begun = [cpu_seconds(w.proc.pid) for w in table.watchers]
        table.run_until(lambda: len(agreed_bids(table.logs)) >= want
                        or all(log.over is not None for log in table.logs),
                        timeout, f"{want} agreed bids")
        latencies = agreed_bids(table.logs)
        watched = [b - a for w, a in zip(table.watchers, begun, strict=True)
                   if a is not None and (b := cpu_seconds(w.proc.pid)) is not None]
    # after close(): every peer has said "done" with its CPU time
    actions = max(len(log.taken) for log in table.logs)
    cpu = [log.cpu_s for log in table.logs if log.cpu_s is not None]
    if not latencies:
        raise ChildFailed("no bid was agreed by every peer")
    if keep is not None:
        keep.extend(latencies)
    p50 = percentile(latencies, 50)
    if spectators and min(table.watched, default=0) == 0:
        raise ChildFailed(f"a spectator verified no move: {table.watched}")
    host_cpu = table.logs[0].cpu_s
    others = [log.cpu_s for log in table.logs[1:] if log.cpu_s is not None]
    # what a seat sends the other seats (links.to_seats: the frames its links queued to
    # seats' keys, bench/peer.py), and apart what it sends its spectators
    # (links.to_spectators: the desk's count, watch_desk.py)
    sent = [log.links["to_seats"] for log in table.logs if "to_seats" in log.links]
    told = [log.links.get("to_spectators", 0) for log in table.logs if "sent" in log.links]
    # what spectators cost the seats, counted (not timed): frames taken from them, steps
    # that took their frames and no other (wake-ups they may have caused), replies signed
    work = {key: sum(log.links.get(key, 0) for log in table.logs) / actions if actions else None
            for key in ("from_spectators", "spectator_steps", "spectator_signed")}
    return {"bid_final_ms_p50": p50, "bid_final_ms_p99": percentile(latencies, 99),
            "seat_frames_per_action": sum(sent) / len(sent) / actions
            if sent and actions else None,
            "spectator_frames_per_action": sum(told) / len(told) / actions
            if told and actions else None,
            **{f"{key}_per_action": value for key, value in work.items()},
            "host_cpu_ms_per_action": host_cpu / actions * 1000
            if host_cpu is not None and actions else None,
            "others_cpu_ms_per_action": sum(others) / len(others) / actions * 1000
            if others and actions else None,
            # the host's CPU per action above the others' in the same run: what serving the
            # spectators costs it, with the load the run met (the same for all six) cancelled
            "host_extra_cpu_ms_per_action": (host_cpu - sum(others) / len(others))
            / actions * 1000 if host_cpu is not None and others and actions else None,
            "spectator_moves_min": float(min(table.watched)) if spectators else None,
            "spectator_cpu_ms_per_action": sum(watched) / len(watched) / actions * 1000
            if watched and actions else None,
            "consensus_ratio": _ratio(p50, rtt_us), "bids_measured": float(len(latencies)),
            "peer_cpu_ms_per_action": sum(cpu) / len(cpu) / actions * 1000
            if cpu and actions else None}


def dead_peer(quick: bool) -> dict[str, Value]:
    """A table of 4 (quick) or 6 bench peers; see :func:`measure_dead_peer`."""
    return measure_dead_peer(4 if quick else 6)


def measure_dead_peer(n: int) -> dict[str, Value]:
    """A table of ``n`` bench peers (all bots: no reconnect grace). Once a few actions are
    agreed, peer 1 is killed with SIGKILL and restarted at once from its journal:
    reconnect_resume_s is kill -> its first action agreed by the whole table after the
    restart (it is back in its seat). Then the last peer is killed for good:
    dead_peer_detected_s is kill -> every survivor showing it disconnected or removed (what
    the table shows a person: :meth:`PeerLog.shown_gone`), dead_peer_first_s the first
    survivor's, dead_peer_removed_s kill -> every survivor's removal of it."""
    with Table(n, pace=0.1) as table:
        logs = table.logs
        table.run_until(lambda: all(log.seat is not None for log in logs)
                        and len(logs[0].taken) >= 3, 60.0, "a game under way")
        table.killed.add(1)
        killed = time.monotonic()
        table.children[1].kill()
        table.restart(1)
        table.run_until(lambda: bool(logs[1].taken) or 1 in logs[0].left, 30.0,
                        "the restarted peer back in its seat")
        if 1 in logs[0].left:
            raise ChildFailed("the restarted peer was removed instead of resuming")
        resumed = min(t for t, _, _ in logs[1].taken.values()) - killed
        table.run_until(lambda: len(logs[0].taken) >= 3 + 3, 60.0, "the game going on")
        victim = table.children[-1]
        seat = logs[-1].seat
        assert seat is not None
        table.killed.add(n - 1)
        killed = time.monotonic()
        victim.kill()
        survivors = logs[:-1]
        table.run_until(lambda: all(log.shown_gone(seat) is not None for log in survivors),
                        30.0, "every survivor showing the killed peer disconnected")
        table.run_until(lambda: all(seat in log.left for log in survivors), 30.0,
                        "every survivor removing the killed peer")
        seen = [gone - killed for log in survivors if (gone := log.shown_gone(seat)) is not None]
        removed = [log.left[seat] - killed for log in survivors]
    return {"dead_peer_detected_s": max(seen), "dead_peer_first_s": min(seen),
            "dead_peer_removed_s": max(removed), "reconnect_resume_s": resumed}


def sim_game(quick: bool) -> dict[str, Value]:
    """``dudo-p2p sim --peers 6 --level easy --json``: keys game_seconds_6p (its "seconds":
    from the sim's start, peer start-up included, to every peer done), game_rounds_6p, and
    peer_rss_mb (the largest peak RSS among its peer processes, sampled from /proc)."""
    timeout = 120.0
    sim = Child([sys.executable, "-m", "dudo_p2p", "sim", "--peers", "6", "--level", "easy",
                 "--json", "--seed", "1", "--timeout", str(timeout)])
    peaks: dict[int, float] = {}
    try:
        deadline = time.monotonic() + timeout + 20
        while not sim.exited and time.monotonic() < deadline:
            for pid in children_of(sim.pid):
                rss = peak_rss_mb(pid)
                if rss is not None:
                    peaks[pid] = max(rss, peaks.get(pid, 0.0))
            time.sleep(0.2)
        lines = sim.lines_until_exit(5.0)
    finally:
        code = sim.stop()
    if code != 0 or not lines:
        raise ChildFailed(f"sim exited {code}: {sim.stderr_tail()[-1500:]}")
    result = json.loads(lines[-1])
    return {"game_seconds_6p": float(result["seconds"]),
            "game_rounds_6p": float(result["rounds"]),
            "peer_rss_mb": max(peaks.values()) if peaks else None}
