"""A node's lobby side until its game is seated (protocol.md §4.9): the lobby in its role
(``HostLobby``, ``JoinerLobby``, or a resumed seat's ``Lobby``), the joiner's search
(:class:`~dudo_p2p.node.seeking.Seeker`: which tables to say hello to, when to stop), the
and the host's controls.

No sockets and no clock: the node hands it the beacons its socket heard, the refusals its
lobby returned and the time, and carries out the lobby effects it returns.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence

from dudo_p2p.consensus.lobby import Lobby, LobbyEffect, Phase, Refused
from dudo_p2p.consensus.lobby_host import HostLobby
from dudo_p2p.consensus.lobby_joiner import JoinerLobby
from dudo_p2p.net.beacon import Beacon
from dudo_p2p.net.discovery import Seen, SeenOther
from dudo_p2p.node.seeking import Seeker, open_first
from dudo_p2p.protocol.refusals import RefusalReason

log = logging.getLogger(__name__)


class Gathering:
    """The lobby ``lobby`` and, for a joiner, its search ``seeker`` (module docstring)."""

    def __init__(self, lobby: Lobby, seeker: Seeker | None = None) -> None:
        self.lobby = lobby
        self.seeker = seeker if seeker is not None else Seeker(None, None, discovering=False)

    @property
    def gave_up(self) -> RefusalReason | None:
        """Why this joiner stopped looking for a table (None: still looking);
        :attr:`Seeker.why` says it in a line."""
        return self.seeker.gave_up

    def dial(self, addresses: Iterable[tuple[str, int]], now: float) -> list[LobbyEffect]:
        """A joiner says hello to the table at each ``host:port`` (``--join``), linked under
        a placeholder key until its host's welcome names it."""
        out: list[LobbyEffect] = []
        if isinstance(self.lobby, JoinerLobby):
            for host, port in addresses:
                key = f"join:{host}:{port}".encode()
                out.extend(self.lobby.add_target(key, host, port, now))
        return out

    def heard(self, beacons: Sequence[Beacon], peers: Mapping[bytes, Seen],
              now: float, others: Sequence[SeenOther] = ()) -> list[LobbyEffect]:
        """The beacons just heard (``peers``: every peer heard lately, with the address its
        beacon came from; ``others``: the tables of another protocol version heard lately):
        a host leaving is dropped from our targets while we seek, and we say hello to each
        candidate, open tables first; our code offered only by a table of another version
        stops us (seeking.py)."""
        seeker, lobby = self.seeker, self.lobby
        out: list[LobbyEffect] = []
        seeking = lobby.phase is Phase.SEEKING
        if seeking and isinstance(lobby, JoinerLobby):
            for gone in (b.peer_id for b in beacons if b.is_leaving):
                out.extend(lobby.drop_gone(gone))  # it will never answer us now
        heard = [peers[b.peer_id] for b in beacons if b.peer_id in peers]
        for seen in open_first(heard):
            warning = seeker.heard(seen.beacon, seeking=seeking)
            if warning is not None:
                log.warning("%s", warning)
            if seeker.gave_up is None and seeker.candidate(seen.beacon):
                out.extend(self._hello(seen, now))
        if seeking:
            for other in others:
                seeker.heard_other(other.table, (s.beacon for s in peers.values()))
        return out

    def _hello(self, seen: Seen, now: float) -> list[LobbyEffect]:
        """Say hello to the host a beacon offers, at the address the beacon came from (a
        target that refused us once is not tried again; only a joiner says hello)."""
        beacon = seen.beacon
        key = b"beacon:" + beacon.peer_id + f"@{seen.host}:{beacon.port}".encode()
        if key in self.seeker.dropped:
            return []
        self.seeker.choose(beacon.peer_id)
        if not isinstance(self.lobby, JoinerLobby):
            return []
        return self.lobby.add_target(key, seen.host, beacon.port, now, claimed=beacon.peer_id)

    def _has_targets(self) -> bool:
        """Whether our lobby is a joiner's with a target that has not refused it yet."""
        return isinstance(self.lobby, JoinerLobby) and bool(self.lobby.targets)

    def refused(self, effect: Refused, others: Iterable[Seen], now: float) -> list[LobbyEffect]:
        """Note a refusal; when it was our last target, move on to one of ``others`` (the
        peers the beacons show) or stop (:meth:`Seeker.stranded`)."""
        self.seeker.refused(effect.peer, effect.host, effect.reason)
        if self.lobby.phase is not Phase.SEEKING or self._has_targets():
            return []
        out: list[LobbyEffect] = []
        for seen in self.seeker.stranded(others, now):
            out.extend(self._hello(seen, now))
        if self.seeker.gave_up is not None:
            log.warning("%s", self.seeker.why)
        return out

    def looked(self, now: float) -> None:
        """Once a step: stranded with ``--discover`` alone and nothing new turned up within
        :data:`~dudo_p2p.node.seeking.LOOK_AGAIN`: stop, and say why."""
        if self.seeker.give_up_at() is not None and not self._has_targets():
            self.seeker.look_again(now)
            if self.seeker.gave_up is not None:
                log.warning("%s", self.seeker.why)

    def next_deadline(self) -> float | None:
        """The lobby's next re-send or the joiner's give-up, whichever is first (None:
        nothing is due by the clock)."""
        due = [t for t in (self.lobby.next_deadline(), self.seeker.give_up_at()) if t is not None]
        return min(due, default=None)

    def start_now(self, now: float) -> list[LobbyEffect]:
        """Host: seat the players gathered so far, at least two (``HostLobby.start_now``)."""
        return self.lobby.start_now(now) if isinstance(self.lobby, HostLobby) else []

    def set_seats(self, seats: int, now: float) -> list[LobbyEffect]:
        """Host: the table now has ``seats`` seats (``HostLobby.set_seats``; InvalidValue
        for a count it cannot have)."""
        return self.lobby.set_seats(seats, now) if isinstance(self.lobby, HostLobby) else []

    def remove(self, pub: bytes, now: float) -> list[LobbyEffect]:
        """Host: take joiner ``pub`` off the table (``HostLobby.remove``: it is told,
        signed, and refused from then on)."""
        return self.lobby.remove(pub, now) if isinstance(self.lobby, HostLobby) else []

    def leave(self) -> list[LobbyEffect]:
        """Before the game starts: a joiner gives its seat back to the host that welcomed
        it (a lobby ``leave``); a host tells every joiner the table is closed."""
        if isinstance(self.lobby, JoinerLobby):
            return self.lobby.leave()
        if isinstance(self.lobby, HostLobby):
            return self.lobby.close()
        return []
