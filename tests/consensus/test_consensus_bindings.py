"""Acks bound to what they ack, votes to their epoch and target; replays refused by a peer
and by the record verifier (protocol.md §4.4, §4.6, §4.8, §6)."""

from __future__ import annotations

import pytest

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus.actions_wire import action_fields, action_from_fields
from dudo_p2p.consensus.genesis import seating_from
from dudo_p2p.consensus.record import RecordViolation, verify_record
from dudo_p2p.consensus.replica import EpochPhase
from dudo_p2p.errors import DecodeError
from dudo_p2p.protocol.codec import decode, encode
from dudo_p2p.protocol.envelope import Envelope, open_envelope, seal_envelope
from dudo_p2p.protocol.kinds import Ack, Act, Bye, Heartbeat, Reveal, SyncReply, SyncRequest, Vote
from dudo_p2p.rules import Bid, ChoosePalifico, PalificoMode, Raise, RuleSet

from .fakenet import FakeNet


def env_of(frame: bytes) -> Envelope:
    return open_envelope(frame)


def sent_by(net: FakeNet, seat: int) -> list[bytes]:
    """Hook the route: every frame ``seat`` sends from now on is kept (and still sent)."""
    kept: list[bytes] = []
    original = net.route

    def route(src: int, dst: int, frame: bytes, now: float) -> list[float]:
        if src == seat and frame not in kept:
            kept.append(frame)
        return original(src, dst, frame, now)

    net.route = route
    return kept


def left(net: FakeNet, seat: int, observer: int) -> list[str]:
    return [e.reason for e in net.events[observer]
            if isinstance(e, ev.PlayerLeft) and e.seat == seat]


def test_every_ack_is_signed_in_the_context_of_the_entry_it_acks() -> None:
    net = FakeNet(3, RuleSet(starting_dice=3), seed=21)
    frames = sent_by(net, 1)
    net.run()
    acks = [env_of(f) for f in frames if env_of(f).kind == "ack"]
    assert any(isinstance(env_of(a.body.entry).body, Act) and env_of(a.body.entry).seq > 0
               for a in acks if isinstance(a.body, Ack)), "acks of later acts were seen"
    for ack in acks:
        assert isinstance(ack.body, Ack)
        inner = env_of(ack.body.entry)
        assert (ack.round_no, ack.seq) == (inner.round_no, inner.seq)


def thinking_table(seed: int) -> tuple[FakeNet, int, int, list[bytes]]:
    """Four seats, no turn timer, bidding after two acts: the seat to act thinks (for ever)
    and the next one is about to crash. Only the silence timer can remove the crashed seat:
    nobody awaits it. Also returns every frame the crashed seat has sent."""
    net = FakeNet(4, RuleSet(), seed=seed)
    kept = {s: sent_by(net, s) for s in range(4)}
    net.run_until(lambda: all(
        m.replica.epoch.number >= 1 and m.replica.phase is EpochPhase.BIDDING
        and m.replica.epoch.acts >= 2 and m.race.slot.mine is None for m in net.machines))
    thinker = net.machines[0].replica.engine.to_act
    assert thinker is not None
    net.policies[thinker] = lambda m: None
    crashed = (thinker + 1) % 4
    thinking = net.now
    net.run_until(lambda: net.now > thinking + 2.5)  # a few heartbeats go round
    return net, thinker, crashed, kept[crashed]


def replay_until_removed(net: FakeNet, crashed: int, frames: list[bytes]) -> None:
    """Crash ``crashed`` and replay ``frames`` (its own signed frames) to every live seat
    twice a second; run until each live seat has removed it, or 15 s."""
    net.crash(crashed)
    start = net.now
    live = [s for s in range(4) if s != crashed]
    next_replay = net.now
    while net.now < start + 15 and not all(left(net, crashed, s) for s in live):
        if net.now >= next_replay:
            next_replay = net.now + 0.5
            for frame in frames:
                for dst in live:
                    net.inject(dst, frame)
        net.step()


def test_replayed_acks_and_votes_do_not_keep_a_dead_seat_at_the_table() -> None:
    net, thinker, crashed, kept = thinking_table(22)
    m = net.machines[crashed]
    # a vote it signs in this epoch against the thinker, as an impatient peer might
    vote = seal_envelope(net.ids[crashed], net.seating.game_id, m.replica.epoch.number,
                         thinker, Vote(net.seating.pubs[thinker], "timeout"))
    for dst in range(4):
        if dst != crashed:
            net.inject(dst, vote.to_bytes())
    net.step()
    signed = [f for f in kept if env_of(f).kind == "ack"] + [vote.to_bytes()]
    assert len(signed) > 3
    replay_until_removed(net, crashed, signed)
    for s in range(4):
        if s != crashed:
            assert left(net, crashed, s) == ["silent"]
            assert any("replay" in t or "stale" in t for t in net.logs[s])


