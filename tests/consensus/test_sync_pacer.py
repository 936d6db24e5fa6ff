"""SyncPacer (consensus/sync.py): where we ask a seat from, and whom we ask.

Soak seed 5190's trace (issue 19) showed two costs: asks alternating between two seats ahead
asked the live one from the epoch's anchor every time (one ``asked_len`` for all seats), and
a crashed seat, ahead by its last heartbeat, was asked every other time until its removal.
"""

from __future__ import annotations

from dudo_p2p.consensus.sync import SyncPacer

HEARTBEAT = 1.0
LENGTH, ANCHOR = 40, 31


def test_an_ask_goes_back_to_the_anchor_only_when_that_seat_was_asked_from_there() -> None:
    pacer = SyncPacer(HEARTBEAT)
    # alternating between seats 1 and 2 from the same length: each first ask is from our length
    assert pacer.have(1, LENGTH, ANCHOR) == LENGTH
    assert pacer.have(2, LENGTH, ANCHOR) == LENGTH
    # seat 1 asked from LENGTH already and nothing moved us: what follows does not fit
    assert pacer.have(1, LENGTH, ANCHOR) == ANCHOR
    assert pacer.have(2, LENGTH, ANCHOR) == ANCHOR
    # and back to our length once we grew (or after an ask from the anchor)
    assert pacer.have(1, LENGTH, ANCHOR) == LENGTH
    assert pacer.have(2, LENGTH + 3, ANCHOR) == LENGTH + 3


def test_the_seats_ahead_are_asked_in_turn() -> None:
    pacer = SyncPacer(HEARTBEAT)
    for seat in (1, 2):
        pacer.beat(seat, 10.0)
    assert pacer.pick([2, 1], 10.0) == 1  # never asked: the lowest first
    pacer.expect(1, LENGTH, 10.0)
    assert pacer.pick([1, 2], 10.5) == 2
    pacer.expect(2, LENGTH, 10.5)
    assert pacer.pick([1, 2], 11.0) == 1
    assert pacer.pick([], 11.0) is None


def test_a_seat_gone_silent_is_asked_only_when_no_live_seat_is_ahead() -> None:
    pacer = SyncPacer(HEARTBEAT)
    pacer.beat(0, 14.0)  # seat 0's last heartbeat (it crashed after it)
    now = 14.5
    for step in range(8):
        pacer.beat(1, now)
        seat = pacer.pick([0, 1], now)
        if step < 2:  # heard within two intervals: still asked in turn
            assert seat == (0 if step == 0 else 1)
        else:
            assert seat == 1, (step, now)
        assert seat is not None
        pacer.expect(seat, LENGTH, now)
        now += HEARTBEAT
    # only the silent seat ahead: it is asked (a lost heartbeat is not a crash)
    assert pacer.pick([0], now) == 0


def test_a_reply_landing_after_the_next_ask_still_answers_it_once() -> None:
    """On a lossy link a reply can take longer than the heartbeat interval between two asks
    (each from another ``have``); keeping only the latest ask made every such reply
    unasked (lan_sweep --hard seed 56: test_consensus_late_sync_reply.py)."""
    pacer = SyncPacer(HEARTBEAT)
    pacer.expect(1, LENGTH, 10.0)
    pacer.expect(1, ANCHOR, 11.0)  # the next ask, before the first reply came
    assert pacer.answered(1, LENGTH)  # the reply to the first ask, late
    assert not pacer.answered(1, LENGTH)  # once
    assert not pacer.answered(2, ANCHOR)  # another seat was not asked
    assert pacer.answered(1, ANCHOR)
    assert not pacer.answered(1, ANCHOR)
    # only the last two asks stay open: a reply to the one before them is not taken
    for have in (LENGTH, LENGTH + 1, LENGTH + 2):
        pacer.expect(1, have, 12.0)
    assert not pacer.answered(1, LENGTH)
    assert pacer.answered(1, LENGTH + 1) and pacer.answered(1, LENGTH + 2)
