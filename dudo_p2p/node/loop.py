"""The node's loop: the one loop that owns the sockets, the clock, the randomness and the journal.

A :class:`NodeLoop` (the running part of a :class:`~dudo_p2p.node.node.Node`) wires a
:class:`~dudo_p2p.net.transport.Transport` (ZeroMQ links by default, an in-memory twin in
tests) and (optionally) :class:`~dudo_p2p.net.discovery.Discovery` to the pure
:class:`~dudo_p2p.consensus.lobby.Lobby` and, once every seat signed the genesis, the
:class:`~dudo_p2p.consensus.machine.TableMachine`.
Nothing else in dudo-p2p reads ``time.monotonic`` or ``os.urandom`` for the game.

One turn of the loop (:meth:`NodeLoop.step`): poll the link sockets, their monitors and the
beacon socket until the earliest deadline (:meth:`NodeLoop.next_wake`: the machine's
``next_deadline``, the lobby's re-sends, the next beacon, held frames, settling) or a frame;
read every beacon and every frame; tick what is due; carry out the collected effects as one
batch (:meth:`NodeLoop.carry_out`). An idle seated node wakes for its heartbeats and the others'
frames, not on a fixed tick:

- every ``Persist`` of the batch is appended to the journal and the journal is fsynced once,
  *before* any of the batch's sends (so a record is durable before anything that depends on
  it leaves; writing a record a little early is harmless, a send before it is not);
- ``Send`` goes to the seat's public key (``to=None``: every other seat); ``Connect``/``SendTo``
  (lobby) open links and send by link key;
- ``Emit`` appends the event to :attr:`NodeLoop.events` (the session drains it);
- ``Log`` goes to the ``logging`` module;
- ``Seated`` writes the journal's first record and builds the machine, whose first effects
  and the game frames buffered before it existed run in the next batch.

Frames are routed by their ``kind`` (peeked, not trusted): lobby kinds to the lobby, others to
the machine, or into a bounded buffer while the machine does not exist yet. Garbage is logged
and dropped. The frame size is checked by ZeroMQ (``MAXMSGSIZE``) before anything is read and
again by the envelope decoder.

The node owns the sockets, the clock and the loop; what it drives lives beside it:
:class:`~dudo_p2p.node.gathering.Gathering` (the lobby side: the lobby's role, the joiner's
search, the host's controls), :class:`~dudo_p2p.node.game.Game` (the seated game: machine,
end, settling, summary), :mod:`~dudo_p2p.node.advert` (what the beacon says),
:class:`~dudo_p2p.node.journal.GameJournal` (which file the game is journalled to),
:class:`~dudo_p2p.consensus.watch_desk.Desk` (spectators) and
:mod:`~dudo_p2p.node.config` (its configuration and counters).
"""

from __future__ import annotations

import logging
import math
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from dudo_p2p.consensus.again import AGAIN_KINDS
from dudo_p2p.consensus.effects import carry_out
from dudo_p2p.consensus.events import Event
from dudo_p2p.consensus.lobby import (
    LOBBY_KINDS,
    Connect,
    Lobby,
    LobbyEffect,
    Refused,
    Rekey,
    Seated,
    SendTo,
)
from dudo_p2p.consensus.lobby_joiner import JoinerLobby
from dudo_p2p.consensus.machine import Effect, Persist, TableMachine
from dudo_p2p.consensus.watch_desk import Desk, Unlink
from dudo_p2p.consensus.watching import Note
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.errors import InvalidValue
from dudo_p2p.net.discovery import Discovery
from dudo_p2p.net.router import Incoming
from dudo_p2p.net.transport import Transport, ZmqTransport
from dudo_p2p.node import journal as jr
from dudo_p2p.node.advert import beacon_for
from dudo_p2p.node.config import NetConfig, Stats
from dudo_p2p.node.conns import Connections, link_proof
from dudo_p2p.node.game import Game
from dudo_p2p.node.gathering import Gathering
from dudo_p2p.node.seeking import Seeker
from dudo_p2p.protocol import names
from dudo_p2p.protocol.envelope import peek_kind

log = logging.getLogger("dudo_p2p.node.node")  # the node's log, as before the split

MAX_EARLY_FRAMES = 1024  # game frames kept while our machine does not exist yet
# held frames of young links: net/transport.py (LINK_UP_GRACE, HOLD_RETRY, MAX_HELD)

AnyEffect = Effect | LobbyEffect


