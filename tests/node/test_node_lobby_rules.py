"""The lobby's rules of issues 13 §4 and 21 §5/§6, in memory with an injected clock: signed,
typed refusals; a joiner that chose its host (``KeyPin``) is not captured by an evil twin;
seats of joiners that went silent or never signed are freed; names are clean and distinct."""

from __future__ import annotations

import pytest
from lobby_helpers import GAME_ID, Room, ids, table

from dudo_p2p.consensus.genesis import Candidate, open_genesis, propose
from dudo_p2p.consensus.lobby import (
    GENESIS_EVERY,
    SEAT_HOLD,
    SIGN_WITHIN,
    STAY_EVERY,
    Phase,
    Refused,
    SendTo,
)
from dudo_p2p.consensus.lobby_host import HostLobby
from dudo_p2p.consensus.lobby_joiner import JoinerLobby
from dudo_p2p.crypto.identity import Identity, KeyPin, fingerprint
from dudo_p2p.errors import InvalidValue, RemoteProtocolError
from dudo_p2p.protocol.envelope import open_envelope, peek_kind, seal_envelope
from dudo_p2p.protocol.kinds import Hello, Refusal
from dudo_p2p.protocol.names import problem, skeleton
from dudo_p2p.protocol.refusals import RefusalReason
from dudo_p2p.rules import RuleSet

CODE = "KQ7XM"


def host_lobby(who: Identity, seats: int, name: str = "host", port: int = 4000) -> HostLobby:
    return HostLobby(who, name, "0.0.0.0", port, table=CODE, game_id=GAME_ID, seats=seats,
                     rules=RuleSet(), turn_timer_ms=0)


def say_hello(room: Room, joiner: JoinerLobby, host: bytes, now: float) -> None:
    room.run({joiner.identity.public_key: joiner.add_target(host, "127.0.0.1", 4000, now)}, now)
    room.run({joiner.identity.public_key: joiner.tick(now)}, now)


def run_clock(room: Room, start: float, end: float, step: float = 0.05) -> float:
    now = start
    while now < end:
        now = round(now + step, 6)
        room.tick(now)
    return now


# ---- refused ------------------------------------------------------------------------------


def test_a_full_then_started_table_answers_a_late_hello_with_a_signed_typed_refusal() -> None:
    people, host, joiners = table(2)
    late = JoinerLobby(ids(5, seed=98)[4], "late", "0.0.0.0", 5001, table=CODE)
    later = JoinerLobby(ids(5, seed=97)[4], "later", "0.0.0.0", 5002, table=CODE)
    room = Room({people[0].public_key: host, people[1].public_key: joiners[0],
                 late.identity.public_key: late, later.identity.public_key: later},
                drop={"genesis-sign"})
    say_hello(room, joiners[0], people[0].public_key, 0.0)
    assert host.phase is Phase.SIGNING  # two seats taken: the genesis is out
    # The late joiner's very first hello is answered at once (no time passes in between).
    effects = late.add_target(people[0].public_key, "127.0.0.1", 4000, 0.0)
    room.run({late.identity.public_key: effects + late.tick(0.0)}, 0.0)
    assert room.refused_by[late.identity.public_key] == [RefusalReason.FULL]
    assert late.phase is Phase.SEEKING and not late.targets  # that target is dropped
    room.drop = set()
    run_clock(room, 0.0, 1.0)
    assert set(room.seated) == {people[0].public_key, people[1].public_key}
    hello = later.add_target(people[0].public_key, "127.0.0.1", 4000, 1.0) + later.tick(1.0)
    out = host.receive(next(e for e in hello if isinstance(e, SendTo)).frame,
                       later.identity.public_key, "127.0.0.1", 1.0)
    frame = next(e.frame for e in out if isinstance(e, SendTo))
    assert peek_kind(frame) == "refused"
    env = open_envelope(frame, expect_round=0)
    assert env.author == people[0].public_key and isinstance(env.body, Refusal)
    assert env.body.to == later.identity.public_key
    assert env.body.reason == "started" and env.body.table == CODE


def test_a_refusal_for_another_joiner_is_ignored_and_an_unknown_reason_reads_as_other() -> None:
    people, _host, joiners = table(2)
    joiner = joiners[0]
    joiner.add_target(people[0].public_key, "127.0.0.1", 4000, 0.0)

    def refusal(to: bytes, reason: str) -> bytes:
        body = Refusal(table=CODE, to=to, reason=reason)
        return seal_envelope(people[0], bytes(16), 0, 0, body).to_bytes()

    stranger = ids(9, seed=3)[8].public_key
    effects = joiner.receive(refusal(stranger, "full"), people[0].public_key, "127.0.0.1", 0.0)
    assert not any(isinstance(e, Refused) for e in effects)
    assert joiner.targets  # still trying that host
    effects = joiner.receive(refusal(joiner.identity.public_key, "gone_fishing"),
                             people[0].public_key, "127.0.0.1", 0.0)
    assert [e.reason for e in effects if isinstance(e, Refused)] == [RefusalReason.OTHER]
    assert RefusalReason.from_wire("full") is RefusalReason.FULL


