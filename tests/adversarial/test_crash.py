"""``kill -9`` of a real peer process at a random moment of a game (during commitments,
bidding or the reveal: the moment is read back from its journal), restarted from that
journal with ``--resume``: its seat is kept, nothing it had journalled is lost (the journal
grows from the same records, and the commitment the table chained for the epoch it died in
is the one made from its journalled secrets), and every peer ends on one log hash.

CI kills one peer once; ``--full`` runs 10 games with one kill each.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import msgpack
import pytest
from node_helpers import (
    LOOPBACK,
    Peer,
    bot_args,
    free_tcp_port,
    host_args,
    loopback_net,
)

from dudo_p2p.consensus.machine import TableMachine
from dudo_p2p.consensus.replica import EpochPhase
from dudo_p2p.node import journal as jr
from dudo_p2p.node import keystore
from dudo_p2p.protocol.envelope import open_envelope
from dudo_p2p.protocol.kinds import Commit

pytestmark = pytest.mark.e2e

CI_KILLS = 1
FULL_KILLS = 10


def phase_at_death(journal: Path, identity_file: Path) -> tuple[int, EpochPhase, TableMachine]:
    """Replay the dead peer's journal: the epoch and phase it had reached."""
    records = jr.read(journal)
    seated = jr.parse_seating(records[0])
    identity = keystore.load_or_create(identity_file)
    machine = TableMachine.restore(identity, seated.seating, records[1:],
                                   random.Random(0).randbytes, 0.0)
    return machine.replica.epoch.number, machine.replica.phase, machine


def chained_commit(record_file: Path, author: bytes, epoch: int) -> bytes | None:
    """key_c of ``author``'s commitment for ``epoch`` in a game record (None: voided)."""
    record = msgpack.unpackb(record_file.read_bytes(), raw=False)
    for item in record["items"]:
        if isinstance(item, bytes):
            env = open_envelope(item)
            if env.author == author and env.round_no == epoch and isinstance(env.body, Commit):
                return env.body.key_c
    return None


def crash_game(tmp_path: Path, peers: list[Peer], seed: int) -> str:
    rng = random.Random(seed)
    port = free_tcp_port()
    net = loopback_net(free_tcp_port())
    records = tmp_path / "records"
    journal = tmp_path / "b2.journal"
    # five dice: a game of a dozen deals, so the kill lands inside it; a 30 s grace, since a
    # table of bots has none and a restart slower than the 4.5 s silence timeout (a loaded
    # machine) was voted out before it was back (whole-suite runs at load 30-44)
    host = Peer("host", host_args("host", tmp_path, 3, "--port", str(port), *net,
                                  "--record", str(records), "-v", "--rule", "starting_dice=5",
                                  "--grace", "30"))
    peers.append(host)
    join = ["--join", f"{LOOPBACK}:{port}", "--bind", LOOPBACK]
    other = Peer("b1", bot_args("b1", tmp_path, *join))
    peers.append(other)
    victim = Peer("b2", bot_args("b2", tmp_path, *join, "--journal", str(journal), "-v"))
    peers.append(victim)
    # loopback games are fast (a deal takes tens of ms): a random deal, then a random moment
    assert victim.wait_line(f"round {rng.randint(1, 4)} resolved", 30), victim.explain()
    time.sleep(rng.uniform(0.0, 0.08))
    victim.kill9()
    epoch, phase, dead = phase_at_death(journal, tmp_path / "b2.id")
    before = jr.read(journal)
    back = Peer("b2", bot_args("b2", tmp_path, "--resume", "--journal", str(journal),
                               "--record", str(tmp_path / "b2rec"), *net))
    peers.append(back)
    honest = [host, other, back]  # this game's peers (``peers`` also holds earlier games')
    codes = [p.finish() for p in honest]
    for code in codes:
        assert code == 0, f"killed at epoch {epoch} {phase.name}\n" + "\n".join(
            p.explain() for p in honest)
    summaries = [p.summary() for p in honest]
    assert len({s["log_hash"] for s in summaries}) == 1, "the table disagrees"
    assert not any("b2 left" in line for line in host.lines), host.explain()
    after = jr.read(journal)
    assert after[: len(before)] == before, "the resumed journal lost or rewrote records"
    if dead.secrets is not None and dead.secrets.epoch == epoch and phase is not EpochPhase.OVER:
        (record_file,) = sorted(records.glob("*.dudo"))
        expected = dead.secrets.commit_body(dead.replica, dead.seat, dead.identity).key_c
        chained = chained_commit(record_file, dead.identity.public_key, epoch)
        assert chained is None or chained == expected, "a commitment other than the journalled one"
    return f"epoch {epoch} {phase.name}"


def test_kill_9_at_random_moments_and_resume_from_the_journal(
    tmp_path: Path, peers: list[Peer], full: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    moments = []
    for game in range(FULL_KILLS if full else CI_KILLS):
        work = tmp_path / f"game{game}"
        work.mkdir()
        moments.append(crash_game(work, peers, seed=game))
        for peer in peers:
            peer.stop()
    with capsys.disabled():
        print(f"\ncrash: {len(moments)} kill -9 + resume, killed at: {', '.join(moments)}")
