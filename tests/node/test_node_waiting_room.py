"""The waiting room's lobby rules (issue 15), in memory with an injected clock: a joiner who
cancels gives its seat back at once (a signed ``leave``), the roster carries every seat's key,
and the host's player changes the seat count and removes joiners (a signed ``refused``
with reason ``removed``); a joiner whose host left before answering moves on."""

from __future__ import annotations

import pytest
from lobby_helpers import GAME_ID, Room, ids, table

from dudo_p2p.consensus.lobby import HOST_SILENCE, Phase, SendTo
from dudo_p2p.consensus.lobby_host import HostLobby
from dudo_p2p.consensus.lobby_joiner import JoinerLobby
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.errors import InvalidValue
from dudo_p2p.node.config import NetConfig
from dudo_p2p.node.node import Node, run_until
from dudo_p2p.node.seeking import LOOK_AGAIN
from dudo_p2p.protocol.envelope import open_envelope, peek_kind, seal_envelope
from dudo_p2p.protocol.kinds import Leave, Refusal, Welcome
from dudo_p2p.protocol.refusals import RefusalReason
from dudo_p2p.rules import RuleSet

CODE = "KQ7XM"
WAIT_S = 5.0  # bound on real time for loopback beacons to arrive


def gathered(n: int, joined: int) -> tuple[list[Identity], HostLobby, list[JoinerLobby], Room]:
    """A table of ``n`` seats with the first ``joined`` joiners welcomed, at time 0."""
    people, host, joiners = table(n)
    room = Room({p.public_key: lobby for p, lobby in zip(people, [host, *joiners], strict=True)})
    for joiner in joiners[:joined]:
        me = joiner.identity.public_key
        room.run({me: joiner.add_target(people[0].public_key, "127.0.0.1", 4000, 0.0)}, 0.0)
        room.run({me: joiner.tick(0.0)}, 0.0)
        assert joiner.phase is Phase.GATHERING
    return people, host, joiners, room


def keys(who: list[Identity]) -> tuple[bytes, ...]:
    return tuple(p.public_key for p in who)


# ---- the roster carries the keys -----------------------------------------------------------


def test_every_joiners_roster_names_each_seat_with_its_key_in_seat_order() -> None:
    people, _, joiners, _ = gathered(4, 2)
    for joiner in joiners[:2]:
        assert joiner.roster == ("host", "j0", "j1")
        assert joiner.roster_keys == keys(people[:3])


def test_every_joiners_roster_says_the_tables_rules_and_timer() -> None:
    people, host, joiners = table(3)
    host.rules, host.turn_timer_ms = RuleSet(starting_dice=3, calza=False), 30_000
    room = Room({p.public_key: lobby for p, lobby in zip(people, [host, *joiners], strict=True)})
    joiner = joiners[0]
    assert joiner.told_rules is None  # nothing said before the welcome
    me = joiner.identity.public_key
    room.run({me: joiner.add_target(people[0].public_key, "127.0.0.1", 4000, 0.0)}, 0.0)
    room.run({me: joiner.tick(0.0)}, 0.0)
    assert joiner.told_rules == host.rules and joiner.told_timer_ms == 30_000


def test_a_welcome_whose_rules_cannot_be_read_shows_none() -> None:
    people = ids(2)
    joiner = JoinerLobby(people[1], "j", "0.0.0.0", 4001, table=CODE)
    joiner.add_target(people[0].public_key, "127.0.0.1", 4000, 0.0)
    body = Welcome(CODE, GAME_ID, ("host", "j"), keys(people), 2, 4000,
                   {"no_such_rule": True}, 1000)
    frame = seal_envelope(people[0], bytes(16), 0, 0, body).to_bytes()
    joiner.receive(frame, people[0].public_key, "127.0.0.1", 0.0)
    assert joiner.phase is Phase.GATHERING  # welcomed all the same: the genesis is checked
    assert joiner.told_rules is None and joiner.told_timer_ms == 1000


def test_a_welcome_whose_keys_do_not_match_its_seats_is_ignored() -> None:
    people = ids(3)
    joiner = JoinerLobby(people[1], "j", "0.0.0.0", 4001, table=CODE)
    joiner.add_target(people[0].public_key, "127.0.0.1", 4000, 0.0)
    bad = [
        (("host", "j"), (people[0].public_key,)),  # a name without a key
        (("host", "j"), (people[2].public_key, people[1].public_key)),  # seat 0 not the host
        (("host", "j"), (people[0].public_key, people[0].public_key)),  # a key twice
        (("host", "x"), (people[0].public_key, people[2].public_key)),  # does not seat us
    ]
    for names, seat_keys in bad:
        body = Welcome(CODE, GAME_ID, names, seat_keys, 3, 4000)
        frame = seal_envelope(people[0], bytes(16), 0, 0, body).to_bytes()
        out = joiner.receive(frame, people[0].public_key, "127.0.0.1", 0.0)
        assert joiner.phase is Phase.SEEKING, (names, seat_keys)
        assert any("ignored" in getattr(e, "text", "") for e in out)


