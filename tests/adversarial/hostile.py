"""A hostile peer: it speaks the protocol over real ZeroMQ links but cheats.

:class:`HostileNode` is a real :class:`~dudo_p2p.node.node.Node` (links, lobby, journal-less
table machine) run inside the test process. It joins an honest table by address, is seated
like anyone else, and then every frame its machine sends passes through ``tamper`` — which
may drop it, change it, re-sign something else with the hostile's own key, or send a
different version to each peer. It also keeps every frame it received (real, signed frames
of the game: the raw material of replays and fuzzing) and can push raw frames to any seat.

It holds no key but its own: whatever it sends in another seat's name it copied from the
wire, and whatever it signs is provably its own.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from dudo_p2p.bots import make_bot
from dudo_p2p.consensus.machine import TableMachine
from dudo_p2p.consensus.replica import EpochPhase
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.net.router import Incoming
from dudo_p2p.node.config import NetConfig
from dudo_p2p.node.loop import AnyEffect
from dudo_p2p.node.node import Node
from dudo_p2p.protocol.envelope import Envelope, open_envelope, seal_envelope
from dudo_p2p.protocol.messages import Message

LOOPBACK = "127.0.0.1"

# tamper(node, frame, to) -> what to send instead, as (frame, seat or None for everyone)
Out = list[tuple[bytes, int | None]]
Tamper = Callable[["HostileNode", bytes, int | None], Out]


@dataclass
class Capture:
    """Frames the hostile peer received, in arrival order (bounded)."""

    frames: list[bytes] = field(default_factory=list)
    limit: int = 5000

    def add(self, frame: bytes) -> None:
        if len(self.frames) < self.limit:
            self.frames.append(frame)


class HostileNode(Node):
    """A seated peer whose outgoing frames go through ``tamper`` (module docstring)."""

    tamper: Tamper | None = None
    capture: Capture

    @classmethod
    def sit(cls, host_port: int, *, seed: int = 0, name: str = "mallory") -> HostileNode:
        """Join the table whose host listens on ``127.0.0.1:host_port`` (no beacons)."""
        rng = random.Random(seed)
        identity = Identity.generate(lambda k: rng.randbytes(k))
        net = NetConfig(bind=LOOPBACK, discovery=False)
        node = cls.join(identity, name, net, addresses=[(LOOPBACK, host_port)], discover=False)
        assert isinstance(node, HostileNode)
        node.capture = Capture()
        return node

    # ---- the wire ---------------------------------------------------------------------

    def _send(self, frame: bytes, to: int | None) -> None:
        out = [(frame, to)] if self.tamper is None else self.tamper(self, frame, to)
        for data, seat in out:
            super()._send(data, seat)

    def _route(self, incoming: Incoming, now: float, batch: list[AnyEffect],
               watching: list[Incoming]) -> None:
        self.capture.add(incoming.frame)
        super()._route(incoming, now, batch, watching)

    def send_raw(self, frame: bytes, seat: int | None = None) -> None:
        """Push ``frame`` as it is to ``seat`` (None: every other seat), past ``tamper``."""
        super()._send(frame, seat)

    # ---- signing our own lies -----------------------------------------------------------

    @property
    def table(self) -> TableMachine:
        assert self.machine is not None, "not seated yet"
        return self.machine

    def seal(self, body: Message, *, seq: int = 0, round_no: int | None = None) -> bytes:
        """``body`` signed by us in the current game and epoch (or ``round_no``)."""
        m = self.table
        epoch = m.replica.epoch.number if round_no is None else round_no
        return seal_envelope(self.identity, m.seating.game_id, epoch, seq, body).to_bytes()

    def honest_seats(self) -> list[int]:
        return [s for s in range(self.table.seating.n) if s != self.table.seat]


def opened(frame: bytes) -> Envelope | None:
    """The envelope of a frame, or None when it does not open (no context checked)."""
    try:
        return open_envelope(frame)
    except Exception:  # a garbage frame: not ours to judge here
        return None


def drive(
    node: HostileNode,
    until: Callable[[], bool],
    timeout: float,
    *,
    play: bool = True,
    seed: int = 1,
    each_step: Callable[[HostileNode], None] | None = None,
    hold: Callable[[], bool] | None = None,
) -> bool:
    """Run the hostile node until ``until()`` or ``timeout`` s; it plays its seat with an
    easy bot when ``play`` (its moves are legal: the cheating is in ``tamper``), except
    while ``hold()`` (an attack waits until its frame reached the honest peers)."""
    bot = make_bot("easy", random.Random(seed))
    deadline = time.monotonic() + timeout
    while not until():
        if time.monotonic() > deadline:
            return False
        node.step(0.02)
        if each_step is not None:
            each_step(node)
        m = node.machine
        if play and m is not None and not m.over and not (hold is not None and hold()):
            legal = m.legal_actions()
            if legal:
                node.carry_out(m.submit(bot.decide(m.view(), list(legal)), node.clock()))  # type: ignore[arg-type]
    return True


def phase_of(node: HostileNode) -> EpochPhase | None:
    return node.machine.replica.phase if node.machine is not None else None
