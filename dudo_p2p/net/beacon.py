"""The discovery beacon: a fixed binary layout, pure encode/decode, no I/O.

A beacon is a hint broadcast on the LAN about once a second, in the manner of ZeroMQ's
ZRE: "peer <id> listens for links on TCP port <port> and is hosting table <code>", with
what the LAN list shows of that table. Nothing in it is trusted; the identity is proved
later by the signed hello over the link, the rules by the genesis.

Layout of version 2 (network byte order, 57 + n bytes, 57..89; protocol.md §5.3 has the
table)::

    0   4  magic            b"DUDO"
    4   1  version          2
    5  32  peer id          Ed25519 public key
    37  2  link port        u16; 0 means "this peer is leaving"
    39  5  table code       5 chars of TABLE_CODE_ALPHABET, or 5 zero bytes when state is NONE
    44  1  table state      0 none, 1 open, 2 full, 3 playing
    45  1  seats taken      u8
    46  1  seats total      u8
    47  1  dice             u8: each player's starting dice; 0 when state is NONE
    48  4  variants         u32: the other rules, packed (protocol/beacon_rules.py); 0 for NONE
    52  4  turn timer       u32 ms, 0..3,600,000 (0: no limit); 0 when state is NONE
    56  1  name length n    0..32
    57  n  name             UTF-8, no control or format characters

Bytes 0..46 (the head) are those of version 1 and stay in every later version, so a beacon
of another version still says which table it is (:class:`OtherVersion`); version 1 then had
the name length at 47 and the name at 48.

Contract: ``encode(beacon) -> bytes`` never fails for a constructed ``Beacon`` (the
constructor refuses bad values with ``InvalidValue``); ``decode(data) -> Beacon`` returns a
valid ``Beacon`` or raises ``DecodeError`` naming what is wrong, for any input bytes
(:class:`OtherVersion`, a subclass, for a well-formed head of another version). The
meaning of ``dice`` and ``variants`` (a rule set) is checked above this layer
(protocol/beacon_rules.py), which this one may not import.
"""

from __future__ import annotations

import enum
import random
import struct
import unicodedata
from dataclasses import dataclass

from dudo_p2p.errors import DecodeError, InvalidValue

MAGIC = b"DUDO"
VERSION = 2  # the wire's version (protocol.md §2.5 "Versions"): 1 was the old wire
PEER_ID_SIZE = 32
TABLE_CODE_SIZE = 5
MAX_NAME_BYTES = 32
MAX_TURN_TIMER_MS = 3_600_000  # the genesis's bound (protocol.md §4.10)
# Uppercase letters and digits without the look-alikes I/1, O/0 and L, so a code read aloud
# across the room or typed from a screen cannot be mistaken.
TABLE_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
NO_TABLE_CODE = b"\x00" * TABLE_CODE_SIZE

_NOT_IN_NAMES = frozenset({"Cc", "Cf"})
_HEAD = struct.Struct("!4sB32sH5sBBB")  # every version's (47 bytes)
_TAIL = struct.Struct("!BIIB")  # version 2's: dice, variants, turn timer, name length
HEAD_SIZE = _HEAD.size  # 47
HEADER_SIZE = HEAD_SIZE + _TAIL.size  # 57
MAX_BEACON_SIZE = HEADER_SIZE + MAX_NAME_BYTES  # 89
_V1_HEADER_SIZE = HEAD_SIZE + 1  # version 1: the name length, then the name


class TableState(enum.IntEnum):
    """What the beaconing peer's table is doing (one byte on the wire)."""

    NONE = 0  # not hosting a table
    OPEN = 1  # hosting, seats free
    FULL = 2  # hosting, every seat taken, not started
    PLAYING = 3  # game in progress


