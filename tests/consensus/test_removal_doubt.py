"""consensus/removal_doubt: a grace counted again after a total loss is told again."""

from __future__ import annotations

from dudo_p2p.consensus.presence import Presence
from dudo_p2p.consensus.removal_doubt import heard_after, silent_since


def test_a_seat_heard_after_another_fell_silent_says_our_link_worked() -> None:
    heard = {0: 100.0, 1: 90.0, 2: 93.0}  # we are 0; 1 silent since 90, 2 heard at 93
    assert heard_after(heard, 0, 1, silence=4.5)  # 93 > 90 + 2.25
    assert not heard_after(heard, 0, 1, silence=4.5, but=(2,))
    assert not heard_after({0: 100.0, 1: 90.0, 2: 91.0}, 0, 1, silence=4.5)


def test_a_grace_that_starts_again_is_returned_with_its_new_end_and_only_then() -> None:
    presence = Presence(silence=4.5, grace=30.0)
    # a total loss from 10 s: seats 1, 2 and 3 unheard; each shown disconnected at 14.5 s
    heard = {0: 20.0, 1: 10.0, 2: 10.0, 3: 10.0}
    for seat in (1, 2, 3):
        event = presence.observe(seat, heard[seat], 14.6)
        assert event is not None and event.until == 10.0 + 4.5 + 30.0
    # at 18 s seat 2 is heard again: 1 and 3, that nobody was heard after, count from 18 s
    heard[2] = 18.0
    assert presence.observe(2, heard[2], 18.0) is not None  # back
    moved = silent_since(presence, heard, 0, back={2}, now=18.0)
    assert moved == {1: 18.0 + 34.5, 3: 18.0 + 34.5}
    assert presence.away == moved
    # later, seat 3 is heard again too: seat 1 stays silent while 2 was heard well after it
    # last was, so its silence tells about it now: its end stays where it was
    heard[3] = 19.5
    assert presence.observe(3, heard[3], 19.5) is not None
    assert silent_since(presence, heard, 0, back={3}, now=19.5) == {}
    assert presence.away == {1: 18.0 + 34.5}