def test_a_hello_whose_name_is_empty_once_cleaned_is_refused_and_a_local_one_raises() -> None:
    _people, host, _ = table(2)
    who = ids(3, seed=5)[2]
    body = Hello(CODE, "\u200b\u202e\x1b\n", who.x25519_public, "", 5000)
    hello = seal_envelope(who, bytes(16), 0, 0, body).to_bytes()
    out = host.receive(hello, who.public_key, "127.0.0.1", 0.0)
    frame = next(e.frame for e in out if isinstance(e, SendTo))
    env = open_envelope(frame, expect_round=0)
    assert isinstance(env.body, Refusal) and env.body.reason == "bad_name"
    assert host.seats_taken == 1
    with pytest.raises(InvalidValue, match="empty once"):
        JoinerLobby(who, " \u200d\u2066 ", "0.0.0.0", 5000)


# ---- no evil twin -------------------------------------------------------------------------


def twin_room(pin: KeyPin | None) -> tuple[Room, list[Identity], HostLobby, HostLobby, JoinerLobby]:
    """An honest host and an impostor with the same code and name, and one joiner that says
    hello to the impostor first (both are targets)."""
    honest_id, twin_id, joiner_id = ids(3, seed=11)
    honest, twin = host_lobby(honest_id, 2), host_lobby(twin_id, 2)
    joiner = JoinerLobby(joiner_id, "bob", "0.0.0.0", 5000, table=CODE, pin=pin)
    room = Room({honest_id.public_key: honest, twin_id.public_key: twin,
                 joiner_id.public_key: joiner})
    for target in (twin_id, honest_id):
        joiner.add_target(target.public_key, "127.0.0.1", 4000, 0.0)
    room.run({joiner_id.public_key: joiner.tick(0.0)}, 0.0)
    return room, [honest_id, twin_id, joiner_id], honest, twin, joiner


def test_a_joiner_that_chose_its_host_by_fingerprint_refuses_the_twins_welcome() -> None:
    honest_key = ids(3, seed=11)[0].public_key
    room, people, _honest, twin, joiner = twin_room(KeyPin.parse(fingerprint(honest_key)))
    assert room.refused_by[people[2].public_key] == [RefusalReason.WRONG_HOST]
    assert any(f"we chose {fingerprint(honest_key)}" in line for line in room.logs)
    run_clock(room, 0.0, 1.0)
    assert joiner.host_pub == honest_key
    assert set(room.seated) == {honest_key, people[2].public_key}
    # The twin seated the joiner on its hello; it never signs there, so the seat is freed.
    run_clock(room, 1.0, SIGN_WITHIN + 0.5)
    assert twin.phase is Phase.GATHERING and twin.seats_taken == 1


def test_the_honest_host_frees_the_seat_of_a_joiner_the_twin_captured() -> None:
    room, people, honest, _twin, joiner = twin_room(None)
    assert joiner.host_pub == people[1].public_key  # the twin answered first: captured
    assert honest.phase is Phase.SIGNING  # the honest host seated it too and proposed
    run_clock(room, 0.0, SIGN_WITHIN - 0.1)
    assert honest.phase is Phase.SIGNING
    run_clock(room, SIGN_WITHIN - 0.1, SIGN_WITHIN + 0.1)
    assert honest.phase is Phase.GATHERING and honest.seats_taken == 1
    assert any("freed the seat of bob" in line for line in room.logs)
    # Open again: the next joiner is seated and the game starts.
    carol = JoinerLobby(ids(4, seed=12)[3], "carol", "0.0.0.0", 5001, table=CODE)
    room.lobbies[carol.identity.public_key] = carol
    say_hello(room, carol, people[0].public_key, 5.0)
    run_clock(room, 5.0, 6.0)
    assert carol.seated is not None and honest.seated is not None
    assert carol.seated.seating.pubs == (people[0].public_key, carol.identity.public_key)


# ---- freeing seats ------------------------------------------------------------------------


