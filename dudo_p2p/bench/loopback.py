"""Loopback floors: a bare ZeroMQ round trip between two processes, and discovery latency.

Only 127.0.0.1 (TCP) and 127.255.255.255 (UDP broadcast, on a random free port) are used.
The far ends run in ``python -m dudo_p2p.bench.child`` processes.
"""

from __future__ import annotations

import os
import select
import socket
import time
from typing import Any

import zmq

from dudo_p2p.bench.child import BEACON_LINK_PORT, loopback_discovery
from dudo_p2p.bench.figures import percentile
from dudo_p2p.bench.procs import Child, ChildFailed
from dudo_p2p.net.beacon import Beacon

START_TIMEOUT_S = 20.0  # a child's first line (Python start-up on a loaded 2-core machine)


def bare_rtt(pings: int, *, warmup: int = 200, idle_pings: int = 0,
             idle_gap: float = 0.02) -> dict[str, float]:
    """Round trips of a 64-byte message DEALER -> ROUTER -> DEALER to an echo process on
    127.0.0.1, after ``warmup`` untimed ones, with blocking sends and receives (the floor the
    peers' links cannot beat). Keys: "bare_rtt_us" (median of ``pings`` back to back) and
    "bare_rtt_us_p99"; with ``idle_pings``, also "bare_rtt_idle_us": the median of round trips
    each started after ``idle_gap`` s of quiet, when both processes sleep in poll, as the
    peers do between bids (waking a sleeping process costs more than a busy loop's hop)."""
    if pings < 1 or idle_pings < 0:
        raise ValueError("pings >= 1 and idle_pings >= 0")
    child = Child.python("dudo_p2p.bench.child", "echo")
    ctx: zmq.Context[Any] = zmq.Context()
    dealer = ctx.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.setsockopt(zmq.RCVTIMEO, 5000)  # a dead echo raises zmq.Again, never hangs
    try:
        port = int(child.read_line(START_TIMEOUT_S))
        dealer.connect(f"tcp://127.0.0.1:{port}")
        payload = bytes(64)
        times: list[float] = []
        for i in range(warmup + pings):
            start = time.perf_counter_ns()
            dealer.send(payload)
            dealer.recv()
            if i >= warmup:
                times.append((time.perf_counter_ns() - start) / 1000)
        idle: list[float] = []
        for _ in range(idle_pings):
            time.sleep(idle_gap)
            start = time.perf_counter_ns()
            dealer.send(payload)
            dealer.recv()
            idle.append((time.perf_counter_ns() - start) / 1000)
        dealer.send(b"")  # the echo's "stop"
    finally:
        dealer.close(linger=0)
        ctx.term()
        child.stop()
    result = {"bare_rtt_us": percentile(times, 50), "bare_rtt_us_p99": percentile(times, 99)}
    if idle:
        result["bare_rtt_idle_us"] = percentile(idle, 50)
    return result


def free_udp_port() -> int:
    """A UDP port free on this machine now (the OS's pick for 127.0.0.1)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def discovery(trials: int, *, cold_trials: int = 1) -> dict[str, float]:
    """How soon a starting peer sees one already running, on a random UDP port, broadcasting to
    127.255.255.255 only. The running peer is a child process; the starting one is:

    * for "discovery_ms" (median of ``trials``) and "discovery_ms_max": a fresh ``Discovery``
      in this process, timed from its construction (the socket bind) to the first beacon of
      the other peer (ours goes out on the first tick, the other answers a new peer at once);
    * for "discovery_cold_ms" (median of ``cold_trials``): a new process, timed from its
      spawn, so Python start-up and imports are included.
    """
    port = free_udp_port()
    other_id = os.urandom(32)
    child = Child.python("dudo_p2p.bench.child", "beacon", str(port), other_id.hex())
    warm: list[float] = []
    cold: list[float] = []
    try:
        if child.read_line(START_TIMEOUT_S) != "ready":
            raise ChildFailed("beacon child did not say ready")
        for trial in range(trials):
            warm.append(_first_sight_ms(port, other_id, trial))
        for _ in range(cold_trials):
            started = time.monotonic()
            seeker = Child.python("dudo_p2p.bench.child", "seek", str(port))
            try:
                seen = float(seeker.read_line(START_TIMEOUT_S))
            finally:
                seeker.stop()
            cold.append((seen - started) * 1000)
    finally:
        child.stop()
    result = {"discovery_ms": percentile(warm, 50), "discovery_ms_max": max(warm)}
    if cold:
        result["discovery_cold_ms"] = percentile(cold, 50)
    return result


def _first_sight_ms(port: int, other_id: bytes, trial: int, timeout: float = 5.0) -> float:
    start = time.monotonic()
    with loopback_discovery(port) as ours:
        ours.set_beacon(Beacon(os.urandom(32), BEACON_LINK_PORT, name=f"bench-{trial}"))
        ours.tick(start)
        while (now := time.monotonic()) - start < timeout:
            ready, _, _ = select.select([ours.fileno()], [], [], 0.05)
            if ready and any(b.peer_id == other_id for b in ours.on_readable(now)):
                return (time.monotonic() - start) * 1000
            ours.tick(now)
    raise ChildFailed(f"the running peer was not seen within {timeout:g} s")
