"""Suite-wide options and fixtures.

``--full`` runs the full-size variants (tests marked ``slow``, and the sizes tests read from
the ``full`` fixture); without it they are skipped or run small. ``DUDO_FULL=1`` in the
environment does the same as ``--full``. Shared fixtures of the tests that start real
processes or network namespaces: ``peers`` (killed at teardown), ``beacon_port`` (a free UDP
port), ``lab`` (namespaces, torn down; skipped with the reason where they cannot be made).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

_HERE = Path(__file__).parent
sys.path.insert(0, str(_HERE / "node"))  # node_helpers: Peer, the argument builders
sys.path.insert(0, str(_HERE / "net"))  # netns: the namespace lab; net_helpers

from netns import NetnsLab  # noqa: E402
from node_helpers import Peer, free_udp_port  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    """Every networked game journals itself into the user data directory (§4.7): the peers
    a test starts (they inherit the environment) write theirs into a directory of the run,
    never into the real one."""
    data = Path(tempfile.mkdtemp(prefix="dudo-test-data-"))
    config.stash[_DATA_KEY] = data
    os.environ["XDG_DATA_HOME"] = str(data)


def pytest_unconfigure(config: pytest.Config) -> None:
    data = config.stash.get(_DATA_KEY, None)
    if data is not None:
        shutil.rmtree(data, ignore_errors=True)


_DATA_KEY = pytest.StashKey[Path]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--full", action="store_true", default=False,
                     help="run the full-size variants (fuzzing, soak, crash loops)")


def _full(config: pytest.Config) -> bool:
    return bool(config.getoption("--full")) or os.environ.get("DUDO_FULL") == "1"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _full(config):
        return
    skip = pytest.mark.skip(reason="full-size run: give --full (or DUDO_FULL=1)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def full(request: pytest.FixtureRequest) -> bool:
    """True when the run asked for full sizes (``--full`` or ``DUDO_FULL=1``)."""
    return _full(request.config)


@pytest.fixture
def peers() -> Iterator[list[Peer]]:
    """Peer processes a test starts; any still running at the end is killed."""
    started: list[Peer] = []
    yield started
    for peer in started:
        peer.stop()


@pytest.fixture
def beacon_port() -> int:
    """A free UDP port for the discovery beacons of one test (loopback broadcast only)."""
    return free_udp_port()


@pytest.fixture
def lab() -> Iterator[NetnsLab]:
    """Network namespaces the test builds; skipped with the reason where that is impossible."""
    reason = NetnsLab.unavailable()
    if reason is not None:
        pytest.skip(reason)
    network = NetnsLab()
    try:
        yield network
    finally:
        network.teardown()
