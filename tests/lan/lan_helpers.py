"""Real ``dudo-p2p host``/``bot`` processes on the lossy LAN of ``tests/net/lossy.py``.

A ``LanTable`` owns everything one scenario starts: the lossy switch and its namespaces (one per
peer, through ``LossyLan``) and the peer processes. ``close`` kills every process (stopped ones
included: SIGKILL needs no SIGCONT) and stops the switch; the ``lab`` fixture then deletes the
namespaces, so a failing scenario leaves nothing behind. Every wait is bounded.

The host listens on ``HOST_PORT`` in its namespace and every bot joins it by address
(``--join``): a join by broadcast would add the beacon period to every timing the scenarios
measure. Each peer writes a journal (``<name>.journal``) so any of them can be restarted with
``--resume``; ``-v`` keeps the consensus lines ("seat 1 votes to remove us: silent") in each
peer's stderr for the failure report.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path
from typing import Any

from lossy import LossyLan
from netns import NetnsLab
from node_helpers import FAST, Peer, bot_args, host_args

HOST_PORT = 47000
# Exit codes of dudo_p2p/cli/exits.py, by value: the scenarios check what a script sees.
EXIT_OK = 0
EXIT_REMOVED = 3
EXIT_TABLE_GONE = 4
EXIT_REFUSED = 5


class LanTable:
    """One scenario's switch, namespaces and peers (``peers[name]``)."""

    def __init__(self, lab: NetnsLab, work: Path) -> None:
        self.lab = lab
        self.work = work
        self.lan: LossyLan | None = None
        self.peers: dict[str, Peer] = {}
        self.retired: list[Peer] = []  # processes a restart replaced, kept for the report

    def build(self, names: list[str], seed: int = 0) -> LossyLan:
        """The namespaces and the switch (a clean LAN until the test sets a profile)."""
        self.lan = LossyLan(self.lab, names, self.work, seed=seed)
        return self.lan

    @property
    def switch(self) -> LossyLan:
        assert self.lan is not None, "build() first"
        return self.lan

    def journal(self, name: str) -> Path:
        return self.work / f"{name}.journal"

    def host(self, players: int, *extra: str, name: str = "host") -> Peer:
        args = host_args(name, self.work, players, "--port", str(HOST_PORT),
                         "--journal", str(self.journal(name)), "-v", *extra)
        return self._start(name, args)

    def bot(self, name: str, *extra: str, host: str = "host") -> Peer:
        where = f"{self.switch.address(host)}:{HOST_PORT}"
        args = bot_args(name, self.work, "--join", where, "--journal", str(self.journal(name)),
                        "-v", *extra)
        return self._start(name, args)

    def game(self, players: int, *host_extra: str, names: list[str] | None = None) -> list[Peer]:
        """A host and ``players - 1`` bots joined by address: [host, b1, b2, ...]."""
        names = names or ["host", *(f"b{i}" for i in range(1, players))]
        self.host(players, *host_extra, name=names[0])
        for name in names[1:]:
            self.bot(name, host=names[0])
        return [self.peers[name] for name in names]

    def restart(self, name: str, *args: str) -> Peer:
        """Start ``name`` again in its namespace (the old process must be dead)."""
        return self._start(name, list(args))

    def resume_args(self, name: str, command: str = "bot") -> list[str]:
        """``command --resume`` from ``name``'s journal and identity (the host keeps its port)."""
        args = [command, "--resume", "--journal", str(self.journal(name)),
                "--identity", str(self.work / f"{name}.id"), "--name", name, "--json", "-v",
                "--level", "easy", "--timeout", "90"]
        if command == "host":
            args += ["--headless", "--port", str(HOST_PORT)]
        return args

    def discoverer(self, name: str, code: str) -> Peer:
        """A bot that finds table ``code`` by the beacons (``--discover``), as a user would."""
        args = bot_args(name, self.work, "--discover", "--table", code,
                        "--journal", str(self.journal(name)), "-v")
        return self._start(name, args)

    def _start(self, name: str, args: list[str]) -> Peer:
        if name in self.peers:
            old = self.peers[name]
            assert old.proc.poll() is not None, f"{name} still runs"
            self.retired.append(old)
        peer = Peer(name, args, self.switch.prefix(name))
        self.peers[name] = peer
        return peer

    def pause(self, name: str) -> None:
        os.kill(self.peers[name].proc.pid, signal.SIGSTOP)

    def wake(self, name: str) -> None:
        os.kill(self.peers[name].proc.pid, signal.SIGCONT)

    def explain(self) -> str:
        """Every process's exit code and last lines, and the switch's counters."""
        parts = [peer.explain() for peer in [*self.retired[-8:], *self.peers.values()]]
        if self.lan is not None and self.lan.proc.poll() is None:
            try:
                stats = self.lan.stats()
                parts.append(f"switch: {stats['counts']} down={stats['down']} "
                             f"blocked={stats['blocked']}")
            except (OSError, RuntimeError) as exc:
                parts.append(f"switch: no stats ({exc})")
        return "\n---\n".join(parts)

    def close(self) -> None:
        for peer in [*self.retired, *self.peers.values()]:
            peer.stop()
        if self.lan is not None:
            self.lan.close()


def exit_within(peer: Peer, seconds: float) -> int | None:
    """The peer's exit code if it exits within ``seconds``, else None (it keeps running)."""
    try:
        return peer.proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        return None


def left_lines(peer: Peer) -> list[str]:
    """The "X left (reason)" lines a peer printed: the removals it applied."""
    return [line for line in peer.lines if " left (" in line]


def summary_or_none(peer: Peer) -> dict[str, Any] | None:
    """The peer's ``--json`` summary, None when it printed none (killed, crashed)."""
    try:
        return peer.summary()
    except (IndexError, ValueError):
        return None


def one_hash(summaries: list[dict[str, Any]]) -> str:
    """The one log hash every summary ends on (AssertionError naming them otherwise)."""
    hashes = {s["log_hash"] for s in summaries}
    assert len(hashes) == 1 and None not in hashes, summaries
    winners = {s["winner"] for s in summaries}
    assert len(winners) == 1 and None not in winners, summaries
    return hashes.pop()


__all__ = ["FAST", "LanTable", "exit_within", "left_lines", "one_hash", "summary_or_none"]
