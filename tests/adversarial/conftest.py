"""Fixtures of the adversarial tests: honest peer processes killed at teardown (the node
tests' helpers), hostile nodes closed at teardown, a free beacon port."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "node"))  # node_helpers: Peer, args

from node_helpers import Peer, free_udp_port

from .hostile import HostileNode


@pytest.fixture
def peers() -> Iterator[list[Peer]]:
    """Honest peer processes a test starts; any still running at the end is killed."""
    started: list[Peer] = []
    yield started
    for peer in started:
        peer.stop()


@pytest.fixture
def hostiles() -> Iterator[list[HostileNode]]:
    """Hostile nodes a test opens; closed (sockets and context) at the end."""
    opened: list[HostileNode] = []
    yield opened
    for node in opened:
        node.close()


@pytest.fixture
def beacon_port() -> int:
    return free_udp_port()
