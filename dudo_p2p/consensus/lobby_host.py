"""The host's side of the handshake (protocol.md §4.9; the steps in :mod:`.lobby`). Pure: no
I/O, no clock.

A :class:`HostLobby` holds seat 0: it answers every hello with a ``welcome`` or a signed
``refused``, sends the new seats to every joiner whenever they change, frees the seat of a
joiner unheard for :data:`~.lobby.SEAT_HOLD` seconds (at once when it sends ``leave``),
proposes the genesis once every seat is taken (or at :meth:`HostLobby.start_now`), signs it
last and hands every joiner the bundle. The host's player changes the seat count
(:meth:`HostLobby.set_seats`) and removes joiners (:meth:`HostLobby.remove`) while the table
gathers.
"""

from __future__ import annotations

from dataclasses import replace

from dudo_p2p.consensus.effects import Log
from dudo_p2p.consensus.genesis import Candidate, open_genesis, propose, sign
from dudo_p2p.consensus.lobby import (
    ANSWER_EVERY,
    GENESIS_EVERY,
    LOBBY_GAME_ID,
    PAUSED,
    SEAT_HOLD,
    SIGN_WITHIN,
    STAY_EVERY,
    UNSPECIFIED,
    Connect,
    Lobby,
    LobbyEffect,
    Phase,
    SendTo,
    cleaned_name,
)
from dudo_p2p.consensus.transitions import LobbyTrigger, lobby_move
from dudo_p2p.crypto.hashing import PROTOCOL_VERSION
from dudo_p2p.crypto.identity import Identity, fingerprint
from dudo_p2p.errors import InvalidValue
from dudo_p2p.protocol import names
from dudo_p2p.protocol.envelope import open_envelope, seal_envelope
from dudo_p2p.protocol.kinds import (
    GAME_ID_LEN,
    MAX_SEATS,
    GenesisSign,
    Hello,
    Leave,
    Refusal,
    Welcome,
)
from dudo_p2p.protocol.older import OlderHello, older_hello, refusal_for
from dudo_p2p.protocol.refusals import RefusalReason
from dudo_p2p.rules import RuleSet


