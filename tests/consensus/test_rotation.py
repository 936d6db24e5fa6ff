"""The spectator's rotation over seats (consensus/rotation.py): deterministic, no net."""

from __future__ import annotations

from dudo_p2p.consensus.rotation import ENLIST_EVERY, Rotation

A, B, C = b"a" * 32, b"b" * 32, b"c" * 32


def preferring(seat: bytes, pubs: tuple[bytes, ...] = (A, B, C)) -> Rotation:
    """A rotation whose key prefers ``seat`` (found by trying keys: the choice is a hash)."""
    for k in range(1000):
        rot = Rotation(b"key%d" % k)
        rot.seated(pubs)
        if rot.preferred == seat:
            return Rotation(b"key%d" % k)
    raise AssertionError("no key prefers that seat")


def test_the_seat_we_joined_is_asked_first_and_the_others_are_enlisted_until_they_serve() -> None:
    rot = preferring(B)
    rot.heard_from(B)  # the genesis came on B's link (the seat we joined)
    rot.seated((A, B, C))
    assert rot.target() == B
    assert rot.enlist(0.0) == [A, C]
    assert rot.enlist(ENLIST_EVERY / 2) == []  # not before ENLIST_EVERY
    rot.heard_from(C)
    assert rot.enlist(ENLIST_EVERY) == [A]  # C took us: not asked to again
    assert rot.serving == [B, C]


def test_an_unanswered_ask_moves_to_the_next_serving_seat_in_seat_order_and_wraps() -> None:
    rot = preferring(B)
    rot.heard_from(B)
    rot.seated((A, B, C))
    rot.heard_from(A)
    rot.heard_from(C)
    seen = [rot.target()]
    for _ in range(4):
        rot.advance()
        seen.append(rot.target())
    assert seen == [B, C, A, B, C]
    assert rot.moves == 4


def test_a_seat_that_never_served_is_never_asked_and_a_lone_seat_stays() -> None:
    rot = preferring(A)
    rot.heard_from(A)
    rot.seated((A, B, C))
    rot.advance()
    assert rot.target() == A and rot.moves == 0  # B and C never took us
    rot.heard_from(b"x" * 32)  # not a seat: a claimed id of nobody at the table
    assert rot.serving == [A]


def test_before_any_seat_served_the_link_we_joined_is_asked() -> None:
    rot = preferring(A, (A, B))
    rot.seated((A, B))
    assert rot.target() is None
    rot.advance()
    assert rot.target() is None
    rot.heard_from(B)
    assert rot.target() == B


def test_the_preferred_seat_takes_over_once_it_serves_so_spectators_spread() -> None:
    rot = preferring(C)
    rot.heard_from(A)  # we joined A
    rot.seated((A, B, C))
    assert rot.target() == A
    rot.heard_from(B)
    assert rot.target() == A  # B is not ours: A keeps serving
    rot.heard_from(C)
    assert rot.target() == C
    rot.advance()  # C went silent
    assert rot.target() == A
    rot.heard_from(C)  # C again: not a first frame, no jump back
    assert rot.target() == A
    spread = {r.preferred for r in (Rotation(b"k%d" % k) for k in range(60))
              if r.seated((A, B, C)) is None}
    assert spread == {A, B, C}  # keys spread over every seat
