"""The bench's reading of a process's CPU from /proc (procs.cpu_seconds), which gives the
spectators section its ``spectator_cpu_ms_per_action``: every live thread counted, and None once
the process is gone."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

from dudo_p2p.bench.procs import cpu_seconds


def _spin(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_a_process_cpu_counts_every_live_thread_and_none_once_gone() -> None:
    before = cpu_seconds(os.getpid())
    assert before is not None
    spun, release = threading.Event(), threading.Event()

    def worker() -> None:  # a thread alive while read (as ZeroMQ's I/O thread): one that
        _spin(0.05)        # ended is no longer in /proc/PID/task
        spun.set()
        release.wait(10.0)

    thread = threading.Thread(target=worker)
    thread.start()
    _spin(0.05)
    assert spun.wait(10.0)
    after = cpu_seconds(os.getpid())
    release.set()
    thread.join()
    assert after is not None and after - before >= 0.095
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert cpu_seconds(child.pid) is None
