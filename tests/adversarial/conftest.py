"""Fixtures of the adversarial tests: honest peer processes killed at teardown (the node
tests' helpers), hostile nodes closed at teardown, a free beacon port."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "node"))  # node_helpers: Peer, args


from .hostile import HostileNode


@pytest.fixture
def hostiles() -> Iterator[list[HostileNode]]:
    """Hostile nodes a test opens; closed (sockets and context) at the end."""
    opened: list[HostileNode] = []
    yield opened
    for node in opened:
        node.close()
