"""The lobby handshake, pure and deterministic: frames routed in memory, an injected clock."""

from __future__ import annotations

from pathlib import Path

from lobby_helpers import GAME_ID, Room, ids, table

from dudo_p2p.consensus.lobby import Phase, SendTo
from dudo_p2p.consensus.lobby_host import HostLobby
from dudo_p2p.consensus.lobby_joiner import JoinerLobby
from dudo_p2p.consensus.machine import Log
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.node import journal
from dudo_p2p.protocol.refusals import RefusalReason


def test_three_peers_are_seated_in_join_order_with_one_seating() -> None:
    people, host, joiners = table(3)
    room = Room({p.public_key: lobby for p, lobby in zip(people, [host, *joiners], strict=True)})
    now = 0.0
    for joiner in joiners:
        room.run({people[0].public_key: []}, now)
        effects = joiner.add_target(people[0].public_key, "127.0.0.1", 4000, now)
        room.run({joiner.identity.public_key: effects}, now)
        room.tick(now)  # the hello goes out on the tick
        now += 0.01
    assert set(room.seated) == {p.public_key for p in people}
    digests = {s.seating.digest for s in room.seated.values()}
    assert len(digests) == 1
    seating = next(iter(room.seated.values())).seating
    assert seating.names == ("host", "j0", "j1")
    assert seating.game_id == GAME_ID
    # seat 0 announced no address: joiners use the one they reached the host at
    assert room.seated[people[1].public_key].addresses[0] == ("127.0.0.1", 4000)


def test_lost_signatures_are_resent_until_everyone_is_seated() -> None:
    people, host, joiners = table(3)
    room = Room({p.public_key: lobby for p, lobby in zip(people, [host, *joiners], strict=True)},
                drop={"genesis-sign"})
    now = 0.0
    for joiner in joiners:
        room.run({joiner.identity.public_key:
                  joiner.add_target(people[0].public_key, "127.0.0.1", 4000, now)}, now)
    room.tick(now)
    assert not room.seated and all(j.phase is Phase.SIGNING for j in joiners)
    room.drop = set()
    room.tick(now + 0.1)  # before the re-send interval: nothing yet
    assert not room.seated
    room.tick(now + 1.0)
    assert set(room.seated) == {p.public_key for p in people}


def test_a_hello_for_another_table_or_a_full_table_is_refused() -> None:
    people, host, joiners = table(2)
    stranger = ids(4, seed=99)[3]
    wrong = JoinerLobby(stranger, "x", "0.0.0.0", 5000, table="ZZZZZ")
    late = JoinerLobby(ids(5, seed=98)[4], "late", "0.0.0.0", 5001, table="KQ7XM")
    lobbies = {people[0].public_key: host, people[1].public_key: joiners[0],
               stranger.public_key: wrong, late.identity.public_key: late}
    room = Room(lobbies)
    for lobby in (wrong, joiners[0], late):
        room.run({lobby.identity.public_key:
                  lobby.add_target(people[0].public_key, "127.0.0.1", 4000, 0.0)}, 0.0)
        room.tick(0.0)
    assert RefusalReason.UNKNOWN_TABLE in room.refused
    assert any(r in (RefusalReason.FULL, RefusalReason.STARTED) for r in room.refused)
    assert set(room.seated) == {people[0].public_key, people[1].public_key}
    assert wrong.phase is Phase.SEEKING and late.phase is Phase.SEEKING


def test_garbage_and_forged_frames_are_logged_not_raised() -> None:
    people, host, joiners = table(2)
    joiners[0].add_target(people[0].public_key, "127.0.0.1", 4000, 0.0)
    hello = next(e for e in joiners[0].tick(0.0) if isinstance(e, SendTo)).frame
    forged = hello[:-1] + bytes([hello[-1] ^ 1])  # one bit of the signature flipped
    for frame in (b"", b"\x98", bytes(200), b"\xc4\xff" + bytes(10), hello[:-7], forged):
        effects = host.receive(frame, b"x", None, 0.0)
        assert effects and all(isinstance(e, Log) for e in effects)
    assert host.seats_taken == 1  # nobody was seated by any of them
    assert any(isinstance(e, SendTo) for e in host.receive(hello, b"x", "127.0.0.1", 0.0))
    assert host.seats_taken == 2  # while the genuine hello seats its author


def test_journal_ignores_a_torn_last_record_and_appends_after_the_last_whole_one(
    tmp_path: Path,
) -> None:
    path = tmp_path / "journal"
    book = journal.Journal(path)
    for record in (b"genesis", b"one", b"two"):
        book.append(record)
    book.sync()
    book.close()
    whole = path.read_bytes()
    path.write_bytes(whole + b"\x00\x00\x00\x09par")  # a crash mid-record
    assert journal.read(path) == [b"genesis", b"one", b"two"]
    again = journal.Journal(path)
    again.append(b"three")
    again.close()
    assert journal.read(path) == [b"genesis", b"one", b"two", b"three"]


