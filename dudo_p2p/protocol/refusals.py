"""Why a table refuses a joiner: one enum end to end (protocol.md §4.9, ``refused``).

On the wire a reason is one of a fixed set of lower-case strings; a reason this version does
not know (a newer peer's) is read as :attr:`RefusalReason.OTHER`, never an error, so a
joiner still stops and says it was refused. Some reasons never travel: the joiner concludes
them itself (:attr:`WRONG_HOST`, :attr:`AMBIGUOUS`, :attr:`NO_OPEN_TABLE`, :attr:`GONE`).
"""

from __future__ import annotations

import enum


class RefusalReason(enum.Enum):
    """A refusal's reason; ``value`` is the wire string, :attr:`text` the English line."""

    FULL = "full"  # every seat taken, the genesis proposed
    STARTED = "started"  # the game is running
    UNKNOWN_TABLE = "unknown_table"  # the hello named a table code this host does not hold
    BAD_NAME = "bad_name"  # the hello's name is empty once cleaned (protocol/names.py)
    REMOVED = "removed"  # the host's player took us off the table before the game started
    CLOSED = "closed"  # the host's player closed the table before the game started
    WRONG_HOST = "wrong_host"  # joiner's own: the answer is signed by a key it did not choose
    AMBIGUOUS = "ambiguous"  # joiner's own: two hosts offer the code and none was chosen
    NO_OPEN_TABLE = "no_open_table"  # joiner's own: every table seen refused us or is closed
    GONE = "gone"  # joiner's own: the host left (its leaving beacon) or went silent
    VERSION = "version"  # the hello spoke another protocol version (protocol/older.py)
    OTHER = "other"  # a reason this version does not know

    @classmethod
    def from_wire(cls, text: str) -> RefusalReason:
        """The reason ``text`` names, or :attr:`OTHER` (never raises)."""
        try:
            return cls(text)
        except ValueError:
            return cls.OTHER

    @property
    def text(self) -> str:
        """What the CLI prints after "refused: "."""
        return _TEXT[self]


_TEXT = {
    RefusalReason.FULL: "the table is full",
    RefusalReason.STARTED: "the game has started",
    RefusalReason.UNKNOWN_TABLE: "the host holds no table with that code",
    RefusalReason.BAD_NAME: "our name is empty once control and invisible characters go",
    RefusalReason.REMOVED: "the host removed us from the table",
    RefusalReason.CLOSED: "the host closed the table",
    RefusalReason.WRONG_HOST: "the host answering is not the one chosen (its key differs)",
    RefusalReason.AMBIGUOUS: "several hosts offer that code: choose one with CODE@FINGERPRINT",
    RefusalReason.NO_OPEN_TABLE: "no open table",
    RefusalReason.GONE: "the host left or stopped answering",
    RefusalReason.VERSION: "the host speaks another version of the protocol: update dudo-p2p",
    RefusalReason.OTHER: "refused for a reason this version does not know",
}
