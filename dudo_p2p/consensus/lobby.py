"""The pre-game handshake: hello, welcome/refused, genesis, genesis-sign. Pure: no I/O, no clock.

A :class:`Lobby` is one peer's side of seating a table, in the effect style of
:class:`~dudo_p2p.consensus.machine.TableMachine`: ``receive``/``tick``/``add_target`` return
a list of effects the node carries out in order (:class:`Connect`, :class:`SendTo`,
:class:`~dudo_p2p.consensus.effects.Log`, :class:`Refused`, :class:`Seated`). Peers are named
by the key their link is held under: an Ed25519 public key, or, before a ``--join`` target
has answered, a placeholder the node made up.

The handshake (protocol.md §4.9, "Lobby"):

1. A joiner sends a signed ``hello`` (game id = 16 zero bytes, round 0, seq 0) to each
   target every :data:`HELLO_EVERY` seconds until it is welcomed: a link refuses frames until
   its TCP handshake is done, so the first ones are usually lost.
2. The host answers every hello with a ``welcome`` (same zero context) naming the seats so
   far and the game id, or with a signed ``refused`` and its reason
   (:class:`~dudo_p2p.protocol.refusals.RefusalReason`: another table code, table full, game
   started, a name empty once cleaned). It links back to the IP the hello came from and the
   port the hello names. A hello with an empty table code (``--join`` by address without
   ``--table``) asks for whatever table the host holds. A joiner that pinned its host
   (``KeyPin``) takes a welcome or refusal signed by any other key as "wrong host".
3. A welcomed joiner keeps saying hello to its host every :data:`STAY_EVERY` seconds; the
   host frees the seat of a joiner unheard for :data:`SEAT_HOLD` seconds, and sends the new
   seats to every joiner in a fresh ``welcome`` whenever they change.
4. When every seat is taken the host proposes the ``genesis`` (seat 0 the host, then join
   order, names made distinct: :mod:`~dudo_p2p.protocol.names`) and sends it to each
   joiner. Every joiner checks it (signed by the host that welcomed it, its table code and
   game id, that it is seated, that it accepts the rules), links to every seat and sends its
   ``genesis-sign`` to the host. The host signs *last*, only once every joiner has signed,
   and then hands every joiner the genesis with all the signatures. A seat whose signature
   has not come :data:`SIGN_WITHIN` seconds after the proposal is freed: the host drops that
   genesis (never having signed it, it can never seat anyone), sends a fresh ``welcome`` to
   the joiners left (which withdraws the genesis they hold) and gathers again.
5. With every seat's signature, :func:`~dudo_p2p.consensus.genesis.seating_from` builds the
   :class:`Seating` and the lobby emits :class:`Seated`; the node builds the table machine.

Re-sends: the host re-sends the genesis to every seat whose signature it lacks, and every
signing joiner re-sends its signature to the host, each :data:`GENESIS_EVERY` seconds until
it is seated. A seated peer answers any later lobby frame from a seat with the genesis and
every signature, so a peer that missed the bundle catches up from anyone.

Nothing from the wire raises: a bad frame becomes a ``Log`` effect and changes nothing.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import msgpack

from dudo_p2p.consensus.effects import Log
from dudo_p2p.consensus.genesis import Candidate, open_genesis, propose, seating_from, sign
from dudo_p2p.consensus.replica import Seating
from dudo_p2p.crypto.identity import Identity, KeyPin, fingerprint
from dudo_p2p.errors import DecodeError, InvalidValue, RemoteProtocolError
from dudo_p2p.protocol import names
from dudo_p2p.protocol.codec import MAX_FRAME
from dudo_p2p.protocol.envelope import open_envelope, seal_envelope
from dudo_p2p.protocol.kinds import GAME_ID_LEN, Genesis, GenesisSign, Hello, Refusal, Welcome
from dudo_p2p.protocol.refusals import RefusalReason
from dudo_p2p.rules import RuleSet

LOBBY_KINDS = frozenset({"hello", "welcome", "refused", "genesis", "genesis-sign"})
LOBBY_GAME_ID = bytes(GAME_ID_LEN)
HELLO_EVERY = 0.2  # seconds between hellos while a target has not answered
# Faster than the one second the brief suggests: links dialled on the genesis refuse frames
# for one TCP handshake, so the first signatures are lost and the re-send paces the start.
GENESIS_EVERY = 0.25
# A welcomed joiner says it is still there this often; the host frees a seat unheard for
# SEAT_HOLD (a joiner that went to another table, crashed, or was captured by an impostor
# must not leave the table "full" and dead), and a seat that has not signed the genesis
# SIGN_WITHIN after it was proposed. Several missed stays or re-sends, so loss alone does
# not free a live joiner.
STAY_EVERY = 1.0
SEAT_HOLD = 4.0
SIGN_WITHIN = 4.0
MAX_TARGETS = 16  # hosts a joiner says hello to at once (discovery can offer many)
ANSWER_EVERY = 0.25  # a seated peer answers one seat's lobby frames at most this often
_UNSPECIFIED = ("", "0.0.0.0", "::")


@dataclass(frozen=True)
class Connect:
    """Open (or keep) the link to ``peer`` at ``host:port``."""

    peer: bytes
    host: str
    port: int


@dataclass(frozen=True)
class Rekey:
    """Hold the link kept under placeholder ``old`` under ``new`` (the host's key, learnt from
    its welcome), or close it when ``new`` is None: one link per peer (protocol.md §5.1)."""

    old: bytes
    new: bytes | None


@dataclass(frozen=True)
class SendTo:
    """Send ``frame`` on the link held under ``peer``."""

    peer: bytes
    frame: bytes


@dataclass(frozen=True)
class Refused:
    """The target linked under ``peer`` refused us (or answered with a key we did not choose):
    ``host`` is the key that signed the answer, ``reason`` why. The target is dropped."""

    peer: bytes
    host: bytes
    reason: RefusalReason


@dataclass(frozen=True)
class Seated:
    """Every seat signed the genesis: the game can start. ``addresses[i]`` is where seat i's
    link is, as this peer resolved it (seat 0 announces no address; joiners use the one they
    reached the host at)."""

    seating: Seating
    genesis: bytes
    signatures: tuple[bytes, ...]
    addresses: tuple[tuple[str, int], ...]


LobbyEffect = Connect | Rekey | SendTo | Refused | Seated | Log


class Phase(enum.Enum):
    """Where this peer stands in the handshake."""

    SEEKING = "seeking"  # joiner: saying hello, not welcomed yet
    GATHERING = "gathering"  # host: seats free; joiner: welcomed, waiting for the genesis
    SIGNING = "signing"  # holds a genesis, collecting the seats' signatures
    SEATED = "seated"  # every signature in: the game runs


def peek_kind(frame: bytes) -> str | None:
    """The ``kind`` field of an envelope frame, or None when it does not start like one.

    Only a routing hint, read without decoding the rest (the lobby or the machine then
    checks the whole frame, signature included): an array of 8 whose sixth item is a short
    string. Never raises.
    """
    if len(frame) > MAX_FRAME:
        return None
    unpacker = msgpack.Unpacker(raw=False, max_buffer_size=MAX_FRAME)
    try:
        unpacker.feed(frame)
        if unpacker.read_array_header() != 8:
            return None
        for _ in range(5):
            unpacker.skip()
        kind = unpacker.unpack()
    except (ValueError, TypeError, msgpack.UnpackException):  # not the start of an envelope
        return None
    return kind if isinstance(kind, str) and len(kind) <= 16 else None


@dataclass
class _Target:
    host: str
    port: int
    next_hello: float = 0.0
    claimed: bytes | None = None  # the host key a beacon claimed for this address (a hint)


@dataclass
class _Signing:
    genesis: bytes
    body: Genesis
    digest: bytes
    game_id: bytes
    addresses: list[tuple[str, int]]
    proposed_at: float
    signatures: dict[int, bytes] = field(default_factory=dict)


class Lobby:
    """One peer's side of the handshake (module docstring). Build with :meth:`hosting`,
    :meth:`joining` or :meth:`resumed`. ``name`` is cleaned (:func:`names.clean`); one that
    is empty once cleaned raises InvalidValue."""

    def __init__(
        self,
        identity: Identity,
        name: str,
        link_host: str,
        link_port: int,
        *,
        table: str | None,
        accept_rules: Callable[[RuleSet], bool],
        pin: KeyPin | None = None,
        resumed: bool = False,
    ) -> None:
        self.identity = identity
        self.name = names.clean(name)
        if not self.name and not resumed:
            raise InvalidValue(f"the name {names.shown(name)!r} is empty once control and "
                               "invisible characters are removed")
        self.link_host = "" if link_host in _UNSPECIFIED else link_host
        self.link_port = link_port
        self.table = table
        self.accept_rules = accept_rules
        self.pin = pin
        self.phase = Phase.SEEKING
        self.is_host = False
        self.seats_total = 0
        self.game_id = LOBBY_GAME_ID
        self.rules: RuleSet | None = None
        self.turn_timer_ms = 0
        self.grace_ms = 0  # host: the reconnect grace the genesis carries (§4.6)
        self.players: list[Candidate] = []  # host: seat order so far
        self.heard: dict[bytes, float] = {}  # host: when each joiner last said hello
        self.targets: dict[bytes, _Target] = {}
        self.host_pub: bytes | None = None
        self.host_address: tuple[str, int] | None = None
        self.roster: tuple[str, ...] = ()  # joiner: the names of the host's last welcome
        self.signing: _Signing | None = None
        self.seated: Seated | None = None
        self.next_resend = 0.0
        self.next_stay = 0.0
        self.answered: dict[bytes, float] = {}
        self.refusals: list[RefusalReason] = []

    @classmethod
    def hosting(
        cls,
        identity: Identity,
        name: str,
        link_host: str,
        link_port: int,
        *,
        table: str,
        game_id: bytes,
        seats: int,
        rules: RuleSet,
        turn_timer_ms: int,
        grace_ms: int = 0,
    ) -> Lobby:
        """The host's lobby: seat 0 is ours; ``game_id`` is 16 random bytes from the node;
        ``grace_ms`` the reconnect grace of the game (protocol.md §4.6)."""
        if not 2 <= seats <= 6:
            raise InvalidValue(f"a table seats 2 to 6 players, not {seats}")
        if len(game_id) != GAME_ID_LEN or game_id == LOBBY_GAME_ID:
            raise InvalidValue("a game id is 16 random bytes")
        lobby = cls(identity, name, link_host, link_port, table=table, accept_rules=lambda _: True)
        lobby.is_host = True
        lobby.phase = Phase.GATHERING
        lobby.seats_total = seats
        lobby.game_id = game_id
        lobby.rules = rules
        lobby.turn_timer_ms = turn_timer_ms
        lobby.grace_ms = grace_ms
        lobby.players = [
            Candidate(identity.public_key, identity.x25519_public, lobby.name, lobby.link_host,
                      link_port)
        ]
        return lobby

    @classmethod
    def joining(
        cls,
        identity: Identity,
        name: str,
        link_host: str,
        link_port: int,
        *,
        table: str | None = None,
        pin: KeyPin | None = None,
        accept_rules: Callable[[RuleSet], bool] = lambda _: True,
    ) -> Lobby:
        """A joiner's lobby; ``table`` (when given) is the only table code it will sit at and
        ``pin`` (when given) the only host key it takes an answer from."""
        return cls(identity, name, link_host, link_port, table=table, accept_rules=accept_rules,
                   pin=pin)

    @classmethod
    def resumed(cls, identity: Identity, seated: Seated) -> Lobby:
        """The lobby of a peer restarted from its journal: already seated, it only answers."""
        lobby = cls(identity, "", "", 0, table=seated.seating.table, accept_rules=lambda _: True,
                    resumed=True)
        lobby.phase = Phase.SEATED
        lobby.seated = seated
        lobby.game_id = seated.seating.game_id
        return lobby

    # ---- what the node asks ---------------------------------------------------------------

    @property
    def seats_taken(self) -> int:
        return len(self.players) if self.is_host else 0

    def next_tick_at(self) -> float | None:
        """When :meth:`tick` next has something to do (None: nothing pending)."""
        if self.phase is Phase.SEEKING and self.targets:
            return min(t.next_hello for t in self.targets.values())
        if self.phase is Phase.SIGNING:
            assert self.signing is not None
            if self.is_host:
                return min(self.next_resend, self.signing.proposed_at + SIGN_WITHIN)
            return self.next_resend
        if self.phase is Phase.GATHERING:
            if not self.is_host:
                return self.next_stay
            if self.heard:
                return min(self.heard.values()) + SEAT_HOLD
        return None

    def add_target(
        self, key: bytes, host: str, port: int, now: float, *, claimed: bytes | None = None
    ) -> list[LobbyEffect]:
        """Joiner: say hello to the host at ``host:port``, linked under ``key`` (a placeholder
        per address: a beacon is only a hint, and copies of a host's beacon may name other
        addresses, so every address offered is tried; ``claimed`` is the key the beacon named).
        Ignored once welcomed."""
        if self.is_host or self.phase is not Phase.SEEKING:
            return []
        current = self.targets.get(key)
        if current is not None and (current.host, current.port) == (host, port):
            return []
        if current is None and len(self.targets) >= MAX_TARGETS:
            return [Log("warning", f"too many tables to try; ignoring {host}:{port}")]
        self.targets[key] = _Target(host, port, now, claimed)
        return [Connect(key, host, port), Log("info", f"saying hello to {host}:{port}")]

    # ---- timers ---------------------------------------------------------------------------

    def tick(self, now: float) -> list[LobbyEffect]:
        """Re-send what is owed (hellos while seeking, a stay while waiting for the genesis,
        the genesis and signatures while signing) and free the seats of silent joiners."""
        out: list[LobbyEffect] = []
        if self.phase is Phase.SEEKING:
            for key, target in self.targets.items():
                if now >= target.next_hello:
                    target.next_hello = now + HELLO_EVERY
                    out.append(SendTo(key, self._hello()))
        elif self.phase is Phase.GATHERING and self.is_host:
            out.extend(self._free_silent(now))
        elif self.phase is Phase.GATHERING and now >= self.next_stay:
            assert self.host_pub is not None
            self.next_stay = now + STAY_EVERY
            out.append(SendTo(self.host_pub, self._hello()))
        elif self.phase is Phase.SIGNING:
            assert self.signing is not None
            if self.is_host and now >= self.signing.proposed_at + SIGN_WITHIN:
                return self._withdraw(now)
            if now >= self.next_resend:
                self.next_resend = now + GENESIS_EVERY
                out.extend(self._send_signing())
        return out

    # ---- receiving ------------------------------------------------------------------------

    def receive(
        self, frame: bytes, sender: bytes, address: str | None, now: float
    ) -> list[LobbyEffect]:
        """Handle one lobby frame (hello, welcome, refused, genesis, genesis-sign) from the
        link held under ``sender``, which came from IP ``address``. Bad input is logged,
        never raised."""
        try:
            env = open_envelope(frame, expect_round=0)
            match env.body:
                case Hello():
                    self._expect_lobby_context(env.game_id, env.seq)
                    return self._on_hello(env.author, env.body, address, now)
                case Welcome():
                    self._expect_lobby_context(env.game_id, env.seq)
                    return self._on_welcome(env.author, env.body, sender, address, now)
                case Refusal():
                    self._expect_lobby_context(env.game_id, env.seq)
                    return self._on_refusal(env.author, env.body, sender, address)
                case Genesis():
                    return self._on_genesis(frame, env.author, now)
                case GenesisSign():
                    return self._on_sign(frame, env.author, now)
                case _:
                    return [Log("warning", f"{env.kind} is not a lobby message")]
        except RemoteProtocolError as exc:
            return [Log("warning", f"rejected lobby frame: {type(exc).__name__}: "
                                   f"{names.shown(str(exc))}")]

    @staticmethod
    def _expect_lobby_context(game_id: bytes, seq: int) -> None:
        if game_id != LOBBY_GAME_ID or seq != 0:
            raise DecodeError("hello, welcome and refused travel with a zero game id and seq 0")

    # ---- host side ------------------------------------------------------------------------

    def _on_hello(
        self, author: bytes, hello: Hello, address: str | None, now: float
    ) -> list[LobbyEffect]:
        if not self.is_host:
            return [Log("info", "a hello reached a peer that is not hosting; ignored")]
        host = address if address is not None else hello.host
        if host in _UNSPECIFIED or hello.port == 0:
            return [Log("warning", f"hello from {fingerprint(author)} without a reachable "
                                   "address")]
        out: list[LobbyEffect] = [Connect(author, host, hello.port)]
        seat = next((i for i, p in enumerate(self.players) if p.pub == author), None)
        name = names.clean(hello.name)
        refused = None
        if hello.table and hello.table != self.table:  # "": whatever table is hosted here
            refused = RefusalReason.UNKNOWN_TABLE
        elif not name:
            refused = RefusalReason.BAD_NAME
        elif seat is None and self.phase is not Phase.GATHERING:
            refused = RefusalReason.STARTED if self.phase is Phase.SEATED else RefusalReason.FULL
        if refused is not None:
            out.append(Log("info", f"refused {fingerprint(author)} ({names.shown(name)}): "
                                   f"{refused.value}"))
            out.append(SendTo(author, self._refusal(author, refused)))
            return out
        if seat is not None:
            self.heard[author] = now
            if self.phase is Phase.GATHERING:  # a stay, maybe from a moved peer
                self.players[seat] = Candidate(author, hello.x25519, name, host, hello.port)
                out.append(SendTo(author, self._welcome()))
            elif self.phase is Phase.SIGNING:
                # Not a welcome: one reaching a joiner that holds the genesis withdraws it.
                assert self.signing is not None
                out.append(SendTo(author, self.signing.genesis))
            else:
                out.extend(self._answer(author, now, force=True))
            return out
        seat = len(self.players)
        self.players.append(Candidate(author, hello.x25519, name, host, hello.port))
        self.heard[author] = now
        out.append(Log("info", f"seat {seat}: {names.shown(name)} "
                               f"({fingerprint(author)}) at {host}:{hello.port}"))
        out.extend(self._send_roster())
        if len(self.players) == self.seats_total:
            out.extend(self._propose(now))
        return out

    def start_now(self, now: float) -> list[LobbyEffect]:
        """Host, gathering, with at least two seats taken: the table shrinks to the seats
        taken and the genesis is proposed at once (protocol.md §4.9 step 4). Nothing
        otherwise."""
        if not self.is_host or self.phase is not Phase.GATHERING or len(self.players) < 2:
            return []
        self.seats_total = len(self.players)
        return self._propose(now)

    def _send_roster(self) -> list[LobbyEffect]:
        """A fresh welcome to every joiner: the seats changed."""
        welcome = self._welcome()
        return [SendTo(p.pub, welcome) for p in self.players[1:]]

    def _free(self, pubs: set[bytes], why: str) -> list[LobbyEffect]:
        out: list[LobbyEffect] = []
        for p in self.players[1:]:
            if p.pub in pubs:
                out.append(Log("warning", f"freed the seat of {names.shown(p.name)} "
                                          f"({fingerprint(p.pub)}): {why}"))
                self.heard.pop(p.pub, None)
        self.players = [self.players[0], *(p for p in self.players[1:] if p.pub not in pubs)]
        return out

    def _free_silent(self, now: float) -> list[LobbyEffect]:
        silent = {pub for pub, at in self.heard.items() if now >= at + SEAT_HOLD}
        if not silent:
            return []
        out = self._free(silent, f"not heard for {SEAT_HOLD:g} s")
        return out + self._send_roster()

    def _withdraw(self, now: float) -> list[LobbyEffect]:
        """Free every seat that has not signed the genesis in time and gather again. The host
        never signed this genesis, so no peer can ever be seated by it."""
        signing = self.signing
        assert signing is not None
        unsigned = [pub for seat, pub in enumerate(signing.body.pubs)
                    if seat != 0 and seat not in signing.signatures]
        out = self._free(set(unsigned), f"no signature on the genesis {SIGN_WITHIN:g} s after it "
                                   "was proposed")
        self.signing = None
        self.phase = Phase.GATHERING
        for p in self.players[1:]:
            self.heard[p.pub] = now  # the signers were heard; a full hold to say hello again
        out.append(Log("info", f"table {self.table}: genesis withdrawn, "
                               f"{len(self.players)}/{self.seats_total} seats"))
        # The freed get the new seats too: one that is alive (its frames were lost) drops the
        # genesis, says hello again and is seated anew; one that went elsewhere ignores it.
        welcome = self._welcome()
        told = [*(p.pub for p in self.players[1:]), *unsigned]
        return out + [SendTo(pub, welcome) for pub in told]

    def _propose(self, now: float) -> list[LobbyEffect]:
        assert self.rules is not None and self.table is not None
        shown = names.distinct([p.name for p in self.players], [p.pub for p in self.players])
        players = [replace(p, name=n) for p, n in zip(self.players, shown, strict=True)]
        env = propose(self.identity, self.game_id, self.table, self.rules, self.turn_timer_ms,
                      players, self.grace_ms)
        out: list[LobbyEffect] = [Log("info", f"table {self.table} full: genesis proposed")]
        out.extend(self._take_genesis(env.to_bytes(), now))
        return out

    def _welcome(self) -> bytes:
        body = Welcome(
            table=self.table or "",
            game_id=self.game_id,
            names=names.distinct([p.name for p in self.players], [p.pub for p in self.players]),
            seats_total=self.seats_total,
            port=self.link_port,
        )
        return seal_envelope(self.identity, LOBBY_GAME_ID, 0, 0, body).to_bytes()

    def _refusal(self, to: bytes, reason: RefusalReason) -> bytes:
        body = Refusal(table=self.table or "", to=to, reason=reason.value)
        return seal_envelope(self.identity, LOBBY_GAME_ID, 0, 0, body).to_bytes()

    # ---- joiner side ----------------------------------------------------------------------

    def _hello(self) -> bytes:
        body = Hello(self.table or "", self.name, self.identity.x25519_public, self.link_host,
                     self.link_port)
        return seal_envelope(self.identity, LOBBY_GAME_ID, 0, 0, body).to_bytes()

    def _on_welcome(
        self, author: bytes, welcome: Welcome, sender: bytes, address: str | None, now: float
    ) -> list[LobbyEffect]:
        if self.is_host or self.phase is Phase.SEATED:
            return []
        if self.phase is not Phase.SEEKING:
            return self._on_roster(author, welcome)
        key = self._target_of(author, sender, address)
        if key is None:
            return [Log("warning", "a welcome from a peer we did not say hello to")]
        target = self.targets[key]
        if self.pin is not None and not self.pin.matches(author):
            return self._drop_target(key, author, RefusalReason.WRONG_HOST)
        if self.table is not None and welcome.table != self.table:
            return [Log("warning", f"welcome to table {welcome.table}, we want {self.table}")]
        if welcome.game_id == LOBBY_GAME_ID:
            return [Log("warning", "a welcome without a game id")]
        # Link to the host where its signed welcome came from (the IP of the frame, the port
        # it names), not where a beacon said: a copied beacon can name an impostor's port.
        host = address if address is not None else target.host
        port = welcome.port or target.port
        self.phase = Phase.GATHERING
        self.next_stay = now + STAY_EVERY
        self.host_pub = author
        self.host_address = (host, port)
        self.table = welcome.table
        self.game_id = welcome.game_id
        self.seats_total = welcome.seats_total
        # the placeholder link that reached the host becomes its link (one connection, not a
        # second one sharing its routing id); the links to the other targets are closed
        rekeys = [Rekey(k, author if k == key else None) for k in self.targets]
        self.roster = welcome.names
        return [
            *rekeys,
            Connect(author, host, port),
            Log("info", f"welcomed at table {welcome.table} by {fingerprint(author)} "
                        f"({self._roster_text()})"),
        ]

    def _roster_text(self) -> str:
        shown = ", ".join(names.shown(n) for n in self.roster)
        return f"{len(self.roster)}/{self.seats_total}: {shown}"

    def _on_roster(self, author: bytes, welcome: Welcome) -> list[LobbyEffect]:
        """A welcome from our host after the first: the seats changed, and a genesis we hold
        (never signed by the host) is withdrawn."""
        if author != self.host_pub or welcome.game_id != self.game_id:
            return []
        out: list[LobbyEffect] = []
        if welcome.names != self.roster:
            self.roster = welcome.names
            out.append(Log("info", f"table {self.table}: {self._roster_text()}"))
        if self.phase is Phase.SIGNING:
            self.signing = None
            self.phase = Phase.GATHERING
            out.append(Log("info", "the host withdrew the genesis; waiting for seats again"))
        return out

    def _on_refusal(
        self, author: bytes, refusal: Refusal, sender: bytes, address: str | None
    ) -> list[LobbyEffect]:
        if self.is_host or refusal.to != self.identity.public_key:
            return [Log("info", "a refusal not meant for us; ignored")]
        reason = RefusalReason.from_wire(refusal.reason)
        if self.phase in (Phase.GATHERING, Phase.SIGNING) and author == self.host_pub:
            # Our host freed our seat (our stays were lost) and is full now: start again.
            self.phase, self.signing, self.host_pub = Phase.SEEKING, None, None
            self.refusals.append(reason)
            return [Log("warning", f"table {self.table} refused us: {reason.text}"),
                    Refused(author, author, reason)]
        if self.phase is not Phase.SEEKING:
            return []
        key = self._target_of(author, sender, address)
        if key is None:
            return [Log("info", "a refusal from a peer we did not say hello to; ignored")]
        return self._drop_target(key, author, reason)

    def _drop_target(self, key: bytes, author: bytes, reason: RefusalReason) -> list[LobbyEffect]:
        target = self.targets.pop(key)
        self.refusals.append(reason)
        why = reason.text
        if reason is RefusalReason.WRONG_HOST and self.pin is not None:
            why = f"it is {fingerprint(author)}, we chose {self.pin}"
        return [Log("warning", f"{target.host}:{target.port} refused us: {why}"),
                Rekey(key, None),  # that placeholder link leads nowhere we will sit: closed
                Refused(key, author, reason)]

    def _target_of(self, author: bytes, sender: bytes, address: str | None) -> bytes | None:
        """Which target an answer comes from: the one keyed by its author, else (a ``--join``
        placeholder) the one at the IP the answer came from, else the only one."""
        for key in (author, sender):
            if key in self.targets:
                return key
        claimed = [k for k, t in self.targets.items() if t.claimed == author]
        if claimed:
            return claimed[0]  # the welcome is signed by the key the beacon named
        by_ip = [k for k, t in self.targets.items() if t.host == address]
        if len(by_ip) == 1:
            return by_ip[0]
        return next(iter(self.targets)) if len(self.targets) == 1 else None

    # ---- the genesis and its signatures -----------------------------------------------------

    def _on_genesis(self, frame: bytes, author: bytes, now: float) -> list[LobbyEffect]:
        if self.phase is Phase.SEATED:
            return self._answer(author, now)
        if self.is_host or self.host_pub is None or author != self.host_pub:
            return [Log("warning", "a genesis from a peer that is not our host; ignored")]
        if self.signing is not None and frame == self.signing.genesis:
            return []
        # A different genesis from our host replaces the one we hold: the host signs last,
        # so the one it gave up can never be completed.
        return self._take_genesis(frame, now)

    def _take_genesis(self, frame: bytes, now: float) -> list[LobbyEffect]:
        env, body, rules = open_genesis(frame)
        me = self.identity.public_key
        problem = None
        if env.game_id != self.game_id:
            problem = "a genesis for another game"
        elif body.table != self.table:
            problem = f"a genesis for table {body.table}"
        elif me not in body.pubs:
            problem = "a genesis that does not seat us"
        elif not self.accept_rules(rules):
            problem = "a genesis with rules we do not accept"
        if problem is not None:
            return [Log("warning", f"refused {problem}")]
        addresses = []
        for seat, (host, port) in enumerate(zip(body.hosts, body.ports, strict=True)):
            if host in _UNSPECIFIED and seat == 0 and self.host_address is not None:
                host = self.host_address[0]
            addresses.append((host, port))
        self.signing = _Signing(frame, body, env.digest(), env.game_id, addresses, now)
        if not self.is_host:  # the host signs last (module docstring)
            self.signing.signatures[body.pubs.index(me)] = sign(self.identity, env).to_bytes()
        self.phase = Phase.SIGNING
        self.next_resend = now + GENESIS_EVERY
        out: list[LobbyEffect] = []
        for seat, pub in enumerate(body.pubs):
            host, port = addresses[seat]
            if pub != me and host not in _UNSPECIFIED and port:
                out.append(Connect(pub, host, port))
        out.extend(self._send_signing())
        return out

    def _send_signing(self) -> list[LobbyEffect]:
        """The host: the genesis to every seat whose signature it lacks; a joiner: its
        signature to the host (the only peer that can complete the genesis)."""
        signing = self.signing
        assert signing is not None
        if self.is_host:
            return [SendTo(pub, signing.genesis) for seat, pub in enumerate(signing.body.pubs)
                    if seat != 0 and seat not in signing.signatures]
        mine = signing.signatures[signing.body.pubs.index(self.identity.public_key)]
        return [SendTo(signing.body.pubs[0], mine)]

    def _on_sign(self, frame: bytes, author: bytes, now: float) -> list[LobbyEffect]:
        if self.phase is Phase.SEATED:
            return self._answer(author, now)
        signing = self.signing
        if signing is None and self.is_host:
            return self._stale_sign(author, now)
        if signing is None:
            return []  # before the genesis reached us; the host re-sends it
        env = open_envelope(frame, expect_game=signing.game_id, expect_round=0,
                            known_authors=signing.body.pubs)
        assert isinstance(env.body, GenesisSign)
        if env.seq != 0:
            return [Log("warning", "a genesis signature with a seq other than 0; ignored")]
        if env.body.digest != signing.digest:
            if self.is_host:
                return self._stale_sign(author, now)
            return [Log("warning", "a signature on another genesis; ignored")]
        signing.signatures[signing.body.pubs.index(author)] = frame
        n = len(signing.body.pubs)
        if self.is_host and len(signing.signatures) == n - 1:
            genesis = open_envelope(signing.genesis, expect_round=0)
            signing.signatures[0] = sign(self.identity, genesis).to_bytes()
            out = self._seat_table(signing)
            for pub in signing.body.pubs[1:]:  # the whole bundle to every joiner
                out.extend(self._answer(pub, now, force=True))
            return out
        if len(signing.signatures) < n:
            return []
        return self._seat_table(signing)

    def _stale_sign(self, author: bytes, now: float) -> list[LobbyEffect]:
        """A signature on a genesis we withdrew: its signer missed the welcome that said so.
        Send it again (at most every ANSWER_EVERY), so it drops that genesis and says hello."""
        if now < self.answered.get(author, -1.0) + ANSWER_EVERY:
            return []
        self.answered[author] = now
        return [SendTo(author, self._welcome())]

    def _seat_table(self, signing: _Signing) -> list[LobbyEffect]:
        ordered = tuple(signing.signatures[s] for s in range(len(signing.body.pubs)))
        seating = seating_from(signing.genesis, ordered)
        self.seated = Seated(seating, signing.genesis, ordered, tuple(signing.addresses))
        self.phase = Phase.SEATED
        shown = ", ".join(names.shown(n) for n in seating.names)
        return [Log("info", f"table {seating.table} seated: {shown}"), self.seated]

    def _answer(self, author: bytes, now: float, *, force: bool = False) -> list[LobbyEffect]:
        """A seated peer hands a seat that is still signing the genesis and every signature."""
        seated = self.seated
        if seated is None or author not in seated.seating.pubs:
            return []
        if not force and now < self.answered.get(author, -1.0) + ANSWER_EVERY:
            return []
        self.answered[author] = now
        return [SendTo(author, seated.genesis), *(SendTo(author, s) for s in seated.signatures)]
