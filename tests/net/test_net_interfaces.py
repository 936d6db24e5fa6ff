"""Interface addresses through ifaddr: directed broadcasts and reachable addresses, the same
code on every system (no ``ip`` command, no ioctl)."""

from __future__ import annotations

import ipaddress
import json
import shutil
import subprocess

import ifaddr
import pytest

from dudo_p2p.net.interfaces import (
    LOOPBACK_BROADCAST,
    broadcast_addresses,
    ipv4_addresses,
    reachable_addresses,
)


def adapter(name: str, *ips: tuple[object, int]) -> ifaddr.Adapter:
    entries = [ifaddr.IP(ip, prefix, name) for ip, prefix in ips]  # type: ignore[arg-type]
    return ifaddr.Adapter(name, name, entries)


ADAPTERS = [
    adapter("lo", ("127.0.0.1", 8), (("::1", 0, 0), 128)),
    adapter("eth0", ("10.77.1.2", 24), ("10.77.9.2", 24), (("fe80::1", 0, 2), 64)),
    adapter("wlan0", ("192.168.5.20", 22)),
    adapter("tun0", ("10.8.0.6", 32)),  # point to point: no broadcast
    adapter("eth1", ("169.254.3.3", 16)),  # link-local: never a LAN address to dictate
    adapter("dup", ("10.77.1.9", 24)),  # same network as eth0: one broadcast
]


def test_directed_broadcasts_one_per_network_then_loopback() -> None:
    listed = ipv4_addresses(ADAPTERS)
    assert broadcast_addresses(listed) == [
        "10.77.1.255", "10.77.9.255", "192.168.7.255", LOOPBACK_BROADCAST,
    ]


def test_reachable_addresses_skip_loopback_and_link_local() -> None:
    listed = ipv4_addresses(ADAPTERS)
    assert reachable_addresses(listed) == [
        "10.77.1.2", "10.77.9.2", "192.168.5.20", "10.8.0.6", "10.77.1.9",
    ]


def test_no_interfaces_still_broadcasts_on_loopback() -> None:
    assert broadcast_addresses([]) == [LOOPBACK_BROADCAST]


def test_this_machine_agrees_with_iproute2() -> None:
    """On Linux, every up interface's broadcast that ``ip`` reports is found by ifaddr."""
    if shutil.which("ip") is None:
        pytest.skip("iproute2 is not installed here")
    out = subprocess.run(["ip", "-j", "-4", "addr", "show", "up"], capture_output=True,
                         text=True, check=True, timeout=10).stdout
    expected = {
        info["broadcast"]
        for interface in json.loads(out)
        for info in interface.get("addr_info", [])
        if info.get("broadcast") and not ipaddress.IPv4Address(info["local"]).is_link_local
    }
    found = broadcast_addresses()
    assert expected <= set(found)
    assert found[-1] == LOOPBACK_BROADCAST
