"""A lossy LAN for tests: peer namespaces joined through the userspace switch of
``lossy_switch.py`` (this kernel has no ``sch_netem``), controlled while the test runs.

``LossyLan(lab, ["host", "b1", ...], work)`` makes a switch namespace and one namespace per peer
(``dudo-<pid>-<name>``, address 10.77.4.(10+i)/24 on its ``eth0``), starts the switch process in
the switch namespace and waits for it. Then ``set(delay_ms=80, jitter_ms=40, loss=0.08)``,
``down("b1")``/``up("b1")`` (a pulled cable), ``block("b1", "b2")`` (b1's frames to b2 dropped,
one way), ``stats()``. ``close()`` stops the switch (killed if it does not answer); the
``NetnsLab`` teardown then deletes the namespaces. Each call is bounded (``CONTROL_TIMEOUT``).
"""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from netns import NetnsLab

SWITCH = Path(__file__).with_name("lossy_switch.py")
SUBNET = "10.77.4"
START_TIMEOUT = 10.0
CONTROL_TIMEOUT = 5.0


class LossyLan:
    """Peer namespaces on one lossy switch; ``peers[name] = (namespace, address)``."""

    def __init__(self, lab: NetnsLab, names: list[str], work: Path, seed: int = 0) -> None:
        if len(names) > 200 or len(set(names)) != len(names):
            raise ValueError("peer names must be distinct (at most 200)")
        self.lab = lab
        self.switch_ns = lab.namespace("sw")
        # The switch answers nothing itself: no IPv6 chatter from its ports.
        subprocess.run([*lab.exec_prefix(self.switch_ns), "sysctl", "-qw",
                        "net.ipv6.conf.all.disable_ipv6=1",
                        "net.ipv6.conf.default.disable_ipv6=1"],
                       check=True, capture_output=True, timeout=CONTROL_TIMEOUT)
        self.peers: dict[str, tuple[str, str]] = {}
        ports = []
        for i, name in enumerate(names):
            ns = lab.namespace(name)
            port = f"sw{i}"
            lab.veth(ns, "eth0", self.switch_ns, port)
            address = f"{SUBNET}.{10 + i}"
            lab.address(ns, "eth0", f"{address}/24")
            subprocess.run([*lab.exec_prefix(ns), sys.executable, str(SWITCH),
                            "--offloads-off", "eth0"],
                           check=True, capture_output=True, timeout=CONTROL_TIMEOUT)
            self.peers[name] = (ns, address)
            ports += ["--port", f"{name}={port}"]
        self.control_path = str(work / "switch.sock")
        self.log_path = work / "switch.log"
        self._log = self.log_path.open("w")
        self._conn: socket.socket | None = None
        self.proc = subprocess.Popen(
            [*lab.exec_prefix(self.switch_ns), sys.executable, str(SWITCH),
             "--control", self.control_path, "--seed", str(seed), *ports],
            stdout=subprocess.PIPE, stderr=self._log, text=True,
        )
        self._await_ready()

    def _await_ready(self) -> None:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()  # the switch prints "ready" or dies
            if line.strip() == "ready":
                return
            if not line:
                break
        self.close()
        raise RuntimeError(f"the lossy switch did not start: {self.log_path.read_text()}")

    def pin_neighbours(self) -> None:
        """Permanent ARP entries for every peer in every peer namespace: a test of the switch
        alone then sees no ARP traffic (a one-way block otherwise breaks ARP both ways)."""
        macs = {}
        for name, (ns, _) in self.peers.items():
            shown = json.loads(self.lab.ip(ns, "-j", "link", "show", "eth0").stdout)
            macs[name] = shown[0]["address"]
        for name, (ns, _) in self.peers.items():
            for other, (_, address) in self.peers.items():
                if other != name:
                    self.lab.ip(ns, "neigh", "replace", address, "lladdr", macs[other],
                                "dev", "eth0", "nud", "permanent")

    def address(self, name: str) -> str:
        return self.peers[name][1]

    def prefix(self, name: str) -> list[str]:
        """Prefix a command with this to run it in ``name``'s namespace."""
        return self.lab.exec_prefix(self.peers[name][0])

    def command(self, line: str) -> dict[str, Any]:
        """Send one control command; its JSON reply (RuntimeError when it says not ok)."""
        if self._conn is None:
            self._conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self._conn.settimeout(CONTROL_TIMEOUT)
            self._conn.connect(self.control_path)
        self._conn.sendall(line.encode() + b"\n")
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = self._conn.recv(65536)
            if not chunk:
                raise RuntimeError(f"the lossy switch closed the control socket on {line!r}")
            reply += chunk
        answer: dict[str, Any] = json.loads(reply)
        if not answer.get("ok"):
            raise RuntimeError(f"lossy switch: {answer.get('error')}")
        return answer

    def set(self, port: str | None = None, **profile: float) -> dict[str, Any]:
        """The switch-wide profile (or ``port``'s): delay_ms, jitter_ms, loss, dup, reorder."""
        pairs = " ".join(f"{key}={value}" for key, value in profile.items())
        return self.command(f"set {port + ' ' if port else ''}{pairs}")

    def down(self, name: str) -> None:
        self.command(f"down {name}")

    def up(self, name: str) -> None:
        self.command(f"up {name}")

    def block(self, source: str, target: str) -> None:
        self.command(f"block {source} {target}")

    def unblock(self, source: str, target: str) -> None:
        self.command(f"unblock {source} {target}")

    def stats(self) -> dict[str, Any]:
        return self.command("stats")

    def close(self) -> None:
        """Stop the switch (asked, then killed); idempotent."""
        if self.proc.poll() is None:
            with contextlib.suppress(OSError, RuntimeError):
                self.command("quit")
            try:
                self.proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self._log.close()
