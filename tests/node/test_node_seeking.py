"""Which tables a joiner tries and when it stops (node/seeking.py), on made-up beacons."""

from __future__ import annotations

from dudo_p2p.crypto.identity import KeyPin, fingerprint
from dudo_p2p.net.beacon import Beacon, OtherTable, TableState
from dudo_p2p.net.discovery import Seen
from dudo_p2p.node.seeking import LOOK_AGAIN, Seeker, open_first
from dudo_p2p.protocol.refusals import RefusalReason

A, B, C = (bytes([i]) * 32 for i in (1, 2, 3))


def beacon(key: bytes, code: str = "KQ7XM", state: TableState = TableState.OPEN) -> Beacon:
    taken = 1 if state is TableState.OPEN else 2
    return Beacon(key, 4000, code, state, taken, 2, "host", 5)


def seen(b: Beacon) -> Seen:
    return Seen(b, "127.0.0.1", 0.0, 0.0)


def test_without_a_code_any_table_is_tried_open_first_and_a_refusing_host_not_again() -> None:
    seeker = Seeker(None, None, discovering=True)
    assert seeker.candidate(beacon(A))
    assert seeker.candidate(beacon(A, state=TableState.FULL))  # to hear its signed refusal
    assert not seeker.candidate(Beacon(B, 4000, name="tables"))
    full, playing, open_ = (seen(beacon(k, state=st)) for k, st in (
        (A, TableState.FULL), (B, TableState.PLAYING), (C, TableState.OPEN)))
    assert open_first([full, playing, open_]) == [open_, full, playing]
    seeker.refused(b"t" + A, A, RefusalReason.FULL)
    assert not seeker.candidate(beacon(A))


def test_with_a_code_a_full_table_is_tried_to_hear_its_signed_refusal() -> None:
    seeker = Seeker("KQ7XM", None, discovering=True)
    assert seeker.candidate(beacon(A, state=TableState.FULL))
    assert not seeker.candidate(beacon(A, code="ZZZZZ"))


def test_a_pin_keeps_only_the_chosen_hosts_beacons() -> None:
    seeker = Seeker("KQ7XM", KeyPin.parse(fingerprint(B)), discovering=True)
    assert not seeker.candidate(beacon(A)) and seeker.candidate(beacon(B))
    seeker.heard(beacon(A), seeking=True)
    seeker.heard(beacon(B), seeking=True)
    assert seeker.gave_up is None  # two hosts, but we chose one


def test_two_hosts_for_our_code_and_no_pin_stop_us_naming_both() -> None:
    seeker = Seeker("KQ7XM", None, discovering=True)
    seeker.heard(beacon(A), seeking=True)
    assert seeker.gave_up is None
    seeker.heard(beacon(B), seeking=True)
    assert seeker.gave_up is RefusalReason.AMBIGUOUS
    assert f"KQ7XM@{fingerprint(A)}" in seeker.why and f"KQ7XM@{fingerprint(B)}" in seeker.why


def test_a_second_host_seen_after_we_were_welcomed_does_not_stop_us_but_warns_once() -> None:
    seeker = Seeker("KQ7XM", None, discovering=True)
    assert seeker.heard(beacon(A), seeking=False) is None
    warning = seeker.heard(beacon(B), seeking=False)
    assert warning is not None and f"KQ7XM@{fingerprint(B)}" in warning
    assert seeker.heard(beacon(B), seeking=False) is None  # once, not at every beacon
    assert seeker.gave_up is None


def test_refused_everywhere_without_a_code_moves_on_then_says_no_open_table() -> None:
    seeker = Seeker(None, None, discovering=True)
    seeker.refused(b"t" + A, A, RefusalReason.FULL)
    others = [seen(beacon(A)), seen(beacon(C, state=TableState.PLAYING)), seen(beacon(B)),
              Seen(beacon(B), "10.0.0.2", 0.0, 0.0)]
    # one host at a time (both of B's addresses), an open one before a playing one
    assert [(s.beacon.peer_id, s.host) for s in seeker.stranded(others, 0.0)] == [
        (B, "127.0.0.1"), (B, "10.0.0.2")]
    seeker.refused(b"t" + C, C, RefusalReason.STARTED)
    seeker.refused(b"t" + B, B, RefusalReason.STARTED)
    assert seeker.stranded(others, 10.0) == []
    assert seeker.gave_up is None  # a beacon not heard yet may still come: look again
    seeker.look_again(10.0 + LOOK_AGAIN - 0.01)
    assert seeker.gave_up is None
    seeker.look_again(10.0 + LOOK_AGAIN)
    assert seeker.gave_up is RefusalReason.NO_OPEN_TABLE


def test_a_table_heard_while_looking_again_is_tried() -> None:
    seeker = Seeker(None, None, discovering=True)
    seeker.refused(b"t" + A, A, RefusalReason.FULL)
    assert seeker.stranded([seen(beacon(A))], 5.0) == []
    assert seeker.candidate(beacon(B))  # the node adds the target and chooses it
    seeker.choose(B)
    seeker.look_again(5.0 + LOOK_AGAIN)
    assert seeker.gave_up is None and seeker.give_up_at() is None


def test_refused_with_a_code_stops_with_the_hosts_reason_over_a_wrong_host() -> None:
    seeker = Seeker("KQ7XM", None, discovering=True)
    seeker.refused(b"t" + C, C, RefusalReason.WRONG_HOST)  # a copied beacon: someone else
    seeker.refused(b"t" + A, A, RefusalReason.FULL)
    seeker.refused(b"t" + B, B, RefusalReason.WRONG_HOST)
    assert seeker.stranded([seen(beacon(B))], 0.0) == []
    assert seeker.gave_up is RefusalReason.FULL and seeker.why == "the table is full"


def test_without_a_code_one_host_is_tried_at_a_time_until_it_refuses() -> None:
    seeker = Seeker(None, None, discovering=True)
    assert seeker.candidate(beacon(A)) and seeker.candidate(beacon(B))
    seeker.choose(A)
    assert seeker.candidate(beacon(A)) and not seeker.candidate(beacon(B))
    seeker.refused(b"t" + A, A, RefusalReason.FULL)
    assert seeker.candidate(beacon(B)) and not seeker.candidate(beacon(A))
    assert b"t" + A in seeker.dropped


def old_table(key: bytes, code: str = "KQ7XM") -> OtherTable:
    return OtherTable(1, key, 4000, code, TableState.OPEN, 1, 2, "viejo")


def test_our_code_offered_only_by_another_version_stops_us_with_reason_version() -> None:
    seeker = Seeker("KQ7XM", None, discovering=True)
    seeker.heard_other(old_table(A, "ZZ8PQ"), [])  # another code: nothing to do with us
    assert seeker.gave_up is None
    seeker.heard_other(old_table(A), [beacon(B)])  # a host of ours offers it too: try it
    assert seeker.gave_up is None
    pinned = Seeker("KQ7XM", KeyPin.parse(fingerprint(B)), discovering=True)
    pinned.heard_other(old_table(A), [])  # not the host we chose
    assert pinned.gave_up is None
    seeker.heard_other(old_table(A), [])
    assert seeker.gave_up is RefusalReason.VERSION
    assert "protocol version 1" in seeker.why and "update dudo-p2p" in seeker.why
