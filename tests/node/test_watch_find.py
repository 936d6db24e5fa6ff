"""Which table ``watch --discover`` picks from the beacons heard (node/watch_find.py).
Pure: no sockets."""

from __future__ import annotations

import pytest

from dudo_p2p.crypto.identity import KeyPin, fingerprint
from dudo_p2p.net.beacon import Beacon, TableState
from dudo_p2p.net.discovery import Seen
from dudo_p2p.node.watch_find import NotFound, choose
from dudo_p2p.protocol.refusals import RefusalReason

HOST_A, HOST_B = b"\x0a" * 32, b"\x0b" * 32


def seen(key: bytes, code: str, state: TableState = TableState.PLAYING,
         host: str = "10.0.0.2", port: int = 4000) -> Seen:
    total = 0 if state is TableState.NONE else 3
    taken = 1 if state is TableState.OPEN else total
    beacon = Beacon(key, port, code, state, taken, total, "h", 5 if total else 0)
    return Seen(beacon, host, 0.0, 0.0)


def test_the_table_of_the_code_is_chosen_with_the_address_its_beacon_came_from() -> None:
    found = choose([seen(HOST_A, "KQ7XM", port=4100), seen(HOST_B, "ABCDE")], "KQ7XM", None)
    assert (found.code, found.host_key, found.host, found.port) == ("KQ7XM", HOST_A,
                                                                   "10.0.0.2", 4100)


def test_two_hosts_of_one_code_are_ambiguous_until_a_fingerprint_chooses_one() -> None:
    twins = [seen(HOST_A, "KQ7XM"), seen(HOST_B, "KQ7XM", port=4200)]
    with pytest.raises(NotFound) as err:
        choose(twins, "KQ7XM", None)
    assert err.value.reason is RefusalReason.AMBIGUOUS
    assert sorted(err.value.tables) == sorted(f"KQ7XM@{fingerprint(k)}" for k in (HOST_A, HOST_B))
    pin = KeyPin.parse(fingerprint(HOST_B))
    assert choose(twins, "KQ7XM", pin).port == 4200


def test_without_a_code_the_only_table_is_chosen_and_a_peer_hosting_nothing_is_not_one() -> None:
    one = [seen(HOST_A, "", TableState.NONE), seen(HOST_B, "ABCDE", TableState.OPEN)]
    assert choose(one, None, None).host_key == HOST_B
    with pytest.raises(NotFound) as err:
        choose([*one, seen(HOST_A, "KQ7XM")], None, None)
    assert err.value.reason is RefusalReason.AMBIGUOUS


def test_nothing_of_that_code_heard_is_no_open_table() -> None:
    with pytest.raises(NotFound) as err:
        choose([seen(HOST_A, "ABCDE")], "KQ7XM", None)
    assert err.value.reason is RefusalReason.NO_OPEN_TABLE
