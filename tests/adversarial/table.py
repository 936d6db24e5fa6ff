"""A real table for attack tests: an honest ``dudo-p2p host`` process, honest ``bot``
processes joined by address, and the hostile node of the test process in the last seat."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from node_helpers import (
    LOOPBACK,
    Peer,
    bot_args,
    free_tcp_port,
    host_args,
    loopback_net,
)

from dudo_p2p.consensus.record import Summary, verify_record

from .hostile import HostileNode, drive

SEATED_WITHIN = 30.0


@dataclass
class Table:
    port: int
    beacon_port: int
    honest: list[Peer]
    hostile: HostileNode
    records: Path

    @property
    def host(self) -> Peer:
        return self.honest[0]

    def finish(self, hostile_plays: bool = True, timeout: float = 90.0) -> list[dict[str, Any]]:
        """Keep the hostile node serving (it may still be seated) until every honest peer
        exited; each must exit 0 (game finished) and print its summary."""
        drive(self.hostile, lambda: all(p.proc.poll() is not None for p in self.honest),
              timeout, play=hostile_plays)
        codes = [p.finish(timeout=10) for p in self.honest]
        for peer, code in zip(self.honest, codes, strict=True):
            assert code == 0, peer.explain()
        summaries = [p.summary() for p in self.honest]
        assert len({s["log_hash"] for s in summaries}) == 1, "honest peers disagree"
        assert summaries[0]["winner"] is not None
        return summaries

    def record(self) -> Summary:
        """The host's game record, re-checked offline (every signature, link and die)."""
        (path,) = sorted(self.records.glob("*.dudo"))
        return verify_record(path.read_bytes())

    def log(self, peer: Peer | None = None) -> str:
        return "\n".join((peer or self.host).lines)


def open_table(
    tmp_path: Path, peers: list[Peer], hostiles: list[HostileNode], seats: int,
    *host_extra: str, beacon_port: int | None = None, seed: int = 0,
    port: int | None = None, join_port: int | None = None,
) -> Table:
    """Start the honest peers and seat the hostile node; waits until the game started.
    ``port``: the host's link port; ``join_port``: where the hostile node says hello (a
    relay in front of the host, say; default the host's port)."""
    port = port if port is not None else free_tcp_port()
    bport = beacon_port if beacon_port is not None else free_tcp_port()
    net = loopback_net(bport)
    records = tmp_path / "records"
    # this table's peers only: ``peers`` (the cleanup fixture) also holds earlier games'
    honest = [Peer("host", host_args("host", tmp_path, seats, "--port", str(port), *net,
                                     "--record", str(records), "-v", *host_extra))]
    for i in range(1, seats - 1):
        extra = ["--join", f"{LOOPBACK}:{port}", "--bind", LOOPBACK, "-v"]
        honest.append(Peer(f"b{i}", bot_args(f"b{i}", tmp_path, *extra)))
    peers.extend(honest)
    hostile = HostileNode.sit(join_port if join_port is not None else port, seed=seed)
    hostiles.append(hostile)
    seated = drive(hostile, lambda: hostile.machine is not None, SEATED_WITHIN, play=False)
    assert seated, "the hostile peer was never seated\n" + "\n".join(honest[0].lines[-20:])
    return Table(port, bport, honest, hostile, records)
