"""What the lobby asks the app for, and what the app needs to list tables.

The UI never opens sockets: the lobby builds a :class:`TableRequest` and the app hands it to the
injected session factory, which returns a :class:`~dudo_p2p.session.Session` (in-process with
bots, or a real peer on the LAN). Tables seen on the LAN come from an injected
:class:`TableDirectory`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from dudo_p2p.rules import RuleSet
from dudo_p2p.session import Session

RequestKind = Literal["bots", "create", "join", "hotseat", "watch", "resume"]
BOT_LEVELS = ("easy", "normal", "hard", "expert")
TIMER_CHOICES: tuple[float | None, ...] = (None, 30.0, 60.0, 90.0)
# the protocol version our tables speak (net/beacon.py's VERSION: this layer cannot import
# it; tests/ui/test_lobby_tables.py checks they agree)
WIRE_VERSION = 2


@dataclass(frozen=True)
class TableRequest:
    """A table the player asked for.

    - ``bots``: play now against ``bots`` bots (1..5), seats filled at once;
    - ``create``: host a table on the LAN with ``players`` seats (ours included; 0: one
      more than ``bots`` + us), ``bots`` of them taken by bots at once, the others left for
      friends who join (at least one);
    - ``join``: join the table at ``address`` ("host:port"), or, when ``code`` is given
      (``CODE`` or ``CODE@FINGERPRINT``, as :func:`parse_code` reads it), the table the LAN
      beacons show under that code (and that host key);
    - ``hotseat``: ``players`` humans (2..6) pass one device around, called ``names`` (as
      typed; :func:`hotseat_names` cleans them; a missing or empty one is "Jugador n");
    - ``watch``: watch the table at ``address`` without a seat (``code``: its
      ``CODE@FINGERPRINT``, checked against what answers), every entry verified;
    - ``resume``: take our seat back in the interrupted game whose ``journal`` is given
      (:mod:`~dudo_p2p.ui.resume_prompt`).

    ``name``: our name at a networked table, from the lobby's name field ("": the
    program's default).
    """

    kind: RequestKind
    rules: RuleSet = field(default_factory=RuleSet)
    bots: int = 3
    bot_level: str = "normal"
    turn_timer_s: float | None = None
    address: str = ""
    players: int = 0
    seed: int | None = None
    names: tuple[str, ...] = ()
    name: str = ""
    code: str = ""
    journal: str = ""  # resume: the journal of the interrupted game (resume_prompt.py)


@dataclass(frozen=True)
class TableListing:
    """One table seen on the LAN (a discovery beacon), as the lobby lists it: its code, the
    ``host:port`` to join it by, the seats taken of how many. With ``host`` (the host's name)
    and ``fingerprint`` (its key's) the lobby shows ``CODE@FINGERPRINT · host``."""

    code: str  # the 5-character table code
    address: str  # "host:port" to join it
    players: int
    seats: int
    host: str = ""  # the host's name, from its beacon
    fingerprint: str = ""  # the host key's fingerprint: CODE@FINGERPRINT tells twins apart
    state: str = "open"  # open (it takes players), full or playing (it can be watched)
    rules: RuleSet | None = None  # what the beacon says the table plays (None: not known)
    turn_timer_s: float = 0.0  # 0: no limit
    version: int = WIRE_VERSION  # another one: shown greyed, never joined or watched


class TableDirectory(Protocol):
    """Source of the tables seen on the LAN; polled by the lobby about once a second."""

    def tables(self) -> Sequence[TableListing]: ...


SessionFactory = Callable[[TableRequest], Session]


def parse_address(text: str) -> tuple[str, int] | None:
    """``"host:port"`` -> (host, port), or None when it is not one (port 1..65535)."""
    host, sep, port = text.strip().rpartition(":")
    if not sep or not host or not port.isdigit():
        return None
    number = int(port)
    if not 1 <= number <= 65535:
        return None
    return host.strip("[]"), number


# The table code's alphabet (net.beacon.TABLE_CODE_ALPHABET: the UI may not import net; a
# test checks they are equal) and a fingerprint's (Crockford base 32, crypto.identity).
CODE_CHARS = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LEN = 5
FINGERPRINT_CHARS = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def parse_code(text: str) -> str | None:
    """``"kq7xm"`` or ``"KQ7XM@kx45-evew"`` (what a host dictates: any case, the dash
    optional, O/I/L read as 0/1/1 in the fingerprint) as ``"KQ7XM"`` or
    ``"KQ7XM@KX45-EVEW"``; None when it is not a table code (an address, a typo)."""
    code, sep, fp = text.strip().upper().partition("@")
    code = code.strip()
    if len(code) != CODE_LEN or any(ch not in CODE_CHARS for ch in code):
        return None
    if not sep:
        return code
    chars = fp.strip().replace("-", "").translate(str.maketrans("OIL", "011"))
    if len(chars) != 8 or any(ch not in FINGERPRINT_CHARS for ch in chars):
        return None
    return f"{code}@{chars[:4]}-{chars[4:]}"


MAX_NAME_CHARS = 16  # a hot-seat name longer than this is cut (the seat plate clips it too)


def clean_name(text: str) -> str:
    """``text`` as a display name: control characters dropped, runs of spaces made one,
    trimmed, cut to :data:`MAX_NAME_CHARS` characters ("" when nothing is left)."""
    printable = "".join(ch if ch.isprintable() else " " for ch in text)
    return " ".join(printable.split())[:MAX_NAME_CHARS].rstrip()


def hotseat_names(typed: Sequence[str], players: int) -> tuple[str, ...]:
    """The names of ``players`` hot-seat seats from the ``typed`` ones, seat by seat: each
    cleaned with :func:`clean_name`; a missing or empty one stays "" (the table shows it as
    "Jugador n" / "Player n" in the language shown); extra names are dropped. A name equal
    (ignoring case) to an earlier one gets " 2", " 3"... so every player can tell which seat
    is theirs on the hand-over screen."""
    names: list[str] = []
    taken: set[str] = set()
    for i in range(players):
        base = clean_name(typed[i]) if i < len(typed) else ""
        name, n = base, 1
        while name and name.casefold() in taken:
            n += 1
            suffix = f" {n}"
            name = base[:MAX_NAME_CHARS - len(suffix)].rstrip() + suffix
        taken.add(name.casefold())
        names.append(name)
    return tuple(names)


class Unavailable(Exception):
    """The session factory cannot serve this kind of request in this build (e.g. joining by
    address before the network layer is wired); the lobby says so in plain words."""
