"""Our seat in a started game, as a node keeps it: the seating the lobby agreed, the table
machine built on it, when the game ended for us, whether leaving now strands anyone, and,
once the game is won, the answers to "one more game?" (``consensus/again.py``).

Built when the lobby seats us (:meth:`Game.start`) or from a journal after a crash
(:meth:`Game.restore`). No sockets and no clock: the node passes the time in, and carries
out the machine's effects itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from dudo_p2p.consensus.again import AfterGame, Answer
from dudo_p2p.consensus.events import Event, GameOver
from dudo_p2p.consensus.lobby import Seated
from dudo_p2p.consensus.machine import TableMachine
from dudo_p2p.consensus.replica import EpochPhase
from dudo_p2p.consensus.watch_desk import Desk
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.node.settling import SETTLE_GRACE, ended_us


class Game:
    """The game at ``seated``, played by ``machine`` (module docstring)."""

    def __init__(self, identity: Identity, seated: Seated, machine: TableMachine) -> None:
        self.identity = identity
        self.seated = seated
        self.machine = machine
        self.over_at: float | None = None  # when the game ended for us (settling.ended_us)
        self.after: AfterGame | None = None  # once the game is won: one more game? (again.py)

    @classmethod
    def start(cls, identity: Identity, seated: Seated, randbytes: Callable[[int], bytes],
              now: float) -> Game:
        """A new game: our machine over the seating every seat signed."""
        return cls(identity, seated, TableMachine(identity, seated.seating, randbytes, now))

    @classmethod
    def restore(cls, identity: Identity, seated: Seated, entries: Sequence[bytes],
                randbytes: Callable[[int], bytes], now: float) -> Game:
        """The game journalled as ``seated`` then ``entries`` (the machine's own records):
        the machine replays the log and takes back its secrets. A finished game counts as
        ended now (we serve lagging peers, then leave)."""
        machine = TableMachine.restore(identity, seated.seating, list(entries), randbytes, now)
        game = cls(identity, seated, machine)
        if machine.over:
            game.over_at = now
        return game

    def heard_of(self, event: Event, now: float) -> None:
        """Note when the game ended for us (what :meth:`settled` counts from); the machine
        beats at once itself, so the others see our final length (``Timers.beat_at_once``).
        A game won: we may be asked for one more (:attr:`after`)."""
        if self.over_at is None and ended_us(event, self.machine):
            self.over_at = now
        if isinstance(event, GameOver) and self.after is None:
            machine = self.machine
            removed = [i.removed_seat for i in machine.replica.chain if i.removed_seat is not None]
            self.after = AfterGame(self.identity, machine.seating, machine.replica.head,
                                   removed, ended_at=now)

    def again_due(self, now: float) -> bytes | None:
        """Our answer to "one more game?" when it is due again (once a second), else None."""
        return self.after.due(now) if self.after is not None else None

    def heard_again(self, frame: bytes) -> str | None:
        """Another seat's answer to "one more game?"; why it was refused, or None."""
        return self.after.receive(frame) if self.after is not None else None

    def say_again(self, answer: Answer, now: float) -> bytes | None:
        """Our answer to "one more game?" to send to every seat (None: the game is not won)."""
        if self.after is None:
            return None
        frame = self.after.say(answer)
        self.after.sent_at = now
        return frame

    def settled(self, desk: Desk, now: float) -> bool:
        """Over, and every other seat still at the table holds our whole log, or the grace
        ran out (:meth:`TableMachine.settled`), and the spectators at ``desk``
        have it too within the same grace: safe to leave."""
        machine, over_at = self.machine, self.over_at
        if over_at is None or not machine.settled(over_at, now):
            return False
        # spectators (watch_desk.py) are served to the end within the same grace, never longer
        return (desk.caught_up(len(machine.replica.chain), now)
                or now - over_at > SETTLE_GRACE or machine.removed_me)

    def next_deadline(self, now: float) -> float:
        """The machine's next deadline, or when leaving may become safe by the clock."""
        due = self.machine.next_deadline(now)
        if self.over_at is None:
            return due
        return min(due, self.machine.settle_deadline(self.over_at, now))

    def recipients(self, to: int | None) -> list[bytes]:
        """The keys of the links a frame for seat ``to`` goes on (None: every other seat)."""
        pubs = self.machine.seating.pubs
        if to is not None:
            return [pubs[to]]
        return [pub for seat, pub in enumerate(pubs) if seat != self.machine.seat]

    def to_dial(self, me: bytes) -> list[tuple[int, bytes, str, int]]:
        """(seat, key, host, port) of every other seat with an address to link to."""
        seated = self.seated
        return [(seat, pub, *seated.addresses[seat])
                for seat, pub in enumerate(seated.seating.pubs)
                if pub != me and seated.addresses[seat][0] and seated.addresses[seat][1]]

    def tell_links(self, nonce_of: Callable[[bytes], bytes | None]) -> None:
        """Our heartbeats name the link they travel on: give the machine each seat's nonce
        (``nonce_of`` a seat's key; a link redialled from a new socket has a new one)."""
        machine = self.machine
        for seat, pub in enumerate(machine.seating.pubs):
            nonce = nonce_of(pub)
            if nonce is not None:
                machine.beats.links[seat] = nonce

    def reached(self, peers: Iterable[bytes], now: float) -> None:
        """Our links to ``peers`` just came up: tell the machine which seats those are
        (``TableMachine.reached``), so its heartbeat to them is due at once."""
        machine = self.machine
        for peer in peers:
            seat = machine.seating.seat_of(peer)
            if seat is not None:
                machine.reached(seat, now)

    def summary(self) -> dict[str, Any]:
        """Winner name, log hash and rounds, for the CLI's ``--json`` object."""
        machine = self.machine
        rep = machine.replica
        winner = rep.engine.winner if rep.phase is EpochPhase.OVER else None
        return {
            "winner": machine.seating.names[winner] if winner is not None else None,
            "log_hash": rep.head.hex(),
            "rounds": len(rep.engine.results),
        }


NO_GAME: dict[str, Any] = {"winner": None, "log_hash": None, "rounds": 0}
