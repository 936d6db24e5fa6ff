"""The node's journal: an append-only file of length-prefixed records, fsynced in batches.

Layout: each record is a 4-byte big-endian length followed by that many bytes. The first
record is the seating (:func:`seating_record`: the genesis, every seat's signature and the
seats' link addresses); every later record is one ``Persist`` record of the table machine,
byte for byte, in the order the machine emitted them.

A crash can leave the last record torn (its header or its bytes cut short): :func:`read`
ignores it, and :meth:`Journal.open` cuts the file back to the last whole record before
appending, so a resumed game never writes after garbage. Durability is the caller's rule:
``append`` only buffers; ``sync`` flushes and fsyncs (the node calls it once per batch of
effects that holds a ``Persist``, before any of that batch's sends).
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

from dudo_p2p.consensus.genesis import seating_from
from dudo_p2p.consensus.lobby import Seated
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.errors import DecodeError, InvalidValue, ProtocolError
from dudo_p2p.protocol.codec import decode, encode

_LENGTH = struct.Struct("!I")
MAX_RECORD = 1 << 20  # larger than any machine record; a bigger length means a torn file


def read(path: Path | str) -> list[bytes]:
    """Every whole record of the journal at ``path`` (a torn last record is left out)."""
    return _scan(Path(path).read_bytes())[0]


def _scan(data: bytes) -> tuple[list[bytes], int]:
    """The whole records in ``data`` and the offset where they end."""
    records: list[bytes] = []
    offset = 0
    while offset + _LENGTH.size <= len(data):
        (length,) = _LENGTH.unpack_from(data, offset)
        end = offset + _LENGTH.size + length
        if length > MAX_RECORD or end > len(data):
            break
        records.append(data[offset + _LENGTH.size : end])
        offset = end
    return records, offset


class Journal:
    """An open journal file. ``append`` buffers a record; ``sync`` makes it durable."""

    def __init__(self, path: Path | str, *, truncate: bool = False) -> None:
        """Open ``path`` for appending, creating it (mode 0600); a torn tail is cut off first.
        ``truncate`` starts an empty journal instead."""
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        self._file = os.fdopen(fd, "r+b")
        if truncate:
            self._file.truncate(0)
        else:
            _, end = _scan(self._file.read())
            self._file.truncate(end)
        self._file.seek(0, os.SEEK_END)
        self.dirty = False
        self.syncs = 0

    def append(self, record: bytes) -> None:
        """Buffer one record (durable only after the next ``sync``)."""
        self._file.write(_LENGTH.pack(len(record)) + record)
        self.dirty = True

    def flush(self) -> None:
        """Hand what was appended to the OS (it survives our crash, not a power cut); the
        next ``sync`` still makes it durable."""
        self._file.flush()

    def sync(self) -> None:
        """Flush and fsync what was appended since the last sync (nothing to do if nothing)."""
        if not self.dirty:
            return
        self._file.flush()
        os.fsync(self._file.fileno())
        self.dirty = False
        self.syncs += 1

    def close(self) -> None:
        self.sync()
        self._file.close()


class GameJournal:
    """Where a node journals its game: the file ``path`` it was given (``--journal``, opened
    at once, emptied unless ``truncate`` is False for a resume), or else, once seated, a file
    the game names itself in ``directory`` (§4.7: :attr:`auto`, removed when the game ends or
    we leave it, kept after a crash for ``--resume``); neither: the game is not journalled."""

    def __init__(self, path: Path | None, directory: Path | None, *, truncate: bool) -> None:
        self.file = Journal(path, truncate=truncate) if path is not None else None
        self.directory = directory if path is None else None
        self.auto: Path | None = None  # ours to delete once the game is over

    def begin(self, seated: Seated, identity: Identity) -> None:
        """The game is seated: open the file it names itself if we have none, and make its
        first record (:func:`seating_record`) durable."""
        if self.file is None and self.directory is not None:
            self.auto = self.directory / journal_name(seated, identity)
            self.file = Journal(self.auto, truncate=True)
        if self.file is not None:
            self.file.append(seating_record(seated))
            self.file.sync()

    def persist(self, records: list[bytes], *, durable: bool) -> None:
        """Append ``records``; fsync once when one is ``durable``, else only flush (others'
        entries: a restart can fetch them again)."""
        if self.file is None:
            return
        for record in records:
            self.file.append(record)
        if durable:
            self.file.sync()  # what the sends after it depend on is on the disk
        else:
            self.file.flush()

    def close(self, *, finished: bool) -> None:
        """Close the file; a self-named one goes when the game is ``finished`` for us."""
        if self.file is not None:
            self.file.close()
            if self.auto is not None and finished:
                self.auto.unlink(missing_ok=True)  # nothing left to resume


def seating_record(seated: Seated) -> bytes:
    """The journal's first record: what a restarted peer needs to rebuild its seating."""
    return encode(
        [
            "genesis",
            seated.genesis,
            list(seated.signatures),
            [[host, port] for host, port in seated.addresses],
        ]
    )


