"""The pre-game handshake: hello, welcome/refused, genesis, genesis-sign. Pure: no I/O, no clock.

A lobby is one peer's side of seating a table, in the effect style of
:class:`~dudo_p2p.consensus.machine.TableMachine`: ``receive``/``tick``/``add_target`` return
a list of effects the node carries out in order (:class:`Connect`, :class:`SendTo`,
:class:`~dudo_p2p.consensus.effects.Log`, :class:`Refused`, :class:`Seated`). Peers are named
by the key their link is held under: an Ed25519 public key, or, before a ``--join`` target
has answered, a placeholder the node made up.

It comes in two roles: :class:`~dudo_p2p.consensus.lobby_host.HostLobby` (seat 0: answers
hellos, proposes the genesis, signs it last) and
:class:`~dudo_p2p.consensus.lobby_joiner.JoinerLobby` (says hello, checks and signs the
genesis). This module holds what both share: the effects, the phases, the constants, and the
:class:`Lobby` base (routing frames, holding a genesis, seating, answering once seated). A
peer restarted from its journal is a plain :class:`Lobby` (:meth:`Lobby.resumed`): seated,
it only answers.

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
   host frees the seat of a joiner unheard for :data:`SEAT_HOLD` seconds, or at once when
   the joiner sends a signed ``leave`` (its player cancelled), and sends the new seats
   (names and keys) to every joiner in a fresh ``welcome`` whenever they change. The host's
   player may change the seat count, remove a joiner (a signed ``refused`` with reason
   ``removed``; a later hello from that key is refused the same) or start now.
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

import ipaddress
from dataclasses import dataclass, field

from dudo_p2p.consensus.effects import Log
from dudo_p2p.consensus.genesis import seating_from
from dudo_p2p.consensus.replica import Seating
from dudo_p2p.consensus.transitions import LobbyPhase, LobbyTrigger, lobby_move
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.errors import DecodeError, InvalidValue, RemoteProtocolError
from dudo_p2p.protocol import names
from dudo_p2p.protocol.envelope import Envelope, open_envelope
from dudo_p2p.protocol.kinds import (
    GAME_ID_LEN,
    Genesis,
    GenesisSign,
    Hello,
    Leave,
    Refusal,
    Welcome,
)
from dudo_p2p.protocol.refusals import RefusalReason

LOBBY_KINDS = frozenset({"hello", "welcome", "refused", "leave", "genesis", "genesis-sign"})
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
# No tick of ours for this long while a joiner is welcomed (the joiner ticks for its stay
# every STAY_EVERY, the host on each stay it gets): we were stopped (a laptop asleep,
# SIGSTOP), and the silence of the other side is ours, not theirs.
PAUSED = 3.0
SIGN_WITHIN = 4.0
# The host answers every stay with the roster, so a welcomed joiner that has heard nothing
# from its host this long takes it as gone (crashed, or its network went) instead of waiting
# until its player gives up. Ten missed round trips: loss alone does not end a live table.
HOST_SILENCE = 10.0
MAX_TARGETS = 16  # hosts a joiner says hello to at once (discovery can offer many)
ANSWER_EVERY = 0.25  # a seated peer answers one seat's lobby frames at most this often
UNSPECIFIED = ("", "0.0.0.0", "::")  # a host part that names no address to dial


def dialled_host(host: str, seat: int, reached: str) -> str:
    """Where a joiner dials seat ``seat`` that the genesis places at ``host``, having reached
    the host at ``reached`` (protocol.md §4.9 step 4): an unspecified seat-0 address is the
    host's own; a loopback address is a seat the host heard from its own machine (the bots
    its window started for the empty seats), so it is dialled at the host's address too,
    unless we reached the host over loopback ourselves (127.0.0.1 on a friend's laptop is
    that laptop: the friend never linked to those bots, and they voted the friend out).
    Any other address is used as given."""
    if seat == 0 and host in UNSPECIFIED:
        return reached
    if _loopback(host) and not _loopback(reached):
        return reached
    return host


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a name, or nothing: not an address we can place
        return False


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


# the lobby's phases, and every way they change, are transitions.py's (LobbyPhase,
# LOBBY_TRANSITIONS); Phase is the name the lobby's callers have always used
Phase = LobbyPhase


@dataclass
class Signing:
    """A genesis this peer holds and the seats' signatures on it gathered so far (a joiner's
    own included at once; the host's only once every joiner has signed)."""

    genesis: bytes
    body: Genesis
    digest: bytes
    game_id: bytes
    addresses: list[tuple[str, int]]
    proposed_at: float
    signatures: dict[int, bytes] = field(default_factory=dict)


def cleaned_name(name: str) -> str:
    """``name`` cleaned (:func:`names.clean`); InvalidValue when nothing is left of it."""
    cleaned = names.clean(name)
    if not cleaned:
        raise InvalidValue(f"the name {names.shown(name)!r} is empty once control and "
                           "invisible characters are removed")
    return cleaned


