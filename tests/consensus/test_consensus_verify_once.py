"""A frame's Ed25519 signature is checked once per seat (issue 19, performance): an entry
comes back inside the first ack of it (and ours inside every ack of it), and a re-sent
frame repeats the same bytes; each seat verifies the bytes once and takes them from its
cache of verified frames after that (``SeatContext.open``). Checks still refuse a
frame whose signature does not hold, cached or not."""

from __future__ import annotations

from collections import Counter

import pytest

import dudo_p2p.protocol.envelope as envelope
from dudo_p2p.consensus import events as ev
from dudo_p2p.rules import RuleSet
from tests.consensus.fakenet import FakeNet


def test_each_signature_is_verified_at_most_once_per_seat_that_receives_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checked: Counter[bytes] = Counter()
    real = envelope.verify

    def counting(public_key: bytes, data: bytes, signature: bytes) -> bool:
        checked[signature] += 1
        return real(public_key, data, signature)

    monkeypatch.setattr(envelope, "verify", counting)
    n = 4
    net = FakeNet(n, RuleSet(), seed=5)
    net.run()
    assert any(isinstance(e, ev.GameOver) for e in net.events[0])
    # one process holds all the seats: a frame is verified by each other seat at most once
    # (before: an act twice by each other seat and once by its author, 2n - 1 times)
    assert checked and max(checked.values()) <= n - 1, checked.most_common(3)
    acts = [f for _, _, _, f in net.trace if envelope.peek_kind(f) == "act"]
    assert acts and all(checked[f[-64:]] <= n - 1 for f in acts)  # a frame ends with it
