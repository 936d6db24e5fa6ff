"""A small network-namespace lab for transport tests: private LANs that touch no real network.

Every namespace is named ``dudo-<pid>-<short>`` so parallel runs never collide, and every
address (10.77.x.0/24) lives inside those namespaces only: veth pairs are created directly
inside them (``ip -n NS link add ... peer ... netns OTHER``), so nothing appears in the host's
namespace even for a moment. ``teardown`` deletes every namespace with our prefix, which also
destroys their veths and bridges; the fixture calls it on success and on failure.

Needs root and iproute2. ``unavailable()`` says why the lab cannot run here (tests skip with
that reason), found by trying ``ip netns add`` rather than guessing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

STEP_TIMEOUT = 10  # seconds for any one ip command


class NetnsLab:
    """Namespaces, veths, bridges and routes for one test; ``teardown`` removes them all."""

    def __init__(self) -> None:
        self.prefix = f"dudo-{os.getpid()}-"
        self.namespaces: list[str] = []

    @staticmethod
    def unavailable() -> str | None:
        """None when namespaces work here, else the reason to skip."""
        if os.geteuid() != 0:
            return "network namespace tests need root"
        if shutil.which("ip") is None:
            return "iproute2 ('ip') is not installed"
        probe = f"dudo-{os.getpid()}-probe"
        added = _ip("netns", "add", probe, check=False)
        if added.returncode != 0:
            return f"'ip netns add' does not work here: {added.stderr.strip()}"
        _ip("netns", "del", probe, check=False)
        return None

    def namespace(self, short: str) -> str:
        """Create namespace ``<prefix><short>`` with its loopback up; return its full name."""
        name = self.prefix + short
        _ip("netns", "add", name)
        self.namespaces.append(name)
        self.ip(name, "link", "set", "lo", "up")  # 127.255.255.255 beacons need it
        return name

    def ip(self, ns: str, *args: str) -> subprocess.CompletedProcess[str]:
        """Run ``ip -n ns ARGS`` (raises CalledProcessError with ip's message on failure)."""
        return _ip("-n", ns, *args)

    def bridge(self, ns: str, name: str = "br0") -> None:
        self.ip(ns, "link", "add", name, "type", "bridge")
        self.ip(ns, "link", "set", name, "up")

    def veth(self, ns_a: str, dev_a: str, ns_b: str, dev_b: str) -> None:
        """A veth pair from ``dev_a`` in ``ns_a`` to ``dev_b`` in ``ns_b``, both up."""
        self.ip(ns_a, "link", "add", dev_a, "type", "veth", "peer", "name", dev_b, "netns", ns_b)
        self.ip(ns_a, "link", "set", dev_a, "up")
        self.ip(ns_b, "link", "set", dev_b, "up")

    def address(self, ns: str, dev: str, cidr: str) -> None:
        """Give ``dev`` the address ``cidr`` with the subnet's broadcast address."""
        if not cidr.startswith("10.77."):
            raise ValueError("the lab only uses 10.77.x.0/24 addresses")
        self.ip(ns, "addr", "add", cidr, "brd", "+", "dev", dev)

    def enslave(self, ns: str, dev: str, bridge: str = "br0") -> None:
        self.ip(ns, "link", "set", dev, "master", bridge)

    def default_route(self, ns: str, via: str) -> None:
        self.ip(ns, "route", "add", "default", "via", via)

    def enable_forwarding(self, ns: str) -> None:
        # /proc/sys/net belongs to the namespace of the process that opens it.
        subprocess.run(
            [*self.exec_prefix(ns), "sh", "-c", "echo 1 > /proc/sys/net/ipv4/ip_forward"],
            check=True, capture_output=True, timeout=STEP_TIMEOUT,
        )

    def exec_prefix(self, ns: str) -> list[str]:
        """Prefix a command with this to run it inside ``ns``."""
        return ["ip", "netns", "exec", ns]

    def teardown(self) -> None:
        """Delete every namespace with our prefix (ours, and any a crash left behind)."""
        listed = _ip("netns", "list", check=False).stdout.split()
        leftovers = [name for name in listed if name.startswith(self.prefix)]
        for name in dict.fromkeys([*reversed(self.namespaces), *leftovers]):
            _ip("netns", "del", name, check=False)
        self.namespaces.clear()


def bridged_lan(lab: NetnsLab, count: int) -> list[tuple[str, str]]:
    """``count`` peer namespaces on one bridge (10.77.1.0/24): [(namespace, address), ...]."""
    switch = lab.namespace("lan")
    lab.bridge(switch)
    peers = []
    for i in range(count):
        ns = lab.namespace(f"p{i}")
        lab.veth(ns, "eth0", switch, f"port{i}")
        lab.enslave(switch, f"port{i}")
        address = f"10.77.1.{10 + i}"
        lab.address(ns, "eth0", f"{address}/24")
        peers.append((ns, address))
    return peers


def routed_subnets(lab: NetnsLab) -> tuple[tuple[str, str], tuple[str, str]]:
    """Two peers on 10.77.2.0/24 and 10.77.3.0/24 joined by a router namespace.

    Unicast is routed between them; a subnet's broadcast stays on its subnet, as on two
    real networks behind a router.
    """
    router = lab.namespace("router")
    lab.enable_forwarding(router)
    ends = []
    for side, subnet in (("a", 2), ("b", 3)):
        ns = lab.namespace(side)
        lab.veth(ns, "eth0", router, f"to_{side}")
        lab.address(router, f"to_{side}", f"10.77.{subnet}.1/24")
        address = f"10.77.{subnet}.10"
        lab.address(ns, "eth0", f"{address}/24")
        lab.default_route(ns, f"10.77.{subnet}.1")
        ends.append((ns, address))
    return ends[0], ends[1]


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        ["ip", *args], capture_output=True, text=True, timeout=STEP_TIMEOUT, check=False
    )
    if check and result.returncode != 0:
        print(f"ip {' '.join(args)}: {result.stderr.strip()}", file=sys.stderr)
        result.check_returncode()
    return result
