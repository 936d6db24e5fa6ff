"""Who cannot hear whom, and what we relay to them (consensus/cuts.py), without a network."""

from __future__ import annotations

from dudo_p2p.consensus.cuts import MAX_RELAYED, Cuts
from dudo_p2p.consensus.reasons import Reason

D = b"\x01" * 32


def test_a_vote_for_silence_against_a_seat_we_hear_shows_a_cut() -> None:
    cuts = Cuts(0)
    assert cuts.note(1, 2, Reason.SILENT, target_heard=True)
    assert not cuts.note(1, 2, Reason.SILENT, target_heard=True)  # known already
    assert cuts.note(2, 1, Reason.TIMEOUT, target_heard=True)
    assert cuts.listeners == {2: {1}, 1: {2}}


def test_no_cut_for_a_seat_we_do_not_hear_a_cheat_or_a_vote_about_us() -> None:
    cuts = Cuts(0)
    assert not cuts.note(1, 2, Reason.SILENT, target_heard=False)  # dead for us too
    for reason in (Reason.EQUIVOCATION, Reason.BAD_REVEAL, Reason.EXPELLED, Reason.QUIT):
        assert not cuts.note(1, 2, reason, target_heard=True)
    assert not cuts.note(1, 0, Reason.SILENT, target_heard=True)  # we cannot relay us
    assert not cuts.note(0, 1, Reason.SILENT, target_heard=True)  # our own vote
    assert not cuts.note(1, 1, Reason.SILENT, target_heard=True)
    assert cuts.listeners == {}


def test_only_log_entries_and_acks_are_relayed_once_each_to_every_listener() -> None:
    cuts = Cuts(0)
    cuts.note(1, 3, Reason.SILENT, target_heard=True)
    cuts.note(2, 3, Reason.SILENT, target_heard=True)
    for kind in ("heartbeat", "vote", "sync-request", "sync-reply", "talk", "bye", "proof"):
        assert cuts.relay_to(3, kind, D) == []
    assert cuts.relay_to(1, "act", D) == []  # nobody told us it cannot hear seat 1
    assert cuts.relay_to(3, "ack", D) == [1, 2]
    assert cuts.relay_to(3, "ack", D) == []  # once
    for n, kind in enumerate(("act", "commit", "nonce", "reveal", "result-sign")):
        assert cuts.relay_to(3, kind, bytes([n + 10]) * 32) == [1, 2]


def test_what_was_relayed_is_bounded() -> None:
    cuts = Cuts(0)
    cuts.note(1, 2, Reason.SILENT, target_heard=True)
    for n in range(MAX_RELAYED + 5):
        assert cuts.relay_to(2, "ack", n.to_bytes(32, "big")) == [1]
    assert len(cuts.relayed) <= MAX_RELAYED
