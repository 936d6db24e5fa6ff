"""The node as sessions and the CLI use it: how a peer is opened, what it says, what it does.

A :class:`Node` is a :class:`~dudo_p2p.node.loop.NodeLoop` (the one loop that owns the
sockets, the clock, the randomness and the journal, and carries out every effect: see that
module) opened in one of three ways — :meth:`Node.host` (open a table and advertise it),
:meth:`Node.join` (sit at one, by address or by beacon), :meth:`Node.resume` (rebuild a
crashed peer from its journal) — plus what sessions and the CLI read (over, settled, the
"one more game?" answers, the summary) and the player's and the host's controls (talk,
leave, start now, seats, remove a joiner). :func:`run_until` steps a node until a condition
holds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from dudo_p2p.consensus.again import AfterGame, Answer
from dudo_p2p.consensus.lobby import Lobby, LobbyEffect
from dudo_p2p.consensus.lobby_host import HostLobby
from dudo_p2p.consensus.lobby_joiner import JoinerLobby
from dudo_p2p.crypto.identity import Identity, KeyPin
from dudo_p2p.net.beacon import new_table_code
from dudo_p2p.net.links import Links
from dudo_p2p.net.transport import ZmqTransport
from dudo_p2p.node import journal as jr
from dudo_p2p.node.config import NetConfig
from dudo_p2p.node.game import NO_GAME, Game
from dudo_p2p.node.gathering import Gathering
from dudo_p2p.node.loop import NodeLoop
from dudo_p2p.node.seeking import Seeker
from dudo_p2p.protocol.refusals import RefusalReason
from dudo_p2p.rules import RuleSet

__all__ = ["LEAVE_LINGER_MS", "NetConfig", "Node", "run_until"]

# A joiner that cancels in the waiting room sends a lobby ``leave`` and closes at once: its
# links keep sending what is queued this long while the node closes (ZeroMQ's linger).
LEAVE_LINGER_MS = 500


class Node(NodeLoop):
    """One peer. Build with :meth:`host`, :meth:`join` or :meth:`resume`; drive with
    :meth:`step` (or a session's ``wait``); :meth:`close` when done. Not thread-safe."""

    # ---- construction ---------------------------------------------------------------------

    @classmethod
    def host(
        cls,
        identity: Identity,
        name: str,
        net: NetConfig,
        *,
        seats: int,
        rules: RuleSet,
        turn_timer_ms: int,
        table: str | None = None,
        journal_path: Path | None = None,
        journal_dir: Path | None = None,
        grace_ms: int = 0,
        prev: bytes = b"",
        **inject: Any,
    ) -> Node:
        """Open a table of ``seats`` seats (we take seat 0) and advertise it; a silent seat
        is waited for ``grace_ms`` past the silence timeout (the reconnect grace, §4.6);
        ``prev``: the final log hash of the game this one follows (one more game, §4.9).
        Without ``journal_path`` the game journals itself into ``journal_dir``, if given.
        ``inject``: ``clock``, ``transport``, ``rng``, ``discovery`` for the constructor
        (tests)."""
        node = cls(identity, name, net, journal_path=journal_path, journal_dir=journal_dir,
                   **inject)
        code = table or new_table_code(node.rng)
        node.gathering = Gathering(HostLobby(
            identity, name, net.bind, node.port, table=code,
            game_id=node.rng.randbytes(16), seats=seats, rules=rules,
            turn_timer_ms=turn_timer_ms, grace_ms=grace_ms, prev=prev,
        ))
        node._update_beacon()
        return node

    @classmethod
    def join(
        cls,
        identity: Identity,
        name: str,
        net: NetConfig,
        *,
        table: str | None = None,
        addresses: Sequence[tuple[str, int]] = (),
        discover: bool = True,
        journal_path: Path | None = None,
        accept_rules: Callable[[RuleSet], bool] = lambda _: True,
        pin: KeyPin | None = None,
        journal_dir: Path | None = None,
        expect_prev: bytes | None = None,
        **inject: Any,
    ) -> Node:
        """Sit at a table: the one at each ``host:port`` in ``addresses`` and/or (``discover``)
        the first open one the beacons show (with code ``table`` when given, hosted by the
        key ``pin`` matches when given: an answer signed by another key is refused). Without
        ``journal_path`` the game journals itself into ``journal_dir``, if given. ``inject``:
        ``clock``, ``transport``, ``rng``, ``discovery`` for the constructor (tests)."""
        node = cls(identity, name, net, journal_path=journal_path, journal_dir=journal_dir,
                   **inject)
        lobby = JoinerLobby(identity, name, net.bind, node.port, table=table, pin=pin,
                            accept_rules=accept_rules, expect_prev=expect_prev)
        seeker = Seeker(table, pin, discovering=discover and node.discovery is not None)
        node.gathering = Gathering(lobby, seeker)
        node.carry_out(node.gathering.dial(addresses, node.clock()))
        node._update_beacon()
        return node

    @classmethod
    def resume(cls, identity: Identity, name: str, net: NetConfig, journal_path: Path,
               **inject: Any) -> Node:
        """Rebuild a crashed peer from its journal (same identity): the machine replays the
        log, takes back its secrets, reconnects to every seat and asks for what it missed.
        Raises DudoError when the journal holds no game of this identity. ``inject``:
        ``clock``, ``transport``, ``rng``, ``discovery`` for the constructor (tests), as for
        :meth:`host`."""
        seated, entries = jr.resumable(journal_path, identity)
        node = cls(identity, name, net, journal_path=journal_path, resume=seated, **inject)
        now = node.clock()
        node.gathering = Gathering(Lobby.resumed(identity, seated))
        node.game = game = Game.restore(identity, seated, entries, node.rng.randbytes, now)
        node._connect_seats()
        node._update_beacon()
        # restore() re-sends our unagreed act and asks for what we missed; start() also sends
        # what our seat owes the current phase (a commit, nonce, reveal or result signature
        # not yet chained), rebuilt from the journalled secrets, so the table does not wait
        # for it until it votes us out.
        game.tell_links(node.transport.nonce)
        node.carry_out(game.machine.tick(now) + game.machine.start(now))
        return node

    # ---- state for sessions and the CLI ------------------------------------------------------

    @property
    def over(self) -> bool:
        """The game ended for us (a winner, or we were removed)."""
        return self.machine is not None and self.machine.over

    @property
    def after(self) -> AfterGame | None:
        """Once the game is won: the answers to "one more game?" (again.py)."""
        return self.game.after if self.game is not None else None

    @property
    def over_at(self) -> float | None:
        """When the game ended for us (None: not seated, or still on)."""
        return self.game.over_at if self.game is not None else None

    def settled(self) -> bool:
        """Over, and every other seat and spectator holds our whole log, or the grace ran
        out: safe to leave (:meth:`Game.settled`)."""
        return self.game is not None and self.game.settled(self.desk, self.clock())

    @property
    def table_code(self) -> str | None:
        return self.lobby.table

    @property
    def gave_up(self) -> RefusalReason | None:
        """Why this joiner stopped looking for a table (None: still looking, or seated);
        :attr:`Seeker.why` says it in a line (seeking.py)."""
        return self.gathering.gave_up if self.seated is None else None

    # ---- summaries ----------------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        """The CLI's ``--json`` object: winner name, log hash, rounds, seconds since start."""
        game = self.game.summary() if self.game is not None else NO_GAME
        return {**game, "seconds": round(self.clock() - self.started_at, 3)}

    # ---- lifetime -----------------------------------------------------------------------------

    def talk(self, phrase: int) -> None:
        """Say quick phrase ``phrase`` to the table (table talk; nothing before the game is
        seated, nor faster than once a second)."""
        if self.machine is not None:
            self.carry_out(list(self.machine.talk(phrase, self.clock())))

    def say_again(self, answer: Answer) -> None:
        """Tell every seat of the won game whether we play one more (protocol.md §4.9 "One
        more game"); re-sent every second while we stay. Nothing before the game is won."""
        frame = self.game.say_again(answer, self.clock()) if self.game is not None else None
        if frame is not None:
            self._send(frame, None)

    def start_now(self) -> None:
        """Host: seat the players gathered so far, at least two (``HostLobby.start_now``)."""
        self._lobby_says(self.gathering.start_now(self.clock()))

    def set_seats(self, seats: int) -> None:
        """Host, gathering: the table now has ``seats`` seats (``HostLobby.set_seats``;
        InvalidValue for a count it cannot have)."""
        self._lobby_says(self.gathering.set_seats(seats, self.clock()))

    def remove(self, pub: bytes) -> None:
        """Host, before the game starts: take joiner ``pub`` off the table
        (``HostLobby.remove``: it is told, signed, and refused from then on)."""
        self._lobby_says(self.gathering.remove(pub, self.clock()))

    def _lobby_says(self, effects: list[LobbyEffect]) -> None:
        """Carry out a host control's effects; the beacon shows the seats it leaves."""
        self.carry_out(effects)
        self._update_beacon()

    def leave(self) -> None:
        """Tell the table we quit (a forfeit) when the game is still running; before it
        starts, give our seat back to the host that welcomed us (a lobby ``leave``), or, as
        its host, tell every joiner the table is closed: sent before :meth:`close` closes
        the links, which linger up to :data:`LEAVE_LINGER_MS` for it."""
        if self.machine is not None and not self.machine.over:
            self.carry_out(list(self.machine.leave(self.clock())))
            self.left = True
        elif self.machine is None:
            said = self.gathering.leave()
            self.carry_out(said)
            self.linger_ms = LEAVE_LINGER_MS if said else 0

    def close(self) -> None:
        """Close sockets and the journal. Idempotent."""
        if self.closed:
            return
        self.closed = True
        self.journal.close(finished=self.over or self.left)
        if self.discovery is not None:
            self.discovery.close()
        self.transport.close(self.linger_ms)  # a leaving joiner's links linger a moment

    @property
    def links(self) -> Links:
        """The ZeroMQ links under the transport (their counters; AttributeError in memory)."""
        if isinstance(self.transport, ZmqTransport):
            return self.transport.links
        raise AttributeError("an in-memory transport has no ZeroMQ links")


def run_until(node: Node, done: Callable[[], bool], timeout: float,
              check_every: float = 0.05) -> bool:
    """Step ``node`` until ``done()`` or ``timeout`` seconds passed; returns ``done()``.
    ``done`` is checked after every wake-up and at least every ``check_every`` seconds
    (it may depend on other nodes or processes, which do not wake this one)."""
    deadline = node.clock() + timeout
    while not done():
        remaining = deadline - node.clock()
        if remaining <= 0:
            return False
        node.step(min(remaining, check_every))
    return True
