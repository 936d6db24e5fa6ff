"""The discovery beacon: a fixed binary layout, pure encode/decode, no I/O.

A beacon is a hint broadcast on the LAN about once a second, in the manner of ZeroMQ's
ZRE: "peer <id> listens for links on TCP port <port> and is hosting table <code>". Nothing
in it is trusted; the identity is proved later by the signed hello over the link.

Layout (network byte order, 48 + n bytes, 48..80; protocol.md section 5 has the table)::

    0   4  magic            b"DUDO"
    4   1  version          2
    5  32  peer id          Ed25519 public key
    37  2  link port        u16; 0 means "this peer is leaving"
    39  5  table code       5 chars of TABLE_CODE_ALPHABET, or 5 zero bytes when state is NONE
    44  1  table state      0 none, 1 open, 2 full, 3 playing
    45  1  seats taken      u8
    46  1  seats total      u8
    47  1  name length n    0..32
    48  n  name             UTF-8, no control or format characters

Contract: ``encode(beacon) -> bytes`` never fails for a constructed ``Beacon`` (the
constructor refuses bad values with ``InvalidValue``); ``decode(data) -> Beacon`` returns a
valid ``Beacon`` or raises ``DecodeError`` naming what is wrong, for any input bytes.
"""

from __future__ import annotations

import enum
import random
import struct
import unicodedata
from dataclasses import dataclass

from dudo_p2p.errors import DecodeError, InvalidValue

MAGIC = b"DUDO"
VERSION = 2  # the protocol version of the table (protocol.md §5.3); 1: the old wire
PEER_ID_SIZE = 32
TABLE_CODE_SIZE = 5
MAX_NAME_BYTES = 32
# Uppercase letters and digits without the look-alikes I/1, O/0 and L, so a code read aloud
# across the room or typed from a screen cannot be mistaken.
TABLE_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
NO_TABLE_CODE = b"\x00" * TABLE_CODE_SIZE

_NOT_IN_NAMES = frozenset({"Cc", "Cf"})
_HEADER = struct.Struct("!4sB32sH5sBBBB")
HEADER_SIZE = _HEADER.size  # 48
MAX_BEACON_SIZE = HEADER_SIZE + MAX_NAME_BYTES  # 80


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
    ``port == 0`` marks a leaving beacon (``is_leaving``).
    """

    peer_id: bytes
    port: int
    table_code: str = ""
    state: TableState = TableState.NONE
    seats_taken: int = 0
    seats_total: int = 0
    name: str = ""

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
            self.name,
        )


def _problem(b: Beacon) -> str | None:
    """Why ``b`` is not a valid beacon, or None. Shared by the constructor and ``decode``."""
    if not isinstance(b.peer_id, bytes) or len(b.peer_id) != PEER_ID_SIZE:
        return f"peer id must be {PEER_ID_SIZE} bytes"
    if not isinstance(b.port, int) or not 0 <= b.port <= 0xFFFF:
        return "port must be 0..65535"
    if not isinstance(b.state, TableState):
        return "unknown table state"
    for field, value in (("seats taken", b.seats_taken), ("seats total", b.seats_total)):
        if not isinstance(value, int) or not 0 <= value <= 0xFF:
            return f"{field} must be 0..255"
    if b.seats_taken > b.seats_total:
        return "more seats taken than seats at the table"
    if b.state is TableState.NONE:
        if b.table_code != "":
            return "a peer with no table has no table code"
        if b.seats_total != 0:
            return "a peer with no table has no seats"
    else:
        if not is_table_code(b.table_code):
            return f"table code must be {TABLE_CODE_SIZE} chars of {TABLE_CODE_ALPHABET}"
        if b.seats_total == 0:
            return "a table has at least one seat"
        if b.state is TableState.OPEN and b.seats_taken == b.seats_total:
            return "an open table has a free seat"
        if b.state is TableState.FULL and b.seats_taken != b.seats_total:
            return "a full table has no free seat"
    if not isinstance(b.name, str):
        return "name must be text"
    try:
        encoded_name = b.name.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates
        return "name is not encodable as UTF-8"
    if len(encoded_name) > MAX_NAME_BYTES:
        return f"name longer than {MAX_NAME_BYTES} bytes of UTF-8"
    # Control and format (bidi overrides, zero-width) characters would let a name rewrite a
    # terminal line or the lobby list (protocol/names.py cleans names; this layer may not
    # import it). Printers escape the rest (line separators among them).
    if any(unicodedata.category(ch) in _NOT_IN_NAMES for ch in b.name):
        return "name contains control or format characters"
    return None


def is_table_code(text: str) -> bool:
    """True when ``text`` is exactly five characters of ``TABLE_CODE_ALPHABET``."""
    return len(text) == TABLE_CODE_SIZE and all(ch in TABLE_CODE_ALPHABET for ch in text)


def new_table_code(rng: random.Random) -> str:
    """A fresh table code drawn from ``rng`` (31**5, about 28.6 million codes)."""
    return "".join(rng.choice(TABLE_CODE_ALPHABET) for _ in range(TABLE_CODE_SIZE))


def encode(beacon: Beacon) -> bytes:
    """The wire bytes of ``beacon`` (48..80 bytes)."""
    name = beacon.name.encode("utf-8")
    code = beacon.table_code.encode("ascii") if beacon.table_code else NO_TABLE_CODE
    return _HEADER.pack(
        MAGIC, VERSION, beacon.peer_id, beacon.port, code, int(beacon.state),
        beacon.seats_taken, beacon.seats_total, len(name),
    ) + name


def decode(data: bytes) -> Beacon:
    """Parse one datagram. Raises ``DecodeError`` (saying why) for anything but a valid beacon.

    The length must be exact: trailing bytes are refused rather than ignored, so one beacon has
    one encoding.
    """
    if len(data) < HEADER_SIZE:
        raise DecodeError(f"beacon too short: {len(data)} bytes")
    magic, version, peer_id, port, code, state, taken, total, name_len = _HEADER.unpack_from(data)
    if magic != MAGIC:
        raise DecodeError("not a dudo beacon (bad magic)")
    if version != VERSION:
        raise DecodeError(f"unsupported beacon version {version}")
    if name_len > MAX_NAME_BYTES:
        raise DecodeError(f"name length {name_len} over {MAX_NAME_BYTES}")
    if len(data) != HEADER_SIZE + name_len:
        raise DecodeError(f"beacon is {len(data)} bytes, layout says {HEADER_SIZE + name_len}")
    try:
        table_state = TableState(state)
    except ValueError:
        raise DecodeError(f"unknown table state {state}") from None
    if table_state is TableState.NONE:
        if code != NO_TABLE_CODE:
            raise DecodeError("table code present on a peer with no table")
        table_code = ""
    else:
        try:
            table_code = code.decode("ascii")
        except UnicodeDecodeError:
            raise DecodeError("table code is not ASCII") from None
    try:
        name = data[HEADER_SIZE:].decode("utf-8")
    except UnicodeDecodeError:
        raise DecodeError("name is not valid UTF-8") from None
    try:
        return Beacon(peer_id, port, table_code, table_state, taken, total, name)
    except InvalidValue as exc:
        raise DecodeError(str(exc)) from None
