"""Fixtures of the node tests that drive real sockets in one process."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dudo_p2p.node.node import Node
from dudo_p2p.node.watcher import Watcher


@pytest.fixture
def running() -> Iterator[tuple[list[Node], list[Watcher]]]:
    """Lists for the nodes and spectators' watchers a test starts: all closed after it,
    the spectators first."""
    nodes: list[Node] = []
    watchers: list[Watcher] = []
    yield nodes, watchers
    for watcher in watchers:
        watcher.close()
    for node in nodes:
        node.close()
