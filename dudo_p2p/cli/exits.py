"""The exit codes of every ``dudo-p2p`` command, one place (the README and ``--help`` list them).

A script driving headless peers tells the outcomes apart by code alone; ``--json`` carries the
same outcome by name in its ``"outcome"`` field (the enum's lower-case name).
"""

from __future__ import annotations

from enum import IntEnum


class Exit(IntEnum):
    """Why a command ended. Values are stable: scripts depend on them."""

    OK = 0  # the game finished (or the command did what it was asked)
    FAILED = 1  # unfinished for another reason: timed out, interrupted, an invalid record
    USAGE = 2  # bad arguments, an unreadable file
    REMOVED = 3  # the table removed our seat (we learnt it from a peer's certificate)
    TABLE_GONE = 4  # no seat of the table heard for the table-gone delay: the others left
    REFUSED = 5  # the table refused us (full, started, unknown code, wrong host key)
    ABANDONED = 6  # the game ended abandoned: no winner (e.g. a two-seat table lost a seat)
    # the reader of our output went away (``| head``): 128 + SIGPIPE, what a shell reports
    # for any Unix tool stopped by its closed pipe; said with no traceback (cli/main.py)
    BROKEN_PIPE = 141
