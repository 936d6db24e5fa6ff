"""Discovery and links across real (namespaced) networks: a bridged LAN and a routed pair."""

from __future__ import annotations

import pytest
from net_helpers import DemoRun
from netns import NetnsLab, bridged_lan, routed_subnets

pytestmark = [pytest.mark.netns, pytest.mark.e2e]


def test_three_namespaces_on_one_bridge_discover_each_other_by_broadcast(
    lab: NetnsLab, runs: list[DemoRun]
) -> None:
    peers = bridged_lan(lab, 3)
    for i, (ns, _) in enumerate(peers):
        runs.append(DemoRun(f"p{i}", ["--expect", "2", "--timeout", "20", "--linger", "1.5"],
                            prefix=lab.exec_prefix(ns)))
    codes = [run.finish(timeout=30) for run in runs]
    addresses = {f"p{i}": address for i, (_, address) in enumerate(peers)}
    for run, code in zip(runs, codes, strict=True):
        assert code == 0, (run.name, run.events, run.stderr)
        others = sorted(n for n in addresses if n != run.name)
        # No address was given: each found the others by the subnet's broadcast address.
        assert run.of_kind("started")[0]["broadcast"] == ["10.77.1.255", "127.255.255.255"]
        found = {e["peer_name"]: e["host"] for e in run.of_kind("discovered")}
        assert found == {name: addresses[name] for name in others}
        assert run.of_kind("done")[0]["peers"] == others


def test_different_subnets_do_not_discover_by_broadcast_but_join_by_address(
    lab: NetnsLab, runs: list[DemoRun]
) -> None:
    (ns_a, address_a), (ns_b, address_b) = routed_subnets(lab)
    quiet = ["--expect", "1", "--timeout", "3.5"]
    apart = [DemoRun("a", quiet, lab.exec_prefix(ns_a)), DemoRun("b", quiet, lab.exec_prefix(ns_b))]
    runs.extend(apart)
    for run in apart:
        assert run.finish(timeout=15) == 1, (run.name, run.events, run.stderr)
        assert run.of_kind("discovered") == []
        assert run.of_kind("stats")[0]["discovery"]["received"] == 0  # not even one beacon
        assert run.of_kind("timeout")
    host = DemoRun("b", ["--port", "47000", "--expect", "1", "--timeout", "20", "--linger", "1.5"],
                   lab.exec_prefix(ns_b))
    runs.append(host)
    host.first_event()  # b's ROUTER is bound before a dials it
    guest = DemoRun("a", ["--join", f"{address_b}:47000", "--expect", "1", "--timeout", "20",
                          "--linger", "1.5"], lab.exec_prefix(ns_a))
    runs.append(guest)
    assert guest.finish(timeout=30) == 0, (guest.events, guest.stderr)
    assert host.finish(timeout=30) == 0, (host.events, host.stderr)
    assert guest.of_kind("done")[0]["peers"] == ["b"]
    assert host.of_kind("done")[0]["peers"] == ["a"]
    # b linked back to the address a's hello came from, across the router.
    assert host.of_kind("hello")[0]["host"] == address_a
    assert host.of_kind("discovered") == guest.of_kind("discovered") == []
