"""Dealt dice keys (issue 21 §7; protocol.md §3.7): a bad deal is caught at COMMIT by a proof
anyone checks, a complaint that proves nothing changes nothing, and a recovered round's
record verifies while a forged recovery is refused (also by ``dudo-p2p verify``)."""

from __future__ import annotations

import argparse
import random
from dataclasses import replace
from pathlib import Path

import pytest

from dudo_p2p.cli import verify
from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus import secrets as secrets_module
from dudo_p2p.consensus.dealing import bad_deal_evidence
from dudo_p2p.consensus.record import RecordViolation, verify_record
from dudo_p2p.consensus.replica import EpochPhase, Replica
from dudo_p2p.crypto import edwards as ed
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.crypto.shares import seal
from dudo_p2p.crypto.vss import vss_context
from dudo_p2p.protocol.codec import decode, encode
from dudo_p2p.protocol.envelope import Envelope, open_envelope, peek_kind, seal_envelope
from dudo_p2p.protocol.kinds import BadDeal, Commit, KeyShare
from dudo_p2p.rules import RuleSet

from .fakenet import FakeNet
from .test_consensus_withheld import WITHHOLDER, withholding_game

THREE_DICE = RuleSet(starting_dice=3)
CHEAT, VICTIM = 0, 1


def caught(net: FakeNet, seat: int, by: int) -> bool:
    return any(isinstance(e, ev.CheatDetected) and e.seat == seat for e in net.events[by])


