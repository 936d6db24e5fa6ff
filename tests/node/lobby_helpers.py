"""The in-memory lobby room of the lobby tests: lobbies keyed by public key, frames handed over
at once (unless their kind is dropped), an injected clock."""

from __future__ import annotations

import random

from dudo_p2p.consensus.lobby import (
    Connect,
    Lobby,
    LobbyEffect,
    Refused,
    Seated,
    SendTo,
)
from dudo_p2p.consensus.lobby_host import HostLobby
from dudo_p2p.consensus.lobby_joiner import JoinerLobby
from dudo_p2p.consensus.machine import Log
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.protocol.envelope import peek_kind
from dudo_p2p.protocol.refusals import RefusalReason
from dudo_p2p.rules import RuleSet

GAME_ID = bytes(range(1, 17))


def ids(n: int, seed: int = 7) -> list[Identity]:
    rng = random.Random(seed)
    return [Identity.generate(rng.randbytes) for _ in range(n)]


class Room:
    """Lobbies keyed by public key; SendTo frames delivered at once unless dropped."""

    def __init__(self, lobbies: dict[bytes, Lobby], drop: set[str] | None = None,
                 machines: dict[bytes, str] | None = None) -> None:
        self.lobbies = lobbies
        # each lobby's machine (its LAN address): a frame between two lobbies of one machine
        # comes from 127.0.0.1, else from the sender's machine; none given: all on loopback
        self.machines = machines or {}
        self.drop = drop or set()  # kinds of frame lost on the wire
        self.seated: dict[bytes, Seated] = {}
        self.logs: list[str] = []
        self.refused: list[RefusalReason] = []
        self.refused_by: dict[bytes, list[RefusalReason]] = {}  # joiner -> reasons
        self.placeholders: dict[bytes, bytes] = {}  # --join key -> real key
        self.gone: set[bytes] = set()  # lobbies that neither send nor receive any more
        self.lost: set[tuple[bytes, str]] = set()  # (sender, kind) frames lost on the wire

    def run(self, effects_by: dict[bytes, list[LobbyEffect]], now: float) -> None:
        queue = [(src, e) for src, effects in effects_by.items() for e in effects]
        while queue:
            src, effect = queue.pop(0)
            match effect:
                case SendTo(peer=peer, frame=frame):
                    dst = self.placeholders.get(peer, peer)
                    kind = peek_kind(frame) or ""
                    if src in self.gone or dst in self.gone or (src, kind) in self.lost:
                        continue
                    if dst in self.lobbies and kind not in self.drop:
                        out = self.lobbies[dst].receive(frame, src, self.seen_from(src, dst),
                                                        now)
                        queue.extend((dst, e) for e in out)
                case Seated():
                    self.seated[src] = effect
                case Log(text=text):
                    self.logs.append(text)
                case Refused(reason=reason):
                    self.refused.append(reason)
                    self.refused_by.setdefault(src, []).append(reason)
                case Connect():
                    pass

    def seen_from(self, src: bytes, dst: bytes) -> str:
        """The address ``dst`` sees a frame of ``src`` come from."""
        here = self.machines.get(src, "127.0.0.1")
        return "127.0.0.1" if here == self.machines.get(dst, "127.0.0.1") else here

    def tick(self, now: float) -> None:
        self.run({k: lobby.tick(now) for k, lobby in self.lobbies.items()}, now)


def table(n: int) -> tuple[list[Identity], HostLobby, list[JoinerLobby]]:
    people = ids(n)
    host = HostLobby(people[0], "host", "0.0.0.0", 4000, table="KQ7XM", game_id=GAME_ID,
                     seats=n, rules=RuleSet(), turn_timer_ms=0)
    joiners = [JoinerLobby(p, f"j{i}", "0.0.0.0", 4001 + i, table="KQ7XM")
               for i, p in enumerate(people[1:])]
    return people, host, joiners
