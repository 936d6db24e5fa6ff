"""Two seats on a flaky link (protocol.md §4.6, "two-seat silence"), and which case of a
table gone ended a game (``TableGone.why``).

With two seats left a seat silent past its grace gets a claim and the game ends abandoned
for both. At a table with no grace (bots) that was 4.5 s of silence, and a lossy Wi-Fi link
goes that long unheard while both seats live (``lan_sweep --hard`` seeds 18, 20, 34, 44, 51:
a two-player final abandoned, no winner). Now the silence before a two-seat claim is at
least :data:`TWO_SEAT_SILENCE` (15 s); a seat really dead still ends the game abandoned, in
that time plus a step at most. FakeNet: injected clock, seeded RNG."""

from __future__ import annotations

import pytest

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus.machine import Timeouts
from dudo_p2p.consensus.presence import TWO_SEAT_SILENCE, Presence
from dudo_p2p.consensus.reasons import Outcome
from dudo_p2p.consensus.replica import EpochPhase
from dudo_p2p.rules import RuleSet

from .fakenet import FakeNet
from .test_call_race_random import RandomRace

RULES = RuleSet(starting_dice=3)
STEP = Timeouts().step


def bidding(net: FakeNet) -> bool:
    rep = net.machines[0].replica
    return rep.epoch.number >= 2 and rep.phase is EpochPhase.BIDDING


def total_loss(net: FakeNet, start: float, length: float) -> None:
    """Every frame to every seat sent in [start, start + length) is lost: the link down."""
    route = net.route

    def lossy(src: int, dst: int, frame: bytes, now: float) -> list[float]:
        return [] if start <= now < start + length else route(src, dst, frame, now)

    net.route = lossy


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_a_10_s_total_loss_at_two_seats_with_no_grace_ends_with_a_winner(seed: int) -> None:
    """Both seats alive, every frame lost for 10 s mid-game: each shows the other
    disconnected, neither claims (it used to, at 4.5 s: abandoned, no winner), and once the
    link is back the game goes on to a winner on one log."""
    net = FakeNet(2, RULES, seed=seed)
    net.run_until(lambda: bidding(net))
    start = net.now
    total_loss(net, start, 10.0)
    net.run(max_steps=60_000)
    assert [m.outcome for m in net.machines] == [Outcome.FINISHED] * 2
    assert net.machines[0].replica.engine.winner is not None
    assert len(net.heads()) == 1
    for seat in (0, 1):
        assert any(isinstance(e, ev.SeatDisconnected) for e in net.events[seat]), \
            "the loss was long enough to be seen"
        assert not any(isinstance(e, ev.GameAbandoned | ev.PlayerLeft) for e in net.events[seat])


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_a_seat_really_dead_at_two_seats_still_ends_the_game_abandoned_within_floor_and_step(
        seed: int) -> None:
    """Seat 1 dies for good: seat 0 is told it is disconnected with the claim's time as the
    end of its countdown (15 s of silence, not 4.5), claims then, and the game ends abandoned,
    no winner, no sooner than the floor after seat 1 was last heard and no later than the
    floor and a step after the crash."""
    net = FakeNet(2, RULES, seed=seed)
    net.run_until(lambda: bidding(net))
    net.crash(1)
    crashed_at = net.now
    heard = net.machines[0].timers.last_heard[1]
    m = net.machines[0]
    net.run_until(lambda: m.over, max_steps=10_000)
    assert m.outcome is Outcome.ABANDONED and m.replica.engine.winner is None
    assert heard + TWO_SEAT_SILENCE < net.now <= crashed_at + TWO_SEAT_SILENCE + STEP
    told = [e for e in net.events[0] if isinstance(e, ev.SeatDisconnected)]
    assert told and told[-1].until == pytest.approx(heard + TWO_SEAT_SILENCE)
    assert any(isinstance(e, ev.GameAbandoned) and e.seat == 1 for e in net.events[0])


def test_three_seats_with_no_grace_still_vote_a_dead_seat_out_at_the_silence_timeout() -> None:
    """The floor is for two seats only: at three a silent seat is voted out as before."""
    net = FakeNet(3, RULES, seed=5)
    net.run_until(lambda: bidding(net))
    net.crash(2)
    crashed_at = net.now
    net.run_until(lambda: any(isinstance(e, ev.PlayerLeft) and e.seat == 2
                              for e in net.events[0]), max_steps=10_000)
    assert net.now - crashed_at < Timeouts().silence + 2.0


