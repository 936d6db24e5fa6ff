"""The spectator's rotation over seats (consensus/rotation.py): deterministic, no net."""

from __future__ import annotations

import hashlib
from collections import Counter

from dudo_p2p.consensus.rotation import (
    ENLIST_EVERY,
    ENLIST_SOON,
    PREFER_WITHIN,
    Rotation,
    preferred,
)

A, B, C = b"a" * 32, b"b" * 32, b"c" * 32


def test_the_seat_preferred_is_asked_once_enlisted_at_and_the_joined_one_only_introduces(
) -> None:
    me = b"me" * 16
    rot = Rotation(me)
    rot.heard_from(B)  # the genesis came on B's link (the seat we joined)
    rot.seated((A, B, C), now=0.0)
    pick = preferred(me, (A, C))  # one of the others, by our key
    other = C if pick == A else A
    assert pick in (A, C) and rot.prefer == pick
    assert rot.target() == B and rot.waiting(0.0)  # the first ask waits for that seat
    assert rot.enlist(0.0) == [A, C]  # B took us already: it gave us the genesis
    assert rot.enlist(ENLIST_SOON / 2) == []
    assert rot.enlist(ENLIST_SOON) == [A, C]  # soon again while the first ask waits
    rot.queued(pick)  # its link is up: our watch to it went out
    assert not rot.waiting(ENLIST_SOON) and rot.target() == pick
    assert rot.enlist(2 * ENLIST_SOON) == [other]  # (due already)
    assert rot.enlist(3 * ENLIST_SOON) == []  # from now on every ENLIST_EVERY
    assert rot.enlist(2 * ENLIST_SOON + ENLIST_EVERY) == [other]
    rot.queued(other)
    assert rot.enlist(2 * ENLIST_SOON + 2 * ENLIST_EVERY) == []
    rot.heard_from(other)  # a frame from another seat changes nothing
    assert rot.target() == pick and rot.take_fresh() is None and rot.moves == 0


def test_the_seat_joined_is_asked_when_the_preferred_ones_link_is_not_up_in_time() -> None:
    rot = Rotation(b"me" * 16)
    rot.heard_from(B)
    rot.seated((A, B, C), now=10.0)
    pick = rot.prefer
    assert pick is not None and rot.waiting(10.0 + PREFER_WITHIN - 0.01)
    assert not rot.waiting(10.0 + PREFER_WITHIN) and rot.target() == B
    rot.queued(pick)  # up later: B serves us now, no move for that
    assert not rot.waiting(20.0) and rot.target() == B


def test_spectators_spread_evenly_over_the_seats_they_did_not_join() -> None:
    seats = tuple(bytes([k]) * 32 for k in range(5))
    counts = Counter(preferred(hashlib.sha256(k.to_bytes(2, "big")).digest(), seats)
                     for k in range(1000))
    assert sorted(counts) == sorted(seats)
    assert all(150 <= n <= 250 for n in counts.values()), counts  # 200 each expected
    assert preferred(b"x" * 32, (A,)) == A and preferred(b"x" * 32, ()) is None


def test_an_unanswered_ask_moves_to_the_next_seat_in_seat_order_and_wraps() -> None:
    rot = Rotation()
    rot.heard_from(B)
    rot.seated((A, B, C))
    seen, fresh = [rot.target()], []
    for _ in range(4):
        rot.advance()
        seen.append(rot.target())
        fresh.append(rot.take_fresh())
    assert seen == [B, C, A, B, C]
    assert fresh == [C, A, B, C]  # each seat moved to is told watch again, once
    assert rot.take_fresh() is None
    assert rot.moves == 4


def test_a_seat_watching_the_rest_of_its_game_never_asks_itself() -> None:
    rot = Rotation(A)  # seat A was removed and watches with its own key
    rot.heard_from(B)
    rot.seated((A, B, C))
    assert rot.pubs == (B, C)
    assert rot.enlist(0.0) == [C]
    rot.advance()
    rot.advance()
    assert rot.target() == B


def test_before_any_seat_is_heard_the_link_we_joined_is_asked() -> None:
    rot = Rotation()
    rot.seated((A, B))
    assert rot.target() is None
    rot.heard_from(b"x" * 32)  # not a seat: a claimed id of nobody at the table
    assert rot.target() is None
    rot.heard_from(B)
    assert rot.target() == B
    rot.advance()
    assert rot.target() == A and rot.take_fresh() == A
