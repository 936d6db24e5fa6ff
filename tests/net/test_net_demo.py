"""End to end on loopback: demo peers discover each other by beacon, or join by address."""

from __future__ import annotations

import pytest
from net_helpers import DemoRun, free_udp_port

pytestmark = pytest.mark.e2e

LOOPBACK = ["--bind", "127.0.0.1", "--broadcast", "127.255.255.255"]


def test_three_demo_peers_discover_and_greet_each_other(runs: list[DemoRun]) -> None:
    port = str(free_udp_port())
    names = ["ana", "beto", "caro"]
    # caro lingers longest, so it is still there to see the others' leaving beacons
    for name, linger in zip(names, ["1", "1", "3"], strict=True):
        runs.append(DemoRun(name, ["--beacon-port", port, *LOOPBACK, "--expect", "2",
                                   "--timeout", "15", "--linger", linger]))
    codes = [run.finish(timeout=25) for run in runs]
    for run, code in zip(runs, codes, strict=True):
        assert code == 0, (run.name, run.events, run.stderr)
        others = sorted(n for n in names if n != run.name)
        assert run.of_kind("done")[0]["peers"] == others
        assert sorted(e["peer_name"] for e in run.of_kind("discovered")) == others
        assert all(e["host"] == "127.0.0.1" for e in run.of_kind("discovered"))
    # Everyone closes with a leaving beacon; the one still running saw them.
    assert runs[2].of_kind("left"), runs[2].events


def test_join_by_address_works_without_discovery(runs: list[DemoRun]) -> None:
    common = ["--no-discovery", "--bind", "127.0.0.1", "--expect", "1", "--timeout", "15",
              "--linger", "1"]
    host = DemoRun("host", common)
    runs.append(host)
    port = host.first_event()["port"]
    guest = DemoRun("guest", [*common, "--join", f"127.0.0.1:{port}"])
    runs.append(guest)
    assert guest.finish(timeout=25) == 0, (guest.events, guest.stderr)
    assert host.finish(timeout=25) == 0, (host.events, host.stderr)
    assert guest.of_kind("done")[0]["peers"] == ["host"]
    assert host.of_kind("done")[0]["peers"] == ["guest"]
    assert not host.of_kind("discovered") and not guest.of_kind("discovered")