def test_replayed_heartbeats_do_not_keep_a_dead_seat_at_the_table() -> None:
    net, _thinker, crashed, kept = thinking_table(23)
    beats = [f for f in kept if env_of(f).kind == "heartbeat"]
    assert beats
    replay_until_removed(net, crashed, beats)
    for s in range(4):
        if s != crashed:
            assert left(net, crashed, s) == ["silent"]


def test_an_ack_or_a_vote_not_bound_to_its_context_is_refused_and_is_no_sign_of_life() -> None:
    net = FakeNet(3, RuleSet(), seed=24)
    net.run_until(lambda: all(m.replica.phase is EpochPhase.BIDDING
                              and m.replica.epoch.acts >= 2 for m in net.machines))
    victim, signer = 0, 1
    m = net.machines[victim]
    epoch = m.replica.epoch.number
    act = next(item for item in reversed(m.replica.chain)
               if item.data and env_of(item.data).kind == "act")
    inner = env_of(act.data)
    assert inner.seq >= 1
    game = net.seating.game_id
    # an ack of that act signed as seq 0 (the old way), and a vote against seat 2 as seq 0
    unbound_ack = seal_envelope(net.ids[signer], game, epoch, 0, Ack(act.data))
    unbound_vote = seal_envelope(net.ids[signer], game, epoch, 0,
                                 Vote(net.seating.pubs[2], "timeout"))
    heard = m.timers.last_heard[signer]
    net.now += 0.5
    for frame in (unbound_ack, unbound_vote):
        net.apply(victim, m.receive(frame.to_bytes(), net.now))
    assert m.timers.last_heard[signer] == heard
    assert any("not bound to what it acks" in t for t in net.logs[victim])
    assert any("not bound to its target" in t for t in net.logs[victim])
    assert not m.votes.voted(epoch, 2, signer)


def test_a_vote_counts_only_once_and_only_in_its_epoch() -> None:
    net = FakeNet(3, RuleSet(), seed=25)
    net.run_until(lambda: all(m.replica.epoch.number >= 1 for m in net.machines))
    m = net.machines[0]
    old_epoch = m.replica.epoch.number
    game = net.seating.game_id
    old_vote = seal_envelope(net.ids[1], game, old_epoch, 2, Vote(net.seating.pubs[2], "silent"))
    net.apply(0, m.receive(old_vote.to_bytes(), net.now))
    assert m.votes.voted(old_epoch, 2, 1)
    # the same vote again: a replay, refused and no sign of life
    heard = m.timers.last_heard[1]
    net.now += 0.5
    net.apply(0, m.receive(old_vote.to_bytes(), net.now))
    assert m.timers.last_heard[1] == heard
    assert any("replay" in t for t in net.logs[0])
    # two epochs later the old vote is stale: it does not count against seat 2 there
    net.run_until(lambda: all(mm.replica.epoch.number >= old_epoch + 2 for mm in net.machines))
    net.now += 0.5
    heard = m.timers.last_heard[1]
    net.apply(0, m.receive(old_vote.to_bytes(), net.now))
    assert m.timers.last_heard[1] == heard
    assert any(f"a vote of epoch {old_epoch}" in t for t in net.logs[0])
    assert not m.votes.voted(m.replica.epoch.number, 2, 1)


# ---- the record verifier -------------------------------------------------------------------


def record_with_a_removal() -> tuple[FakeNet, dict[str, object]]:
    """A finished 3-seat game in which seat 0 withheld its reveal and was voted out."""
    net = FakeNet(3, RuleSet(starting_dice=3), seed=9)
    original = net.route

    def route(src: int, dst: int, frame: bytes, now: float) -> list[float]:
        env = env_of(frame)
        inner = env_of(env.body.entry) if isinstance(env.body, Ack) else env
        if src == 0 and isinstance(inner.body, Reveal | SyncReply):
            return []
        return original(src, dst, frame, now)

    net.route = route
    net.run()
    doc = decode(net.machines[1].record(net.genesis, net.signatures))
    assert isinstance(doc, dict)
    verify_record(encode(doc))
    return net, doc


def removal_index(doc: dict[str, object]) -> int:
    items = doc["items"]
    assert isinstance(items, list)
    return next(i for i, item in enumerate(items) if isinstance(item, list))


