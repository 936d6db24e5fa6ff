"""The node: the one loop that owns the sockets, the clock, the randomness and the journal.

A :class:`Node` wires a :class:`~dudo_p2p.net.transport.Transport` (ZeroMQ links by default,
an in-memory twin in tests) and (optionally) :class:`~dudo_p2p.net.discovery.Discovery` to the
pure :class:`~dudo_p2p.consensus.lobby.Lobby`
and, once every seat signed the genesis, the :class:`~dudo_p2p.consensus.machine.TableMachine`.
Nothing else in dudo-p2p reads ``time.monotonic`` or ``os.urandom`` for the game.

One turn of the loop (:meth:`Node.step`): poll the link sockets, their monitors and the
beacon socket until the earliest deadline (:meth:`Node.next_wake`: the machine's
``next_deadline``, the lobby's re-sends, the next beacon, held frames, settling) or a frame;
read every beacon and every frame; tick what is due; carry out the collected effects as one
batch (:meth:`Node.carry_out`). An idle seated node wakes for its heartbeats and the others'
frames, not on a fixed tick:

- every ``Persist`` of the batch is appended to the journal and the journal is fsynced once,
  *before* any of the batch's sends (so a record is durable before anything that depends on
  it leaves; writing a record a little early is harmless, a send before it is not);
- ``Send`` goes to the seat's public key (``to=None``: every other seat); ``Connect``/``SendTo``
  (lobby) open links and send by link key;
- ``Emit`` appends the event to :attr:`Node.events` (the session drains it);
- ``Log`` goes to the ``logging`` module;
- ``Seated`` writes the journal's first record and builds the machine, whose first effects
  and the game frames buffered before it existed run in the next batch.

Frames are routed by their ``kind`` (peeked, not trusted): lobby kinds to the lobby, others to
the machine, or into a bounded buffer while the machine does not exist yet. Garbage is logged
and dropped. The frame size is checked by ZeroMQ (``MAXMSGSIZE``) before anything is read and
again by the envelope decoder.
"""

from __future__ import annotations

import logging
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dudo_p2p.consensus.effects import carry_out
from dudo_p2p.consensus.events import Event, GameAbandoned, GameOver, PlayerLeft, TableGone
from dudo_p2p.consensus.lobby import (
    LOBBY_KINDS,
    Connect,
    Lobby,
    LobbyEffect,
    Phase,
    Refused,
    Rekey,
    Seated,
    SendTo,
)
from dudo_p2p.consensus.lobby_host import HostLobby
from dudo_p2p.consensus.lobby_joiner import JoinerLobby
from dudo_p2p.consensus.machine import Effect, Persist, TableMachine
from dudo_p2p.consensus.replica import EpochPhase
from dudo_p2p.consensus.watching import WATCH_KINDS, Desk, Note
from dudo_p2p.crypto.identity import Identity, KeyPin
from dudo_p2p.errors import InvalidValue
from dudo_p2p.net.beacon import Beacon, TableState, new_table_code
from dudo_p2p.net.discovery import DEFAULT_BEACON_PORT, Discovery, Seen
from dudo_p2p.net.links import Incoming, Links
from dudo_p2p.net.transport import Transport, ZmqTransport
from dudo_p2p.node import journal as jr
from dudo_p2p.node.conns import Connections, link_proof
from dudo_p2p.node.seeking import Seeker, open_first
from dudo_p2p.protocol import names
from dudo_p2p.protocol.envelope import peek_kind
from dudo_p2p.protocol.refusals import RefusalReason
from dudo_p2p.rules import RuleSet

log = logging.getLogger(__name__)

MAX_EARLY_FRAMES = 1024  # game frames kept while our machine does not exist yet
SETTLE_GRACE = 3.0  # after the game ends, serve lagging peers at most this long
TELL_LINGER = 10.0  # ... and wait at most this long for a removed seat to hear of it (§4.6)
# held frames of young links: net/transport.py (LINK_UP_GRACE, HOLD_RETRY, MAX_HELD)
# A joiner that cancels in the waiting room sends a lobby ``leave`` and closes at once: its
# links keep sending what is queued this long while the node closes (ZeroMQ's linger).
LEAVE_LINGER_MS = 500

