"""Figures that need real peers: the node is not in this build yet."""

from __future__ import annotations

from dudo_p2p.bench.figures import Value


def bid_final(quick: bool, rtt_us: Value) -> dict[str, Value]:
    raise NotImplementedError("the node is not in this build")


def sim_game(quick: bool) -> dict[str, Value]:
    raise NotImplementedError("the node is not in this build")


def dead_peer(quick: bool) -> dict[str, Value]:
    raise NotImplementedError("the node is not in this build")