def parse_seating(record: bytes) -> Seated:
    """The :class:`Seated` of a journal's first record; RemoteProtocolError when it is not
    one or the genesis and signatures do not check (the journal is not trusted blindly)."""
    value = decode(record, max_size=MAX_RECORD)
    match value:
        case ["genesis", bytes() as genesis, list() as sigs, list() as addresses]:
            pass
        case _:
            raise DecodeError("the journal does not start with a genesis record")
    signatures = tuple(s for s in sigs if isinstance(s, bytes))
    pairs: list[tuple[str, int]] = []
    for item in addresses:
        match item:
            case [str() as host, int() as port]:
                pairs.append((host, port))
            case _:
                raise DecodeError("bad address in the journal's genesis record")
    seating = seating_from(genesis, signatures)
    if len(pairs) != seating.n:
        raise DecodeError("the journal's addresses do not match the seats")
    return Seated(seating, genesis, signatures, tuple(pairs))


def resumable(path: Path, identity: Identity) -> tuple[Seated, list[bytes]]:
    """The game journalled at ``path`` for ``identity``: its seating and the machine's
    records after it. InvalidValue when the journal holds no game, or none of ours."""
    records = read(path)
    if not records:
        raise InvalidValue(f"{path}: the journal holds no game to resume")
    seated = parse_seating(records[0])
    if seated.seating.seat_of(identity.public_key) is None:
        raise InvalidValue(f"{path}: this identity has no seat in that game")
    return seated, records[1:]


def journal_name(seated: Seated, identity: Identity) -> str:
    """The file name of a game's automatic journal: table, game and our key, so several
    peers of one machine (bots) never share one."""
    seating = seated.seating
    return f"{seating.table}-{seating.game_id.hex()[:12]}-{_owner(identity)}.journal"


def _owner(identity: Identity) -> str:
    """The part of a journal's name that says whose it is (every seat of a game journals the
    same seating: only the name tells ours from another local peer's)."""
    return identity.public_key.hex()[:16]


def find_resumable(directory: Path, identity: Identity) -> Path | None:
    """The most recent of our journals in ``directory`` (named for ``identity`` by
    :func:`journal_name`; another local peer's journal of the same game holds the same
    seating but its own secrets) of a game where ``identity`` has a seat (the game a crash
    interrupted: a finished or left game's automatic journal is deleted), or None.
    Unreadable files are skipped."""
    mine = directory.glob(f"*-{_owner(identity)}.journal") if directory.is_dir() else []
    candidates = sorted(mine, key=lambda f: f.stat().st_mtime, reverse=True)
    for path in candidates:
        try:
            records = read(path)
            if records and parse_seating(records[0]).seating.seat_of(
                identity.public_key
            ) is not None:
                return path
        except (OSError, ProtocolError):
            continue
    return None