@dataclass(frozen=True, slots=True)
class Beacon:
    """One decoded beacon. Construction validates every field and raises ``InvalidValue``.

    ``table_code`` is ``""`` exactly when ``state`` is ``TableState.NONE``. Seats must satisfy
    ``seats_taken <= seats_total``; NONE has both 0, OPEN has a free seat, FULL has none free.
    ``port == 0`` marks a leaving beacon (``is_leaving``). A table has ``dice`` 1..255 (each
    player's starting dice), ``variants`` (any u32: its meaning is checked by
    protocol/beacon_rules.py) and ``turn_timer_ms`` 0..3,600,000 (0: no limit); a peer
    without a table has all three 0.
    """

    peer_id: bytes
    port: int
    table_code: str = ""
    state: TableState = TableState.NONE
    seats_taken: int = 0
    seats_total: int = 0
    name: str = ""
    dice: int = 0
    variants: int = 0
    turn_timer_ms: int = 0

    def __post_init__(self) -> None:
        problem = _problem(self)
        if problem is not None:
            raise InvalidValue(f"bad beacon: {problem}")

    @property
    def is_leaving(self) -> bool:
        """True for the "goodbye" beacon a peer sends when it closes (port 0, as in ZRE)."""
        return self.port == 0

    def leaving(self) -> Beacon:
        """The same beacon with port 0, announcing that this peer leaves."""
        return Beacon(
            self.peer_id, 0, self.table_code, self.state, self.seats_taken, self.seats_total,
            self.name, self.dice, self.variants, self.turn_timer_ms,
        )


@dataclass(frozen=True, slots=True)
class OtherTable:
    """What a beacon of another version says in the head every version keeps: a table the
    LAN list can name (greyed: "another version") but never joins. ``name`` is known for
    version 1 only (its layout is known), else ``""``."""

    version: int
    peer_id: bytes
    port: int
    table_code: str
    state: TableState
    seats_taken: int
    seats_total: int
    name: str = ""


class OtherVersion(DecodeError):
    """A beacon of another protocol version: never a :class:`Beacon` (its peer cannot sit at
    our tables, nor we at its). ``table`` is its head when that is well formed, else None."""

    def __init__(self, version: int, table: OtherTable | None) -> None:
        super().__init__(f"beacon of protocol version {version}, we speak {VERSION}")
        self.version = version
        self.table = table


