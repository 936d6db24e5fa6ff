"""Which tables a joiner says hello to, and when it stops looking (protocol.md §4.9).

Pure bookkeeping the node consults on every beacon and every refusal; no sockets, no clock:

- A beacon is a *candidate* when it offers a table, its host has not refused us, and it
  matches what we were told: the code (``--table``), the host key (``--host-key`` or
  ``CODE@FINGERPRINT``). Without ``--table`` only open tables are candidates; with it a
  full or playing table is one too, so that we hear its signed refusal rather than wait on
  an unsigned "full" byte.
- ``--table CODE`` without a host key, and two host keys offering that code before we are
  welcomed: we stop with :attr:`~RefusalReason.AMBIGUOUS` (naming both fingerprints) rather
  than sit at whichever answered first — one of them may be an impostor.
- When the last target refused us: with ``--table``, a pin or ``--join`` only, we stop with
  the host's reason; with ``--discover`` alone we move on to any other candidate the beacons
  show, and stop with :attr:`~RefusalReason.NO_OPEN_TABLE` when there is none.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from dudo_p2p.crypto.identity import KeyPin, fingerprint
from dudo_p2p.net.beacon import Beacon, TableState
from dudo_p2p.net.discovery import Seen
from dudo_p2p.protocol.refusals import RefusalReason


@dataclass
class Seeker:
    """One joiner's search (module docstring). ``discovering``: beacons are used at all."""

    table: str | None
    pin: KeyPin | None
    discovering: bool
    refused_hosts: set[bytes] = field(default_factory=set)
    reasons: list[RefusalReason] = field(default_factory=list)
    hosts_of_code: dict[bytes, str] = field(default_factory=dict)  # key -> fingerprint
    gave_up: RefusalReason | None = None
    why: str = ""

    def candidate(self, beacon: Beacon) -> bool:
        """Whether to say hello to the host of ``beacon`` (module docstring)."""
        if beacon.state is TableState.NONE or beacon.peer_id in self.refused_hosts:
            return False
        if self.pin is not None and not self.pin.matches(beacon.peer_id):
            return False
        if self.table is None:
            return beacon.state is TableState.OPEN
        return beacon.table_code == self.table

    def heard(self, beacon: Beacon, *, seeking: bool) -> None:
        """Note who offers our code; two keys and no pin while ``seeking``: ambiguous."""
        if self.table is None or self.pin is not None or beacon.table_code != self.table:
            return
        self.hosts_of_code.setdefault(beacon.peer_id, fingerprint(beacon.peer_id))
        if seeking and len(self.hosts_of_code) > 1 and self.gave_up is None:
            shown = ", ".join(f"{self.table}@{f}" for f in sorted(self.hosts_of_code.values()))
            self.stop(RefusalReason.AMBIGUOUS, f"{RefusalReason.AMBIGUOUS.text} ({shown})")

    def refused(self, host: bytes, reason: RefusalReason) -> None:
        self.refused_hosts.add(host)
        self.reasons.append(reason)

    def stranded(self, others: Iterable[Seen]) -> list[Seen]:
        """Every target refused us: the candidates to move on to (none: we stopped)."""
        if self.discovering and self.table is None and self.pin is None:
            fresh = [seen for seen in others if self.candidate(seen.beacon)]
            if fresh:
                return fresh
            self.stop(RefusalReason.NO_OPEN_TABLE, "no open table (every table seen refused us "
                                                   "or has no free seat)")
            return []
        # The host's own reason over our conclusion that an address held another host.
        told = [r for r in self.reasons if r is not RefusalReason.WRONG_HOST]
        reason = told[-1] if told else self.reasons[-1] if self.reasons else RefusalReason.OTHER
        self.stop(reason, reason.text)
        return []

    def stop(self, reason: RefusalReason, why: str) -> None:
        if self.gave_up is None:
            self.gave_up, self.why = reason, why
