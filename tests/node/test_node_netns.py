"""Whole games across network namespaces: a bridged LAN found by broadcast, and two subnets
behind a router joined by address. Needs root (skips with the reason otherwise)."""

from __future__ import annotations

from pathlib import Path

import pytest
from netns import NetnsLab, bridged_lan, routed_subnets  # type: ignore[import-not-found, unused-ignore]
from node_helpers import Peer, bot_args, host_args
from test_node_e2e import assert_one_game, finish_all

pytestmark = [pytest.mark.netns, pytest.mark.e2e]



def test_three_hosts_on_one_bridge_find_the_table_by_broadcast_and_finish(
    lab: NetnsLab, tmp_path: Path, peers: list[Peer]
) -> None:
    (ns0, _), (ns1, _), (ns2, _) = bridged_lan(lab, 3)
    # Default addresses: each namespace beacons to 10.77.1.255 (and its own loopback).
    peers.append(Peer("host", host_args("host", tmp_path, 3, "--table", "NSBR3"),
                      lab.exec_prefix(ns0)))
    for name, ns in (("b1", ns1), ("b2", ns2)):
        peers.append(Peer(name, bot_args(name, tmp_path, "--discover", "--table", "NSBR3"),
                          lab.exec_prefix(ns)))
    assert_one_game(finish_all(peers))


def test_two_subnets_behind_a_router_finish_a_game_joined_by_address(
    lab: NetnsLab, tmp_path: Path, peers: list[Peer]
) -> None:
    (ns_a, _), (ns_b, address_b) = routed_subnets(lab)
    peers.append(Peer("host", host_args("host", tmp_path, 2, "--port", "47000"),
                      lab.exec_prefix(ns_b)))
    peers.append(Peer("b1", bot_args("b1", tmp_path, "--join", f"{address_b}:47000"),
                      lab.exec_prefix(ns_a)))
    assert_one_game(finish_all(peers))
