"""This machine's IPv4 interfaces: where beacons are broadcast and where a host can be reached.

Read through ``ifaddr`` (getifaddrs on Linux and macOS, GetAdaptersAddresses on Windows), so
the same code runs on every laptop at the party: no ``ip`` command, no Linux ioctl. ``ifaddr``
gives each address with its prefix length; the directed broadcast address is the last address
of that network (``ipaddress``). Loopback, link-local, and /31 and /32 networks (point to
point: no broadcast) are left out; ``127.255.255.255`` is always added last so peers on one
machine find each other.

ifaddr does not report whether an interface is up: sending to a down interface's broadcast
fails with an OSError, which discovery logs and retries next interval.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Iterable
from dataclasses import dataclass

import ifaddr

log = logging.getLogger(__name__)

LOOPBACK_BROADCAST = "127.255.255.255"


@dataclass(frozen=True, slots=True)
class Address:
    """One IPv4 address of an interface: the interface's name, the address and its network."""

    interface: str
    ip: ipaddress.IPv4Address
    network: ipaddress.IPv4Network

    @property
    def broadcast(self) -> str | None:
        """The directed broadcast address, None for point-to-point (/31, /32) networks."""
        if self.network.prefixlen >= 31:
            return None
        return str(self.network.broadcast_address)


def ipv4_addresses(adapters: Iterable[ifaddr.Adapter] | None = None) -> list[Address]:
    """Every usable IPv4 address of this machine (``adapters`` injectable for tests), skipping
    loopback and link-local; [] when the system will not list its interfaces."""
    if adapters is None:
        try:
            adapters = ifaddr.get_adapters()
        except OSError as exc:
            log.warning("cannot list network interfaces (%s): only loopback is used", exc)
            return []
    found: list[Address] = []
    for adapter in adapters:
        for entry in adapter.ips:
            if not isinstance(entry.ip, str):  # IPv6 entries are (address, flow, scope)
                continue
            try:
                ip = ipaddress.IPv4Address(entry.ip)
                network = ipaddress.IPv4Network(f"{entry.ip}/{entry.network_prefix}", strict=False)
            except ValueError:
                continue
            if ip.is_loopback or ip.is_link_local or ip.is_unspecified:
                continue
            found.append(Address(adapter.nice_name, ip, network))
    return found


def broadcast_addresses(addresses: Iterable[Address] | None = None) -> list[str]:
    """Directed broadcast addresses of this machine's IPv4 networks, each once, then
    ``127.255.255.255``."""
    listed = ipv4_addresses() if addresses is None else addresses
    directed = (a.broadcast for a in listed)
    unique = dict.fromkeys(b for b in directed if b is not None and b != LOOPBACK_BROADCAST)
    return [*unique, LOOPBACK_BROADCAST]


def reachable_addresses(addresses: Iterable[Address] | None = None) -> list[str]:
    """The addresses a friend on another network can dictate to ``--join`` (one per address,
    in interface order); empty when only loopback exists."""
    listed = ipv4_addresses() if addresses is None else addresses
    return list(dict.fromkeys(str(a.ip) for a in listed))