AnyEffect = Effect | LobbyEffect


@dataclass(frozen=True)
class NetConfig:
    """Where the node listens and beacons. ``broadcast`` None: every interface's broadcast
    address (tests and ``sim`` pass ``["127.255.255.255"]``); ``discovery`` False: no beacon
    socket at all (direct ``--join`` only)."""

    bind: str = "0.0.0.0"
    port: int = 0
    beacon_port: int = DEFAULT_BEACON_PORT
    broadcast: Sequence[str] | None = None
    discovery: bool = True


@dataclass
class Stats:
    """Counters for ``-v`` output and tests."""

    garbage_frames: int = 0
    early_frames: int = 0
    early_dropped: int = 0
    flood_dropped: int = 0
    wakeups: int = 0  # returns from poll (the bench's idle wake-ups per second)
    refusals: list[RefusalReason] = field(default_factory=list)


class Node:
    """One peer. Build with :meth:`host`, :meth:`join` or :meth:`resume`; drive with
    :meth:`step` (or a session's ``wait``); :meth:`close` when done. Not thread-safe."""

    def __init__(
        self,
        identity: Identity,
        name: str,
        net: NetConfig,
        *,
        journal_path: Path | None,
        resume: Seated | None = None,
        clock: Callable[[], float] = time.monotonic,
        journal_dir: Path | None = None,
        transport: Transport | None = None,
        rng: random.Random | None = None,
    ) -> None:
        if resume is None and not names.clean(name):  # before any socket is opened
            raise InvalidValue(f"the name {names.shown(name)!r} is empty once control and "
                               "invisible characters are removed")
        self.identity = identity
        self.name = names.clean(name) or "?"
        self.net = net
        self.clock = clock
        # os.urandom underneath by default: game id, table code, secrets (tests inject one)
        self.rng = rng if rng is not None else random.SystemRandom()
        port = net.port
        if resume is not None:
            me = resume.seating.seat_of(identity.public_key)
            assert me is not None
            port = resume.addresses[me][1]  # the others' links point there
        self.discovery: Discovery | None = None
        self.transport: Transport = transport or ZmqTransport(
            identity.public_key, bind=net.bind, port=port)
        try:
            if net.discovery:
                broadcast = list(net.broadcast) if net.broadcast is not None else None
                self.discovery = Discovery(net.beacon_port, broadcast_addresses=broadcast)
                self.transport.watch(self.discovery.fileno())
        except BaseException:
            self.transport.close()
            raise
        self.journal: jr.Journal | None = None
        if journal_path is not None:
            self.journal = jr.Journal(journal_path, truncate=resume is None)
        # no --journal: the game journals itself into journal_dir once seated (§4.7), and the
        # file goes when the game ends or we leave it (kept after a crash, for --resume)
        self.journal_dir = journal_dir if journal_path is None else None
        self.auto_journal: Path | None = None
        self.left = False
        self.records: list[bytes] = []  # every record journalled (the game's --record copy)
        self.lobby: Lobby = JoinerLobby(identity, self.name, net.bind, self.transport.port)
        self.machine: TableMachine | None = None
        self.seated: Seated | None = None
        self.events: list[Event] = []
        self.early: list[bytes] = []
        self.stats = Stats()
        self.desk = Desk(identity)  # spectators (watching.py)
        self.conns = Connections(flood=self.transport.flood)  # link proofs, per connection
        self.seeker = Seeker(None, None, discovering=False)
        self.started_at = clock()
        self.seated_at: float | None = None
        self.over_at: float | None = None
        self.closed = False
        self.linger_ms = 0  # how long the links flush what is queued when closing

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
        **inject: Any,
    ) -> Node:
        """Open a table of ``seats`` seats (we take seat 0) and advertise it; a silent seat
        is waited for ``grace_ms`` past the silence timeout (the reconnect grace, §4.6).
        Without ``journal_path`` the game journals itself into ``journal_dir``, if given.
        ``inject``: ``clock``, ``transport``, ``rng`` for the constructor (tests)."""
        node = cls(identity, name, net, journal_path=journal_path, journal_dir=journal_dir,
                   **inject)
        code = table or new_table_code(node.rng)
        node.lobby = HostLobby(
            identity, name, net.bind, node.port, table=code,
            game_id=node.rng.randbytes(16), seats=seats, rules=rules,
            turn_timer_ms=turn_timer_ms, grace_ms=grace_ms,
        )
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
        **inject: Any,
    ) -> Node:
        """Sit at a table: the one at each ``host:port`` in ``addresses`` and/or (``discover``)
        the first open one the beacons show (with code ``table`` when given, hosted by the
        key ``pin`` matches when given: an answer signed by another key is refused). Without
        ``journal_path`` the game journals itself into ``journal_dir``, if given. ``inject``:
        ``clock``, ``transport``, ``rng`` for the constructor (tests)."""
        node = cls(identity, name, net, journal_path=journal_path, journal_dir=journal_dir,
                   **inject)
        lobby = JoinerLobby(identity, name, net.bind, node.port, table=table, pin=pin,
                            accept_rules=accept_rules)
        node.lobby = lobby
        node.seeker = Seeker(table, pin, discovering=discover and node.discovery is not None)
        now = node.clock()
        for host, port in addresses:
            key = f"join:{host}:{port}".encode()  # placeholder until the host's welcome
            node.carry_out(lobby.add_target(key, host, port, now))
        node._update_beacon()
        return node

    @classmethod
    def resume(cls, identity: Identity, name: str, net: NetConfig, journal_path: Path) -> Node:
        """Rebuild a crashed peer from its journal (same identity): the machine replays the
        log, takes back its secrets, reconnects to every seat and asks for what it missed.
        Raises DudoError when the journal holds no game of this identity."""
        records = jr.read(journal_path)
        if not records:
            raise InvalidValue(f"{journal_path}: the journal holds no game to resume")
        seated = jr.parse_seating(records[0])
        if seated.seating.seat_of(identity.public_key) is None:
            raise InvalidValue(f"{journal_path}: this identity has no seat in that game")
        node = cls(identity, name, net, journal_path=journal_path, resume=seated)
        now = node.clock()
        node.seated = seated
        node.seated_at = now
        node.records = list(records)
        node.lobby = Lobby.resumed(identity, seated)
        node.machine = TableMachine.restore(identity, seated.seating, records[1:],
                                            node.rng.randbytes, now)
        node._connect_seats(seated)
        node._update_beacon()
        # restore() re-sends our unagreed act and asks for what we missed; start() also sends
        # what our seat owes the current phase (a commit, nonce, reveal or result signature
        # not yet chained), rebuilt from the journalled secrets, so the table does not wait
        # for it until it votes us out.
        node._tell_links(node.machine)
        node.carry_out(node.machine.tick(now) + node.machine.start(now))
        if node.machine.over and node.over_at is None:
            node.over_at = now  # the journal holds a finished game: serve lagging peers, leave
        return node

    # ---- state for sessions and the CLI ------------------------------------------------------

    @property
    def over(self) -> bool:
        """The game ended for us (a winner, or we were removed)."""
        return self.machine is not None and self.machine.over

    def settled(self) -> bool:
        """Over, and every other seat still at the table holds our whole log, or the grace
        ran out: safe to leave (see :func:`settled`)."""
        machine = self.machine
        if machine is None or self.over_at is None:
            return False
        now = self.clock()
        if not settled(machine, self.over_at, now):
            return False
        # spectators (watching.py) are served to the end within the same grace, never longer
        return (self.desk.caught_up(len(machine.replica.chain), now)
                or now - self.over_at > SETTLE_GRACE or machine.removed_me)

    @property
    def table_code(self) -> str | None:
        return self.lobby.table

    @property
    def gave_up(self) -> RefusalReason | None:
        """Why this joiner stopped looking for a table (None: still looking, or seated);
        :attr:`Seeker.why` says it in a line (seeking.py)."""
        return self.seeker.gave_up if self.seated is None else None

    # ---- the loop -------------------------------------------------------------------------

    def step(self, max_wait: float) -> None:
        """Wait for a frame, a beacon or the next deadline (at most ``max_wait`` s) and
        handle everything (module docstring). An idle node sleeps in ``poll`` until the
        earliest deadline of its machine, lobby, discovery, held frames or settling."""
        now = self.clock()
        ready = self.transport.wait(min(now + max(0.0, max_wait), self.next_wake(now)) - now)
        self.stats.wakeups += 1
        now = self.clock()
        batch: list[AnyEffect] = []
        if self.discovery is not None and self.discovery.fileno() in ready:
            self._on_beacons(now, batch)
        flood = self.transport.flood.dropped
        for incoming in self.transport.receive(now):
            self._route(incoming, now, batch)
        if self.transport.flood.dropped != flood:
            self._flooded(self.transport.flood.dropped - flood)
        self._links_up(now)
        if self.discovery is not None:
            self.discovery.tick(now)
        batch.extend(self.lobby.tick(now))
        machine = self.machine
        if machine is not None and machine.next_deadline(now) <= now:
            self._tell_links(machine)
            batch.extend(machine.tick(now))
        self.carry_out(batch)
        if self.seeker.give_up_at() is not None and not self._has_targets():
            self.seeker.look_again(now)
            if self.seeker.gave_up is not None:
                log.warning("%s", self.seeker.why)
        self._update_beacon()  # seats taken, playing: set_beacon sends only what changed

    def _links_up(self, now: float) -> None:
        """Tell the machine which seats our links just reached (``TableMachine.reached``):
        its heartbeat goes out at this step's tick, not up to an interval later."""
        machine = self.machine
        for peer in self.transport.take_up():
            seat = machine.seating.seat_of(peer) if machine is not None else None
            if machine is not None and seat is not None:
                machine.reached(seat, now)  # its heartbeat is due at once: next_deadline

    def next_wake(self, now: float) -> float:
        """The earliest deadline of everything the node drives: the machine's
        (:meth:`TableMachine.next_deadline`), the lobby's re-sends, the next beacon, frames
        held for a young link, the joiner's give-up, and when leaving may become safe."""
        due = [math.inf]
        if self.machine is not None:
            due.append(self.machine.next_deadline(now))
        lobby_due = self.lobby.next_deadline()
        if lobby_due is not None:
            due.append(lobby_due)
        if self.discovery is not None:
            beacon_due = self.discovery.next_deadline()
            due.append(now if beacon_due is None else beacon_due)
        held = self.transport.next_deadline(now)
        if held is not None:
            due.append(held)
        give_up = self.seeker.give_up_at()
        if give_up is not None:
            due.append(give_up)
        if self.machine is not None and self.over_at is not None:
            due.append(settle_deadline(self.machine, self.over_at, now))
        return min(due)

    def _route(self, incoming: Incoming, now: float, batch: list[AnyEffect]) -> None:
        sender, frame, address, conn = incoming
        kind = peek_kind(frame)
        if kind is None:
            self.stats.garbage_frames += 1
            level = logging.WARNING if self.stats.garbage_frames == 1 else logging.DEBUG
            log.log(level, "garbage frame of %d bytes from link %s", len(frame), sender[:4].hex())
            return
        if kind in WATCH_KINDS or (kind == "sync-request" and self.desk.is_spectator(sender)):
            self._spectator(frame, address, now)  # watching.py: never touches the machine
        elif kind in LOBBY_KINDS:
            batch.extend(self.lobby.receive(frame, sender, address, now))
        elif self.machine is not None:
            seat = self.conns.seat_of(conn)
            if kind == "heartbeat":
                seat = link_proof(self.machine, self.conns, sender, conn, frame)
                if seat is None:
                    return  # a copy of someone's heartbeat, or a stale one: proves nothing
            if seat is not None:  # on the seat's own proven connection (liveness.py)
                self.machine.heard(seat, now)
            batch.extend(self.machine.receive(frame, now))
        elif len(self.early) < MAX_EARLY_FRAMES:
            self.stats.early_frames += 1
            self.early.append(frame)
        else:
            self.stats.early_dropped += 1

    def _spectator(self, frame: bytes, address: str | None, now: float) -> None:
        seated = self.seated
        genesis = None if seated is None else (seated.genesis, seated.signatures)
        for effect in self.desk.receive(frame, address, self.machine, genesis, now):
            if isinstance(effect, Note):
                self.log(effect.level, effect.text)
            else:
                self.other(effect)

    def _flooded(self, dropped: int) -> None:
        """The transport dropped ``dropped`` frames over their connection's flood limit
        (:mod:`~dudo_p2p.net.flood`): per connection, not per claimed key, so a spoofer
        claiming a seat's key drains only its own bucket (issue 13 §5)."""
        before = self.stats.flood_dropped
        self.stats.flood_dropped += dropped
        if before // 10_000 != self.stats.flood_dropped // 10_000 or before == 0:
            log.warning("flood: dropped %d frames so far", self.stats.flood_dropped)

    def _on_beacons(self, now: float, batch: list[AnyEffect]) -> None:
        assert self.discovery is not None
        beacons = self.discovery.on_readable(now)
        if not self.seeker.discovering or self.seated is not None:
            return
        peers = self.discovery.peers(now)
        seeking = self.lobby.phase is Phase.SEEKING
        if seeking and isinstance(self.lobby, JoinerLobby):
            for gone in (b.peer_id for b in beacons if b.is_leaving):
                batch.extend(self.lobby.drop_gone(gone))  # it will never answer us now
        heard = [peers[b.peer_id] for b in beacons if b.peer_id in peers]
        for seen in open_first(heard):
            warning = self.seeker.heard(seen.beacon, seeking=seeking)
            if warning is not None:
                log.warning("%s", warning)
            if self.seeker.gave_up is None and self.seeker.candidate(seen.beacon):
                batch.extend(self._target(seen, now))

    def _target(self, seen: Seen, now: float) -> list[LobbyEffect]:
        """Say hello to the host a beacon offers, at the address the beacon came from."""
        beacon = seen.beacon
        key = b"beacon:" + beacon.peer_id + f"@{seen.host}:{beacon.port}".encode()
        if key in self.seeker.dropped:
            return []
        self.seeker.choose(beacon.peer_id)
        if not isinstance(self.lobby, JoinerLobby):
            return []  # only a joiner says hello
        return self.lobby.add_target(key, seen.host, beacon.port, now, claimed=beacon.peer_id)

    def _has_targets(self) -> bool:
        """Whether our lobby is a joiner's with a target that has not refused it yet."""
        return isinstance(self.lobby, JoinerLobby) and bool(self.lobby.targets)

    def _refused(self, effect: Refused) -> list[LobbyEffect]:
        """Note a refusal; when it was our last target, move on or stop (seeking.py)."""
        self.stats.refusals.append(effect.reason)
        self.seeker.refused(effect.peer, effect.host, effect.reason)
        if self.lobby.phase is not Phase.SEEKING or self._has_targets():
            return []
        now = self.clock()
        others = self.discovery.peers(now).values() if self.discovery is not None else ()
        out: list[LobbyEffect] = []
        for seen in self.seeker.stranded(others, now):
            out.extend(self._target(seen, now))
        if self.seeker.gave_up is not None:
            log.warning("%s", self.seeker.why)
        return out

    # ---- effects --------------------------------------------------------------------------

    def carry_out(self, batch: Sequence[AnyEffect]) -> None:
        """Carry out one batch of effects in order (module docstring), through the one
        interpreter FakeNet uses too (:func:`~dudo_p2p.consensus.effects.carry_out`): the
        batch's journal records first, made durable by one fsync, then everything else."""
        carry_out(batch, self)

    # the EffectSink the interpreter drives (consensus/effects.py)

    def persist(self, records: list[Persist]) -> None:
        """Journal ``records``; fsync once when one is durable, else only flush (others'
        entries: a restart can fetch them again)."""
        for record in records:
            self._journal(record.record)
        if self.journal is not None:
            if any(e.durable for e in records):
                self.journal.sync()  # what the sends after it depend on is on the disk
            else:
                self.journal.flush()

    def send(self, frame: bytes, to: int | None) -> None:
        """Send ``frame`` to seat ``to`` of the game (None: every other seat)."""
        self._send(frame, to)

    def emit(self, event: Event) -> None:
        """Queue ``event`` for the session; note when the game ended for us."""
        self.events.append(event)
        self._watch(event)

    def log(self, level: str, text: str) -> None:
        """A machine's line for the operator, to ``logging``."""
        log.log(logging.getLevelName(level.upper()), "%s", text)

    def other(self, effect: object) -> Sequence[AnyEffect]:
        """The lobby's and the spectator desk's effects: links, refusals, seating."""
        match effect:
            case SendTo(peer=peer, frame=frame):
                self._send_link(peer, frame)
            case Rekey(old=old, new=new):
                self._rekey(old, new)
            case Connect(peer=peer, host=host, port=port):
                try:
                    self._connect(peer, host, port)
                except InvalidValue as exc:
                    log.warning("cannot link to %s:%s: %s", host, port, exc)
            case Refused():
                return self._refused(effect)
            case Seated():
                return self._start_game(effect)
        return []

    def _journal(self, record: bytes) -> None:
        self.records.append(record)
        if self.journal is not None:
            self.journal.append(record)

    def _send(self, frame: bytes, to: int | None) -> None:
        machine = self.machine
        assert machine is not None
        pubs = machine.seating.pubs
        if to is not None:
            self._send_link(pubs[to], frame)
            return
        for seat, pub in enumerate(pubs):
            if seat != machine.seat:
                self._send_link(pub, frame)

    def _connect(self, peer: bytes, host: str, port: int) -> None:
        self.transport.connect(peer, host, port, self.clock())

    def _tell_links(self, machine: TableMachine) -> None:
        """Our heartbeats name the link they travel on: give the machine each seat's nonce
        (a link redialled from a new socket has a new one)."""
        for seat, pub in enumerate(machine.seating.pubs):
            nonce = self.transport.nonce(pub)
            if nonce is not None:
                machine.beats.links[seat] = nonce

    def _rekey(self, old: bytes, new: bytes | None) -> None:
        """The placeholder link ``old`` becomes ``new``'s link (or is closed): its held frames
        and its age go with it, so nothing queued for the host is lost."""
        if new is None:
            self.transport.disconnect(old)
        else:
            self.transport.rekey(old, new)

    def _send_link(self, peer: bytes, frame: bytes) -> None:
        self.transport.send(peer, frame, self.clock())

    def _start_game(self, seated: Seated) -> list[AnyEffect]:
        now = self.clock()
        self.seated = seated
        self.seated_at = now
        if self.journal is None and self.journal_dir is not None:
            self.auto_journal = self.journal_dir / jr.journal_name(seated, self.identity)
            self.journal = jr.Journal(self.auto_journal, truncate=True)
        self._journal(jr.seating_record(seated))
        if self.journal is not None:
            self.journal.sync()
        self._connect_seats(seated)
        self.machine = TableMachine(self.identity, seated.seating, self.rng.randbytes, now)
        self._update_beacon()
        log.info("game started %.3f s after the node", now - self.started_at)
        out: list[AnyEffect] = list(self.machine.start(now))
        early, self.early = self.early, []
        for frame in early:
            out.extend(self.machine.receive(frame, now))
        return out

    def _connect_seats(self, seated: Seated) -> None:
        for seat, pub in enumerate(seated.seating.pubs):
            host, port = seated.addresses[seat]
            if pub != self.identity.public_key and host and port:
                try:
                    self._connect(pub, host, port)
                except InvalidValue as exc:
                    log.warning("cannot link to seat %d at %s:%s: %s", seat, host, port, exc)

    def _watch(self, event: Event) -> None:
        """Note when the game ended for us (what :meth:`settled` counts from); the machine
        beats at once itself, so the others see our final length (``Timers.beat_at_once``)."""
        machine = self.machine
        ended = isinstance(event, GameOver | GameAbandoned | TableGone) or (
            isinstance(event, PlayerLeft) and machine is not None and machine.removed_me
        )
        if ended and self.over_at is None:
            self.over_at = self.clock()

    def _update_beacon(self) -> None:
        if self.discovery is None:
            return
        pub = self.identity.public_key
        port = self.transport.port
        lobby = self.lobby
        if not isinstance(lobby, HostLobby) or lobby.table is None:
            beacon = Beacon(pub, port, name=_beacon_name(self.name))
        else:
            if self.seated is not None:
                state, taken = TableState.PLAYING, lobby.seats_total
            else:
                taken = lobby.seats_taken
                state = TableState.OPEN if taken < lobby.seats_total else TableState.FULL
            beacon = Beacon(pub, port, lobby.table, state, taken, lobby.seats_total,
                            _beacon_name(self.name))
        self.discovery.set_beacon(beacon)

    # ---- summaries ----------------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        """The CLI's ``--json`` object: winner name, log hash, rounds, seconds since start."""
        machine = self.machine
        seconds = round(self.clock() - self.started_at, 3)
        if machine is None:
            return {"winner": None, "log_hash": None, "rounds": 0, "seconds": seconds}
        rep = machine.replica
        winner = rep.engine.winner if rep.phase is EpochPhase.OVER else None
        return {
            "winner": machine.seating.names[winner] if winner is not None else None,
            "log_hash": rep.head.hex(),
            "rounds": len(rep.engine.results),
            "seconds": seconds,
        }

    # ---- lifetime -----------------------------------------------------------------------------

    def talk(self, phrase: int) -> None:
        """Say quick phrase ``phrase`` to the table (table talk; nothing before the game is
        seated, nor faster than once a second)."""
        if self.machine is not None:
            self.carry_out(list(self.machine.talk(phrase, self.clock())))

    def start_now(self) -> None:
        """Host: seat the players gathered so far, at least two (``HostLobby.start_now``)."""
        if isinstance(self.lobby, HostLobby):
            self.carry_out(list(self.lobby.start_now(self.clock())))
        self._update_beacon()

    def set_seats(self, seats: int) -> None:
        """Host, gathering: the table now has ``seats`` seats (``HostLobby.set_seats``;
        InvalidValue for a count it cannot have)."""
        if isinstance(self.lobby, HostLobby):
            self.carry_out(list(self.lobby.set_seats(seats, self.clock())))
        self._update_beacon()

    def remove(self, pub: bytes) -> None:
        """Host, before the game starts: take joiner ``pub`` off the table
        (``HostLobby.remove``: it is told, signed, and refused from then on)."""
        if isinstance(self.lobby, HostLobby):
            self.carry_out(list(self.lobby.remove(pub, self.clock())))
        self._update_beacon()

    def leave(self) -> None:
        """Tell the table we quit (a forfeit) when the game is still running; before it
        starts, give our seat back to the host that welcomed us (a lobby ``leave``), or, as
        its host, tell every joiner the table is closed: sent before :meth:`close` closes
        the links, which linger up to :data:`LEAVE_LINGER_MS` for it."""
        if self.machine is not None and not self.machine.over:
            self.carry_out(list(self.machine.leave(self.clock())))
            self.left = True
        elif self.machine is None and isinstance(self.lobby, JoinerLobby | HostLobby):
            said = self.lobby.leave() if isinstance(self.lobby, JoinerLobby) else self.lobby.close()
            self.carry_out(said)
            self.linger_ms = LEAVE_LINGER_MS if said else 0

    def close(self) -> None:
        """Close sockets and the journal. Idempotent."""
        if self.closed:
            return
        self.closed = True
        if self.journal is not None:
            self.journal.close()
            if self.auto_journal is not None and (self.over or self.left):
                self.auto_journal.unlink(missing_ok=True)  # nothing left to resume
        if self.discovery is not None:
            self.discovery.close()
        self.links_close()

    def links_close(self) -> None:
        """Close the transport (idempotent); a leaving joiner's links linger a moment."""
        self.transport.close(getattr(self, "linger_ms", 0))

    @property
    def port(self) -> int:
        """Our link port: where the other seats reach us."""
        return self.transport.port

    @property
    def links(self) -> Links:
        """The ZeroMQ links under the transport (their counters; AttributeError in memory)."""
        if isinstance(self.transport, ZmqTransport):
            return self.transport.links
        raise AttributeError("an in-memory transport has no ZeroMQ links")