def test_verify_refuses_a_certificate_with_a_replayed_or_unbound_vote() -> None:
    net, doc = record_with_a_removal()
    items = doc["items"]
    assert isinstance(items, list)
    at = removal_index(doc)
    _, epoch, seat, reason, votes = items[at]
    assert len(votes) == 2  # both other seats of three

    def verify_with(new_votes: list[bytes]) -> None:
        changed = list(items)
        changed[at] = ["removal", epoch, seat, reason, new_votes]
        verify_record(encode({**doc, "items": changed}))

    verify_with(list(votes))  # as recorded: valid
    with pytest.raises(RecordViolation, match="not a strict majority"):
        verify_with([votes[0], votes[0]])  # one vote replayed: still one voter
    game = net.seating.game_id
    voter = env_of(votes[1])
    assert voter.round_no == epoch
    for other_epoch in (epoch - 1, epoch + 1):
        replayed = seal_envelope(net.ids[net.seating.seat_of(voter.author) or 0], game,
                                 other_epoch, seat, Vote(net.seating.pubs[seat], "timeout"))
        with pytest.raises(RecordViolation, match="for round"):
            verify_with([votes[0], replayed.to_bytes()])
    unbound = seal_envelope(net.ids[net.seating.seat_of(voter.author) or 0], game, epoch, 0
                            if seat else 1, Vote(net.seating.pubs[seat], "timeout"))
    with pytest.raises(RecordViolation, match="not bound to its target"):
        verify_with([votes[0], unbound.to_bytes()])


def test_verify_refuses_an_ack_or_a_heartbeat_in_place_of_an_entry() -> None:
    net, doc = record_with_a_removal()
    items = doc["items"]
    assert isinstance(items, list)
    at = next(i for i, item in enumerate(items)
              if isinstance(item, bytes) and env_of(item).kind == "act")
    entry = env_of(items[at])
    game = net.seating.game_id
    author = net.seating.seat_of(entry.author)
    relayer = net.ids[(author or 0) + 1 if (author or 0) + 1 < 3 else 1]
    ack = seal_envelope(relayer, game, entry.round_no, entry.seq, Ack(items[at]))
    beat = seal_envelope(relayer, game, entry.round_no, 0,
                         Heartbeat(bytes(32), at, 1, net.seating.pubs[0], b""))
    for fake in (ack, beat):
        changed = list(items)
        changed[at] = fake.to_bytes()
        with pytest.raises(RecordViolation):
            verify_record(encode({**doc, "items": changed}))
        inserted = [*items[:at], fake.to_bytes(), *items[at:]]
        with pytest.raises(RecordViolation):
            verify_record(encode({**doc, "items": inserted}))


# ---- the envelope context of the other kinds (protocol.md §4.10) ---------------------------


def test_a_proof_sync_or_bye_with_a_seq_other_than_0_is_refused() -> None:
    net = FakeNet(3, RuleSet(), seed=26)
    net.run_until(lambda: all(m.replica.epoch.number >= 1 for m in net.machines))
    m = net.machines[0]
    game, epoch = net.seating.game_id, m.replica.epoch.number
    for body in (SyncRequest(0), Bye("quit")):
        frame = seal_envelope(net.ids[1], game, epoch, 1, body).to_bytes()
        net.apply(0, m.receive(frame, net.now))
        assert any("travels with seq 0, not 1" in t for t in net.logs[0])
        net.logs[0].clear()
    assert not m.votes.voted(epoch, 1, 0), "the bye with seq 1 did not count"


def test_a_genesis_or_its_signature_with_a_seq_other_than_0_is_refused() -> None:
    net = FakeNet(2, RuleSet(), seed=27)
    genesis = env_of(net.genesis)
    moved = seal_envelope(net.ids[0], genesis.game_id, 0, 1, genesis.body).to_bytes()
    with pytest.raises(DecodeError, match="seq 0"):
        seating_from(moved, net.signatures)
    sign = env_of(net.signatures[1])
    bad = seal_envelope(net.ids[1], sign.game_id, 0, 1, sign.body).to_bytes()
    with pytest.raises(DecodeError, match="seq 0"):
        seating_from(net.genesis, [net.signatures[0], bad])


def test_an_act_carries_no_field_its_action_does_not_use() -> None:
    assert action_from_fields(0, "raise", 3, 4, "") == Raise(0, Bid(3, 4))
    for fields in (("raise", 3, 4, "cw"), ("picado", 3, 4, "x"), ("dudo", 0, 0, "cw"),
                   ("dudo", 1, 0, ""), ("direction", 0, 0, "up"), ("palifico", 0, 0, "abierto"),
                   ("palifico", 0, 0, ""), ("palifico", 1, 0, "open")):
        with pytest.raises(DecodeError):
            action_from_fields(0, *fields)


def test_a_palifico_mode_is_its_enum_member_from_the_wire_and_the_same_string_on_it() -> None:
    """Issue 13 §7: palifico modes are an enum end to end; on the wire the mode's string."""
    for mode in PalificoMode:
        action = action_from_fields(2, "palifico", 0, 0, mode.value)
        assert isinstance(action, ChoosePalifico) and action.mode is mode
        assert action_fields(action) == ("palifico", 0, 0, mode.value)
        assert type(action_fields(action)[3]) is str  # an Act's fields take a plain str
        # the enum member encodes to the very bytes of its string: hashes do not move
        assert encode(["palifico", action.mode]) == encode(["palifico", mode.value])
    assert ChoosePalifico(0, "closed").mode is PalificoMode.CLOSED  # type: ignore[arg-type]
