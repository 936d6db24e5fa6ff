"""The tables the LAN beacons show, as the lobby lists them (protocol.md §5.3).

Each row says what a friend asks before sitting down: the host's name, the seats taken of
how many, each player's starting dice, the variants off the default table, the turn timer,
and the code (with the host key's fingerprint) and address to join it. The rules come from
the beacon's ``dice`` and ``variants`` (protocol/beacon_rules.py); a beacon whose values do
not make a rule set is not listed (logged once per peer). A table of another protocol
version is listed apart, greyed, never joined or watched (``version``).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Sequence

from dudo_p2p.crypto.identity import fingerprint
from dudo_p2p.errors import DecodeError
from dudo_p2p.net.beacon import VERSION, Beacon, TableState
from dudo_p2p.net.discovery import Discovery, Seen, SeenOther
from dudo_p2p.protocol import beacon_rules
from dudo_p2p.ui.request import TableListing

log = logging.getLogger(__name__)


def listing(seen: Seen) -> TableListing:
    """The row of a table of our version. DecodeError when its dice and variants do not
    make a rule set."""
    b = seen.beacon
    rules = beacon_rules.unpack(b.dice, b.variants)
    return TableListing(b.table_code, f"{seen.host}:{b.port}", b.seats_taken, b.seats_total,
                        b.name, fingerprint(b.peer_id), b.state.name.lower(), rules,
                        b.turn_timer_ms / 1000, VERSION)


def other_listing(seen: SeenOther) -> TableListing:
    """The greyed row of a table of another protocol version."""
    t = seen.table
    return TableListing(t.table_code, f"{seen.host}:{t.port}", t.seats_taken, t.seats_total,
                        t.name, fingerprint(t.peer_id), t.state.name.lower(), version=t.version)


class LanDirectory:
    """The tables the discovery beacons show (open ones to join, every one to watch, those
    of another version greyed), polled without blocking by the lobby."""

    def __init__(self, beacon_port: int, broadcast: Sequence[str] | None) -> None:
        self.discovery: Discovery | None
        self._refused: set[bytes] = set()  # peers whose beacon's rules we logged as bad
        try:
            addresses = list(broadcast) if broadcast is not None else None
            self.discovery = Discovery(beacon_port, broadcast_addresses=addresses)
        except OSError:
            self.discovery = None  # the port is taken: the lobby just lists nothing
            return
        self.discovery.set_beacon(Beacon(os.urandom(32), 1, name="lobby"))

    def tables(self) -> list[TableListing]:
        if self.discovery is None:
            return []
        now = time.monotonic()
        self.discovery.tick(now)
        self.discovery.on_readable(now)
        rows = []
        for seen in self.discovery.peers(now).values():
            if seen.beacon.state is TableState.NONE:
                continue
            try:
                rows.append(listing(seen))
            except DecodeError as exc:
                if seen.beacon.peer_id not in self._refused and len(self._refused) < 256:
                    self._refused.add(seen.beacon.peer_id)
                    log.warning("table %s at %s not listed: %s", seen.beacon.table_code,
                                seen.host, exc)
        rows.extend(other_listing(o) for o in self.discovery.other_tables(now))
        return rows

    def close(self) -> None:
        if self.discovery is not None:
            self.discovery.close()
