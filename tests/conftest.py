"""Suite-wide options: ``--full`` runs the full-size variants (tests marked ``slow``, and the
sizes tests read from the ``full`` fixture); without it they are skipped or run small.
``DUDO_FULL=1`` in the environment does the same as ``--full``."""

from __future__ import annotations

import os

import pytest


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