def test_a_seat_the_host_heard_from_its_own_machine_is_dialled_at_the_hosts_address() -> None:
    # The window's "start now with bots": bots on the host's laptop join it over loopback, so
    # the genesis places them at 127.0.0.1. A friend on another laptop dialled 127.0.0.1
    # (its own machine), never linked to them, and the bots voted the friend out "silent".
    people, host, joiners = table(3)
    friend, bot = joiners
    lan = {people[0].public_key: "10.77.4.10", bot.identity.public_key: "10.77.4.10",
           friend.identity.public_key: "10.77.4.11"}
    room = Room({p.public_key: lobby for p, lobby in zip(people, [host, *joiners], strict=True)},
                machines=lan)
    now = 0.0
    for joiner, reached in ((friend, "10.77.4.10"), (bot, "127.0.0.1")):
        room.run({joiner.identity.public_key: joiner.add_target(people[0].public_key, reached,
                                                                 4000, now)}, now)
        room.tick(now)
        now += 0.01
    assert set(room.seated) == {p.public_key for p in people}
    at_friend = room.seated[friend.identity.public_key].addresses
    assert at_friend == (("10.77.4.10", 4000), ("10.77.4.11", 4001), ("10.77.4.10", 4002))
    at_bot = room.seated[bot.identity.public_key].addresses  # on the host's machine: as given
    assert at_bot == (("127.0.0.1", 4000), ("10.77.4.11", 4001), ("127.0.0.1", 4002))


def test_a_joiner_that_slept_in_the_waiting_room_says_hello_again_instead_of_leaving() -> None:
    # Bob's laptop slept 20 s in Alice's waiting room (SIGSTOP): the host freed his seat
    # after SEAT_HOLD, rightly; Bob woke, found the host unheard for 10 s and went back to
    # the lobby saying "the host left or stopped answering" while Alice's table was there.
    people, host, bob, room, now = _welcomed_in_a_room()
    assert [p.pub for p in host.players] == [people[0].public_key, bob.identity.public_key]
    while now < 23.0:  # Bob is stopped: only the host ticks, and frees his seat
        room.run({people[0].public_key: host.tick(now)}, now)
        now += 0.5
    assert [p.pub for p in host.players] == [people[0].public_key]
    room.run({bob.identity.public_key: bob.tick(now)}, now)  # Bob wakes
    assert not room.refused, room.logs
    assert any("we were stopped" in line for line in room.logs)
    assert [p.pub for p in host.players] == [people[0].public_key, bob.identity.public_key]
    assert bob.roster_keys == (people[0].public_key, bob.identity.public_key)
    assert bob.phase is Phase.GATHERING


def test_a_host_that_slept_in_its_waiting_room_frees_nobody_for_its_own_absence() -> None:
    # Alice's laptop slept 7 s with Bob in her waiting room: on waking she freed his seat
    # ("not heard for 4 s") before his stays, queued meanwhile, came in; he was seated
    # again a second later. A joiner that really went silent is still freed.
    people, host, bob, room, now = _welcomed_in_a_room()
    due = host.next_deadline()
    assert due is not None and due <= now - 0.5 + 1.0  # the host ticks each second meanwhile
    while now < 10.0:  # Alice is stopped: Bob's stays wait in her socket
        bob.tick(now)
        now += 0.5
    room.run({people[0].public_key: host.tick(now)}, now)  # she wakes, ticks first
    assert [p.pub for p in host.players] == [people[0].public_key, bob.identity.public_key]
    assert any("we were stopped" in line for line in room.logs)
    while now < 16.0:  # now Bob is gone for real (crashed): only Alice ticks
        room.run({people[0].public_key: host.tick(now)}, now)
        now += 0.5
    assert [p.pub for p in host.players] == [people[0].public_key]


def _welcomed_in_a_room() -> tuple[list[Identity], HostLobby, JoinerLobby, Room, float]:
    """A 3-seat host and one joiner, welcomed, both ticked every 0.5 s for 3 s as their
    nodes would: (people, host, joiner, room, now)."""
    people, host, joiners = table(3)
    bob = joiners[0]
    room = Room({p.public_key: lobby for p, lobby in zip(people, [host, *joiners], strict=True)})
    room.run({bob.identity.public_key: bob.add_target(people[0].public_key, "127.0.0.1",
                                                      4000, 0.0)}, 0.0)
    now = 0.0
    while now < 3.0:
        room.run({people[0].public_key: host.tick(now), bob.identity.public_key: bob.tick(now)},
                 now)
        now += 0.5
    return people, host, bob, room, now