def _int_in(value: object, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _head_problem(code: object, state: object, taken: object, total: object) -> str | None:
    """Why the table part of a head (any version's) is not valid, or None."""
    if not isinstance(state, TableState):
        return "unknown table state"
    for field, value in (("seats taken", taken), ("seats total", total)):
        if not _int_in(value, 0, 0xFF):
            return f"{field} must be 0..255"
    assert isinstance(taken, int) and isinstance(total, int)
    if taken > total:
        return "more seats taken than seats at the table"
    if state is TableState.NONE:
        if code != "":
            return "a peer with no table has no table code"
        if total != 0:
            return "a peer with no table has no seats"
    else:
        if not isinstance(code, str) or not is_table_code(code):
            return f"table code must be {TABLE_CODE_SIZE} chars of {TABLE_CODE_ALPHABET}"
        if total == 0:
            return "a table has at least one seat"
        if state is TableState.OPEN and taken == total:
            return "an open table has a free seat"
        if state is TableState.FULL and taken != total:
            return "a full table has no free seat"
    return None


def _problem(b: Beacon) -> str | None:
    """Why ``b`` is not a valid beacon, or None. Shared by the constructor and ``decode``."""
    if not isinstance(b.peer_id, bytes) or len(b.peer_id) != PEER_ID_SIZE:
        return f"peer id must be {PEER_ID_SIZE} bytes"
    if not _int_in(b.port, 0, 0xFFFF):
        return "port must be 0..65535"
    problem = _head_problem(b.table_code, b.state, b.seats_taken, b.seats_total)
    if problem is not None:
        return problem
    problem = _table_problem(b)
    return problem if problem is not None else _name_problem(b.name)


def _table_problem(b: Beacon) -> str | None:
    if not _int_in(b.dice, 0, 0xFF):
        return "dice must be 0..255"
    if not _int_in(b.variants, 0, 0xFFFFFFFF):
        return "variants must be a u32"
    if not _int_in(b.turn_timer_ms, 0, MAX_TURN_TIMER_MS):
        return f"turn timer must be 0..{MAX_TURN_TIMER_MS} ms"
    if b.state is TableState.NONE:
        if b.dice or b.variants or b.turn_timer_ms:
            return "a peer with no table has no dice, variants or timer"
    elif b.dice == 0:
        return "a table's players have at least one die"
    return None


def _name_problem(name: object) -> str | None:
    if not isinstance(name, str):
        return "name must be text"
    try:
        encoded_name = name.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates
        return "name is not encodable as UTF-8"
    if len(encoded_name) > MAX_NAME_BYTES:
        return f"name longer than {MAX_NAME_BYTES} bytes of UTF-8"
    # Control and format (bidi overrides, zero-width) characters would let a name rewrite a
    # terminal line or the lobby list (protocol/names.py cleans names; this layer may not
    # import it). Printers escape the rest (line separators among them).
    if any(unicodedata.category(ch) in _NOT_IN_NAMES for ch in name):
        return "name contains control or format characters"
    return None


def is_table_code(text: str) -> bool:
    """True when ``text`` is exactly five characters of ``TABLE_CODE_ALPHABET``."""
    return len(text) == TABLE_CODE_SIZE and all(ch in TABLE_CODE_ALPHABET for ch in text)


def new_table_code(rng: random.Random) -> str:
    """A fresh table code drawn from ``rng`` (31**5, about 28.6 million codes)."""
    return "".join(rng.choice(TABLE_CODE_ALPHABET) for _ in range(TABLE_CODE_SIZE))


def encode(beacon: Beacon) -> bytes:
    """The wire bytes of ``beacon`` (57..89 bytes)."""
    name = beacon.name.encode("utf-8")
    code = beacon.table_code.encode("ascii") if beacon.table_code else NO_TABLE_CODE
    head = _HEAD.pack(MAGIC, VERSION, beacon.peer_id, beacon.port, code, int(beacon.state),
                      beacon.seats_taken, beacon.seats_total)
    return head + _TAIL.pack(beacon.dice, beacon.variants, beacon.turn_timer_ms,
                             len(name)) + name


def decode(data: bytes) -> Beacon:
    """Parse one datagram. Raises ``DecodeError`` (saying why) for anything but a valid
    beacon of our version; :class:`OtherVersion` for a beacon of another version.

    The length must be exact: trailing bytes are refused rather than ignored, so one beacon has
    one encoding.
    """
    if len(data) < HEAD_SIZE:
        raise DecodeError(f"beacon too short: {len(data)} bytes")
    magic, version, peer_id, port, code, state, taken, total = _HEAD.unpack_from(data)
    if magic != MAGIC:
        raise DecodeError("not a dudo beacon (bad magic)")
    if version != VERSION:
        raise OtherVersion(version, _other(data, version))
    if len(data) < HEADER_SIZE:
        raise DecodeError(f"beacon too short: {len(data)} bytes")
    dice, variants, timer, name_len = _TAIL.unpack_from(data, HEAD_SIZE)
    table_state, table_code = _table(code, state)
    name = _name(data, HEADER_SIZE, name_len)
    try:
        return Beacon(peer_id, port, table_code, table_state, taken, total, name, dice,
                      variants, timer)
    except InvalidValue as exc:
        raise DecodeError(str(exc)) from None


def _table(code: bytes, state: int) -> tuple[TableState, str]:
    try:
        table_state = TableState(state)
    except ValueError:
        raise DecodeError(f"unknown table state {state}") from None
    if table_state is TableState.NONE:
        if code != NO_TABLE_CODE:
            raise DecodeError("table code present on a peer with no table")
        return table_state, ""
    try:
        return table_state, code.decode("ascii")
    except UnicodeDecodeError:
        raise DecodeError("table code is not ASCII") from None


def _name(data: bytes, at: int, length: int) -> str:
    if length > MAX_NAME_BYTES:
        raise DecodeError(f"name length {length} over {MAX_NAME_BYTES}")
    if len(data) != at + length:
        raise DecodeError(f"beacon is {len(data)} bytes, layout says {at + length}")
    try:
        return data[at:].decode("utf-8")
    except UnicodeDecodeError:
        raise DecodeError("name is not valid UTF-8") from None


def _other(data: bytes, version: int) -> OtherTable | None:
    """The head of a beacon of another ``version`` (and, for version 1, its name), or None
    when it is not well formed."""
    _, _, peer_id, port, code, state, taken, total = _HEAD.unpack_from(data)
    try:
        table_state, table_code = _table(code, state)
        name = ""
        if version == 1:
            if len(data) < _V1_HEADER_SIZE:
                return None
            name = _name(data, _V1_HEADER_SIZE, data[HEAD_SIZE])
    except DecodeError:
        return None
    if _head_problem(table_code, table_state, taken, total) or _name_problem(name):
        return None
    return OtherTable(version, peer_id, port, table_code, table_state, taken, total, name)