class NodeLoop:
    """One peer's running part: its state, the loop (:meth:`step`) and the effects it carries
    out (:meth:`carry_out`). :class:`~dudo_p2p.node.node.Node` builds one (host, join,
    resume) and adds what sessions and the CLI ask of it. Not thread-safe."""

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
        discovery: Discovery | None = None,
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
        self.discovery = discovery  # injected (tests), else ours when net.discovery is set
        self.transport: Transport = transport or ZmqTransport(
            identity.public_key, bind=net.bind, port=port)
        try:
            if self.discovery is None and net.discovery:
                broadcast = list(net.broadcast) if net.broadcast is not None else None
                self.discovery = Discovery(net.beacon_port, broadcast_addresses=broadcast)
            if self.discovery is not None:
                self.transport.watch(self.discovery.fileno())
        except BaseException:
            self.transport.close()
            raise
        # no --journal: the game journals itself into journal_dir once seated (§4.7)
        self.journal = jr.GameJournal(journal_path, journal_dir, truncate=resume is None)
        self.left = False
        self.gathering = Gathering(JoinerLobby(identity, self.name, net.bind, self.transport.port))
        self.game: Game | None = None  # once seated
        self.events: list[Event] = []
        self.early: list[bytes] = []
        self.stats = Stats()
        self.desk = Desk(identity)  # spectators (watch_desk.py)
        self.conns = Connections(self.transport.flood)  # link proofs, per connection
        self.started_at = clock()
        self.closed = False
        self.linger_ms = 0  # how long the links flush what is queued when closing

    # ---- state the loop reads ----------------------------------------------------------------

    @property
    def lobby(self) -> Lobby:
        """Our lobby, in its role (host, joiner, or a resumed seat's)."""
        return self.gathering.lobby

    @property
    def seeker(self) -> Seeker:
        """A joiner's search for its table (seeking.py)."""
        return self.gathering.seeker

    @property
    def machine(self) -> TableMachine | None:
        """Our table machine, once seated."""
        return self.game.machine if self.game is not None else None

    @property
    def seated(self) -> Seated | None:
        """The seating every seat signed, once seated."""
        return self.game.seated if self.game is not None else None

    @property
    def port(self) -> int:
        """Our link port: where the other seats reach us."""
        return self.transport.port

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
        watching: list[Incoming] = []  # spectators' frames: taken after the table's (below)
        frames = self.transport.receive(now)
        for incoming in frames:
            self._route(incoming, now, batch, watching)
        if self.transport.flood.dropped != flood:
            self._flooded(self.transport.flood.dropped - flood)
        up = self.transport.take_up()  # links just up: their heartbeat is due at once
        if self.game is not None:
            self.game.reached(up, now)
        if self.discovery is not None:
            self.discovery.tick(now)
        batch.extend(self.lobby.tick(now))
        game = self.game
        if game is not None and game.machine.next_deadline(now) <= now:
            game.tell_links(self.transport.nonce)
            batch.extend(game.machine.tick(now))
        self.carry_out(batch)
        again = game.again_due(now) if game is not None else None
        if again is not None:
            self._send(again, None)  # our answer to "one more game?", once a second
        self.gathering.looked(now)
        # spectators last, after the table's own frames left, on a step taken anyway (no
        # wake-up of their own: watch_desk.py, Desk.push)
        if watching and len(watching) == len(frames) and self.game is not None:
            self.desk.steps += 1  # a step only spectators' frames brought (the bench counts)
        for frame, address in self.desk.waiting(self.machine, watching):  # (and early ones)
            self._spectator(frame, address, now)
        for effect in self.desk.push(self.machine, now, busy=bool(batch)):
            self.other(effect)
        self._update_beacon()  # seats taken, playing: set_beacon sends only what changed

    def next_wake(self, now: float) -> float:
        """The earliest deadline of everything the node drives: the machine's
        (:meth:`TableMachine.next_deadline`), the lobby's re-sends, the next beacon, frames
        held for a young link, the joiner's give-up, and when leaving may become safe."""
        due = [math.inf]
        if self.game is not None:
            due.append(self.game.next_deadline(now))  # the machine's, and settling's
        if (lobby_due := self.gathering.next_deadline()) is not None:  # re-sends, give-up
            due.append(lobby_due)
        if self.discovery is not None:
            beacon_due = self.discovery.next_deadline()
            due.append(now if beacon_due is None else beacon_due)
        if (held := self.transport.next_deadline(now)) is not None:
            due.append(held)
        return min(due)

    def _route(self, incoming: Incoming, now: float, batch: list[AnyEffect],
               watching: list[Incoming]) -> None:
        sender, frame, address, conn = incoming
        kind = peek_kind(frame)
        if kind is None:
            self.stats.garbage_frames += 1
            level = logging.WARNING if self.stats.garbage_frames == 1 else logging.DEBUG
            log.log(level, "garbage frame of %d bytes from link %s", len(frame), sender[:4].hex())
            return
        if self.desk.takes(kind, sender, watching):
            watching.append(incoming)  # watch_door.py: never touches the machine
        elif kind in AGAIN_KINDS:
            refused = self.game.heard_again(frame) if self.game is not None else None
            if refused is not None:
                log.info("%s", refused)
        elif kind in LOBBY_KINDS:
            batch.extend(self.lobby.receive(frame, sender, address, now))
        elif (machine := self.machine) is not None:
            seat = self.conns.seat_of(conn)
            if kind == "heartbeat":
                seat = link_proof(machine, self.conns, sender, conn, frame)
                if seat is None:
                    return  # a copy of someone's heartbeat, or a stale one: proves nothing
            if seat is not None:  # on the seat's own proven connection (liveness.py)
                machine.heard(seat, now)
            batch.extend(machine.receive(frame, now))
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
        """Read the beacons; a joiner still seeking says hello to the tables they offer."""
        assert self.discovery is not None
        beacons = self.discovery.on_readable(now)
        if self.seeker.discovering and self.seated is None:
            peers = self.discovery.peers(now)
            others = self.discovery.other_tables(now)
            batch.extend(self.gathering.heard(beacons, peers, now, others))

    def _refused(self, effect: Refused) -> list[LobbyEffect]:
        """Note a refusal; when it was our last target, move on or stop (seeking.py)."""
        self.stats.refusals.append(effect.reason)
        now = self.clock()
        others = self.discovery.peers(now).values() if self.discovery is not None else ()
        return self.gathering.refused(effect, others, now)

    # ---- effects --------------------------------------------------------------------------

    def carry_out(self, batch: Sequence[AnyEffect]) -> None:
        """Carry out one batch of effects in order (module docstring), through the one
        interpreter FakeNet uses too (:func:`~dudo_p2p.consensus.effects.carry_out`): the
        batch's journal records first, made durable by one fsync, then everything else."""
        carry_out(batch, self)

    def persist(self, records: list[Persist]) -> None:
        """Journal ``records``; fsync once when one is durable, else only flush (others'
        entries: a restart can fetch them again)."""
        self.journal.persist([r.record for r in records], durable=any(r.durable for r in records))

    # the EffectSink the interpreter drives (consensus/effects.py)

    def send(self, frame: bytes, to: int | None) -> None:
        """Send ``frame`` to seat ``to`` of the game (None: every other seat)."""
        self._send(frame, to)

    def emit(self, event: Event) -> None:
        """Queue ``event`` for the session; note when the game ended for us."""
        self.events.append(event)
        if self.game is not None:  # the end of the game; a game won: one more? (game.py)
            self.game.heard_of(event, self.clock())

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
            case Unlink(peer=peer):  # a spectator gone (watch_desk.py)
                self.transport.disconnect(peer)
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

    def _send(self, frame: bytes, to: int | None) -> None:
        assert self.game is not None
        for pub in self.game.recipients(to):
            self._send_link(pub, frame)

    def _connect(self, peer: bytes, host: str, port: int) -> None:
        self.transport.connect(peer, host, port, self.clock())

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
        """Every seat signed the genesis: journal the seating, link to the seats, build our
        machine; its first effects and the game frames that came early run next."""
        now = self.clock()
        self.journal.begin(seated, self.identity)
        self.game = Game.start(self.identity, seated, self.rng.randbytes, now)
        self._connect_seats()
        machine = self.game.machine
        self._update_beacon()
        log.info("game started %.3f s after the node", now - self.started_at)
        out: list[AnyEffect] = list(machine.start(now))
        early, self.early = self.early, []
        for frame in early:
            out.extend(machine.receive(frame, now))
        return out

    def _connect_seats(self) -> None:
        assert self.game is not None
        for seat, pub, host, port in self.game.to_dial(self.identity.public_key):
            try:
                self._connect(pub, host, port)
            except InvalidValue as exc:
                log.warning("cannot link to seat %d at %s:%s: %s", seat, host, port, exc)

    def _update_beacon(self) -> None:
        """Beacon what we are now (advert.py): set_beacon sends only what changed."""
        if self.discovery is not None:
            self.discovery.set_beacon(beacon_for(self.identity.public_key, self.port, self.name,
                                                 self.lobby, playing=self.game is not None))
