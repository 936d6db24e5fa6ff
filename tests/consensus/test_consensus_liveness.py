"""What counts as hearing a seat (protocol.md §4.6, liveness.py): only frames on the seat's own
link, and its silence clock starts when that link first came up (issue 21 §4, issue 13 §3)."""

from __future__ import annotations

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus.replica import EpochPhase
from dudo_p2p.protocol.envelope import open_envelope
from dudo_p2p.protocol.kinds import Heartbeat, Vote
from dudo_p2p.rules import RuleSet

from .fakenet import FakeNet


def _left(net: FakeNet, seat: int, observer: int) -> list[str]:
    return [e.reason for e in net.events[observer]
            if isinstance(e, ev.PlayerLeft) and e.seat == seat]


def test_a_replayed_heartbeat_does_not_keep_a_dead_seat_alive() -> None:
    """Seat 2 dies holding the turn (no turn timer: only silence can free the table). A
    cheater that copied seat 2's last heartbeats off the wire replays them to both others
    every 0.5 s. They arrive validly signed but not on seat 2's own link, so they do not
    count: seat 2 is voted out for silence about 4.5 s after it died. (Before, any validly
    signed frame reset its silence clock and the table froze for as long as the replay ran.)
    A heartbeat addressed to another seat is also refused outright."""
    net = FakeNet(3, RuleSet(), seed=21)
    dead = 2
    net.policies[dead] = lambda m: None  # it will hold the turn when it dies
    last_beat: dict[int, bytes] = {}
    original = net.route

    def route(src: int, dst: int, frame: bytes, now: float) -> list[float]:
        if src == dead and isinstance(open_envelope(frame).body, Heartbeat):
            last_beat[dst] = frame
        return original(src, dst, frame, now)

    net.route = route

    def holds_the_turn() -> bool:
        m = net.machines[0]
        return (m.replica.phase in (EpochPhase.SETUP, EpochPhase.BIDDING)
                and m.view().to_act == dead
                and len(last_beat) == 2)

    net.run_until(holds_the_turn)
    net.crash(dead)
    died_at, next_replay = net.now, net.now
    while not all(_left(net, dead, s) for s in (0, 1)):
        assert net.now - died_at < 30, "the replayed heartbeats kept the dead seat in"
        if net.now >= next_replay:
            next_replay = net.now + 0.5
            for dst in (0, 1):
                net.inject(dst, last_beat[dst])
        net.step()
    assert _left(net, dead, 0) == ["silent"] and _left(net, dead, 1) == ["silent"]
    assert net.now - died_at < net.timeouts.silence + 1.5
    net.inject(0, last_beat[1])  # seat 2's heartbeat to seat 1, shown to seat 0
    for _ in range(100):
        net.step()
    assert any("addressed to another seat" in t for t in net.logs[0])


def test_the_silence_clock_starts_when_the_seats_link_first_came_up() -> None:
    """Under loss a link can take seconds to come up (TCP retries its SYN after 1 s, then
    3 s). Nothing seat 2 sends reaches seat 0 directly for the first 6 s (seat 1 hears it and
    relays its entries when stuck). Seat 0 must not count those seconds as silence: no
    ``silent`` vote against a seat every other seat hears, and the game ends on one head with
    nobody removed. (Counted from the start, seat 0 voted seat 2 silent at 4.5 s and then
    ignored its entries.) What the step timeout does meanwhile is not this rule's business.)"""
    late, deaf = 2, 0

    def route(src: int, dst: int, frame: bytes, now: float) -> list[float]:
        if src == late and dst == deaf and now < 6.0:
            return []  # the link is not up yet (from the very first frame)
        return [now + 0.002]

    rules = RuleSet.from_dict({**RuleSet().to_dict(), "starting_dice": 3})
    net = FakeNet(3, rules, seed=4, route=route)
    net.run()
    votes = [open_envelope(b).body for m in net.machines for box in m.votes.votes.values()
             for b in box.values()]
    assert [v for v in votes if isinstance(v, Vote) and v.reason == "silent"] == []
    assert all(not isinstance(e, ev.PlayerLeft) for s in range(3) for e in net.events[s])
    assert len(net.heads()) == 1
