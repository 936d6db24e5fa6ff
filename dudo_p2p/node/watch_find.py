"""Find a table to watch on the LAN by its beacons (``dudo-p2p watch --discover``).

A spectator needs one seat's link address; the host's beacon gives it (the IP the datagram
came from, the link port it names). A beacon is only a hint: whatever answers there is
checked by the genesis and its signatures, and a table chosen by ``CODE@FINGERPRINT`` also
by the host's key (:class:`~dudo_p2p.consensus.watch_spectator.Spectator` refuses a genesis
whose seat 0 is another key: ``wrong_host``). Which table:

- with a code (and maybe a fingerprint): the table of that code (by that host); two hosts
  showing the code with no fingerprint given is ``ambiguous`` (a copy of a beacon may name
  an impostor: we do not guess);
- without a code: the only table heard, ``ambiguous`` when several are (each is named
  ``CODE@FINGERPRINT`` so the user can choose one);
- nothing heard within the wait: ``no_open_table`` (no table of that code is playing or
  gathering).

A table in any state is watchable: one still gathering answers once it is seated.
"""

from __future__ import annotations

import os
import select
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from dudo_p2p.crypto.identity import KeyPin, fingerprint
from dudo_p2p.errors import DudoError
from dudo_p2p.net.beacon import Beacon, TableState
from dudo_p2p.net.discovery import Discovery, Seen
from dudo_p2p.protocol.refusals import RefusalReason

TWIN_WAIT = 0.6  # after a match, listen this much longer for a second host of that code


@dataclass(frozen=True)
class Found:
    """A table to watch: its code, its host's key, and the address to dial."""

    code: str
    host_key: bytes
    host: str
    port: int

    def __str__(self) -> str:
        return f"{self.code}@{fingerprint(self.host_key)} at {self.host}:{self.port}"


class NotFound(DudoError):
    """No single table matched: ``reason`` is ambiguous or no_open_table, ``tables`` the
    candidates heard (``CODE@FINGERPRINT``)."""

    def __init__(self, reason: RefusalReason, tables: list[str]) -> None:
        named = f": {', '.join(tables)}" if tables else ""
        super().__init__(f"{reason.text}{named}")
        self.reason = reason
        self.tables = tables


def choose(seen: Iterable[Seen], code: str | None, pin: KeyPin | None) -> Found:
    """The one table among the beacons ``seen`` that matches (see the module docstring);
    raises :class:`NotFound`."""
    tables = [s for s in seen if s.beacon.state is not TableState.NONE
              and (code is None or s.beacon.table_code == code)
              and (pin is None or pin.matches(s.beacon.peer_id))]
    named = sorted(f"{s.beacon.table_code}@{fingerprint(s.beacon.peer_id)}" for s in tables)
    if not tables:
        raise NotFound(RefusalReason.NO_OPEN_TABLE, [])
    if len(tables) > 1:
        raise NotFound(RefusalReason.AMBIGUOUS, named)
    (one,) = tables
    return Found(one.beacon.table_code, one.beacon.peer_id, one.host, one.beacon.port)


def find_table(
    discovery: Discovery, code: str | None, pin: KeyPin | None, wait: float,
    clock: Callable[[], float] = time.monotonic,
) -> Found:
    """Listen to the beacons (announcing a throwaway beacon of our own, so hosts answer at
    once) until a table matches and TWIN_WAIT more passed without a second one, or ``wait``
    seconds; :func:`choose` over what was heard. Raises :class:`NotFound`."""
    discovery.set_beacon(Beacon(os.urandom(32), 1, name="watch"))
    start = clock()
    deadline = start + wait
    matched_at: float | None = None
    while (now := clock()) < deadline:
        discovery.tick(now)
        due = discovery.next_deadline() or deadline
        select.select([discovery.fileno()], [], [], max(0.0, min(deadline, due) - now))
        discovery.on_readable(clock())
        try:
            choose(discovery.peers(clock()).values(), code, pin)
        except NotFound as exc:
            if exc.reason is RefusalReason.AMBIGUOUS:
                raise
            continue
        if matched_at is None:
            matched_at = clock()
            deadline = min(deadline, matched_at + TWIN_WAIT)
    return choose(discovery.peers(clock()).values(), code, pin)
