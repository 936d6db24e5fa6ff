"""Where a spectator dials each seat: as a seat does (``lobby.dialled_host``). Seen playing the
evening in three namespaces: the genesis places the bots the host's window started at
127.0.0.1 (they joined it over loopback), and a spectator on another machine dialled its own
machine for them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dudo_p2p.crypto.identity import Identity
from dudo_p2p.node.watcher import Watcher

LOOPBACK = "127.0.0.1"


@pytest.fixture
def watcher() -> Iterator[Watcher]:
    made = Watcher(Identity.generate(), LOOPBACK, 9, bind=LOOPBACK)
    yield made
    made.close()


def _dialled(watcher: Watcher, joined: str, hosts: list[str],
             monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    seats = [(bytes([i]) * 32, host, 4000 + i) for i, host in enumerate(hosts)]
    watcher.joined_host = joined
    monkeypatch.setattr(watcher.spectator, "addresses", lambda: seats)
    monkeypatch.setattr(watcher.spectator.rotation, "target", lambda: None)
    dialled: list[tuple[str, int]] = []
    monkeypatch.setattr(watcher.links, "connect",
                        lambda _pub, host, port: dialled.append((host, port)))
    watcher._link_seats()
    return dialled


def test_a_spectator_on_the_lan_dials_a_loopback_seat_at_the_address_it_joined(
        watcher: Watcher, monkeypatch: pytest.MonkeyPatch) -> None:
    dialled = _dialled(watcher, "10.77.4.10", ["", "10.77.4.11", LOOPBACK], monkeypatch)
    assert dialled == [("10.77.4.10", 4000), ("10.77.4.11", 4001), ("10.77.4.10", 4002)]


def test_a_spectator_on_the_hosts_machine_dials_loopback_seats_as_given(
        watcher: Watcher, monkeypatch: pytest.MonkeyPatch) -> None:
    dialled = _dialled(watcher, LOOPBACK, ["", "10.77.4.11", LOOPBACK], monkeypatch)
    assert dialled == [(LOOPBACK, 4000), ("10.77.4.11", 4001), (LOOPBACK, 4002)]
