"""Which tables a joiner says hello to, and when it stops looking (protocol.md §4.9).

Pure bookkeeping the node consults on every beacon and every refusal; no sockets, no clock:

- A beacon is a *candidate* when it offers a table, its host has not refused us, and it
  matches what we were told: the code (``--table``), the host key (``--host-key`` or
  ``CODE@FINGERPRINT``). A full or playing table is one too, so that we hear its signed
  refusal (and move on, or stop) rather than wait on an unsigned "full" byte; open tables
  are tried first (:func:`open_first`).
- ``--table CODE`` without a host key, and two host keys offering that code before we are
  welcomed: we stop with :attr:`~RefusalReason.AMBIGUOUS` (naming both fingerprints) rather
  than sit at whichever answered first — one of them may be an impostor.
- With ``--discover`` alone we try one host at a time (every address its beacons offer):
  saying hello to several open tables at once got us seated at each, holding seats the
  others could have had until those hosts freed them.
- A table of another protocol version offering our code, and none of ours: we stop with
  :attr:`~RefusalReason.VERSION` (its host could not read our hello).
- When the last target refused us: with ``--table``, a pin or ``--join`` only, we stop with
  the host's reason; with ``--discover`` alone we move on to the next open table the
  beacons show, and stop with :attr:`~RefusalReason.NO_OPEN_TABLE` when there is none
  (after looking :data:`LOOK_AGAIN` seconds more for a beacon we had not heard yet).
  A target that refused us (its placeholder key names host and address) is never tried
  again, so a copied beacon's address that answered with another key cannot loop.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from dudo_p2p.crypto.identity import KeyPin, fingerprint
from dudo_p2p.net.beacon import Beacon, OtherTable, TableState
from dudo_p2p.net.discovery import Seen
from dudo_p2p.protocol.refusals import RefusalReason

# --discover alone, refused and no other table in sight: look this long for one more before
# saying "no open table" (a bot refused in its first milliseconds may not have heard every
# host's beacon yet; hosts beacon every second).
LOOK_AGAIN = 1.5


@dataclass
class Seeker:
    """One joiner's search (module docstring). ``discovering``: beacons are used at all."""

    table: str | None
    pin: KeyPin | None
    discovering: bool
    refused_hosts: set[bytes] = field(default_factory=set)
    reasons: list[RefusalReason] = field(default_factory=list)
    hosts_of_code: dict[bytes, str] = field(default_factory=dict)  # key -> fingerprint
    # with a pin: the other keys offering our code (a mistyped fingerprint, or an impostor)
    other_hosts: dict[bytes, str] = field(default_factory=dict)
    chosen: bytes | None = None  # --discover alone: the one host we are trying now
    stranded_at: float | None = None  # --discover alone: refused, looking for another table
    dropped: set[bytes] = field(default_factory=set)  # target keys that refused us
    gave_up: RefusalReason | None = None
    why: str = ""

    def candidate(self, beacon: Beacon) -> bool:
        """Whether to say hello to the host of ``beacon`` (module docstring)."""
        if beacon.state is TableState.NONE or beacon.peer_id in self.refused_hosts:
            return False
        if self.pin is not None and not self.pin.matches(beacon.peer_id):
            return False
        if self.table is None:
            return self.chosen in (None, beacon.peer_id)
        return beacon.table_code == self.table

    def heard_other(self, table: OtherTable, ours: Iterable[Beacon]) -> None:
        """A table of another protocol version offers our code (``ours``: the beacons of our
        version heard lately): when none of ours does (and the pin, if any, is its host's),
        we stop with :attr:`~RefusalReason.VERSION` rather than wait for a host that will
        never understand our hello (protocol.md §2.5 "Versions")."""
        if self.table is None or table.table_code != self.table or self.gave_up is not None:
            return
        if self.pin is not None and not self.pin.matches(table.peer_id):
            return
        if any(b.table_code == self.table and b.state is not TableState.NONE for b in ours):
            return
        self.stop(RefusalReason.VERSION, f"table {self.table} is hosted with protocol version "
                                         f"{table.version}: {RefusalReason.VERSION.text}")

    def choose(self, host: bytes) -> None:
        """We say hello to ``host``: with ``--discover`` alone, only to it until it refuses."""
        if self.table is None and self.pin is None and self.chosen is None:
            self.chosen = host
        self.stranded_at = None

    def heard(self, beacon: Beacon, *, seeking: bool) -> str | None:
        """Note who offers our code (with a pin, the keys that are not the one chosen:
        :attr:`other_hosts`); two keys and no pin while ``seeking``: ambiguous. A
        second key heard once we were welcomed returns a warning to log (once): we may sit
        at an impostor's table, or the other one is; the fingerprints tell them apart."""
        if self.table is None or beacon.table_code != self.table:
            return None
        if self.pin is not None:
            if not self.pin.matches(beacon.peer_id):  # said when the table is not found
                self.other_hosts.setdefault(beacon.peer_id, fingerprint(beacon.peer_id))
            return None
        new = beacon.peer_id not in self.hosts_of_code
        self.hosts_of_code.setdefault(beacon.peer_id, fingerprint(beacon.peer_id))
        if len(self.hosts_of_code) < 2 or self.gave_up is not None:
            return None
        shown = ", ".join(f"{self.table}@{f}" for f in sorted(self.hosts_of_code.values()))
        if seeking:
            self.stop(RefusalReason.AMBIGUOUS, f"{RefusalReason.AMBIGUOUS.text} ({shown})")
            return None
        if not new:
            return None
        return f"another host offers table {self.table} too ({shown}): check the fingerprint"

    def refused(self, target: bytes, host: bytes, reason: RefusalReason) -> None:
        """The target linked under ``target`` answered with ``host``'s refusal (or with
        ``host``'s welcome when we chose another key)."""
        self.dropped.add(target)
        self.refused_hosts.add(host)
        self.reasons.append(reason)
        self.chosen = None

    def stranded(self, others: Iterable[Seen], now: float) -> list[Seen]:
        """Every target refused us: the candidates to move on to (none: we stopped, or, with
        ``--discover`` alone, we look :data:`LOOK_AGAIN` more seconds: :meth:`give_up_at`)."""
        if self.discovering and self.table is None and self.pin is None:
            fresh = open_first(seen for seen in others if self.candidate(seen.beacon))
            if fresh:
                first = fresh[0].beacon.peer_id
                return [seen for seen in fresh if seen.beacon.peer_id == first]
            self.stranded_at = now
            return []
        # The host's own reason over our conclusion that an address held another host.
        told = [r for r in self.reasons if r is not RefusalReason.WRONG_HOST]
        reason = told[-1] if told else self.reasons[-1] if self.reasons else RefusalReason.OTHER
        self.stop(reason, reason.text)
        return []

    def give_up_at(self) -> float | None:
        """When to say "no open table" if no other table turns up (None: not looking)."""
        return None if self.stranded_at is None else self.stranded_at + LOOK_AGAIN

    def look_again(self, now: float) -> None:
        """Still stranded :data:`LOOK_AGAIN` after the last refusal: stop."""
        due = self.give_up_at()
        if due is not None and now >= due:
            self.stranded_at = None
            self.stop(RefusalReason.NO_OPEN_TABLE, "no open table (every table seen refused "
                                                   "us or has no free seat)")

    def stop(self, reason: RefusalReason, why: str) -> None:
        if self.gave_up is None:
            self.gave_up, self.why = reason, why


def open_first(seen: Iterable[Seen]) -> list[Seen]:
    """Open tables before full and playing ones (a stable sort: arrival order otherwise)."""
    return sorted(seen, key=lambda s: s.beacon.state is not TableState.OPEN)