def test_a_dealer_whose_share_does_not_check_is_caught_at_commit_by_everyone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seat 0 (of 4) seals seat 1 a share that is not on its polynomial, in its first dealt
    commit. Seat 1 sees it on receipt and sends ``bad-deal``; seats 2 and 3, who cannot open
    that box, open it with the proved X25519 value and catch seat 0 too: it is voted out
    before the round seed exists (no die of that deal is ever seen), the game goes on."""
    real = secrets_module.deal_fields
    done: list[int] = []

    def bad_dealer(rep: Replica, me: int, key: bytes, identity: Identity
                   ) -> tuple[tuple[bytes, ...], bytes]:
        cs, boxes = real(rep, me, key, identity)
        if me == CHEAT and not done:
            done.append(rep.epoch.number)
            context = vss_context(rep.seating.game_id, rep.epoch.number, CHEAT, VICTIM)
            wrong = seal(identity, rep.seating.x25519s[VICTIM], context, ed.scalar_bytes(12345))
            boxes = wrong + boxes[60:]  # seat 1's box comes first (recipients 1, 2, 3)
        return cs, boxes

    monkeypatch.setattr(secrets_module, "deal_fields", bad_dealer)
    # Seat 3 checks the proof itself only if the complaint reaches it before the removal that
    # seats 1 and 2 vote (it then rightly finds a complaint of an epoch gone, "proves
    # nothing"). Which comes first was the seed's dice and timing (seed 31 lost it when the
    # wire's version changed every hash, protocol.md §2.5): once a complaint is out, the
    # route holds every other frame to seat 3 back 1 s, so the scenario holds for any seed.
    complained: list[bool] = []
    hops = random.Random(31)

    def complaint_first(src: int, dst: int, frame: bytes, now: float) -> list[float]:
        kind = peek_kind(frame)
        complained.extend([True] if kind == "bad-deal" and not complained else [])
        late = 1.0 if complained and dst == 3 and kind != "bad-deal" else 0.0
        return [now + late + hops.uniform(0.0005, 0.005)]

    net = FakeNet(4, THREE_DICE, seed=31, route=complaint_first)
    net.run_until(lambda: all(caught(net, CHEAT, s) for s in (1, 2, 3)))
    (epoch,) = done
    for s in (1, 2, 3):
        rep = net.machines[s].replica
        assert rep.epoch.number >= epoch
    net.run()
    for s in (1, 2, 3):
        m = net.machines[s]
        removed = [(i.epoch, i.removed_seat) for i in m.replica.chain if i.removed_seat is not None]
        assert (epoch, CHEAT) in removed, f"seat {s}: {removed}"
        # voided before its seed: no round of that deal was ever resolved
        assert all(r.round_no != epoch for r in m.replica.engine.results)
        assert verify_record(m.record(net.genesis, net.signatures)).finished
    assert net.machines[1].replica.head == net.machines[2].replica.head
    assert any("dealt us a key share" in line for line in net.logs[1])
    assert any("dealt seat 1 a key share" in line for line in net.logs[2])


def first_commit_of(net: FakeNet, dealer: int) -> Envelope:
    rep = net.machines[VICTIM].replica
    for item in rep.chain:
        env = open_envelope(item.data) if item.data else None
        if env is not None and isinstance(env.body, Commit) and env.body.vss_cs and (
                net.seating.seat_of(env.author) == dealer):
            return env
    raise AssertionError("no dealt commit")


@pytest.mark.parametrize("proof", ["real", "garbage"])
def test_a_complaint_that_proves_nothing_changes_nothing(proof: str) -> None:
    """Seat 1 complains of seat 0's honest deal, with the true proof of its X25519 value (the
    box opens to a share that checks) or with garbage: the others check it, log it, and
    catch nobody."""
    net = FakeNet(4, THREE_DICE, seed=31)
    rep = net.machines[VICTIM].replica
    net.run_until(lambda: rep.epoch.number >= 1 and rep.phase is EpochPhase.NONCE)
    commit = first_commit_of(net, CHEAT)
    body = bad_deal_evidence(rep, VICTIM, CHEAT, commit, net.ids[VICTIM])
    if proof == "garbage":
        body = BadDeal(body.commit, bytes(range(128)))
    frame = seal_envelope(net.ids[VICTIM], net.seating.game_id, commit.round_no, 0, body)
    for s in (2, 3):
        net.inject(s, frame.to_bytes())
    net.run()
    for s in (2, 3):
        assert not caught(net, CHEAT, s)
        assert any("proves nothing" in line for line in net.logs[s])
    assert verify_record(net.machines[2].record(net.genesis, net.signatures)).finished


def recovered_record(net: FakeNet, seat: int) -> dict[str, object]:
    doc = decode(net.machines[seat].record(net.genesis, net.signatures))
    assert isinstance(doc, dict)
    return doc


def test_verify_accepts_a_recovered_round_and_refuses_a_forged_recovery(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The withholder's dice decide the call (the test makes the bids so; see
    test_consensus_withheld): its key is rebuilt from the
    others' shares. ``dudo-p2p verify`` accepts that record; it refuses the same record
    with one share replaced by another value (signed by its author: the forgery a member
    would make to steer the rebuilt dice) and one whose share names another seat."""
    net, _, ep = withholding_game(23, decided=True)
    net.run()
    assert ep.recovered == (WITHHOLDER,)
    doc = recovered_record(net, 1)
    path = tmp_path / "good.dudo"
    path.write_bytes(encode(doc))
    assert verify.run(argparse.Namespace(file=path, json=False)) == 0
    assert "valid" in capsys.readouterr().out

    items = doc["items"]
    assert isinstance(items, list)
    index = next(i for i, raw in enumerate(items) if isinstance(raw, bytes)
                 and open_envelope(raw).kind == "key-share")
    share_env = open_envelope(items[index])
    author = net.seating.seat_of(share_env.author)
    assert author is not None and isinstance(share_env.body, KeyShare)
    assert share_env.body.seats == (WITHHOLDER,)
    value = ed.scalar_of(share_env.body.shares[0])
    assert value is not None
    forgeries = {
        "another value": replace(share_env.body, shares=(ed.scalar_bytes(value + 1),)),
        "another seat": replace(share_env.body, seats=(2 if author != 2 else 1,)),
        "an extra share": replace(share_env.body, seats=(WITHHOLDER, 2),
                                  shares=(*share_env.body.shares, ed.scalar_bytes(1))),
    }
    for what, body in forgeries.items():
        forged = seal_envelope(net.ids[author], share_env.game_id, share_env.round_no,
                               share_env.seq, body)
        bad = dict(doc)
        bad["items"] = [*items[:index], forged.to_bytes(), *items[index + 1:]]
        with pytest.raises(RecordViolation):
            verify_record(encode(bad))
        path = tmp_path / "forged.dudo"
        path.write_bytes(encode(bad))
        assert verify.run(argparse.Namespace(file=path, json=False)) != 0, what
        capsys.readouterr()
