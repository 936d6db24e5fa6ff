"""The spectator's rotation over seats (consensus/rotation.py): deterministic, no net."""

from __future__ import annotations

from dudo_p2p.consensus.rotation import ENLIST_EVERY, Rotation

A, B, C = b"a" * 32, b"b" * 32, b"c" * 32


def test_the_seat_we_joined_is_asked_and_the_others_are_enlisted_until_queued() -> None:
    rot = Rotation(b"me" * 16)
    rot.heard_from(B)  # the genesis came on B's link (the seat we joined)
    rot.seated((A, B, C))
    assert rot.target() == B
    assert rot.enlist(0.0) == [A, C]  # B took us already: it gave us the genesis
    assert rot.enlist(ENLIST_EVERY / 2) == []  # not before ENLIST_EVERY
    rot.queued(C)
    assert rot.enlist(ENLIST_EVERY) == [A]  # C's watch went out: not again
    rot.queued(A)
    assert rot.enlist(2 * ENLIST_EVERY) == []
    rot.heard_from(C)  # a frame from another seat changes nothing: B serves us
    assert rot.target() == B and rot.take_fresh() is None


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
