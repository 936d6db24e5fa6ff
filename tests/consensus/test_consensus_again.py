"""One more game (consensus/again.py, protocol.md §4.9 "One more game"): who opens the next
table, where, and which answers count. Pure: seatings made in memory, no clock."""

from __future__ import annotations

import hashlib

from dudo_p2p.consensus.again import AGAIN_EVERY, ANSWER_WITHIN, AfterGame, Answer
from dudo_p2p.consensus.genesis import seating_from
from dudo_p2p.protocol.envelope import seal_envelope
from dudo_p2p.protocol.kinds import Again, Bye
from dudo_p2p.rules import RuleSet

from .fakenet import identities, make_genesis

HEAD = hashlib.sha256(b"the final head").digest()


def table(n: int = 4, head: bytes = HEAD, removed: tuple[int, ...] = ()) -> list[AfterGame]:
    ids = identities(n, seed=5)
    seating = seating_from(*make_genesis(ids, RuleSet()))
    return [AfterGame(i, seating, head, removed) for i in ids]


def tell(seats: list[AfterGame], speaker: int, answer: Answer) -> None:
    frame = seats[speaker].say(answer)
    for s, seat in enumerate(seats):
        if s != speaker:
            assert seat.receive(frame) is None


def test_the_previous_host_opens_while_it_is_there_and_everyone_agrees() -> None:
    seats = table()
    # nobody answered yet: seat 0 is waited for, by everyone (itself included)
    assert {s.opener() for s in seats} == {0}
    tell(seats, 2, Answer(want=True, host=True))
    assert {s.opener() for s in seats} == {0}
    assert seats[2].offer() is None  # seat 0 has not named a table yet
    tell(seats, 0, Answer(want=True, host=True, table="K7QXM", port=40100))
    assert {s.opener() for s in seats} == {0}
    assert seats[2].offer() == (0, "K7QXM", 40100)
    assert seats[0].offer() is None  # the opener follows nobody


def test_when_the_host_declines_the_next_seat_in_the_running_opens() -> None:
    seats = table()
    tell(seats, 1, Answer(want=True, host=False))  # a bot: only follows
    assert {s.opener() for s in seats} == {0}
    tell(seats, 0, Answer(want=False, host=True))
    # seat 1 never hosts: seat 2 is next, and nobody has to wait for seat 0 any more
    assert {s.opener() for s in seats} == {2}
    assert seats[2].coming() == {1, 3}
    tell(seats, 2, Answer(want=True, host=True, table="K7QXM", port=41000))
    assert seats[1].offer() == (2, "K7QXM", 41000)
    assert seats[3].offer() == (2, "K7QXM", 41000)


def test_a_removed_seat_or_one_gone_silent_is_out_of_the_running() -> None:
    seats = table(removed=(0,))
    assert {s.opener() for s in seats} == {1}
    assert seats[1].coming() == {2, 3}
    # seat 1 went silent (the caller's presence tracking says so): seat 2 opens, as seen
    # by the others; seat 1 itself is never "away" to itself
    assert seats[2].opener(away={1}) == 2
    assert seats[3].opener(away={1}) == 2
    assert seats[1].opener(away={1}) == 1


def test_nobody_in_the_running_means_no_next_game() -> None:
    seats = table(n=2)
    tell(seats, 0, Answer(want=False, host=True))
    tell(seats, 1, Answer(want=True, host=False))
    assert seats[0].opener() is None
    assert seats[1].opener() is None
    assert seats[1].offer() is None


def test_a_decline_is_final_on_both_sides() -> None:
    seats = table(n=3)
    tell(seats, 1, Answer(want=False, host=True))
    tell(seats, 1, Answer(want=True, host=True, table="K7QXM", port=1))
    assert seats[1].said[1].want is False
    assert seats[0].said[1].want is False
    # a "yes" forged into a frame after a "no" is not taken either
    frame = seal_envelope(seats[1].identity, seats[1].seating.game_id, 0, 0,
                          Again(HEAD, True, True, "K7QXM", 7)).to_bytes()
    assert seats[0].receive(frame) is None
    assert seats[0].said[1].want is False


def test_answers_about_another_game_or_another_end_or_from_strangers_are_refused() -> None:
    seats = table(n=3)
    other = table(n=3, head=hashlib.sha256(b"another end").digest())
    ident = seats[1].identity
    game = seats[1].seating.game_id
    answer = Again(HEAD, True, True, "K7QXM", 40000)
    cases = {
        "another end": other[1].say(Answer(True, True)),
        "another game": seal_envelope(ident, bytes(16), 0, 0, answer).to_bytes(),
        "round 1": seal_envelope(ident, game, 1, 0, answer).to_bytes(),
        "seq 1": seal_envelope(ident, game, 0, 1, answer).to_bytes(),
        "not again": seal_envelope(ident, game, 0, 0, Bye("quit")).to_bytes(),
        "a stranger": seal_envelope(identities(1, seed=99)[0], game, 0, 0, answer).to_bytes(),
        "our own key": seal_envelope(seats[0].identity, game, 0, 0, answer).to_bytes(),
        "garbage": b"\x93garbage",
    }
    for why, frame in cases.items():
        assert seats[0].receive(frame) is not None, why
    assert seats[0].said == {}


def test_our_answer_is_sent_again_every_second_and_not_before_we_answered() -> None:
    seat = table(n=2)[0]
    assert seat.due(0.0) is None
    seat.say(Answer(want=True, host=True))
    seat.sent_at = 10.0
    assert seat.due(10.0 + AGAIN_EVERY / 2) is None
    frame = seat.due(10.0 + AGAIN_EVERY)
    assert frame is not None and seat.sent_at == 10.0 + AGAIN_EVERY
    other = table(n=2)[1]
    assert other.receive(frame) is None and other.said[0] == Answer(True, True)


def test_a_seat_that_never_answers_is_waited_for_only_a_bounded_time() -> None:
    """A seat that crashed (no decline) or whose window stays on the end screen says
    nothing: it keeps the next seats from opening only ANSWER_WITHIN seconds from the end.
    A table once named stays the table: the late seat follows it, it does not take over."""
    seats = table()
    for s in (1, 2, 3):
        tell(seats, s, Answer(want=True, host=True))
    soon, late = 10.0, ANSWER_WITHIN + 1.0
    assert {s.opener(now=soon) for s in seats} == {0}
    assert 0 in seats[1].coming(now=soon)
    assert {s.opener(now=late) for s in seats} == {1}
    assert seats[1].coming(now=late) == {2, 3}, "not waited for to start either"
    tell(seats, 1, Answer(want=True, host=True, table="K7QXM", port=40200))
    tell(seats, 0, Answer(want=True, host=True))  # back at last: it follows
    assert {s.opener(now=late) for s in seats} == {1}
    assert seats[0].offer(now=late) == (1, "K7QXM", 40200)
    assert 0 in seats[1].coming(now=late)


def test_when_everyone_answers_late_the_previous_host_still_opens() -> None:
    seats = table()
    for s in (3, 2, 1, 0):
        tell(seats, s, Answer(want=True, host=True))
    assert {s.opener(now=ANSWER_WITHIN * 3) for s in seats} == {0}
