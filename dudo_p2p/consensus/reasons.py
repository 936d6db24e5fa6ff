"""Why a seat left, what a cheat was, how a game ended: closed sets of names (protocol.md §4.6).

Every value is a :class:`~enum.StrEnum`, so it is its own wire string (a ``vote`` carries a
:class:`Reason`, a removal item and the record carry it too) and has one catalogue key in
the UI (``.key``: ``left.<value>``, ``cheat.<value>``, ``outcome.<value>``, with ``-`` as
``_``). Reading from the wire never fails on a name we do not know: ``parse`` falls back to
``UNKNOWN`` (a newer peer may name a reason this one does not know; the vote still counts,
only its name is lost).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Self

# the catalogue section of each set of names (the UI's i18n keys are "<section>.<name>")
_SECTIONS = {"Reason": "left", "CheatKind": "cheat", "Outcome": "outcome"}


class _Names(StrEnum):
    """A closed set of names with an ``unknown`` fallback and one catalogue key each."""

    @classmethod
    def parse(cls, text: str) -> Self:
        """The name ``text`` (``bad_reveal`` is read as ``bad-reveal``), else ``unknown``."""
        try:
            return cls(text.replace("_", "-"))
        except ValueError:
            return cls("unknown")

    @property
    def key(self) -> str:
        """The catalogue key of this name's sentence (``-`` written ``_``)."""
        return f"{_SECTIONS[type(self).__name__]}.{self.value.replace('-', '_')}"


class Reason(_Names):
    """Why a seat left the game (a vote's reason, a removal's, a ``PlayerLeft`` event's)."""

    TIMEOUT = "timeout"  # the log waited for it past the step or turn timer (+ grace)
    SILENT = "silent"  # nothing heard from it past the silence timeout (+ reconnect grace)
    QUIT = "quit"  # it said so (``bye``, and its own vote against itself)
    EQUIVOCATION = "equivocation"  # two signed entries for one slot: the proof is kept
    BAD_REVEAL = "bad-reveal"  # a nonce, key or share that does not open its commitment
    EXPELLED = "expelled"  # caught before, still in the game's next epoch: voted out again
    REMOVED = "removed"  # we learnt of our own removal from votes of an epoch we had left
    UNKNOWN = "unknown"  # a name this version does not know

    @property
    def evidence(self) -> bool:
        """A reason backed by a proof the seat signed itself (not a claim by the others)."""
        return self in (Reason.EQUIVOCATION, Reason.BAD_REVEAL, Reason.EXPELLED)


class CheatKind(_Names):
    """What a caught seat did (a ``CheatDetected`` event); each is a signed proof."""

    EQUIVOCATION = "equivocation"
    BAD_REVEAL = "bad-reveal"
    UNKNOWN = "unknown"

    @property
    def reason(self) -> Reason:
        """The removal reason a seat caught this way is voted out for."""
        return Reason.parse(self.value)


class Outcome(_Names):
    """How a game ended for our seat (the CLI's ``--json`` ``"outcome"``; exit codes in
    ``cli/exits.py``). ``FINISHED``: a winner; the others: no winner for us to report."""

    FINISHED = "finished"
    REMOVED = "removed"  # the table removed our seat
    ABANDONED = "abandoned"  # two seats left and one went silent or stalled: no winner
    TABLE_GONE = "table-gone"  # no other seat heard for the table-gone delay
    UNKNOWN = "unknown"
