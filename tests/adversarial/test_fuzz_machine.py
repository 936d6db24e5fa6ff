"""In-process fuzzing of ``TableMachine.receive``: whatever arrives, it never raises, returns
only effects, and a frame that does not open as a valid envelope changes nothing.

Two shapes: a hypothesis property (deterministic, ``derandomize=True``) on a machine restored
from a mid-game journal, and a whole in-memory game where every peer gets mutated frames
between real ones and the table still finishes on one log hash.
"""

from __future__ import annotations

import random

import msgpack
from consensus.fakenet import FakeNet
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dudo_p2p.protocol.kinds  # noqa: F401  - registers every kind the mutator draws from
from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus.machine import Emit, Log, Persist, Send, TableMachine
from dudo_p2p.consensus.replica import EpochPhase
from dudo_p2p.errors import RemoteProtocolError
from dudo_p2p.protocol.envelope import open_envelope
from dudo_p2p.rules import RuleSet

from .mutator import bombs, fuzz_frame, mutate

EFFECTS = (Send, Persist, Emit, Log)


def _mid_game() -> tuple[FakeNet, list[bytes]]:
    """A 3-seat game run into its second deal's bidding, and every frame sent so far."""
    net = FakeNet(3, RuleSet(starting_dice=3), seed=77)
    corpus: list[bytes] = []
    original = net.route

    def route(src: int, dst: int, frame: bytes, now: float) -> list[float]:
        corpus.append(frame)
        return original(src, dst, frame, now)

    net.route = route
    net.run_until(lambda: net.machines[1].replica.epoch.number >= 2
                  and net.machines[1].replica.phase is EpochPhase.BIDDING)
    return net, corpus


NET, CORPUS = _mid_game()
SAMPLE = CORPUS[:: max(1, len(CORPUS) // 200)]


def _restored() -> TableMachine:
    return TableMachine.restore(
        NET.ids[1], NET.seating, list(NET.journals[1]), random.Random(5).randbytes, NET.now
    )


def _opens(frame: bytes) -> bool:
    try:
        open_envelope(frame, expect_game=NET.seating.game_id, known_authors=NET.seating.pubs)
    except RemoteProtocolError:
        return False
    return True


wire = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.binary(max_size=70)
    | st.text(max_size=20) | st.sampled_from(["ack", "act", "vote", "commit", "sync-reply"]),
    lambda kids: st.lists(kids, max_size=9) | st.dictionaries(st.text(max_size=8), kids,
                                                              max_size=6),
    max_leaves=40,
)
frames = st.one_of(
    st.binary(max_size=400),
    wire.map(lambda v: msgpack.packb(v, use_bin_type=True)),
    st.tuples(st.sampled_from(SAMPLE), st.integers(0, 2**32)).map(
        lambda t: mutate(random.Random(t[1]), t[0], SAMPLE)),
    st.sampled_from(bombs()),
    st.integers(0, 2**32).map(lambda s: fuzz_frame(
        random.Random(s), SAMPLE, NET.seating.game_id, list(NET.seating.pubs), NET.ids[2])),
)


@settings(derandomize=True, max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(frames, min_size=1, max_size=12))
def test_receive_never_raises_and_garbage_changes_nothing(batch: list[bytes]) -> None:
    machine = _restored()
    machine.tick(NET.now)
    for frame in batch:
        head, length = machine.replica.head, len(machine.replica.chain)
        effects = machine.receive(frame, NET.now)
        assert all(isinstance(e, EFFECTS) for e in effects)
        if not _opens(frame):
            assert (machine.replica.head, len(machine.replica.chain)) == (head, length)
            assert not any(isinstance(e, Send | Persist) for e in effects), (
                "an unauthenticated frame made us send or journal something")


def test_a_whole_game_with_fuzz_between_every_real_frame_ends_on_one_hash(full: bool) -> None:
    """Every peer receives mutated, random and bomb frames between the real ones."""
    games = 10 if full else 2
    for game in range(games):
        net = FakeNet(3 + game % 4, RuleSet(starting_dice=3), seed=900 + game)
        rng = random.Random(game)
        corpus: list[bytes] = []
        sent = [0]

        def route(src: int, dst: int, frame: bytes, now: float,
                  rng: random.Random = rng, corpus: list[bytes] = corpus,
                  net: FakeNet = net, sent: list[int] = sent) -> list[float]:
            if len(corpus) < 500:
                corpus.append(frame)
            if rng.random() < 0.5:
                # signed nonsense comes from the last seat only: a signed "bye" is a genuine
                # goodbye, so only that seat may lose its place
                net.inject(dst, fuzz_frame(rng, corpus, net.seating.game_id,
                                           list(net.seating.pubs), net.ids[-1]))
                sent[0] += 1
            return net.default_route(src, dst, frame, now)

        net.route = route
        net.run(max_steps=400_000)
        assert len(net.heads()) == 1, f"game {game}: peers disagree"
        assert all(m.replica.engine.winner is not None for m in net.machines)
        signer = len(net.machines) - 1
        for s in range(signer):
            assert not _left(net, s, exclude=signer), "fuzz frames got an honest seat removed"
        assert sent[0] > 100


def _left(net: FakeNet, observer: int, exclude: int) -> list[int]:
    """Seats other than ``exclude`` that ``observer`` saw leave."""
    return [e.seat for e in net.events[observer]
            if isinstance(e, ev.PlayerLeft) and e.seat != exclude]