# ---- leave ---------------------------------------------------------------------------------


def test_a_joiner_who_leaves_is_freed_at_once_and_the_others_see_the_new_roster() -> None:
    people, host, joiners, room = gathered(4, 2)
    leaver, staying = joiners[0], joiners[1]
    said = leaver.leave()
    assert [peek_kind(e.frame) for e in said if isinstance(e, SendTo)] == ["leave"]
    room.run({people[1].public_key: said}, 0.5)  # no time for the seat hold: at once
    assert keys(people[:3])[1] not in [p.pub for p in host.players]
    assert [p.name for p in host.players] == ["host", "j1"]
    assert staying.roster == ("host", "j1") and staying.roster_keys == (
        people[0].public_key, people[2].public_key)
    assert any("freed the seat of j0" in line and "left the table" in line
               for line in room.logs)


def test_a_joiner_who_leaves_while_the_genesis_is_signed_withdraws_it() -> None:
    people, host, joiners = table(3)
    room = Room({p.public_key: lobby for p, lobby in zip(people, [host, *joiners], strict=True)},
                drop={"genesis-sign"})
    for joiner in joiners:
        me = joiner.identity.public_key
        room.run({me: joiner.add_target(people[0].public_key, "127.0.0.1", 4000, 0.0)}, 0.0)
        room.run({me: joiner.tick(0.0)}, 0.0)
    assert host.phase is Phase.SIGNING and joiners[1].phase is Phase.SIGNING
    room.run({people[1].public_key: joiners[0].leave()}, 1.0)
    room.gone.add(people[1].public_key)  # its node closes after the leave
    assert host.phase is Phase.GATHERING and host.signing is None
    assert [p.name for p in host.players] == ["host", "j1"]
    assert joiners[1].phase is Phase.GATHERING and joiners[1].signing is None  # withdrawn
    room.drop = set()
    room.tick(1.1)
    assert not room.seated  # nobody can be seated by the withdrawn genesis


def test_a_leave_for_another_gathering_or_from_a_stranger_frees_nothing() -> None:
    people, host, _, _ = gathered(4, 2)
    stranger = ids(6, seed=99)[5]
    frames = [
        seal_envelope(people[1], bytes(16), 0, 0, Leave(CODE, bytes(16 * [9]))),  # other game
        seal_envelope(people[1], bytes(16), 0, 0, Leave("ZZ7XM", GAME_ID)),  # other table
        seal_envelope(stranger, bytes(16), 0, 0, Leave(CODE, GAME_ID)),  # holds no seat
        seal_envelope(people[1], GAME_ID, 0, 0, Leave(CODE, GAME_ID)),  # not the lobby context
    ]
    for env in frames:
        host.receive(env.to_bytes(), env.author, "127.0.0.1", 0.5)
    assert [p.name for p in host.players] == ["host", "j0", "j1"]


def test_a_joiner_not_welcomed_yet_or_seated_already_sends_no_leave() -> None:
    people, _, joiners = table(3)
    assert joiners[0].leave() == []  # no host has welcomed it
    joiners[0].add_target(people[0].public_key, "127.0.0.1", 4000, 0.0)
    assert joiners[0].leave() == []


# ---- the host's player: seats, remove -------------------------------------------------------


def test_the_host_changes_the_seat_count_and_a_table_full_at_the_new_count_starts() -> None:
    people, host, joiners, room = gathered(4, 1)
    room.run({people[0].public_key: host.set_seats(5, 0.2)}, 0.2)
    assert host.seats_total == 5 and joiners[0].seats_total == 5  # the roster says it
    for bad in (1, 7):
        with pytest.raises(InvalidValue):
            host.set_seats(bad, 0.3)
    room.run({people[0].public_key: host.set_seats(2, 0.4)}, 0.4)
    # two seats, two taken: the genesis goes out, is signed, and the table is seated
    assert host.phase is Phase.SEATED and len(room.seated) == 2
    assert room.seated[people[1].public_key].seating.n == 2
    assert host.set_seats(3, 0.6) == []  # not gathering any more


def test_fewer_seats_than_are_taken_is_refused() -> None:
    _, host, _, _ = gathered(4, 2)
    with pytest.raises(InvalidValue):
        host.set_seats(2, 0.1)
    assert host.seats_total == 4


