"""Child processes for the bench: start, read lines with a deadline, stop, peak memory.

A :class:`Child` drains the process's stdout and stderr on two daemon threads (so a chatty
child never blocks on a full pipe) and keeps stdin as a pipe: closing it is the polite
"stop" (the bench children exit on EOF); :meth:`Child.stop` then waits briefly and kills the
child's whole process group, so no measurement leaves a process behind, whatever fails.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Sequence


class ChildFailed(RuntimeError):
    """A child process exited, said something unexpected, or was too slow."""


class Child:
    """A started process (in its own session) with line-wise stdout and a stderr tail."""

    def __init__(self, argv: Sequence[str], *, env: dict[str, str] | None = None) -> None:
        self.argv = list(argv)
        self.started = time.monotonic()
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env,
                                     start_new_session=True)
        self.pid = self.proc.pid
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: deque[str] = deque(maxlen=40)
        self._pumps = [threading.Thread(target=self._pump_stdout, daemon=True),
                       threading.Thread(target=self._pump_stderr, daemon=True)]
        for pump in self._pumps:
            pump.start()

    @classmethod
    def python(cls, module: str, *args: str, env: dict[str, str] | None = None) -> Child:
        """``python -m module args`` with this interpreter."""
        return cls([sys.executable, "-m", module, *args], env=env)

    def _pump_stdout(self) -> None:
        assert self.proc.stdout is not None
        with self.proc.stdout:
            for line in self.proc.stdout:
                self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def _pump_stderr(self) -> None:
        assert self.proc.stderr is not None
        with self.proc.stderr:
            for line in self.proc.stderr:
                self._stderr.append(line.rstrip("\n"))

    def stderr_tail(self) -> str:
        """The last lines the child wrote on stderr."""
        return " | ".join(self._stderr)

    def read_line(self, timeout: float) -> str:
        """The next stdout line within ``timeout`` seconds; ``ChildFailed`` on timeout or when
        the output ended (with the child's last stderr lines)."""
        try:
            line = self._lines.get(timeout=max(0.0, timeout))
        except queue.Empty:
            raise ChildFailed(f"{self}: no output within {timeout:g} s") from None
        if line is None:
            self._lines.put(None)  # stay at end of output for later calls
            self.proc.wait(2)
            raise ChildFailed(f"{self} exited ({self.proc.returncode}): {self.stderr_tail()}")
        return line

    def ready_lines(self) -> list[str]:
        """Every stdout line received so far and not read yet (never blocks)."""
        out: list[str] = []
        while True:
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                return out
            if line is None:
                self._lines.put(None)
                return out
            out.append(line)

    @property
    def exited(self) -> bool:
        return self.proc.poll() is not None

    def close_stdin(self) -> None:
        """Ask the child to stop (the bench children exit when their stdin closes)."""
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()

    def lines_until_exit(self, timeout: float) -> list[str]:
        """Every remaining stdout line, once the child exits within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        out: list[str] = []
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise ChildFailed(f"{self}: still running after {timeout:g} s") from None
            if line is None:
                self._lines.put(None)
                self.proc.wait(max(0.1, deadline - time.monotonic()))
                return out
            out.append(line)

    def stop(self, timeout: float = 3.0) -> int:
        """Close stdin, wait up to ``timeout`` s, then SIGKILL the child's process group.
        Returns the exit code (negative: killed by that signal)."""
        self.close_stdin()
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            code = self.proc.wait()
        for pump in self._pumps:  # they close the pipes at end of output
            pump.join(timeout)
        return code

    def kill(self) -> None:
        """SIGKILL the child and every process of its group (it leads one)."""
        killpg = getattr(os, "killpg", None)  # POSIX only; Windows kills the process alone
        with contextlib.suppress(ProcessLookupError):
            if killpg is None:
                self.proc.kill()
            else:
                killpg(self.pid, signal.SIGKILL)

    def __str__(self) -> str:
        return " ".join(os.path.basename(a) for a in self.argv[:5])


def stop_all(children: list[Child], timeout: float = 5.0) -> None:
    """Close every child's stdin at once, then ``stop`` each (killing what lingers)."""
    for child in children:
        child.close_stdin()
    deadline = time.monotonic() + timeout
    for child in children:
        child.stop(max(0.1, deadline - time.monotonic()))


def children_of(pid: int) -> list[int]:
    """The direct children of process ``pid`` (Linux /proc), [] when it is gone."""
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as kids:
                found.extend(int(k) for k in kids.read().split())
    except (OSError, ValueError):
        pass
    return found


def peak_rss_mb(pid: int) -> float | None:
    """Peak resident memory so far (``VmHWM``) of a live process, in MiB; None once gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        return None
    return None


def cpu_seconds(pid: int) -> float | None:
    """The CPU a live process's threads have run so far (ZeroMQ's I/O threads too, which
    live as long as the process; not threads that ended), in seconds: each thread's
    ``schedstat`` run time, in nanoseconds, brought up to date whenever the thread stops
    running (exact for a process that waits on its sockets; ``/proc/PID/stat`` counts 10 ms
    ticks, a spectator's CPU for ~10 actions). None once the process is gone."""
    try:
        total = 0
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/schedstat", encoding="ascii") as stat:
                total += int(stat.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return total / 1e9


def schedule(pid: int, policy: int) -> None:
    """Put every thread of process ``pid`` under ``policy`` (best effort: a thread that
    ended meanwhile, or a policy we may not restore, is left as it is)."""
    try:
        tids = [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        return
    for tid in tids:
        with contextlib.suppress(OSError):
            os.sched_setscheduler(tid, policy, os.sched_param(0))