class HostLobby(Lobby):
    """The host's lobby: seat 0 is ours; ``game_id`` is 16 random bytes from the node;
    ``grace_ms`` the reconnect grace of the game (protocol.md §4.6); ``prev`` the final log
    hash of the game this one follows (one more game, §4.9; b"": none). ``name`` is cleaned
    (:func:`names.clean`); one that is empty once cleaned raises InvalidValue, and so do a
    seat count outside 2-6 and a game id that is not 16 non-zero bytes."""

    def __init__(
        self,
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
        prev: bytes = b"",
    ) -> None:
        super().__init__(identity, cleaned_name(name), link_host, link_port, table)
        if not 2 <= seats <= 6:
            raise InvalidValue(f"a table seats 2 to 6 players, not {seats}")
        if len(game_id) != GAME_ID_LEN or game_id == LOBBY_GAME_ID:
            raise InvalidValue("a game id is 16 random bytes")
        self.phase = Phase.GATHERING  # a host starts gathering (constructed: not a transition)
        self.seats_total = seats
        self.game_id = game_id
        self.rules = rules
        self.turn_timer_ms = turn_timer_ms
        self.grace_ms = grace_ms  # the reconnect grace the genesis carries (§4.6)
        self.prev = prev  # one more game (§4.9): the final log hash of the game before
        self.players: list[Candidate] = [  # seat order so far
            Candidate(identity.public_key, identity.x25519_public, self.name, self.link_host,
                      link_port)
        ]
        self.heard: dict[bytes, float] = {}  # when each joiner last said hello
        self.last_tick: float | None = None  # our last tick while joiners wait (_woke)
        self.removed: set[bytes] = set()  # keys our player removed: refused from then on

    # ---- what the node asks ---------------------------------------------------------------

    @property
    def seats_taken(self) -> int:
        return len(self.players)

    def next_deadline(self) -> float | None:
        if self.phase is Phase.SIGNING:
            assert self.signing is not None
            return min(self.next_resend, self.signing.proposed_at + SIGN_WITHIN)
        if self.phase is Phase.GATHERING and self.heard:
            due = min(self.heard.values()) + SEAT_HOLD
            # a tick a second while joiners wait, so that a longer gap says we were stopped
            return due if self.last_tick is None else min(due, self.last_tick + STAY_EVERY)
        return None

    def tick(self, now: float) -> list[LobbyEffect]:
        """Free the seats of silent joiners while gathering; while signing, re-send the
        genesis to the seats that have not signed it, and withdraw it from them once
        :data:`~.lobby.SIGN_WITHIN` has passed."""
        if self.phase is Phase.GATHERING:
            return self._woke(now) + self._free_silent(now)
        if self.phase is Phase.SIGNING:
            assert self.signing is not None
            if now >= self.signing.proposed_at + SIGN_WITHIN:
                return self._withdraw(now)
            if now >= self.next_resend:
                self.next_resend = now + GENESIS_EVERY
                return self._send_signing()
        return []

    def start_now(self, now: float) -> list[LobbyEffect]:
        """Gathering, with at least two seats taken: the table shrinks to the seats taken and
        the genesis is proposed at once (protocol.md §4.9 step 4). Nothing otherwise."""
        if self.phase is not Phase.GATHERING or len(self.players) < 2:
            return []
        self.seats_total = len(self.players)
        return self._propose(now)

    def set_seats(self, seats: int, now: float) -> list[LobbyEffect]:
        """Gathering: the table now has ``seats`` seats (2-6, never fewer than are taken);
        every joiner gets the new roster, and a table that is full at the new count proposes
        the genesis. InvalidValue for a count outside that range; nothing when not
        gathering."""
        if self.phase is not Phase.GATHERING:
            return []
        if not max(2, len(self.players)) <= seats <= MAX_SEATS:
            raise InvalidValue(f"{seats} seats: the table has {len(self.players)} taken and "
                               f"seats 2 to {MAX_SEATS}")
        self.seats_total = seats
        out: list[LobbyEffect] = [Log("info", f"table {self.table}: {seats} seats")]
        out.extend(self._send_roster())
        if len(self.players) == seats:
            out.extend(self._propose(now))
        return out

    def receive(
        self, frame: bytes, sender: bytes, address: str | None, now: float
    ) -> list[LobbyEffect]:
        """As :meth:`Lobby.receive`; a hello of an older protocol version is answered with a
        ``refused`` (``version``) in that version (protocol/older.py), never seated."""
        older = older_hello(frame)
        if older is not None:
            return self._refuse_older(older, address)
        return super().receive(frame, sender, address, now)

    def _refuse_older(self, older: OlderHello, address: str | None) -> list[LobbyEffect]:
        host = address if address is not None else older.hello.host
        if host in UNSPECIFIED or older.hello.port == 0:
            return [Log("warning", f"version {older.version} hello from "
                                   f"{fingerprint(older.author)} without a reachable address")]
        return [Log("info", f"refused {fingerprint(older.author)}: it speaks protocol version "
                            f"{older.version}, we speak {PROTOCOL_VERSION}"),
                Connect(older.author, host, older.hello.port),
                SendTo(older.author, refusal_for(older, self.identity, self.table or ""))]

    def remove(self, pub: bytes, now: float) -> list[LobbyEffect]:
        """Our player takes joiner ``pub`` off the table before the game starts: it is sent a
        signed ``refused`` (``removed``), its seat is freed (a genesis being signed is
        withdrawn) and a later hello from it is refused the same. Nothing for a key that
        holds no joiner's seat, or once seated."""
        if (self.phase not in (Phase.GATHERING, Phase.SIGNING)
                or pub not in (p.pub for p in self.players[1:])):
            return []
        self.removed.add(pub)
        out: list[LobbyEffect] = [SendTo(pub, self._refusal(pub, RefusalReason.REMOVED))]
        return out + self._let_go({pub}, "removed by the host", now)

    def close(self) -> list[LobbyEffect]:
        """Our player closes the table before the game starts: every joiner is told (a signed
        ``refused``, ``closed``) rather than left waiting for a host that is gone."""
        if self.phase not in (Phase.GATHERING, Phase.SIGNING):
            return []
        return [Log("info", f"table {self.table} closed before it started"),
                *(SendTo(p.pub, self._refusal(p.pub, RefusalReason.CLOSED))
                  for p in self.players[1:])]

    def _on_leave(self, author: bytes, leave: Leave, now: float) -> list[LobbyEffect]:
        """A joiner gives its seat back (protocol.md §4.9 step 3): freed at once."""
        if leave.table != self.table or leave.game_id != self.game_id:
            return [Log("info", f"a leave for another table from {fingerprint(author)}; "
                                "ignored")]
        if (self.phase not in (Phase.GATHERING, Phase.SIGNING)
                or author not in (p.pub for p in self.players[1:])):
            return []  # not seated here (freed already), or the game runs: its bye says it
        return self._let_go({author}, "left the table", now)

    def _let_go(self, pubs: set[bytes], why: str, now: float) -> list[LobbyEffect]:
        """Free the seats of ``pubs`` now: gathering, and the joiners left get the roster;
        signing, the genesis (which seats them) is withdrawn first."""
        if self.phase is Phase.SIGNING:
            return self._regather(pubs, why, now)
        return self._free(pubs, why) + self._send_roster()

    # ---- receiving ------------------------------------------------------------------------

    def _on_hello(
        self, author: bytes, hello: Hello, address: str | None, now: float
    ) -> list[LobbyEffect]:
        host = address if address is not None else hello.host
        if host in UNSPECIFIED or hello.port == 0:
            return [Log("warning", f"hello from {fingerprint(author)} without a reachable "
                                   "address")]
        out: list[LobbyEffect] = [Connect(author, host, hello.port)]
        seat = next((i for i, p in enumerate(self.players) if p.pub == author), None)
        name = names.clean(hello.name)
        refused = None
        if hello.table and hello.table != self.table:  # "": whatever table is hosted here
            refused = RefusalReason.UNKNOWN_TABLE
        elif author in self.removed:
            refused = RefusalReason.REMOVED
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

    def _on_refusal(
        self, author: bytes, refusal: Refusal, sender: bytes, address: str | None
    ) -> list[LobbyEffect]:
        return [Log("info", "a refusal not meant for us; ignored")]

    def _on_sign(self, frame: bytes, author: bytes, now: float) -> list[LobbyEffect]:
        signing = self.signing
        if signing is None:
            return self._stale_sign(author, now)
        read = self._read_sign(frame, signing)
        if not isinstance(read, GenesisSign):
            return [read]
        if read.digest != signing.digest:
            return self._stale_sign(author, now)
        signing.signatures[signing.body.pubs.index(author)] = frame
        n = len(signing.body.pubs)
        if len(signing.signatures) == n - 1:
            # every joiner signed: the host signs last and hands every joiner the bundle
            genesis = open_envelope(signing.genesis, expect_round=0)
            signing.signatures[0] = sign(self.identity, genesis).to_bytes()
            out = self._seat_table(signing)
            for pub in signing.body.pubs[1:]:
                out.extend(self._answer(pub, now, force=True))
            return out
        if len(signing.signatures) < n:
            return []
        return self._seat_table(signing)

    # ---- seats ----------------------------------------------------------------------------

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

    def _woke(self, now: float) -> list[LobbyEffect]:
        """A tick :data:`~.lobby.PAUSED` after our last one while joiners wait (we tick
        every :data:`~.lobby.STAY_EVERY` then, :meth:`next_deadline`): *we* were stopped,
        and their stays are still on their way to us; every joiner counts as heard now.
        Before, a host whose laptop slept 7 s freed every joiner's seat on waking ("not
        heard for 4 s") and seated them again a second later, as their stays came in."""
        if not self.heard:
            self.last_tick = None
            return []
        last, self.last_tick = self.last_tick, now
        if last is None or now - last <= PAUSED:
            return []
        for pub in self.heard:
            self.heard[pub] = max(self.heard[pub], now)
        return [Log("warning", f"we were stopped {now - last:.1f} s: nobody's seat is freed "
                               "for our own absence")]

    def _free_silent(self, now: float) -> list[LobbyEffect]:
        silent = {pub for pub, at in self.heard.items() if now >= at + SEAT_HOLD}
        if not silent:
            return []
        out = self._free(silent, f"not heard for {SEAT_HOLD:g} s")
        return out + self._send_roster()

    def _welcome(self) -> bytes:
        body = Welcome(
            table=self.table or "",
            game_id=self.game_id,
            names=names.distinct([p.name for p in self.players], [p.pub for p in self.players]),
            keys=tuple(p.pub for p in self.players),
            seats_total=self.seats_total,
            port=self.link_port,
            rules=self.rules.to_dict(),
            turn_timer_ms=self.turn_timer_ms,
        )
        return seal_envelope(self.identity, LOBBY_GAME_ID, 0, 0, body).to_bytes()

    def _refusal(self, to: bytes, reason: RefusalReason) -> bytes:
        body = Refusal(table=self.table or "", to=to, reason=reason.value)
        return seal_envelope(self.identity, LOBBY_GAME_ID, 0, 0, body).to_bytes()

    # ---- the genesis ----------------------------------------------------------------------

    def _propose(self, now: float) -> list[LobbyEffect]:
        assert self.table is not None
        shown = names.distinct([p.name for p in self.players], [p.pub for p in self.players])
        players = [replace(p, name=n) for p, n in zip(self.players, shown, strict=True)]
        proposed = propose(self.identity, self.game_id, self.table, self.rules,
                           self.turn_timer_ms, players, self.grace_ms, self.prev)
        frame = proposed.to_bytes()
        env, body, _ = open_genesis(frame)
        addresses = list(zip(body.hosts, body.ports, strict=True))
        signing = self._hold(frame, env, body, addresses, now)  # the host signs last
        return [Log("info", f"table {self.table} full: genesis proposed"),
                *self._link_seats(signing), *self._send_signing()]

    def _send_signing(self) -> list[LobbyEffect]:
        """The genesis to every seat whose signature the host lacks."""
        signing = self.signing
        assert signing is not None
        return [SendTo(pub, signing.genesis) for seat, pub in enumerate(signing.body.pubs)
                if seat != 0 and seat not in signing.signatures]

    def _withdraw(self, now: float) -> list[LobbyEffect]:
        """Free every seat that has not signed the genesis in time and gather again. The host
        never signed this genesis, so no peer can ever be seated by it."""
        signing = self.signing
        assert signing is not None
        unsigned = {pub for seat, pub in enumerate(signing.body.pubs)
                    if seat != 0 and seat not in signing.signatures}
        return self._regather(unsigned, f"no signature on the genesis {SIGN_WITHIN:g} s after "
                                        "it was proposed", now)

    def _regather(self, freed: set[bytes], why: str, now: float) -> list[LobbyEffect]:
        """Drop the genesis being signed, free the seats of ``freed`` and gather again."""
        out = self._free(freed, why)
        self.signing = None
        self.phase = lobby_move(self.phase, LobbyTrigger.WITHDRAWN)
        for p in self.players[1:]:
            self.heard[p.pub] = now  # the signers were heard; a full hold to say hello again
        out.append(Log("info", f"table {self.table}: genesis withdrawn, "
                               f"{len(self.players)}/{self.seats_total} seats"))
        # The freed get the new seats too: one that is alive (its frames were lost) drops the
        # genesis, says hello again and is seated anew; one that went elsewhere ignores it.
        welcome = self._welcome()
        told = [*(p.pub for p in self.players[1:]), *sorted(freed)]
        return out + [SendTo(pub, welcome) for pub in told]

    def _stale_sign(self, author: bytes, now: float) -> list[LobbyEffect]:
        """A signature on a genesis we withdrew: its signer missed the welcome that said so.
        Send it again (at most every ANSWER_EVERY), so it drops that genesis and says hello."""
        if now < self.answered.get(author, -1.0) + ANSWER_EVERY:
            return []
        self.answered[author] = now
        return [SendTo(author, self._welcome())]

