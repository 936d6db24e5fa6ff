"""A joiner's side of the handshake (protocol.md §4.9; the steps in :mod:`.lobby`). Pure: no
I/O, no clock.

A :class:`JoinerLobby` says hello to every target it is offered until one welcomes it, then
keeps saying it is still there (a stay) until the genesis comes; it checks the genesis, links
to every seat, signs it and re-sends its signature to the host until it is seated. A refusal
(or an answer signed by a key other than the pinned one) drops that target. A joiner whose
player cancels before the game starts gives its seat back with a signed ``leave``
(:meth:`JoinerLobby.leave`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from dudo_p2p.consensus.effects import Log
from dudo_p2p.consensus.genesis import open_genesis, sign
from dudo_p2p.consensus.lobby import (
    GENESIS_EVERY,
    HELLO_EVERY,
    HOST_SILENCE,
    LOBBY_GAME_ID,
    MAX_TARGETS,
    PAUSED,
    STAY_EVERY,
    Connect,
    Lobby,
    LobbyEffect,
    Phase,
    Refused,
    Rekey,
    SendTo,
    cleaned_name,
    dialled_host,
)
from dudo_p2p.consensus.transitions import LobbyTrigger, lobby_move
from dudo_p2p.crypto.identity import Identity, KeyPin, fingerprint
from dudo_p2p.errors import DudoError
from dudo_p2p.protocol import names
from dudo_p2p.protocol.envelope import seal_envelope
from dudo_p2p.protocol.kinds import GenesisSign, Hello, Leave, Refusal, Welcome
from dudo_p2p.protocol.refusals import RefusalReason
from dudo_p2p.rules import RuleSet


@dataclass
class _Target:
    host: str
    port: int
    next_hello: float = 0.0
    claimed: bytes | None = None  # the host key a beacon claimed for this address (a hint)


class JoinerLobby(Lobby):
    """A joiner's lobby; ``table`` (when given) is the only table code it will sit at and
    ``pin`` (when given) the only host key it takes an answer from; ``accept_rules`` says
    whether it signs a genesis with those rules; ``expect_prev`` (when given) the only
    previous log hash its genesis may name (following one more game, §4.9). ``name`` is
    cleaned (:func:`names.clean`);
    one that is empty once cleaned raises InvalidValue."""

    def __init__(
        self,
        identity: Identity,
        name: str,
        link_host: str,
        link_port: int,
        *,
        table: str | None = None,
        pin: KeyPin | None = None,
        accept_rules: Callable[[RuleSet], bool] = lambda _: True,
        expect_prev: bytes | None = None,
    ) -> None:
        super().__init__(identity, cleaned_name(name), link_host, link_port, table)
        self.accept_rules = accept_rules
        # following one more game (§4.9): only a genesis naming our game's final log hash
        self.expect_prev = expect_prev
        self.pin = pin
        self.targets: dict[bytes, _Target] = {}
        self.host_pub: bytes | None = None
        self.host_address: tuple[str, int] | None = None
        self.roster: tuple[str, ...] = ()  # the names of the host's last welcome
        self.roster_keys: tuple[bytes, ...] = ()  # ... and each seat's key, beside its name
        self.told_rules: RuleSet | None = None  # ... the rules and timer it says (§4.10)
        self.told_timer_ms = 0
        self.next_stay = 0.0
        self.heard_host = 0.0  # when our host last sent us a welcome, roster or genesis
        self.last_tick: float | None = None  # our last tick while welcomed (see _woke)

    # ---- what the node asks ---------------------------------------------------------------

    def next_deadline(self) -> float | None:
        if self.phase is Phase.SEEKING and self.targets:
            return min(t.next_hello for t in self.targets.values())
        if self.phase is Phase.SIGNING:
            return min(self.next_resend, self.heard_host + HOST_SILENCE)
        if self.phase is Phase.GATHERING:
            return min(self.next_stay, self.heard_host + HOST_SILENCE)
        return None

    def add_target(
        self, key: bytes, host: str, port: int, now: float, *, claimed: bytes | None = None
    ) -> list[LobbyEffect]:
        """Say hello to the host at ``host:port``, linked under ``key`` (a placeholder per
        address: a beacon is only a hint, and copies of a host's beacon may name other
        addresses, so every address offered is tried; ``claimed`` is the key the beacon named).
        Ignored once welcomed."""
        if self.phase is not Phase.SEEKING:
            return []
        current = self.targets.get(key)
        if current is not None and (current.host, current.port) == (host, port):
            return []
        if current is None and len(self.targets) >= MAX_TARGETS:
            return [Log("warning", f"too many tables to try; ignoring {host}:{port}")]
        self.targets[key] = _Target(host, port, now, claimed)
        return [Connect(key, host, port), Log("info", f"saying hello to {host}:{port}")]

    def tick(self, now: float) -> list[LobbyEffect]:
        """Re-send what is owed: hellos while seeking, a stay while waiting for the genesis,
        our signature while signing; give our host up once it has been silent
        :data:`~.lobby.HOST_SILENCE` seconds (:attr:`RefusalReason.GONE`)."""
        out: list[LobbyEffect] = self._woke(now)
        if (self.phase in (Phase.GATHERING, Phase.SIGNING) and self.host_pub is not None
                and now >= self.heard_host + HOST_SILENCE):
            host = self.host_pub
            self.phase = lobby_move(self.phase, LobbyTrigger.LOST_HOST)
            self.signing, self.host_pub = None, None
            return [Log("warning", f"table {self.table}: the host has not answered for "
                                   f"{HOST_SILENCE:g} s; giving it up"),
                    Refused(host, host, RefusalReason.GONE)]
        if self.phase is Phase.SEEKING:
            for key, target in self.targets.items():
                if now >= target.next_hello:
                    target.next_hello = now + HELLO_EVERY
                    out.append(SendTo(key, self._hello()))
        elif self.phase is Phase.GATHERING and now >= self.next_stay:
            assert self.host_pub is not None
            self.next_stay = now + STAY_EVERY
            out.append(SendTo(self.host_pub, self._hello()))
        elif self.phase is Phase.SIGNING and now >= self.next_resend:
            self.next_resend = now + GENESIS_EVERY
            out.extend(self._send_signing())
        return out

    def _woke(self, now: float) -> list[LobbyEffect]:
        """Welcomed, we tick at least every :data:`~.lobby.STAY_EVERY` (a stay is due); a
        tick :data:`~.lobby.PAUSED` after the last means *we* were stopped (a laptop asleep in the
        waiting room, SIGSTOP), not the host silent: its silence counts from now and our
        stay goes out at once (the host freed our seat meanwhile: the stay is a hello that
        takes a seat again, or is refused as full). Before, the joiner woke, found the host
        unheard for 10 s and went back to the lobby saying the host had left."""
        if self.phase not in (Phase.GATHERING, Phase.SIGNING):
            self.last_tick = None
            return []
        last, self.last_tick = self.last_tick, now
        if last is None or now - last <= PAUSED:
            return []
        self.heard_host = max(self.heard_host, now)
        self.next_stay = now
        return [Log("warning", f"we were stopped {now - last:.1f} s: saying hello to our "
                               "host again")]

    def leave(self) -> list[LobbyEffect]:
        """Our player cancels before the game starts: a signed ``leave`` to the host that
        welcomed us, so it frees our seat at once (protocol.md §4.9 step 3). Nothing when no
        host has welcomed us, or once seated (the game's ``bye`` says it then)."""
        if self.host_pub is None or self.phase not in (Phase.GATHERING, Phase.SIGNING):
            return []
        body = Leave(self.table or "", self.game_id)
        frame = seal_envelope(self.identity, LOBBY_GAME_ID, 0, 0, body).to_bytes()
        return [SendTo(self.host_pub, frame),
                Log("info", f"leaving table {self.table} before it starts")]

    # ---- hello, welcome, refused ----------------------------------------------------------

    def _hello(self) -> bytes:
        body = Hello(self.table or "", self.name, self.identity.x25519_public, self.link_host,
                     self.link_port)
        return seal_envelope(self.identity, LOBBY_GAME_ID, 0, 0, body).to_bytes()

    def _on_welcome(
        self, author: bytes, welcome: Welcome, sender: bytes, address: str | None, now: float
    ) -> list[LobbyEffect]:
        if self.phase is Phase.SEATED:
            return []
        if self.phase is not Phase.SEEKING:
            return self._on_roster(author, welcome, now)
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
        problem = _roster_problem(author, welcome)
        if problem is None and self.identity.public_key not in welcome.keys:
            problem = "seats that do not include us"
        if problem is not None:
            return [Log("warning", f"a welcome with {problem}; ignored")]
        # Link to the host where its signed welcome came from (the IP of the frame, the port
        # it names), not where a beacon said: a copied beacon can name an impostor's port.
        host = address if address is not None else target.host
        port = welcome.port or target.port
        self.phase = lobby_move(self.phase, LobbyTrigger.WELCOMED)
        self.next_stay = now + STAY_EVERY
        self.heard_host = now
        self.host_pub = author
        self.host_address = (host, port)
        self.table = welcome.table
        self.game_id = welcome.game_id
        self.seats_total = welcome.seats_total
        # the placeholder link that reached the host becomes its link (one connection, not a
        # second one sharing its routing id); the links to the other targets are closed
        rekeys = [Rekey(k, author if k == key else None) for k in self.targets]
        self.targets = {}  # refused later, we look again from scratch (the node decides)
        self.roster, self.roster_keys = welcome.names, welcome.keys
        self._take_table(welcome)
        return [
            *rekeys,
            Connect(author, host, port),
            Log("info", f"welcomed at table {welcome.table} by {fingerprint(author)} "
                        f"({self._roster_text()})"),
        ]

    def _take_table(self, welcome: Welcome) -> None:
        """The rules and timer the host's welcome says, for the waiting room (None: rules
        this version cannot read; the genesis is checked on its own, ``accept_rules``)."""
        try:
            self.told_rules = RuleSet.from_dict(welcome.rules) if welcome.rules else None
        except DudoError:
            self.told_rules = None
        self.told_timer_ms = welcome.turn_timer_ms

    def _roster_text(self) -> str:
        shown = ", ".join(names.shown(n) for n in self.roster)
        return f"{len(self.roster)}/{self.seats_total}: {shown}"

    def _on_roster(self, author: bytes, welcome: Welcome, now: float) -> list[LobbyEffect]:
        """A welcome from our host after the first (an answer to a stay, or the seats
        changed): our host is there, and a genesis we hold (never signed by the host) is
        withdrawn."""
        if author != self.host_pub or welcome.game_id != self.game_id:
            return []
        self.heard_host = now
        problem = _roster_problem(author, welcome)  # one without us: our seat was freed
        if problem is not None:
            return [Log("warning", f"a roster with {problem}; ignored")]
        out: list[LobbyEffect] = []
        self.seats_total = welcome.seats_total  # the host may change the seat count
        self._take_table(welcome)
        if (welcome.names, welcome.keys) != (self.roster, self.roster_keys):
            self.roster, self.roster_keys = welcome.names, welcome.keys
            out.append(Log("info", f"table {self.table}: {self._roster_text()}"))
        if self.phase is Phase.SIGNING:
            self.signing = None
            self.phase = lobby_move(self.phase, LobbyTrigger.WITHDRAWN)
            out.append(Log("info", "the host withdrew the genesis; waiting for seats again"))
        return out

    def _on_refusal(
        self, author: bytes, refusal: Refusal, sender: bytes, address: str | None
    ) -> list[LobbyEffect]:
        if refusal.to != self.identity.public_key:
            return [Log("info", "a refusal not meant for us; ignored")]
        reason = RefusalReason.from_wire(refusal.reason)
        if self.phase in (Phase.GATHERING, Phase.SIGNING) and author == self.host_pub:
            # Our host freed our seat (our stays were lost) and is full now: start again.
            self.phase = lobby_move(self.phase, LobbyTrigger.LOST_HOST)
            self.signing, self.host_pub = None, None
            return [Log("warning", f"table {self.table} refused us: {reason.text}"),
                    Refused(author, author, reason)]
        if self.phase is not Phase.SEEKING:
            return []
        key = self._target_of(author, sender, address)
        if key is None:
            return [Log("info", "a refusal from a peer we did not say hello to; ignored")]
        return self._drop_target(key, author, reason)

    def drop_gone(self, host: bytes) -> list[LobbyEffect]:
        """Seeking: ``host`` left the network (its leaving beacon) before it answered us: drop
        the targets its beacons offered (:attr:`RefusalReason.GONE`), so the node moves on
        or stops instead of saying hello to nobody until its timeout."""
        if self.phase is not Phase.SEEKING:
            return []
        out: list[LobbyEffect] = []
        for key in [k for k, t in self.targets.items() if t.claimed == host]:
            out.extend(self._drop_target(key, host, RefusalReason.GONE))
        return out

    def _drop_target(self, key: bytes, author: bytes, reason: RefusalReason) -> list[LobbyEffect]:
        target = self.targets.pop(key)
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
        if self.host_pub is None or author != self.host_pub:
            return [Log("warning", "a genesis from a peer that is not our host; ignored")]
        self.heard_host = now
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
        elif self.expect_prev is not None and body.prev != self.expect_prev:
            problem = "a genesis that does not follow the game we played"
        if problem is not None:
            return [Log("warning", f"refused {problem}")]
        addresses = []
        for seat, (host, port) in enumerate(zip(body.hosts, body.ports, strict=True)):
            if self.host_address is not None:
                host = dialled_host(host, seat, self.host_address[0])
            addresses.append((host, port))
        signing = self._hold(frame, env, body, addresses, now)
        signing.signatures[body.pubs.index(me)] = sign(self.identity, env).to_bytes()
        return [*self._link_seats(signing), *self._send_signing()]

    def _send_signing(self) -> list[LobbyEffect]:
        """Our signature to the host (the only peer that can complete the genesis)."""
        signing = self.signing
        assert signing is not None
        mine = signing.signatures[signing.body.pubs.index(self.identity.public_key)]
        return [SendTo(signing.body.pubs[0], mine)]

    def _on_sign(self, frame: bytes, author: bytes, now: float) -> list[LobbyEffect]:
        signing = self.signing
        if signing is None:
            return []  # before the genesis reached us; the host re-sends it
        read = self._read_sign(frame, signing)
        if not isinstance(read, GenesisSign):
            return [read]
        if read.digest != signing.digest:
            return [Log("warning", "a signature on another genesis; ignored")]
        signing.signatures[signing.body.pubs.index(author)] = frame
        if len(signing.signatures) < len(signing.body.pubs):
            return []
        return self._seat_table(signing)


def _roster_problem(author: bytes, welcome: Welcome) -> str | None:
    """What is wrong with the seats a welcome names (None: nothing): a key beside each name,
    the host's (its author's) first, none twice."""
    keys = welcome.keys
    if len(keys) != len(welcome.names) or not keys:
        return f"{len(welcome.names)} names and {len(keys)} keys"
    if keys[0] != author:
        return "a first seat that is not its host's"
    if len(set(keys)) != len(keys):
        return "a key in two seats"
    return None