def test_a_removed_joiner_is_told_signed_its_seat_freed_and_its_next_hello_refused() -> None:
    people, host, joiners, room = gathered(4, 2)
    removed, staying = joiners[0], joiners[1]
    out = host.remove(people[1].public_key, 0.5)
    told = next(e.frame for e in out if isinstance(e, SendTo) and peek_kind(e.frame) == "refused")
    env = open_envelope(told, expect_round=0)
    assert isinstance(env.body, Refusal) and env.author == people[0].public_key
    assert env.body.to == people[1].public_key and env.body.reason == "removed"
    room.run({people[0].public_key: out}, 0.5)
    assert room.refused_by[people[1].public_key] == [RefusalReason.REMOVED]
    assert removed.phase is Phase.SEEKING and not removed.targets  # it stops (the node says why)
    assert staying.roster == ("host", "j1")
    # it says hello again (another program, or its stays crossed the refusal): refused again
    room.run({people[1].public_key: removed.add_target(people[0].public_key, "127.0.0.1",
                                                        4000, 0.6)}, 0.6)
    room.run({people[1].public_key: removed.tick(0.6)}, 0.6)
    assert room.refused_by[people[1].public_key] == [RefusalReason.REMOVED] * 2
    assert [p.name for p in host.players] == ["host", "j1"]


def test_removing_the_host_or_a_stranger_does_nothing() -> None:
    people, host, _, _ = gathered(3, 1)
    assert host.remove(people[0].public_key, 0.1) == []
    assert host.remove(ids(6, seed=99)[5].public_key, 0.1) == []
    assert len(host.players) == 2


# ---- a host that leaves before it answers ----------------------------------------------------


def test_a_host_gone_before_it_answered_is_dropped_and_the_joiner_stops(beacon_port: int) -> None:
    """Real nodes on loopback beacons: a joiner (``--discover`` alone) says hello to the only
    table in sight, whose host never steps (never answers) and then closes (its leaving
    beacon). The joiner drops it and says "no open table" after LOOK_AGAIN, rather than
    saying hello to nobody until its timeout (the discover e2e test's stuck bot)."""
    net = NetConfig(bind="127.0.0.1", beacon_port=beacon_port, broadcast=["127.255.255.255"])
    host = Node.host(ids(1, seed=3)[0], "host", net, seats=2, rules=RuleSet(), turn_timer_ms=0)
    joiner = Node.join(ids(2, seed=4)[1], "j", net, discover=True)
    try:
        assert host.discovery is not None
        host.discovery.tick(host.clock())  # one beacon out; the host never steps again

        def targets() -> int:
            lobby = joiner.lobby
            return len(lobby.targets) if isinstance(lobby, JoinerLobby) else 0

        assert run_until(joiner, lambda: targets() == 1, WAIT_S), "the beacon was not heard"
        host.close()  # says goodbye: a leaving beacon
        assert run_until(joiner, lambda: joiner.gave_up is not None, LOOK_AGAIN + WAIT_S)
        assert joiner.gave_up is RefusalReason.NO_OPEN_TABLE
        assert joiner.stats.refusals == [RefusalReason.GONE]
    finally:
        host.close()
        joiner.close()


def test_a_host_that_closes_its_table_tells_every_joiner_signed() -> None:
    people, host, joiners, room = gathered(4, 2)
    room.run({people[0].public_key: host.close()}, 0.5)
    for who, joiner in zip(people[1:3], joiners[:2], strict=True):
        assert room.refused_by[who.public_key] == [RefusalReason.CLOSED]
        assert joiner.phase is Phase.SEEKING and not joiner.targets  # its node stops


def test_a_welcomed_joiner_gives_up_a_host_silent_for_host_silence_not_a_live_one() -> None:
    people, _, joiners, room = gathered(3, 1)
    waiting = joiners[0]

    def tick_all_to(start: float, end: float) -> None:
        now = start
        while now < end:
            now = round(now + 0.25, 6)
            room.tick(now)

    tick_all_to(0.0, 3 * HOST_SILENCE)  # a live host answers every stay: kept
    assert waiting.phase is Phase.GATHERING and not room.refused
    room.gone.add(people[0].public_key)  # the host crashes: nothing from it any more
    last = 3 * HOST_SILENCE
    tick_all_to(last, last + HOST_SILENCE - 1.5)  # its last answer was < 1 s before
    assert waiting.phase is Phase.GATHERING, "gave up before HOST_SILENCE"
    tick_all_to(last + HOST_SILENCE - 1.5, last + HOST_SILENCE + 0.5)
    assert room.refused_by[people[1].public_key] == [RefusalReason.GONE]
    assert waiting.phase is Phase.SEEKING and waiting.host_pub is None
