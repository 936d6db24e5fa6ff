"""Helpers for the end-to-end node tests: peer processes on loopback with bounded waits.

Every peer is a real ``python -m dudo_p2p`` process bound to 127.0.0.1 that beacons only to
127.255.255.255 on a free UDP port (never a real interface). A reader thread collects each
process's stderr lines so a test can wait (with a deadline) for "round 1 resolved" or "left".
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from net_helpers import free_tcp_port, free_udp_port  # noqa: F401  (re-exported)

LOOPBACK = "127.0.0.1"
LOOPBACK_BROADCAST = "127.255.255.255"
# Short games keep the folder fast on two shared cores: 3 dice each, quick bots.
FAST = ["--rule", "starting_dice=3"]
GAME_TIMEOUT = 90.0


def loopback_net(beacon_port: int) -> list[str]:
    return ["--bind", LOOPBACK, "--broadcast", LOOPBACK_BROADCAST,
            "--beacon-port", str(beacon_port)]


class Peer:
    """One ``python -m dudo_p2p ARGS`` process (``prefix`` runs it in a namespace)."""

    def __init__(self, name: str, args: list[str], prefix: list[str] | None = None, *,
                 stdin: int | None = None) -> None:
        """``stdin``: ``subprocess.PIPE`` for a host played from the terminal that must wait
        (a pipe nobody writes to) rather than read the end of the test's stdin and quit."""
        self.name = name
        self.args = args
        self.proc = subprocess.Popen(
            [*(prefix or []), sys.executable, "-m", "dudo_p2p", *args],
            stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self._out: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        # stdout has its own reader: communicate() would race the stderr reader for lines.
        self._out_reader = threading.Thread(target=self._read_out, daemon=True)
        self._out_reader.start()
        self.stdout = ""

    def _read_out(self) -> None:
        assert self.proc.stdout is not None
        self._out.extend(self.proc.stdout)

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()

    def wait_line(self, text: str, timeout: float) -> float | None:
        """Wait until a stderr line contains ``text``; the monotonic time it was seen, or None."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                if any(text in line for line in self.lines):
                    return time.monotonic()
                remaining = deadline - time.monotonic()
                if remaining <= 0 or (self.proc.poll() is not None and not self._reader.is_alive()):
                    return None
                self._changed.wait(min(remaining, 0.05))

    def finish(self, timeout: float = GAME_TIMEOUT) -> int:
        """Wait for the process to exit by itself (killed after ``timeout``)."""
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._reader.join(timeout=5)
        self._out_reader.join(timeout=5)
        self.stdout = "".join(self._out)
        self._close_pipes()
        return self.proc.returncode

    def _close_pipes(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None and not stream.closed:
                stream.close()

    def summary(self) -> dict[str, Any]:
        """The ``--json`` object on the last line of stdout."""
        last = [line for line in self.stdout.splitlines() if line.startswith("{")][-1]
        value: dict[str, Any] = json.loads(last)
        return value

    def kill9(self) -> None:
        self.proc.kill()
        self.proc.wait()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self._reader.join(timeout=5)
        self._out_reader.join(timeout=5)
        self._close_pipes()

    def explain(self) -> str:
        return f"{self.name} rc={self.proc.returncode}\n" + "\n".join(self.lines[-30:])


def bot_args(name: str, work: Path, *extra: str, level: str = "easy") -> list[str]:
    return ["bot", "--name", name, "--identity", str(work / f"{name}.id"), "--json",
            "--level", level, "--timeout", str(GAME_TIMEOUT), *extra]


def host_args(name: str, work: Path, players: int, *extra: str, level: str = "easy") -> list[str]:
    return ["host", "--headless", "--players", str(players), "--name", name,
            "--identity", str(work / f"{name}.id"), "--json", "--level", level,
            "--timeout", str(GAME_TIMEOUT), *FAST, *extra]