def test_a_welcomed_joiner_that_goes_silent_is_freed_and_a_live_one_is_kept() -> None:
    people, host, joiners = table(4)
    room = Room({p.public_key: lobby for p, lobby in zip(people, [host, *joiners], strict=True)})
    for joiner in joiners[:2]:
        say_hello(room, joiner, people[0].public_key, 0.0)
    assert host.seats_taken == 3 and joiners[0].phase is Phase.GATHERING
    room.gone.add(people[1].public_key)  # j0 leaves without a word
    now = run_clock(room, 0.0, SEAT_HOLD - 0.1)
    assert host.seats_taken == 3
    now = run_clock(room, now, SEAT_HOLD + 0.1)
    assert [p.name for p in host.players] == ["host", "j1"]  # j1's stays kept it
    assert joiners[1].roster == ("host", "j1")  # the new seats went to the joiners left
    run_clock(room, now, 10 * STAY_EVERY)
    assert [p.name for p in host.players] == ["host", "j1"]


def test_a_seat_that_never_signs_is_freed_and_the_withdrawn_genesis_can_seat_nobody() -> None:
    people, host, joiners = table(3)
    room = Room({p.public_key: lobby for p, lobby in zip(people, [host, *joiners], strict=True)})
    room.lost.add((people[2].public_key, "genesis-sign"))  # j1's signatures never arrive
    for joiner in joiners:
        say_hello(room, joiner, people[0].public_key, 0.0)
    assert host.phase is Phase.SIGNING and host.signing is not None
    first = host.signing.digest
    assert joiners[1].signing is not None
    late = joiners[1].signing.signatures[2]  # j1's signature on the first genesis
    room.gone.add(people[2].public_key)  # and then j1 is cut off for a while
    now = run_clock(room, 0.0, SIGN_WITHIN + 0.1)
    assert host.phase is Phase.GATHERING and not room.seated
    assert [p.name for p in host.players] == ["host", "j0"]
    assert joiners[0].phase is Phase.GATHERING and joiners[0].signing is None  # withdrawn
    # The late signature reaches everyone: the host never signed that genesis, so nobody
    # can hold all its signatures (with the host signing at once, j0 would be seated here).
    room.gone.clear()
    room.lost.clear()
    room.run({people[2].public_key: [SendTo(people[0].public_key, late),
                                     SendTo(people[1].public_key, late)]}, now)
    assert not room.seated
    assert joiners[1].phase is Phase.GATHERING  # the host told it the genesis is withdrawn
    # j1 was alive, only its signatures were lost: it hears the withdrawal, says hello
    # again, and the table is seated on a new genesis.
    run_clock(room, now, now + 2 * STAY_EVERY + 3 * GENESIS_EVERY)
    assert set(room.seated) == set(p.public_key for p in people)
    digests = {s.seating.digest for s in room.seated.values()}
    assert len(digests) == 1
    assert host.seated is not None
    # The same seats in the same order: the very genesis first proposed, now signed by all.
    assert open_envelope(host.seated.genesis).digest() == first


# ---- names --------------------------------------------------------------------------------


def test_the_genesis_holds_clean_distinct_names_and_logs_hold_no_control_character() -> None:
    people = ids(4, seed=21)
    host = host_lobby(people[0], 4, name="Ana")
    joiners = [JoinerLobby(p, name, "0.0.0.0", 5000 + i, table=CODE)
               for i, (p, name) in enumerate(zip(people[1:], [
                   "\u0410na",  # Cyrillic A
                   "\x1b[2K\rhost: bot1 left (silent)\n",
                   "A\u200bn\u202ea",  # zero-width space and a right-to-left override
               ], strict=True))]
    room = Room({p.public_key: lobby for p, lobby in zip(people, [host, *joiners], strict=True)})
    for joiner in joiners:
        say_hello(room, joiner, people[0].public_key, 0.0)
    run_clock(room, 0.0, 1.0)
    assert len(room.seated) == 4
    names = room.seated[people[0].public_key].seating.names
    assert problem(names) is None
    assert names[0] == f"Ana #{fingerprint(people[0].public_key)}"
    assert names[1] == f"\u0410na #{fingerprint(people[1].public_key)}"
    assert names[2] == "[2Khost: bot1 left (silent)"
    assert names[3] == f"Ana #{fingerprint(people[3].public_key)}"
    assert len({skeleton(n) for n in names}) == 4
    assert not any(ch in line for line in room.logs for ch in "\x1b\r\n\u202e\u200b")


@pytest.mark.parametrize("names", [("bob", "B\u043eb"), ("ana", "ana\u200b"), ("ok", "")])
def test_a_genesis_with_colliding_or_unclean_names_is_refused(names: tuple[str, str]) -> None:
    people = ids(2, seed=31)
    players = [Candidate(p.public_key, p.x25519_public, n, "", 4000)
               for p, n in zip(people, names, strict=True)]
    env = propose(people[0], GAME_ID, CODE, RuleSet(), 0, players)
    with pytest.raises(RemoteProtocolError, match="genesis names"):
        open_genesis(env.to_bytes())