def settled(machine: TableMachine, over_at: float, now: float) -> bool:
    """Our game ended at ``over_at`` and leaving at ``now`` strands no one: the last heartbeat
    of every other seat still at the table (not removed, dice or not) shows our head, or we
    were removed (or the table is gone), or :data:`SETTLE_GRACE` ran out; and every seat we
    removed (or whose silence abandoned the game) has shown it heard so (told, then silent
    for two heartbeat intervals: ``TableMachine.untold``), or :data:`TELL_LINGER` ran out (it
    was down when the votes went round and may come back: it must not wait for nobody,
    protocol.md §4.6 "Told, always").

    Our *head*, not only our length: a peer still in an epoch a removal voided holds that
    epoch's entries, so its log may be longer than ours while it lacks the removal that
    ended the game (soak seed 1229). Counting it settled on its length let us leave at the
    heartbeat that triggers our telling it the removal (catchup.py), with that frame still
    queued (links close with linger 0) or lost, and nobody left to tell it again. Equal
    heads mean equal logs (the head hashes the whole chain); after the end nothing more is
    chained, so a peer that holds our log reports exactly our head.

    Every seat, not only the ones with dice: at the end only the winner has dice, so
    waiting for the "live" seats let the winner leave at once and left everyone else
    waiting for a heartbeat from a peer that was gone (the whole grace, 3 s, on every
    game). Each node sends a heartbeat the moment its game ends (``Timers.beat_at_once``),
    so all of them settle within a round trip of the last entry."""
    if not machine.over:
        return False
    if machine.removed_me or machine.table_gone:
        return True
    if machine.untold(now) and now - over_at <= TELL_LINGER:
        return False
    if now - over_at > SETTLE_GRACE:
        return True
    head = machine.replica.head
    gone = {target for _, target in machine.certificates} | machine.expelled
    if machine.abandoned_by is not None:
        gone.add(machine.abandoned_by)
    others = [s for s in range(machine.seating.n) if s != machine.seat and s not in gone]
    return all(machine.peer_heads.get(s) == head for s in others)


def settle_deadline(machine: TableMachine, over_at: float, now: float) -> float:
    """When :func:`settled` may next turn true by the clock alone (a heartbeat that shows
    our head wakes the node anyway): the end of :data:`SETTLE_GRACE` or :data:`TELL_LINGER`,
    or two heartbeat intervals after we told a removed seat (``SyncPacer.heard_of_it``);
    ``inf`` when only a frame can settle us."""
    if not machine.over or machine.removed_me or machine.table_gone:
        return math.inf
    due = [over_at + SETTLE_GRACE, over_at + TELL_LINGER]
    pacer = machine.pacer
    for seat in machine.untold(now):
        told = pacer.told_at.get(seat)
        if told is not None:
            due.append(told + 2 * pacer.heartbeat)
    # a microsecond past each (the graces compare strictly); those passed already are
    # decided by frames now, not by the clock
    return min((t + 1e-6 for t in due if t + 1e-6 > now), default=math.inf)


def _beacon_name(name: str) -> str:
    """A name that fits the beacon (clean, 32 UTF-8 bytes at most)."""
    clean = names.clean(name)
    while len(clean.encode()) > 32:
        clean = clean[:-1]
    return clean


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

