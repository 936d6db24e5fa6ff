"""Fixtures of the lossy-LAN scenarios: ``table``, a ``LanTable`` torn down before the lab's
namespaces, so no process outlives its network (sizes come from the suite's ``full``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from lan_helpers import LanTable
from netns import NetnsLab


@pytest.fixture
def table(lab: NetnsLab, tmp_path: Path) -> Iterator[LanTable]:
    lan_table = LanTable(lab, tmp_path)
    try:
        yield lan_table
    finally:
        lan_table.close()