def test_the_floor_only_lengthens_the_grace_at_two_seats_and_never_shortens_one() -> None:
    short, long = Presence(silence=4.5, grace=0.0), Presence(silence=4.5, grace=30.0)
    assert short.grace_at(3) == 0.0 and short.grace_at(2) == TWO_SEAT_SILENCE - 4.5
    assert long.grace_at(2) == long.grace_at(3) == 30.0
    assert short.gone_after(2) > TWO_SEAT_SILENCE, "a dead seat's claim comes before 'gone'"


def test_a_seat_away_when_the_epoch_comes_down_to_two_seats_gets_the_later_end() -> None:
    """Seat 2 went silent at three seats (grace end at 4.5 s of silence); a removal leaves
    two: its end moves to the floor, and the player is told the new end."""
    presence = Presence(silence=4.5, grace=0.0)
    first = presence.observe(2, 10.0, 15.0, seats=3)
    assert first == ev.SeatDisconnected(2, 14.5)
    assert presence.observe(2, 10.0, 15.1, seats=3) is None
    assert presence.observe(2, 10.0, 15.2, seats=2) == ev.SeatDisconnected(2, 25.0)
    assert presence.observe(2, 10.0, 15.3, seats=2) is None
    assert not presence.gone(2, 24.9) and presence.gone(2, 25.1)


# ---- which case of a table gone --------------------------------------------------------------


def test_a_table_gone_with_nobody_heard_says_nobody() -> None:
    presence = Presence(silence=4.5, grace=0.0)
    heard = {0: 100.0, 1: 0.0, 2: 0.0}
    assert presence.gone_why(heard, 0, 100.0, (0, 1, 2)) == ev.TableGone()
    assert presence.gone_why(heard, 0, 100.0, (0, 1, 2)).why == "nobody"


def test_a_table_gone_with_too_few_heard_says_so_and_names_the_silent_seats() -> None:
    """Five seats, three silent: we hear seat 1, but two of five can remove nobody."""
    presence = Presence(silence=4.5, grace=0.0)
    heard = {0: 100.0, 1: 99.0, 2: 0.0, 3: 0.0, 4: 0.0}
    gone = presence.gone_why(heard, 0, 100.0, range(5))
    assert gone == ev.TableGone("too-few", (2, 3, 4))


def test_a_table_gone_with_the_seat_heard_stuck_behind_says_behind() -> None:
    """Three seats, seat 2 silent, seat 1 heard but behind our epoch, our log stuck: it is
    gone only because seat 1 is counted out, and the case says so (not 'nobody heard')."""
    presence = Presence(silence=4.5, grace=0.0)
    heard = {0: 100.0, 1: 99.5, 2: 0.0}
    assert presence.gone_why(heard, 0, 100.0, (0, 1, 2), behind=(1,), progress_at=99.0) is None
    gone = presence.gone_why(heard, 0, 100.0, (0, 1, 2), behind=(1,), progress_at=0.0)
    assert gone == ev.TableGone("behind", (2,), (1,))


def test_the_seat_whose_log_is_stuck_with_a_seat_behind_ends_behind_and_that_seat_nobody() -> None:
    """test_call_race_random's window of 25 s: seat 1, its log stuck with seat 0 behind it
    and seat 2 dead, ends "table gone" though it hears seat 0 (the case "behind", naming 2
    silent and 0 behind); then seat 0, hearing nobody, ends "nobody"."""
    race = RandomRace(20, 3)
    race.window = 25.0
    race.play(leave=True)
    assert race.crashed == [2]
    gone = {s: [e for e in race.net.events[s] if isinstance(e, ev.TableGone)] for s in (0, 1)}
    assert gone[1] == [ev.TableGone("behind", (2,), (0,))]
    assert gone[0] == [ev.TableGone()]
    assert race.net.machines[1].gone == ev.TableGone("behind", (2,), (0,))


def test_a_seat_never_heard_since_our_start_counts_its_silence_from_the_start() -> None:
    """A seat never heard is taken as silent link setup (15 s) after our start (a restart
    from the journal too): at two seats that already is the floor, counted from the start,
    not 15 s more on top of it (its last_heard is a stand-in, link setup - silence on)."""
    presence = Presence(silence=4.5, grace=0.0)
    start, setup = 100.0, Timeouts().link_setup
    stand_in = start + setup - 4.5
    assert presence.grace_end(stand_in, 2, heard_at=start) == start + max(setup, TWO_SEAT_SILENCE)
    assert presence.grace_end(stand_in, 2) == stand_in + TWO_SEAT_SILENCE  # once really heard
