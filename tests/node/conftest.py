"""Fixtures of the node tests: a work directory, peers killed at teardown, a free beacon port."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "net"))  # netns.py, the net helper's lab

from node_helpers import Peer, free_udp_port


@pytest.fixture
def peers() -> Iterator[list[Peer]]:
    """Peers a test starts; any still running at the end is killed."""
    started: list[Peer] = []
    yield started
    for peer in started:
        peer.stop()


@pytest.fixture
def beacon_port() -> int:
    return free_udp_port()
