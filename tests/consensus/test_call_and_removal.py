"""A removal that one seat applies before the call and another after it (soak seed 5190).

Found as soak seed 5190 hanging at t=5121 on 733502a (3 peers; main's dice no longer play
that game since the genesis names the previous game, but the race is the same): the caller A
chained its call with the acks of Y and Z; Z crashed; Y never got Z's ack of the call (lost)
nor a sync reply from A before its step timer ran out (lost too: half of Y's asks went to
the crashed Z, whose last heartbeat still showed the longer log), so Y voted Z out for the
missing ack and A voted Z out as silent. The removal certificate (2 of 3 votes) then applies
at A *after the call* (protocol.md §4.6: the chain goes back to where REVEAL began and the
round resolves without Z) and at Y *before* it (the epoch is voided and dealt again): two
logs that never meet again. Y waits in the next epoch's setup for an A that waits in REVEAL
for Y's reveal; Y ends abandoned at best, A never ends.

Here the same race is made deterministic: from the moment the call is signed until Y holds
the votes that remove Z, the network to Y carries only acts, votes and heartbeats, and none of
Z's frames; Z crashes as soon as A has chained the call. The same game without those losses
(the last test) ends with one log. With four seats or more the others ack the call too and
resolve it without Z, while Y voided the epoch: they vote Y out of the call's epoch for its
missing reveal, an honest seat removed for the race.
"""

from __future__ import annotations

import pytest

from dudo_p2p.consensus.machine import Timeouts
from dudo_p2p.consensus.replica import AFTER_CALL
from dudo_p2p.protocol.envelope import peek_kind
from dudo_p2p.rules import RuleSet

from .fakenet import FakeNet, call_in

MAX_STEPS = 10_000  # the same game without the losses ends within about 800 steps


class LogsSplit(AssertionError):
    """The seats left at the table did not all end with one log."""


class CallRace:
    """FakeNet of ``n`` seats and the losses of the module docstring (Y and Z: the first two
    seats after the caller A in seat order; any other seat's network is not touched)."""

    def __init__(self, seed: int, *, losses: bool, n: int = 3) -> None:
        rules = RuleSet.from_dict({**RuleSet().to_dict(), "starting_dice": 3})
        self.n = n
        self.net = FakeNet(n, rules, seed=seed, timeouts=Timeouts())
        self.losses = losses
        self.call: tuple[int, int] | None = None  # (caller A, epoch)
        self.y = self.z = -1
        self.cut = True  # Y's side of the network is lossy until it applied the removal
        self.crashed = False
        self._route = self.net.route
        self.net.route = self.route

    def route(self, src: int, dst: int, frame: bytes, now: float) -> list[float]:
        kind = peek_kind(frame)
        if self.call is None and (call := call_in(self.net, frame)) is not None:
            self.y, self.z = [s for s in range(self.n) if s != call[0]][:2]
            self.call = call
        lost = src == self.z or kind not in ("act", "vote", "heartbeat")
        if self.losses and self.call is not None and self.cut and dst == self.y and lost:
            return []
        return self._route(src, dst, frame, now)

    def play(self) -> int:
        """Steps until every seat left is over (at most MAX_STEPS)."""
        net = self.net
        for step in range(MAX_STEPS):
            if all(net.machines[s].over for s in range(self.n) if s not in net.dead):
                return step
            if self.call is not None and not self.crashed:
                caller, epoch = self.call
                rep = net.machines[caller].replica
                if rep.epoch.number == epoch and rep.phase in AFTER_CALL:
                    net.crash(self.z)
                    self.crashed = True
            if self.crashed and self.cut and self.call is not None:
                # Y holds the votes that remove Z (it applied the removal, before the call
                # or after it, or holds it back): no more losses
                self.cut = (self.call[1], self.z) not in net.machines[self.y].certificates
            net.step()
        return MAX_STEPS

    def check(self) -> None:
        net = self.net
        assert self.crashed and not self.cut, "the scenario did not happen"
        left = [s for s in range(self.n) if s not in net.dead]
        chains = {s: [i.digest for i in net.machines[s].replica.chain] for s in left}
        longest = max(chains.values(), key=len)
        split = [s for s in left if chains[s] != longest[: len(chains[s])]]
        running = [s for s in left if not net.machines[s].over]
        removed = [s for s in left if net.machines[s].removed_me]
        if split or running or removed:
            # every seat but Z is alive and honest: none may be removed, all end on one log
            raise LogsSplit(f"seats {split} hold another log, seats {running} never end, "
                            f"seats {removed} were removed")


# (seats, seed): each ended split before issue 19's fix, d5f09e1 (3 seats: two logs, neither
# ends; 4 to 6 seats: Y voided the epoch, the others resolved the call without Z and voted Y
# out); now Y holds the removal back until the call is agreed (removal_hold.py)
SPLIT_CASES = [(3, 1), (3, 4), (4, 1), (4, 2), (5, 3), (6, 1)]


@pytest.mark.parametrize(("n", "seed"), SPLIT_CASES)
def test_a_removal_taken_before_the_call_by_one_seat_and_after_it_by_another(
    n: int, seed: int
) -> None:
    race = CallRace(seed, losses=True, n=n)
    race.play()
    race.check()


@pytest.mark.parametrize(("n", "seed"), [(3, 1), (3, 4), (4, 1), (5, 3)])
def test_without_the_losses_the_same_crash_ends_the_game_with_one_log(n: int, seed: int) -> None:
    race = CallRace(seed, losses=False, n=n)
    steps = race.play()
    assert race.crashed and steps < MAX_STEPS
    race.check()
    assert len(race.net.heads()) == 1