class Lobby:
    """What every peer's side of the handshake shares (module docstring): routing a lobby
    frame, holding a genesis, seating the table once every signature is in, answering a
    seat's lobby frames once seated. The roles add the rest; a resumed peer
    (:meth:`resumed`) is this base alone: seated, it only answers."""

    def __init__(
        self, identity: Identity, name: str, link_host: str, link_port: int, table: str | None
    ) -> None:
        self.identity = identity
        self.name = name
        self.link_host = "" if link_host in UNSPECIFIED else link_host
        self.link_port = link_port
        self.table = table
        self.phase = Phase.SEEKING
        self.seats_total = 0
        self.game_id = LOBBY_GAME_ID
        self.signing: Signing | None = None
        self.seated: Seated | None = None
        self.next_resend = 0.0
        self.answered: dict[bytes, float] = {}

    @classmethod
    def resumed(cls, identity: Identity, seated: Seated) -> Lobby:
        """The lobby of a peer restarted from its journal: already seated, it only answers."""
        lobby = cls(identity, "", "", 0, seated.seating.table)
        lobby.phase = Phase.SEATED  # constructed seated: not a transition
        lobby.seated = seated
        lobby.game_id = seated.seating.game_id
        return lobby

    # ---- what the node asks ---------------------------------------------------------------

    def next_deadline(self) -> float | None:
        """When :meth:`tick` next has something to do (None: nothing pending)."""
        return None

    def tick(self, now: float) -> list[LobbyEffect]:
        """Re-send what is owed and free what has gone silent (the roles); nothing once
        seated."""
        return []

    # ---- receiving ------------------------------------------------------------------------

    def receive(
        self, frame: bytes, sender: bytes, address: str | None, now: float
    ) -> list[LobbyEffect]:
        """Handle one lobby frame (hello, welcome, refused, leave, genesis, genesis-sign) from the
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
                case Leave():
                    self._expect_lobby_context(env.game_id, env.seq)
                    return self._on_leave(env.author, env.body, now)
                case Genesis():
                    if self.phase is Phase.SEATED:
                        return self._answer(env.author, now)
                    return self._on_genesis(frame, env.author, now)
                case GenesisSign():
                    if self.phase is Phase.SEATED:
                        return self._answer(env.author, now)
                    return self._on_sign(frame, env.author, now)
                case _:
                    return [Log("warning", f"{env.kind} is not a lobby message")]
        except RemoteProtocolError as exc:
            return [Log("warning", f"rejected lobby frame: {type(exc).__name__}: "
                                   f"{names.shown(str(exc))}")]

    @staticmethod
    def _expect_lobby_context(game_id: bytes, seq: int) -> None:
        if game_id != LOBBY_GAME_ID or seq != 0:
            raise DecodeError("hello, welcome, refused and leave travel with a zero game id "
                              "and seq 0")

    # What a peer that is not in the role a frame is meant for does with it (the roles
    # override the frames they handle).

    def _on_hello(
        self, author: bytes, hello: Hello, address: str | None, now: float
    ) -> list[LobbyEffect]:
        return [Log("info", "a hello reached a peer that is not hosting; ignored")]

    def _on_welcome(
        self, author: bytes, welcome: Welcome, sender: bytes, address: str | None, now: float
    ) -> list[LobbyEffect]:
        return []

    def _on_refusal(
        self, author: bytes, refusal: Refusal, sender: bytes, address: str | None
    ) -> list[LobbyEffect]:
        if refusal.to != self.identity.public_key:
            return [Log("info", "a refusal not meant for us; ignored")]
        return []

    def _on_leave(self, author: bytes, leave: Leave, now: float) -> list[LobbyEffect]:
        return [Log("info", "a leave reached a peer that is not gathering a table; ignored")]

    def _on_genesis(self, frame: bytes, author: bytes, now: float) -> list[LobbyEffect]:
        """A genesis before this peer is seated."""
        return [Log("warning", "a genesis from a peer that is not our host; ignored")]

    def _on_sign(self, frame: bytes, author: bytes, now: float) -> list[LobbyEffect]:
        """A genesis signature before this peer is seated."""
        return []

    # ---- the genesis and its signatures -----------------------------------------------------

    def _hold(
        self, frame: bytes, env: Envelope, body: Genesis, addresses: list[tuple[str, int]],
        now: float,
    ) -> Signing:
        """Hold genesis ``frame`` (opened: ``env``, ``body``) and gather its signatures."""
        self.signing = Signing(frame, body, env.digest(), env.game_id, addresses, now)
        self.phase = lobby_move(self.phase, LobbyTrigger.PROPOSED)
        self.next_resend = now + GENESIS_EVERY
        return self.signing

    def _link_seats(self, signing: Signing) -> list[LobbyEffect]:
        """Link to every seat of the genesis held that names where it is."""
        me = self.identity.public_key
        out: list[LobbyEffect] = []
        for seat, pub in enumerate(signing.body.pubs):
            host, port = signing.addresses[seat]
            if pub != me and host not in UNSPECIFIED and port:
                out.append(Connect(pub, host, port))
        return out

    def _read_sign(self, frame: bytes, signing: Signing) -> GenesisSign | Log:
        """The signature in ``frame`` by a seat of the genesis held (RemoteProtocolError if
        none), or why it is ignored."""
        env = open_envelope(frame, expect_game=signing.game_id, expect_round=0,
                            known_authors=signing.body.pubs)
        assert isinstance(env.body, GenesisSign)
        if env.seq != 0:
            return Log("warning", "a genesis signature with a seq other than 0; ignored")
        return env.body

    def _seat_table(self, signing: Signing) -> list[LobbyEffect]:
        ordered = tuple(signing.signatures[s] for s in range(len(signing.body.pubs)))
        seating = seating_from(signing.genesis, ordered)
        self.seated = Seated(seating, signing.genesis, ordered, tuple(signing.addresses))
        self.phase = lobby_move(self.phase, LobbyTrigger.SIGNED)
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
