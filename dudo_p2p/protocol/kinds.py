"""The message kinds of dudo-p2p, wire version 2 (protocol.md §2.5): one dataclass per kind.

Every message travels inside a signed :mod:`~dudo_p2p.protocol.envelope` that binds it to the
game id, the epoch (``round_no``), a sequence number and its author. protocol.md §4 lists each
kind with its fields and who may send it when; this module is the source of truth for the
field names and types. Every field carries its constraint (exact sizes of hashes and
keys, maximum lengths), so a message with a 31-byte hash is refused while decoding and
never reaches state.

Kinds in the table log (signed by their author, chained by ``prev``):
``genesis``, ``genesis-sign``, ``act``, ``commit``, ``nonce``, ``reveal``, ``key-share``,
``result-sign``.
Kinds that travel but are not log entries: ``hello``, ``welcome``, ``refused``, ``leave``,
``watch``, ``ack``, ``vote``, ``proof``, ``bad-deal``, ``heartbeat``, ``sync-request``,
``sync-reply``, ``away``, ``bye``, ``talk``, ``again``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from dudo_p2p.protocol.messages import MaxLen, Message, Range, Size, message

HASH_LEN = 32
KEY_LEN = 32
SECRET_LEN = 32
GAME_ID_LEN = 16
MAX_SEATS = 6
# A sync reply is cut in chunks so that one frame stays under the 64 KiB limit.
SYNC_CHUNK = 40
MAX_PHRASE = 63  # table talk: phrase indices 0..63 (a UI shows the ones it knows)

Hash = Annotated[bytes, Size(HASH_LEN)]
Key = Annotated[bytes, Size(KEY_LEN)]
Secret = Annotated[bytes, Size(SECRET_LEN)]
Name = Annotated[str, MaxLen(32)]
Word = Annotated[str, MaxLen(16)]
Port = Annotated[int, Range(0, 65535)]


# ---- lobby (before the game has a log) -------------------------------------------------------


@message("hello")
@dataclass(frozen=True)
class Hello(Message):
    """A peer asks to sit at ``table``; ``host``/``port`` is where its link can be reached."""

    table: Word
    name: Name
    x25519: Key
    host: Annotated[str, MaxLen(64)]
    port: Port


@message("welcome")
@dataclass(frozen=True)
class Welcome(Message):
    """The host's answer to a hello: the seats so far (names and keys, seat 0 the host's),
    and its link port (signed: a beacon is only a hint, and a copied one may name another
    port). Sent again to every joiner when the seats change (the roster); one that reaches a
    joiner holding a genesis withdraws that genesis."""

    table: Word
    game_id: Annotated[bytes, Size(GAME_ID_LEN)]
    names: Annotated[tuple[Name, ...], MaxLen(MAX_SEATS)]
    keys: Annotated[tuple[Key, ...], MaxLen(MAX_SEATS)]  # seat i's key, beside names[i]
    seats_total: Annotated[int, Range(2, MAX_SEATS)]
    port: Port
    # the table the genesis will propose, for the waiting room to show (a joiner checks
    # the genesis itself): its rule set (RuleSet.to_dict) and turn timer (0: none)
    rules: dict[str, int | bool | str] = field(default_factory=dict)
    turn_timer_ms: Annotated[int, Range(0, 3_600_000)] = 0


@message("refused")
@dataclass(frozen=True)
class Refusal(Message):
    """The host's "no" to the hello of ``to`` (that joiner's key: a refusal cannot be replayed
    to another joiner) at table ``table`` (the host's code, "" when it hosts none);
    ``reason`` is a :class:`~dudo_p2p.protocol.refusals.RefusalReason` wire string."""

    table: Word
    to: Key
    reason: Word


@message("leave")
@dataclass(frozen=True)
class Leave(Message):
    """A welcomed joiner gives its seat back before the game starts (its player cancelled):
    the host frees it at once instead of after the seat hold. ``game_id`` is the one of the
    host's welcome, so a leave from one gathering frees nothing at another."""

    table: Word
    game_id: Annotated[bytes, Size(GAME_ID_LEN)]


@message("watch")
@dataclass(frozen=True)
class Watch(Message):
    """A spectator (a key that holds no seat) asks a seated peer to watch ``table`` (its code,
    or "" for whatever table it plays); ``host``/``port`` is where the spectator's link can
    be reached (``host`` "" when it binds every interface: the frame's address is used)."""

    table: Word
    host: Annotated[str, MaxLen(64)]
    port: Port


@message("genesis")
@dataclass(frozen=True)
class Genesis(Message):
    """The host's proposal of the game: seating order, rule set, turn timer, addresses, and
    the reconnect grace (a silent seat is waited for ``grace_ms`` before it is voted out).

    Seat i is ``pubs[i]`` (Ed25519), ``x25519s[i]``, ``names[i]``, reachable at
    ``hosts[i]:ports[i]``. The game starts when every seat has signed it (``genesis-sign``).
    """

    table: Word
    rules: dict[str, int | bool | str]
    turn_timer_ms: Annotated[int, Range(0, 3_600_000)]
    pubs: Annotated[tuple[Key, ...], MaxLen(MAX_SEATS)]
    x25519s: Annotated[tuple[Key, ...], MaxLen(MAX_SEATS)]
    names: Annotated[tuple[Name, ...], MaxLen(MAX_SEATS)]
    hosts: Annotated[tuple[Annotated[str, MaxLen(64)], ...], MaxLen(MAX_SEATS)]
    ports: Annotated[tuple[Port, ...], MaxLen(MAX_SEATS)]
    # the reconnect grace (protocol.md §4.6): how long a silent seat is waited for
    grace_ms: Annotated[int, Range(0, 600_000)] = 0
    # one more game (protocol.md §4.9 "One more game"): the final log hash of the game this
    # one follows at the same table, b"" for the first game of an evening
    prev: Annotated[bytes, MaxLen(HASH_LEN)] = b""


@message("genesis-sign")
@dataclass(frozen=True)
class GenesisSign(Message):
    """A seat's signature on the genesis: ``digest`` is the genesis envelope's digest."""

    digest: Hash


# ---- log entries of an epoch -----------------------------------------------------------------


@message("act")
@dataclass(frozen=True)
class Act(Message):
    """A player action on top of the log head ``prev``.

    ``kind`` is one of raise, dudo, calzo, matar, pasar, picado, doubt-claim, direction,
    palifico; ``count``/``face`` carry a bid (0 when unused); ``option`` carries the choice
    of direction ("cw"/"ccw") or palifico mode.
    """

    prev: Hash
    kind: Word
    count: Annotated[int, Range(0, 99)]
    face: Annotated[int, Range(0, 6)]
    option: Word


@message("commit")
@dataclass(frozen=True)
class Commit(Message):
    """Commitments of one seat for the epoch, made before the round seed exists.

    ``key_c`` commits to the dice key, ``nonce_c`` to the public nonce. In an open palifico
    round ``share_cs[j]`` commits to the share this seat deals for seat j's dice key and
    ``sealed[j]`` carries it sealed to every other seat but j, concatenated in seat order
    (empty bytes for itself and for seats out of the game; both tuples empty otherwise).
    ``prev`` is the epoch's anchor.
    """

    prev: Hash
    key_c: Hash
    nonce_c: Hash
    share_cs: Annotated[tuple[Annotated[bytes, MaxLen(HASH_LEN)], ...], MaxLen(MAX_SEATS)]
    sealed: Annotated[tuple[Annotated[bytes, MaxLen(60 * MAX_SEATS)], ...], MaxLen(MAX_SEATS)]
    # a normal round of three or more seats deals the dice key (§3.7): the Feldman
    # commitments of the polynomial, and each other live seat's share sealed to it alone,
    # 60 bytes each in ascending seat order (both empty in any other round)
    vss_cs: Annotated[tuple[Annotated[bytes, Size(HASH_LEN)], ...], MaxLen(MAX_SEATS)] = ()
    vss_boxes: Annotated[bytes, MaxLen(60 * MAX_SEATS)] = b""


@message("nonce")
@dataclass(frozen=True)
class Nonce(Message):
    """The opening of ``nonce_c``, sent once every commitment is in; ``prev`` is the digest of
    the complete commitment set."""

    prev: Hash
    nonce: Secret


@message("reveal")
@dataclass(frozen=True)
class Reveal(Message):
    """The opening of the dice key and of the dealt shares (open palifico), after the call."""

    prev: Hash
    key: Secret
    shares: Annotated[tuple[Annotated[bytes, MaxLen(SECRET_LEN)], ...], MaxLen(MAX_SEATS)]


@message("key-share")
@dataclass(frozen=True)
class KeyShare(Message):
    """After seats ``seats`` (ascending) were removed after the call with their dice
    withheld (§3.7): the author's share of each one's dice key (``shares[i]`` of
    ``seats[i]``), opened from the box that seat dealt it at COMMIT; ``prev`` is the head
    after the other seats' reveals and the removal items."""

    prev: Hash
    seats: Annotated[tuple[Annotated[int, Range(0, MAX_SEATS - 1)], ...], MaxLen(MAX_SEATS)]
    shares: Annotated[tuple[Secret, ...], MaxLen(MAX_SEATS)]


@message("result-sign")
@dataclass(frozen=True)
class ResultSign(Message):
    """A seat's signature on the epoch's outcome: ``prev`` is the head after every reveal."""

    prev: Hash


# ---- transient messages ----------------------------------------------------------------------


@message("ack")
@dataclass(frozen=True)
class Ack(Message):
    """"I accepted this entry": ``entry`` is the whole signed envelope, relayed to everyone."""

    entry: Annotated[bytes, MaxLen(8192)]


@message("vote")
@dataclass(frozen=True)
class Vote(Message):
    """A signed vote to remove ``target`` (a seat's public key) in this epoch, with a reason
    (timeout, equivocation, bad-reveal, withheld)."""

    target: Key
    reason: Word


@message("proof")
@dataclass(frozen=True)
class Proof(Message):
    """Two envelopes signed by one author for one slot: equivocation, checkable by anyone."""

    first: Annotated[bytes, MaxLen(8192)]
    second: Annotated[bytes, MaxLen(8192)]


@message("bad-deal")
@dataclass(frozen=True)
class BadDeal(Message):
    """The author's key share from a dealer does not check (§3.7): the dealer's signed
    ``commit`` and the proof of the pair's X25519 value (128 bytes), with which anyone
    opens the box and checks the share against the dealer's commitments."""

    commit: Annotated[bytes, MaxLen(8192)]
    proof: Annotated[bytes, Size(128)]


MAX_LINK_NONCE = 16


@message("heartbeat")
@dataclass(frozen=True)
class Heartbeat(Message):
    """I am alive; my log has ``length`` entries ending in ``head``. Sent to one seat: ``to``
    is its key, ``link`` the nonce of our link to it (the tail of the routing id it receives
    this on), ``counter`` our heartbeat count, strictly increasing for a link: the receiver's
    proof that this connection is ours and the frame fresh (protocol.md §5.1)."""

    head: Hash
    length: Annotated[int, Range(0, 1_000_000)]
    counter: Annotated[int, Range(1, 2**53)]
    to: Key
    link: Annotated[bytes, MaxLen(MAX_LINK_NONCE)]


@message("sync-request")
@dataclass(frozen=True)
class SyncRequest(Message):
    """Send me the log from entry ``have`` on (and the open epoch's entries)."""

    have: Annotated[int, Range(0, 1_000_000)]


@message("sync-reply")
@dataclass(frozen=True)
class SyncReply(Message):
    """A chunk of a peer's log from index ``start``; ``more`` when another chunk follows."""

    start: Annotated[int, Range(0, 1_000_000)]
    entries: Annotated[tuple[Annotated[bytes, MaxLen(8192)], ...], MaxLen(SYNC_CHUNK)]
    more: bool


@message("away")
@dataclass(frozen=True)
class Away(Message):
    """A seat tells the spectators it serves whom it shows disconnected (protocol.md §4.9
    "Watching"): ``seats`` in ascending order, beside each in ``left_ms`` the milliseconds
    of its reconnect grace left when sent; empty when every seat is connected again. Not a
    log entry (the sender's own view, from its clock and links): envelope ``round_no`` =
    the epoch, ``seq`` = the sender's away counter (higher than its last, so a replay is
    refused)."""

    seats: Annotated[tuple[Annotated[int, Range(0, MAX_SEATS - 1)], ...], MaxLen(MAX_SEATS)]
    left_ms: Annotated[tuple[Annotated[int, Range(0, 2**31 - 1)], ...], MaxLen(MAX_SEATS)]


@message("talk")
@dataclass(frozen=True)
class Talk(Message):
    """Table talk: one of the UI's quick phrases, by index (never free text). Not a log
    entry: envelope ``round_no`` = the epoch (±1 taken), ``seq`` = the author's talk counter
    (higher than its last, so a replay is refused); at most one a second per author is shown
    (protocol.md §4, §6)."""

    phrase: Annotated[int, Range(0, MAX_PHRASE)]


@message("bye")
@dataclass(frozen=True)
class Bye(Message):
    """I am leaving the table for good (a forfeit of my seat)."""

    reason: Word


@message("again")
@dataclass(frozen=True)
class Again(Message):
    """After a finished game, one more with the same table (protocol.md §4.9 "One more game").
    ``prev`` is the game's final log hash (envelope game id = that game's). ``want``: this
    seat plays again (False: it declines, for good); ``host``: it would open the new table
    when its turn comes (a bot says False: it only follows). The seat that opens it names
    the new table's ``table`` code and link ``port`` ("" and 0 otherwise)."""

    prev: Hash
    want: bool
    host: bool
    table: Word
    port: Port
