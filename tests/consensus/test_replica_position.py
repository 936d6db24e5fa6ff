"""Where an entry builds: on our head (it may fit), on a head we passed (stale, dropped), on
a head we do not hold (not yet, buffered) — protocol.md §4.4 and §6's replay row.

Before, the replica compared ``prev`` (a chain head) with the entries' digests, which never
match: an entry built on an earlier head (other than the genesis) was buffered as "not yet"
and retried at every chaining, up to MAX_BUFFERED, instead of dropped as the spec says.
"""

from __future__ import annotations

import pytest

from dudo_p2p.consensus.actions_wire import action_fields
from dudo_p2p.consensus.chain import chain_hash
from dudo_p2p.consensus.replica import EpochPhase, NotYet, Replica, Stale
from dudo_p2p.protocol.envelope import Envelope, seal_envelope
from dudo_p2p.protocol.kinds import Act
from dudo_p2p.rules import RuleSet

from .fakenet import FakeNet


def bidding_after_two_acts(seed: int) -> FakeNet:
    """A 3-seat table whose seat 0 has chained two acts of the current epoch's bidding."""
    net = FakeNet(3, RuleSet(), seed=seed)

    def two_acts() -> bool:
        rep = net.machines[0].replica
        return rep.phase is EpochPhase.BIDDING and rep.epoch.acts >= 2

    net.run_until(two_acts)
    return net


def next_act_on(net: FakeNet, prev: bytes) -> Envelope:
    """The act the seat to play may make next on seat 0's log, built on ``prev``."""
    rep = net.machines[0].replica
    actor = rep.engine.to_act
    assert actor is not None
    action = rep.engine.legal_actions(actor)[0]
    kind, count, face, option = action_fields(action)
    body = Act(prev, kind, count, face, option)
    return seal_envelope(net.ids[actor], net.seating.game_id, rep.epoch.number,
                         rep.epoch.acts, body)


def heads_of(rep: Replica) -> list[bytes]:
    """Every head the chain passed through, recomputed from its items."""
    heads, head = [], rep.seating.digest
    for item in rep.chain:
        head = chain_hash(head, item.digest)
        heads.append(head)
    return heads


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_act_on_an_earlier_head_is_stale_on_an_unknown_head_not_yet(seed: int) -> None:
    net = bidding_after_two_acts(seed)
    rep = net.machines[0].replica
    passed = heads_of(rep)
    rep.check_act(next_act_on(net, rep.head))  # on our head: it fits
    with pytest.raises(Stale, match="earlier head"):
        rep.check_act(next_act_on(net, passed[-2]))  # the head before the last act
    with pytest.raises(Stale, match="earlier head"):
        rep.check_act(next_act_on(net, passed[rep.epoch.anchor_index]))  # this epoch's first
    with pytest.raises(Stale, match="earlier head"):
        rep.check_act(next_act_on(net, passed[0]))  # the first item of the game
    with pytest.raises(NotYet, match="do not hold"):
        rep.check_act(next_act_on(net, bytes(32)))


def test_the_machine_drops_an_entry_on_an_earlier_head_and_buffers_one_on_an_unknown_head(
) -> None:
    net = bidding_after_two_acts(4)
    machine = net.machines[0]
    held = len(machine.intake.buffer)
    machine.receive(next_act_on(net, heads_of(machine.replica)[-2]).to_bytes(), net.now)
    assert len(machine.intake.buffer) == held  # dropped: it can never fit
    machine.receive(next_act_on(net, bytes(32)).to_bytes(), net.now)
    assert len(machine.intake.buffer) == held + 1  # kept: it may fit later


def test_going_back_restores_the_head_it_had_there() -> None:
    net = bidding_after_two_acts(5)
    rep = net.machines[0].replica
    anchor, index = rep.epoch.anchor, rep.epoch.anchor_index
    assert rep.heads == heads_of(rep) and rep.head == rep.heads[-1]
    passed = rep.heads[-1]
    rep.remove(1, "timeout")  # voids the epoch: back to its anchor, then the removal item
    assert rep.heads == heads_of(rep) and rep.head == rep.heads[-1]
    assert rep.heads[index - 1] == anchor and len(rep.chain) == index + 1
    assert passed not in rep.heads  # a head of the voided epoch is no longer one we hold
    rep.truncate(0)
    assert rep.head == rep.seating.digest and rep.heads == [] and rep.chain == []
