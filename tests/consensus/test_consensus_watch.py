"""Spectators on FakeNet (consensus/watch_desk.py, watch_spectator.py): a spectator pulling
from a seat while the game goes on ends on the players' log hash with everything verified
(removals included); a forged or inconsistent entry is flagged, never counted; the 17th
spectator is refused; a flooding one gets a bounded trickle; and none of it changes the game
(same seed, same log, same fake time). Deterministic: fake clock, seeded identities."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Callable

import pytest

from dudo_p2p.consensus import watch_desk, watch_door
from dudo_p2p.consensus.events import (
    ActionTaken,
    GameOver,
    PlayerLeft,
    RoundResolved,
    RoundStarted,
    SeatDisconnected,
    SeatReconnected,
    TurnTimer,
)
from dudo_p2p.consensus.lobby import Connect, SendTo
from dudo_p2p.consensus.machine import TableMachine
from dudo_p2p.consensus.transitions import EpochPhase
from dudo_p2p.consensus.watch_desk import MAX_SPECTATORS, Desk, Unlink
from dudo_p2p.consensus.watch_spectator import WATCH_EVERY_MAX, Outgoing, Spectator
from dudo_p2p.consensus.watching import IDLE_ASKER, KEEPALIVE, QUIET_AFTER, RENEW_EVERY
from dudo_p2p.crypto.identity import Identity, KeyPin, fingerprint
from dudo_p2p.protocol.envelope import open_envelope, seal_envelope
from dudo_p2p.protocol.kinds import SyncReply, SyncRequest, Watch
from dudo_p2p.protocol.refusals import RefusalReason
from dudo_p2p.rules import ChooseDirection, ChoosePalifico, RuleSet
from dudo_p2p.session.replay import Replay

from .fakenet import FakeNet, identities

THREE_DICE = RuleSet.from_dict({**RuleSet().to_dict(), "starting_dice": 3})
Tamper = Callable[[bytes], bytes]


def exchange(net: FakeNet, desk: Desk | list[Desk], spec: Spectator, seat: int = 0,
             tamper: Tamper | None = None, gone: frozenset[int] = frozenset(),
             crowd: dict[bytes, Spectator] | None = None) -> int:
    """One round trip: the spectator's due frames to the seats' desks (``desk``: the joined
    seat's, or one per seat), their answers back, then what the desks push (Desk.push) to
    ``spec`` or, in ``crowd``, to the spectator it is for (all through ``tamper``, a seat
    lying). The number of frames the desks sent."""
    sent = 0
    desks = desk if isinstance(desk, list) else None
    if desks is None:
        spec.rotation.stay()  # only the joined seat serves in this test: it is the one asked
    for out in spec.due(net.now):
        at = seat if out.to is None else net.seating.seat_of(out.to)
        if (desks is None and at != seat) or at is None or at in gone:
            continue  # only the joined seat serves in this test; a gone seat never answers
        if out.enlist and out.to is not None:
            spec.rotation.queued(out.to)  # delivered: as the Watcher tells it (node/watcher.py)
        one = desks[at] if desks is not None else desk
        assert isinstance(one, Desk)
        genesis = (net.genesis, tuple(net.signatures))
        for effect in one.receive(out.frame, "127.0.0.1", net.machines[at], genesis, net.now):
            if isinstance(effect, SendTo):
                sent += 1
                frame = tamper(effect.frame) if tamper else effect.frame
                spec.receive(frame, net.now, net.ids[at].public_key)
    crowd = crowd or {spec.identity.public_key: spec}
    for at, one in enumerate(desks) if desks is not None else [(seat, desk)]:
        assert isinstance(one, Desk)
        if at in gone:
            continue
        for push in one.push(net.machines[at], net.now):
            target = crowd.get(push.peer)
            if target is not None and isinstance(push, SendTo):
                sent += 1
                target.receive(tamper(push.frame) if tamper else push.frame, net.now,
                               net.ids[at].public_key)
    return sent


def watch_game(net: FakeNet, spectators: int = 1, *, tamper: Tamper | None = None,
               crash: tuple[Callable[[], bool], int] | None = None,
               desk: Desk | None = None, kind: type[Spectator] = Spectator) -> list[Spectator]:
    """Run the game with spectators served by seat 0's ``desk`` (its frames exchanged every
    0.1 s of fake time), then until each has all of it (or is flagged)."""
    desk = desk or Desk(net.ids[0])
    specs = [kind(i, "", "127.0.0.1", 5000 + k)
             for k, i in enumerate(identities(spectators, seed=900))]
    tick = 0.0
    live = [m for s, m in enumerate(net.machines) if s != (crash or (0, -1))[1]]

    def crash_due() -> bool:
        return crash is not None and crash[1] not in net.dead and crash[0]()

    while not all(m.over for m in live) or not all(
        s.finished or s.flagged is not None for s in specs
    ):
        # A crash is driven, not left to the seed (seeds 5 and 7 each lost theirs when the
        # dice changed): the net stops the moment it is due, and the table holds still (no
        # step) until the spectators hold all it did, so the crash voids what they verified.
        held = crash_due() and not all(
            s.verifier is not None and s.verifier.replica.head == net.machines[0].replica.head
            for s in specs)
        if crash is not None and crash_due() and not held:
            net.crash(crash[1])
        tick += 0.1
        if not held:
            net.run_until(lambda t=tick: net.now >= t or all(m.over for m in live)
                          or crash_due())
        net.now = max(net.now, tick)
        crowd = {s.identity.public_key: s for s in specs}
        for spec in specs:
            exchange(net, desk, spec, tamper=tamper, crowd=crowd)
        assert tick < 600, "the spectators never finished"
    return specs


def test_a_spectator_verifies_a_game_as_it_goes_to_the_players_log_hash() -> None:
    net = FakeNet(3, THREE_DICE, seed=11)
    (spec,) = watch_game(net)
    done = spec.progress()
    assert done is not None and done.finished and spec.flagged is None
    assert net.heads() == {bytes.fromhex(done.head)}
    assert done.items == len(net.machines[0].replica.chain)
    assert done.moves > 0


def mid_bidding(net: FakeNet) -> Callable[[], bool]:
    """Seat 2's moment to die: in the bidding of epoch 2 or later, an act in, all three seats
    still in (at two, a silent seat abandons the table). The epoch's commits, nonces and acts
    are what its removal voids; after a call, the withheld reveal would be rebuilt from the
    shares instead (§3.7). watch_game then holds the table until the spectator has it all."""
    rep = net.machines[0].replica
    return lambda: (rep.epoch.number >= 2 and rep.epoch.acts >= 1
                    and rep.epoch.phase is EpochPhase.BIDDING
                    and len(rep.epoch.participants) == 3)


def test_a_spectator_follows_a_removal_that_voided_what_it_had_verified() -> None:
    # seat 2 dies in the bidding of epoch 2 or later: the table votes it out and voids the
    # epoch (its chain goes back to the anchor); the spectator had verified part of that
    # epoch and must rebuild, not flag
    net = FakeNet(3, THREE_DICE, seed=7)
    (spec,) = watch_game(net, crash=(mid_bidding(net), 2))
    done = spec.progress()
    assert spec.flagged is None, spec.flagged
    assert done is not None and done.finished
    chain = net.machines[0].replica.chain
    assert any(item.removed_seat == 2 for item in chain)
    assert bytes.fromhex(done.head) == net.machines[0].replica.head
    assert spec.rebuilds >= 1  # it had verified entries the removal voided


def forge_at(net: FakeNet, corrupt: Callable[[list[bytes], int], list[bytes]],
              at: int = 10) -> Tamper:
    """The seat lies about item ``at`` in every reply holding it: ``corrupt(entries, i)``
    changes the reply's entries (item ``at`` is ``entries[i]``) and the seat signs the reply
    again (its own signature on the reply is good)."""

    def tamper(frame: bytes) -> bytes:
        env = open_envelope(frame)
        body = env.body
        if not isinstance(body, SyncReply) or not body.start <= at < body.start + len(body.entries):
            return frame
        entries = corrupt(list(body.entries), at - body.start)
        forged = SyncReply(body.start, tuple(entries), body.more)
        return seal_envelope(net.ids[0], env.game_id, env.round_no, 0, forged).to_bytes()

    return tamper


def flip_signature(entries: list[bytes], i: int) -> list[bytes]:
    entries[i] = entries[i][:-1] + bytes([entries[i][-1] ^ 1])  # the signature's last byte
    return entries


def drop_one(entries: list[bytes], i: int) -> list[bytes]:
    del entries[i]  # the next one builds on a head the spectator never sees
    return entries


@pytest.mark.parametrize("corrupt", [flip_signature, drop_one], ids=["forged", "dropped"])
def test_a_forged_entry_is_flagged_never_verified(
    corrupt: Callable[[list[bytes], int], list[bytes]],
) -> None:
    net = FakeNet(3, THREE_DICE, seed=11)
    (spec,) = watch_game(net, tamper=forge_at(net, corrupt))
    assert spec.flagged is not None
    done = spec.progress()
    assert done is not None and not done.finished
    # everything before it, nothing from it (a dropped concurrent entry shows when the next
    # phase's entry does not follow)
    assert done.items == spec.flagged.index
    assert spec.flagged.index == 10 if corrupt is flip_signature else spec.flagged.index >= 10
    assert f"item {spec.flagged.index}" in str(spec.flagged)
    assert bytes.fromhex(done.head) not in net.heads()


def test_the_seventeenth_spectator_is_refused_and_a_flooding_one_gets_a_bounded_trickle() -> None:
    net = FakeNet(3, THREE_DICE, seed=11)
    net.run_until(lambda: len(net.machines[0].replica.chain) > 30)
    desk = Desk(net.ids[0])
    specs = [Spectator(i, "", "127.0.0.1", 5000 + k)
             for k, i in enumerate(identities(MAX_SPECTATORS + 1, seed=901))]
    for spec in specs:
        exchange(net, desk, spec)
    assert all(s.seating is not None for s in specs[:MAX_SPECTATORS])
    assert specs[-1].seating is None and specs[-1].refused is RefusalReason.FULL
    # a spectator that asks 400 times in 2 s, from varying places: the catch-up bound
    flooder = specs[0]
    replies = 0
    genesis = (net.genesis, tuple(net.signatures))
    start = net.now
    for k in range(400):
        ask = seal_envelope(flooder.identity, net.seating.game_id, 0, 0, SyncRequest(k % 20))
        now = start + k * 0.005
        replies += sum(isinstance(e, SendTo) for e in desk.receive(
            ask.to_bytes(), "127.0.0.1", net.machines[0], genesis, now))
    assert 0 < replies <= 8 + 4 * 2 + 1  # the burst, then 4 a second


def test_spectators_change_nothing_in_the_game() -> None:
    plain = FakeNet(3, THREE_DICE, seed=11)
    plain.run()
    watched = FakeNet(3, THREE_DICE, seed=11)
    specs = watch_game(watched, spectators=4)
    assert watched.heads() == plain.heads()
    assert all(bytes.fromhex(s.progress().head) in plain.heads() for s in specs)  # type: ignore[union-attr]
    assert [m.replica.chain for m in watched.machines] == [m.replica.chain for m in plain.machines]


def test_a_seat_does_not_watch_its_own_table_and_a_stranger_cannot_pull() -> None:
    net = FakeNet(3, THREE_DICE, seed=11)
    net.run_until(lambda: len(net.machines[0].replica.chain) > 5)
    desk = Desk(net.ids[0])
    genesis = (net.genesis, tuple(net.signatures))
    seat = Spectator(net.ids[1], "", "127.0.0.1", 5001)
    effects = desk.receive(seat.due(net.now)[0].frame, "127.0.0.1", net.machines[0], genesis,
                           net.now)
    assert not any(isinstance(e, SendTo) for e in effects)
    stranger = Identity.generate(lambda k: bytes(k))
    ask = seal_envelope(stranger, net.seating.game_id, 0, 0, SyncRequest(0)).to_bytes()
    assert desk.receive(ask, "127.0.0.1", net.machines[0], genesis, net.now) != []  # a note
    assert not any(isinstance(e, SendTo) for e in desk.receive(
        ask, "127.0.0.1", net.machines[0], genesis, net.now))


def test_a_spectator_outlives_the_seat_it_joined_and_then_the_next_one() -> None:
    # seat 0 (joined) answers nothing once the spectator holds the genesis; the seat that
    # served it first stops answering once it verified 40 items: the last seat serves it
    # to the end
    net = FakeNet(3, THREE_DICE, seed=11)
    desks = [Desk(net.ids[s]) for s in range(3)]
    (identity,) = identities(1, seed=902)
    spec = Spectator(identity, "", "127.0.0.1", 5000)
    served: list[int] = []
    tick = 0.0
    while not spec.finished:
        tick += 0.1
        net.run_until(lambda t=tick: net.now >= t or all(m.over for m in net.machines))
        net.now = max(net.now, tick)
        gone = {0} if spec.seating is not None else set()
        if len(spec.items) >= 40 and served:
            gone.add(served[0])
        before = [sum(d.reached.values()) for d in desks]
        exchange(net, desks, spec, gone=frozenset(gone))
        served += [s for s in range(3) if sum(desks[s].reached.values()) > before[s]]
        assert tick < 600
    assert 0 not in served and set(served) == {1, 2}, served
    assert served[-1] != served[0]  # in turn: the other seat once the first went silent
    assert spec.rotation.moves >= 1
    done = spec.progress()
    assert done is not None and net.heads() == {bytes.fromhex(done.head)}


def test_a_finished_seat_waits_only_for_a_spectator_that_pulls_from_it() -> None:
    net = FakeNet(3, THREE_DICE, seed=11)
    net.run()
    desk = Desk(net.ids[0])
    (identity,) = identities(1, seed=903)
    spec = Spectator(identity, "", "127.0.0.1", 5000)
    exchange(net, desk, spec)  # the watch: the genesis and the signatures
    length = len(net.machines[0].replica.chain)
    assert spec.seating is not None and desk.is_spectator(identity.public_key)
    spec.rotation.stay()  # (only seat 0 serves here)
    (first,) = [o for o in spec.due(net.now) if o.poll]  # its first ask: one chunk, not all
    genesis = (net.genesis, tuple(net.signatures))
    for effect in desk.receive(first.frame, "127.0.0.1", net.machines[0], genesis, net.now):
        if isinstance(effect, SendTo):
            spec.receive(effect.frame, net.now, net.ids[0].public_key)
    assert 0 < len(spec.items) < length
    assert not desk.caught_up(length, net.now)  # it pulls from us: we wait for it
    assert desk.caught_up(length, net.now + IDLE_ASKER + 0.1)  # silent: it asks elsewhere
    ask = seal_envelope(identity, net.seating.game_id, 0, 0, SyncRequest(length))
    desk.receive(ask.to_bytes(), "127.0.0.1", net.machines[0], (net.genesis, tuple(net.signatures)),
                 net.now + 0.2)
    assert desk.caught_up(length, net.now + 0.2)  # its ask says it holds the whole log


def test_a_spectator_refuses_a_genesis_whose_host_is_not_the_key_it_chose() -> None:
    net = FakeNet(3, THREE_DICE, seed=5)
    net.run_until(lambda: len(net.machines[0].replica.chain) > 3)
    desk = Desk(net.ids[0])
    genesis = (net.genesis, tuple(net.signatures))
    (me,) = identities(1, seed=77)
    for pin, refused in ((KeyPin.parse(fingerprint(net.ids[1].public_key)), True),
                         (KeyPin.parse(fingerprint(net.ids[0].public_key)), False)):
        spec = Spectator(me, "", "127.0.0.1", 5000, pin)
        for out in spec.due(net.now):
            for effect in desk.receive(out.frame, "127.0.0.1", net.machines[0], genesis,
                                       net.now + (0 if refused else 1)):
                if isinstance(effect, SendTo):
                    spec.receive(effect.frame, net.now)
        assert (spec.refused is RefusalReason.WRONG_HOST) is refused
        assert (spec.seating is None) is refused


def test_a_seat_out_of_the_game_may_watch_it_and_a_seat_still_in_it_may_not() -> None:
    # seat 2 crashes and the table removes it; its key then watches the rest of the game
    # from seat 0 and ends on the table's head, while seat 1 (still playing) is not served
    net = FakeNet(4, THREE_DICE, seed=5)
    rep = net.machines[0].replica
    net.run_until(lambda: rep.epoch.number >= 2)
    net.crash(2)
    net.run_until(lambda: not rep.engine.alive[2])
    assert any(item.removed_seat == 2 for item in rep.chain)
    desk = Desk(net.ids[0])
    playing = Spectator(net.ids[1], "", "127.0.0.1", 5001)
    assert exchange(net, desk, playing) == 0 and playing.seating is None
    removed = Spectator(net.ids[2], "", "127.0.0.1", 5002)
    live = [m for s, m in enumerate(net.machines) if s != 2]
    tick = net.now
    while not removed.finished:
        tick += 0.1
        net.run_until(lambda t=tick: net.now >= t or all(m.over for m in live))
        net.now = max(net.now, tick)
        exchange(net, desk, removed)
        assert tick < 600
    done = removed.progress()
    assert done is not None and removed.flagged is None
    assert bytes.fromhex(done.head) == rep.head


def test_spectators_asking_the_same_thing_cost_the_seat_one_signature(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    net = FakeNet(3, THREE_DICE, seed=11)
    net.run_until(lambda: len(net.machines[0].replica.chain) > 30)
    desk = Desk(net.ids[0])
    specs = [Spectator(i, "", "127.0.0.1", 5000 + k)
             for k, i in enumerate(identities(4, seed=904))]
    for spec in specs:
        exchange(net, desk, spec)  # each takes the genesis
    signed: list[object] = []
    real_seal = watch_desk.seal_envelope

    def counting_seal(*args: object) -> object:
        signed.append(args[-1])
        return real_seal(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(watch_desk, "seal_envelope", counting_seal)
    genesis = (net.genesis, tuple(net.signatures))
    frames = set()
    for spec in specs:
        ask = seal_envelope(spec.identity, net.seating.game_id, 0, 0, SyncRequest(0))
        effects = desk.receive(ask.to_bytes(), "127.0.0.1", net.machines[0], genesis, net.now)
        frames |= {e.frame for e in effects if isinstance(e, SendTo)}
    assert len(frames) == 1 and len(signed) == 1  # one reply, signed once, sent four times
    body = open_envelope(next(iter(frames))).body
    assert isinstance(body, SyncReply) and body.start == 0 and body.entries


TOLD = (ActionTaken, RoundStarted, RoundResolved, PlayerLeft, GameOver)


def _told(events: list[object]) -> list[object]:
    return [e for e in events if isinstance(e, TOLD)]


def _no_opener(event: object) -> object:
    return dataclasses.replace(event, opener=None) if isinstance(event, RoundStarted) else event


def test_a_spectator_is_told_every_move_deal_reveal_and_end_a_seat_is_told() -> None:
    # what a seated player who is out of the game sees move by move (the bid slides in, its
    # sound plays, the deal, the reveal, the end), a spectator is told too, from the
    # verified log alone
    net = FakeNet(3, THREE_DICE, seed=11)
    (spec,) = watch_game(net)
    told = [event for event, _ in spec.take_told()]
    # the bids and calls in the log's order: the record's, as the replay viewer reads it
    # (its steps leave out the opener's choices, which are no bids)
    record = net.machines[0].record(net.genesis, net.signatures)
    steps = Replay.load(record).steps
    assert ([e.action for e in told if isinstance(e, ActionTaken)
             and not isinstance(e.action, ChooseDirection | ChoosePalifico)]
            == [s.action for s in steps if s.action is not None])
    # each deal names its opener: the seat of the round's first bid
    for at, event in enumerate(told):
        if isinstance(event, RoundStarted):
            first = next(e for e in told[at:] if isinstance(e, ActionTaken))
            assert event.opener == first.action.seat  # type: ignore[union-attr]
    turns = [e for e in told if isinstance(e, TurnTimer)]
    for seat in range(3):
        theirs = [_no_opener(e) for e in _told(net.events[seat])]
        # the same events as every seat, in the same rounds (each seat's own order is the
        # log's: tests/consensus/test_consensus_event_order.py)
        assert Counter(map(repr, map(_no_opener, _told(told)))) == Counter(map(repr, theirs))
        rounds = (RoundStarted, RoundResolved, GameOver)
        assert ([_no_opener(e) for e in told if isinstance(e, rounds)]
                == [e for e in theirs if isinstance(e, rounds)])
        # every turn a seat was told, the spectator was told (no turn timer here: None)
        assert not Counter(e for e in net.events[seat] if isinstance(e, TurnTimer)) - Counter(turns)
    # whose turn it is, turn by turn, exactly as every seat is told it (each is told in the
    # log's order since faults' fix; before, a seat told a call before the bid it answers
    # missed the bidder's next turn: seat 2 at protocol version 1, seat 1 at version 2)
    told_in_order = [s for s in range(3)
                     if [e for e in net.events[s] if isinstance(e, TurnTimer)] == turns]
    assert told_in_order == [0, 1, 2]
    # each deal is followed by the turn of the seat that opens it
    for at, event in enumerate(told[:-1]):
        if isinstance(event, RoundStarted):
            assert told[at + 1] == TurnTimer(event.opener, None)  # type: ignore[arg-type]
    assert sum(isinstance(e, ActionTaken) for e in told) == spec.moves > 0
    assert sum(isinstance(e, RoundStarted) for e in told) == len(
        net.machines[0].replica.engine.results)
    assert spec.take_told() == []  # each event once


def test_a_spectator_is_told_a_removal_once_and_not_again_by_its_rebuild() -> None:
    net = FakeNet(3, THREE_DICE, seed=7)
    (spec,) = watch_game(net, crash=(mid_bidding(net), 2))
    assert spec.rebuilds >= 1
    told = [event for event, _ in spec.take_told()]
    seat = _told(net.events[0])
    left = [e for e in told if isinstance(e, PlayerLeft)]
    assert left == [e for e in seat if isinstance(e, PlayerLeft)] and left[0].seat == 2
    # every round result once, the seat's, in order; one GameOver, the seat's winner
    assert ([e for e in told if isinstance(e, RoundResolved)]
            == [e for e in seat if isinstance(e, RoundResolved)])
    assert [e for e in told if isinstance(e, GameOver)] == [
        e for e in seat if isinstance(e, GameOver)]
    # the acts of the epoch the removal voided were told as they were verified, as the
    # seat was told them: every act the seat was told, the spectator was told
    assert sum(isinstance(e, ActionTaken) for e in told) >= spec.moves


class Counted(Spectator):
    """A spectator that counts the frames it sends the seat serving it: each one wakes that
    seat and costs it a signature check (not its enlisting watches: one to each other seat
    in a game, which exchange() does not deliver, so they are tried again and again)."""

    sends = 0

    def due(self, now: float) -> list[Outgoing]:
        out = super().due(now)
        self.sends += sum(not o.enlist for o in out)
        return out


def served_game(
    seed: int, spectators: int, monkeypatch: pytest.MonkeyPatch,
) -> tuple[FakeNet, Desk, list[Counted], list[object]]:
    """A game of 5 dice over links of 20-60 ms (6 s of fake time) with ``spectators`` served
    by seat 0's desk; the replies that desk signed."""
    hops = random.Random(3)
    net = FakeNet(3, RuleSet(), seed=seed,
                  route=lambda s, d, f, now: [now + hops.uniform(0.02, 0.06)])
    desk = Desk(net.ids[0])
    signed: list[object] = []
    real_seal = watch_desk.seal_envelope

    def counting_seal(identity: Identity, *args: object) -> object:
        if identity is desk.identity:
            signed.append(args[-1])
        return real_seal(identity, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(watch_desk, "seal_envelope", counting_seal)
    specs = watch_game(net, spectators=spectators, desk=desk, kind=Counted)
    monkeypatch.undo()
    assert all(isinstance(s, Counted) for s in specs)
    return net, desk, specs, signed  # type: ignore[return-value]


@pytest.mark.parametrize("seed", [11, 12])
def test_a_caught_up_spectator_costs_its_seat_sends_only_not_asks_or_signatures(
    seed: int, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # once caught up, the 4 spectators are pushed the log (one signed chunk for all, at most
    # every PUSH_EVERY) and ask nothing more while it comes: each sends the seat its watch
    # and one ask in the whole game (each frame a wake-up of the seat and a signature check)
    net, desk, specs, signed = served_game(seed, 4, monkeypatch)
    assert all(s.finished and s.flagged is None for s in specs)
    assert {bytes.fromhex(s.progress().head) for s in specs} == net.heads()  # type: ignore[union-attr]
    seconds, moves = net.now, specs[0].moves
    assert seconds > 5 and moves > 40
    # 2 frames each, the watch and the first ask (main at bc687bd: 3 each, a renewal every
    # 4 s; at 12114dc one ask a second)
    assert [s.sends for s in specs] == [2, 2, 2, 2]
    assert desk.answered_asks == 4
    # the pushes: one signed chunk per PUSH_EVERY for the 4 of them, the same number of
    # signatures as for one spectator (measured: 8 and 8 in 6.6 s; 13 with a push every 0.5 s)
    _, alone, _, signed_alone = served_game(seed, 1, monkeypatch)
    assert len(signed) == len(signed_alone) <= seconds / watch_desk.PUSH_EVERY + 2
    assert desk.pushed == 4 * alone.pushed
    # and what a spectator costs the seat, then: the sends of the same frames, no more
    # (measured: 12 frames for one spectator: 4 of the genesis, an answer, 7 pushes)
    assert desk.sent == 4 * alone.sent


def test_a_spectator_of_a_quiet_table_is_kept_alive_without_asking(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a table that holds still (a person thinking over a bid for a minute): the seat's steps
    # (its heartbeats, once a second) send each caught-up spectator the log's length every
    # KEEPALIVE, one reply signed once for all of them; the spectators ask only to renew
    # their subscription, every RENEW_EVERY
    net = FakeNet(3, THREE_DICE, seed=11)
    net.run_until(lambda: len(net.machines[0].replica.chain) > 20)
    desk = Desk(net.ids[0])
    specs = [Counted(i, "", "127.0.0.1", 5000 + k) for k, i in enumerate(identities(4, seed=908))]
    crowd = {s.identity.public_key: s for s in specs}
    length = len(net.machines[0].replica.chain)
    while not all(len(s.items) == length and s.asked is None for s in specs):
        net.now += 0.1
        for spec in specs:
            exchange(net, desk, spec, crowd=crowd)
    asked, sent = [s.sends for s in specs], desk.sent
    signed: list[object] = []
    real_seal = watch_desk.seal_envelope
    monkeypatch.setattr(watch_desk, "seal_envelope",
                        lambda *args: signed.append(args) or real_seal(*args))
    quiet = 60.0
    start = net.now
    while net.now < start + quiet:  # a step a second: the seat's heartbeat
        net.now += 1.0
        for spec in specs:
            exchange(net, desk, spec, crowd=crowd)
    renewals = [s.sends - a for s, a in zip(specs, asked, strict=True)]
    assert all(r <= quiet / RENEW_EVERY + 1 for r in renewals), renewals
    assert all(s.asked is None and s.rotation.moves == 0 for s in specs)  # never unanswered
    assert len(signed) <= 1  # the log's length, signed once for all four
    assert desk.kept >= 4 * (quiet / (KEEPALIVE + 1.0) - 1)
    assert desk.sent - sent <= 4 * (quiet / KEEPALIVE + 1) + sum(renewals)


def test_a_push_waits_for_a_step_without_the_tables_frames() -> None:
    net = FakeNet(3, THREE_DICE, seed=11)
    net.run_until(lambda: len(net.machines[0].replica.chain) > 30)
    desk = Desk(net.ids[0])
    (identity,) = identities(1, seed=905)
    spec = Spectator(identity, "", "127.0.0.1", 5000)
    exchange(net, desk, spec)  # the genesis
    exchange(net, desk, spec)  # the first ask: a chunk, and a subscription to the push
    machine = net.machines[0]
    net.run_until(lambda: len(machine.replica.chain) > len(spec.items) + 5)
    now = desk.next_push + 0.01
    assert desk.push_due(len(machine.replica.chain), now) is not None
    # a step that carried the table's frames (a bid on its way) does not push...
    assert desk.push(machine, now, busy=True) == []
    # ...a quiet one does; and a busy one too once the push is a whole PUSH_EVERY late
    assert len(desk.push(machine, now, busy=False)) == 1
    net.run_until(lambda: len(machine.replica.chain) > desk.reached[identity.public_key])
    later = desk.next_push
    assert desk.push(machine, later, busy=True) == []
    assert len(desk.push(machine, later + watch_desk.PUSH_EVERY, busy=True)) == 1
    # a spectator that stopped asking (it moved to another seat) is pushed nothing
    net.run_until(lambda: len(machine.replica.chain) > desk.reached[identity.public_key])
    # and the link back to it is closed (it may have left: a link to a process gone is
    # redialled for as long as it is kept)
    assert desk.push(machine, net.now + IDLE_ASKER + 5, busy=False) == [Unlink(identity.public_key)]
    assert desk.push(machine, net.now + IDLE_ASKER + 10, busy=False) == []


def test_a_flood_of_fresh_keys_does_not_grow_a_seats_memory() -> None:
    # every watch from a new key is remembered (not answered twice within GENESIS_EVERY);
    # past the cap, refused keys are forgotten oldest first, and the spectators taken stay
    net = FakeNet(3, THREE_DICE, seed=11)
    net.run_until(lambda: len(net.machines[0].replica.chain) > 5)
    desk = Desk(net.ids[0])
    genesis = (net.genesis, tuple(net.signatures))
    flood = [Spectator(i, "", "127.0.0.1", 6000 + k)
             for k, i in enumerate(identities(MAX_SPECTATORS + 100, seed=906))]
    for k, spec in enumerate(flood):
        desk.receive(spec.due(net.now)[0].frame, "127.0.0.1", net.machines[0], genesis,
                     net.now + k * 0.001)
    assert len(desk.spectators) == MAX_SPECTATORS
    assert desk.refused == 100
    assert len(desk.answered) <= watch_door.ANSWERED_KEPT
    assert all(key in desk.answered for key in desk.spectators)
    assert sorted(desk.spectators.values()) == list(range(1000, 1000 + MAX_SPECTATORS))


def test_a_spectator_is_told_turn_timers_and_whom_its_seat_shows_disconnected() -> None:
    # neither is in the log: the turn's deadline is counted from when the move reached the
    # spectator (a push interval behind the seat at most), disconnections come from the seat
    # serving it (an `away` frame, watch_away.py), as the seat's own screen shows them
    net = FakeNet(3, THREE_DICE, seed=11, timer_ms=30_000, grace_ms=20_000)
    desk = Desk(net.ids[0])
    (identity,) = identities(1, seed=907)
    spec = Spectator(identity, "", "127.0.0.1", 5000)
    told: list[tuple[float, object]] = []

    def watch_until(done: Callable[[], bool], seconds: float) -> None:
        limit = net.now + seconds
        while not done():
            net.run_until(lambda t=net.now + 0.1: net.now >= t)
            exchange(net, desk, spec)
            told.extend((net.now, event) for event, _ in spec.take_told())
            assert net.now < limit, "not told within the bound"

    def caught_up() -> bool:
        return spec.asked is None and len(spec.items) == len(net.machines[0].replica.chain)

    watch_until(lambda: spec.moves >= 12 and caught_up(), 120)
    seat_turns = [e for e in net.events[0] if isinstance(e, TurnTimer)]
    turns = [(at, e) for at, e in told if isinstance(e, TurnTimer)]
    assert len(turns) >= 12  # a turn after each move but a call, and after each deal
    assert [e.seat for _, e in turns] == [e.seat for e in seat_turns][:len(turns)]
    for (at, mine), theirs in list(zip(turns, seat_turns, strict=False))[-5:]:
        # told when the push brought the move: its deadline is 30 s after that, and at most a
        # push interval (and the test's 0.1 s exchange) after the seat's own deadline
        assert mine.deadline is not None and theirs.deadline is not None
        assert mine.deadline == pytest.approx(at + 30.0)
        assert 0 <= mine.deadline - theirs.deadline <= watch_desk.PUSH_EVERY + 0.2
    net.crash(2)
    watch_until(lambda: any(isinstance(e, SeatDisconnected) for _, e in told), 30)
    (away,) = [e for e in net.events[0] if isinstance(e, SeatDisconnected)]
    ((at, shown),) = [(at, e) for at, e in told if isinstance(e, SeatDisconnected)]
    assert shown.seat == away.seat == 2
    assert shown.until == pytest.approx(away.until, abs=0.2)  # the seat's grace, our clock
    copied = desk._away_frame  # what an eavesdropper could keep and replay later
    assert copied is not None
    net.restart(2)
    watch_until(lambda: any(isinstance(e, SeatReconnected) for _, e in told), 30)
    assert [e for _, e in told if isinstance(e, SeatReconnected)] == [SeatReconnected(2)]
    assert any(isinstance(e, SeatReconnected) for e in net.events[0])
    # the copy replayed now is refused (its counter is not above the last): nobody away
    assert spec.receive(copied, net.now, net.ids[0].public_key) == []
    assert spec.take_told() == [] and spec.board.away == {}



class Recording(Desk):
    """A desk that keeps the links it closed."""

    def __init__(self, identity: Identity) -> None:
        super().__init__(identity)
        self.unlinked: list[bytes] = []

    def push(self, machine: TableMachine | None, now: float,
             busy: bool = False) -> list[SendTo | Unlink]:
        out = super().push(machine, now, busy)
        self.unlinked += [e.peer for e in out if isinstance(e, Unlink)]
        return out


def test_a_seat_unlinks_a_spectator_that_stopped_asking_and_links_it_again_if_it_asks() -> None:
    # two spectators served by seat 0; one goes away (its process ended): once it has not
    # asked for IDLE_ASKER, the seat closes its link to it, not to the other, which keeps
    # being kept alive; the one that went away and asks again is linked again
    net = FakeNet(3, THREE_DICE, seed=11)
    net.run_until(lambda: len(net.machines[0].replica.chain) > 20)
    desk = Recording(net.ids[0])
    stays, leaves = (Spectator(i, "", "127.0.0.1", 5000 + k)
                     for k, i in enumerate(identities(2, seed=909)))
    crowd = {s.identity.public_key: s for s in (stays, leaves)}
    length = len(net.machines[0].replica.chain)
    while not all(len(s.items) == length for s in (stays, leaves)):
        net.now += 0.1
        for spec in (stays, leaves):
            exchange(net, desk, spec, crowd=crowd)
    assert set(desk.linked) == set(crowd)
    start = net.now
    while net.now < start + IDLE_ASKER + 2 * KEEPALIVE:
        net.now += 0.5
        exchange(net, desk, stays, crowd=crowd)
    assert desk.unlinked == [leaves.identity.public_key]
    assert set(desk.linked) == {stays.identity.public_key} and stays.rotation.moves == 0
    leaves.next_poll = net.now  # it comes back and asks
    genesis = (net.genesis, tuple(net.signatures))
    (ask,) = [o for o in leaves.due(net.now) if o.poll]
    effects = desk.receive(ask.frame, "127.0.0.1", net.machines[0], genesis, net.now)
    assert any(isinstance(e, Connect) and e.peer == leaves.identity.public_key for e in effects)


def test_a_refused_keys_link_back_is_closed_and_a_flood_opens_a_bounded_number() -> None:
    # a full table refuses the 17th key: linked back to say so, and that link is closed
    # once the refusal had time to go out (REFUSED_KEPT); a flood of fresh keys never holds
    # more than REFUSED_LINKS links back open (main at 47d74f5: one per key, never closed)
    net = FakeNet(3, THREE_DICE, seed=11)
    net.run_until(lambda: len(net.machines[0].replica.chain) > 5)
    desk = Recording(net.ids[0])
    genesis = (net.genesis, tuple(net.signatures))
    keys = identities(MAX_SPECTATORS + 100, seed=910)
    opened: list[bytes] = []
    now = net.now
    for k, identity in enumerate(keys):
        watch = Spectator(identity, "", "127.0.0.1", 7000 + k).due(now)[0].frame
        effects = desk.receive(watch, "127.0.0.1", net.machines[0], genesis, now)
        opened += [e.peer for e in effects if isinstance(e, Connect)]
        if k == MAX_SPECTATORS:  # the first refused: linked back, told why
            assert [type(e) for e in effects[:2]] == [Connect, SendTo]
            assert open_envelope(effects[1].frame).kind == "refused"  # type: ignore[union-attr]
        now += 0.001
    assert desk.refused == 100
    refused = [k for k in opened if k not in desk.spectators]
    assert len(refused) == watch_door.REFUSED_LINKS  # the rest got no link (said watch again)
    desk.push(net.machines[0], now + watch_door.REFUSED_KEPT / 2)
    assert desk.unlinked == []  # the refusals are still on their way
    desk.push(net.machines[0], now + watch_door.REFUSED_KEPT + KEEPALIVE)
    assert sorted(desk.unlinked) == sorted(refused) and not desk.refusing
    # the taken spectators' links are kept (each asks, or is dropped after IDLE_ASKER)
    assert not set(desk.unlinked) & set(desk.spectators)
    # a refused key saying watch again once links are free is linked back and told again
    late = keys[-1]
    effects = desk.receive(Spectator(late, "", "127.0.0.1", 7999).due(now + 5)[0].frame,
                           "127.0.0.1", net.machines[0], genesis, now + 5)
    assert [type(e) for e in effects[:2]] == [Connect, SendTo]


def test_a_spectator_backs_off_before_the_table_is_seated_and_is_answered_once_it_is() -> None:
    # a lobby waiting a minute for its players: the spectator's watch backs off to one every
    # WATCH_EVERY_MAX (main at 47d74f5: every 0.2 s, 300 in the minute), and the seat keeps
    # the one it got before it was seated and answers it at its first step once seated
    net = FakeNet(3, THREE_DICE, seed=11)
    desk = Desk(net.ids[0])
    (identity,) = identities(1, seed=911)
    spec = Spectator(identity, "", "127.0.0.1", 5000)
    said: list[bytes] = []
    now = 0.0
    while now < 60.0:
        for out in spec.due(now):
            said.append(out.frame)
            assert desk.receive(out.frame, "127.0.0.1", None, None, now) == []  # not seated
        now += 0.05
    assert 20 <= len(said) <= 60 / WATCH_EVERY_MAX + 5
    assert len(set(said)) == 1 and list(desk.early) == [said[0]]  # kept once
    assert desk.waiting(None, []) == []  # still not seated: kept
    genesis = (net.genesis, tuple(net.signatures))
    taken = desk.waiting(net.machines[0], [])  # seated: the step takes it with no new watch
    assert taken == [(said[0], "127.0.0.1")] and not desk.early
    for frame, address in taken:
        for effect in desk.receive(frame, address, net.machines[0], genesis, net.now):
            if isinstance(effect, SendTo):
                spec.receive(effect.frame, net.now, net.ids[0].public_key)
    assert spec.seating is not None


def test_spectators_are_spread_over_the_seats_the_one_they_joined_only_introduces_them() -> None:
    # 4 spectators join seat 0 (the host, whom everyone dials): it hands each the genesis
    # and then serves none of them; each asks the seat its key picks among the others
    # (rotation.preferred), once its enlisting watch is there. Seat 0 closes its links back
    # to them after INTRODUCED_KEPT. Main at 47d74f5: seat 0 served all four (every ask,
    # every push, 4 links kept)
    net = FakeNet(4, THREE_DICE, seed=11)
    desks = [Recording(net.ids[s]) for s in range(4)]
    specs = [Spectator(i, "", "127.0.0.1", 5000 + k) for k, i in enumerate(identities(4, seed=912))]
    crowd = {s.identity.public_key: s for s in specs}
    tick = 0.0
    while not all(m.over for m in net.machines) or not all(s.finished for s in specs):
        tick += 0.1
        net.run_until(lambda t=tick: net.now >= t or all(m.over for m in net.machines))
        net.now = max(net.now, tick)
        for spec in specs:
            exchange(net, desks, spec, crowd=crowd)
        assert tick < 600, "the spectators never finished"
    assert all(s.flagged is None for s in specs)
    assert {bytes.fromhex(s.progress().head) for s in specs} == net.heads()  # type: ignore[union-attr]
    picks = {s.identity.public_key: s.rotation.target() for s in specs}
    assert net.ids[0].public_key not in picks.values()
    assert all(s.rotation.moves == 0 for s in specs)  # nobody failed to answer
    assert desks[0].answered_asks == 0 and desks[0].pushed == 0
    assert len(desks[0].spectators) == 4  # it counts them (the cap), it does not serve them
    for seat in range(1, 4):
        served = {k for k, pick in picks.items() if pick == net.ids[seat].public_key}
        assert set(desks[seat].asked_at) == served
    assert sum(d.answered_asks for d in desks[1:]) >= 4
    # the introducer's links back close once they had no ask within INTRODUCED_KEPT
    desks[0].push(net.machines[0], net.now + watch_door.INTRODUCED_KEPT + 2 * KEEPALIVE)
    assert sorted(desks[0].unlinked) == sorted(crowd) and not desks[0].linked


def test_an_ask_that_comes_with_the_watch_enlisting_it_is_the_desks() -> None:
    # a spectator enlists at the seat it prefers and asks it at once: both frames may come
    # in one read of the links, the ask before the watch was taken. The ask is the desk's
    # (main at 47d74f5 gave it to the table, which dropped it: the spectator waited
    # POLL_EVERY and moved on, seen in tests/node/test_node_watch.py once spread)
    net = FakeNet(3, THREE_DICE, seed=11)
    desk = Desk(net.ids[1])
    (identity,) = identities(1, seed=913)
    key = identity.public_key
    watch = seal_envelope(identity, net.seating.game_id, 0, 0, Watch("", "127.0.0.1", 5000))
    coming = [(key, watch.to_bytes(), "127.0.0.1", b"conn")]
    assert desk.takes("watch", key, [])
    assert not desk.takes("sync-request", key, [])  # a stranger's ask: the table's to drop
    assert desk.takes("sync-request", key, coming)  # its watch comes first in this step
    assert not desk.takes("sync-request", net.ids[2].public_key, coming)  # a seat's: the table's
    assert not desk.takes("ack", key, coming)


def test_a_reply_sent_twice_does_not_answer_a_later_ask_and_a_cut_short_push_shows_the_seat(
) -> None:
    # (1) a seat may send one chunk twice (the answer to an ask, and a push of the same
    # place): the second copy, ending where the spectator now asks from with more to come,
    # is no answer to that ask (main at 47d74f5 took it as one and asked again: the seat's
    # pacer refused the repeat, the ask waited POLL_EVERY and moved the spectator on);
    # (2) a push cut short shows the seat is there as much as any reply (QUIET_AFTER)
    net = FakeNet(3, RuleSet(), seed=11)
    net.run_until(lambda: len(net.machines[0].replica.chain) > 130)
    machine = net.machines[0]
    desk = Desk(net.ids[0])
    (identity,) = identities(1, seed=914)
    spec = Spectator(identity, "", "127.0.0.1", 5000)
    exchange(net, desk, spec)  # the genesis
    spec.rotation.stay()  # (only seat 0 serves here)
    seat = net.ids[0].public_key
    (ask,) = [o for o in spec.due(net.now) if o.poll]
    assert spec.asked == 0
    first, entries = desk._chunk(0, machine)
    spec.receive(first, net.now, seat)
    assert len(spec.items) == entries and spec.asked is None
    (ask,) = [o for o in spec.due(net.now) if o.poll]  # more to come: the next at once
    assert spec.asked == entries
    spec.receive(first, net.now + 0.01, seat)  # the same chunk again
    assert spec.asked == entries and not [o for o in spec.due(net.now + 0.01) if o.poll]
    second, more = desk._chunk(entries, machine)
    spec.receive(second, net.now + 0.02, seat)  # the answer
    assert spec.asked is None and len(spec.items) == entries + more
    # (2) caught up (an answer saying no more) its next ask is QUIET_AFTER away; a push cut
    # short (the log grew by more than a chunk) pushes that back like any reply
    length = len(machine.replica.chain)
    t = net.now + 0.1
    while len(spec.items) < length:
        (ask,) = [o for o in spec.due(t) if o.poll]
        for effect in desk.receive(ask.frame, "127.0.0.1", machine,
                                   (net.genesis, tuple(net.signatures)), t):
            if isinstance(effect, SendTo):
                spec.receive(effect.frame, t, seat)
        t += 0.1
    assert spec.asked is None
    quiet = spec.next_poll
    net.run_until(lambda: len(machine.replica.chain) > length + 45)
    pushed, _ = desk._chunk(length, machine)
    assert open_envelope(pushed).body.more  # type: ignore[attr-defined]
    at = quiet - 0.5
    spec.receive(pushed, at, seat)
    assert spec.asked is None and spec.next_poll >= min(at + QUIET_AFTER,
                                                        spec.last_ask + RENEW_EVERY) > quiet


def test_a_spectator_checks_each_entry_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # the events of an act just verified read the envelope the verifier opened, not a second
    # signature check of the same bytes (watch_spectator._Verifier)
    import dudo_p2p.consensus.record as record

    opened: Counter[bytes] = Counter()
    real = record.open_envelope

    def counting(raw: bytes, **kwargs: object) -> object:
        opened[raw] += 1
        return real(raw, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(record, "open_envelope", counting)
    net = FakeNet(3, THREE_DICE, seed=11)
    net.run()
    length = len(net.machines[0].replica.chain)
    desk = Desk(net.ids[0])
    (identity,) = identities(1, seed=906)
    spec = Spectator(identity, "", "127.0.0.1", 5000)
    for _ in range(200):
        exchange(net, desk, spec)
        net.now += 0.5
        if len(spec.items) >= length:
            break
    assert len(spec.items) == length and spec.moves > 10 and spec.flagged is None
    assert spec.take_told()  # the events were told, from the envelopes opened once
    assert opened and max(opened.values()) == 1
