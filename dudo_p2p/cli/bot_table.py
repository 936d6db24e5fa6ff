"""``start_bot_table``: the UI's "play against N bots" over the real stack, on loopback.

The human's seat is a :class:`~dudo_p2p.session.node_session.NodeSession` over a table hosted
in this process on 127.0.0.1 (no beacons: nobody else needs to find it); each bot is its own
``python -m dudo_p2p bot --join 127.0.0.1:PORT`` process with a throwaway identity, so the
game runs exactly as on a LAN (signed log, fair dice, journals). The bot processes are
terminated when the session is closed.

It lives in ``cli``, above the session: it spawns processes and makes the bot that plays our
timed-out turns, and the session layer imports no bots. The lobby's "create a table" reuses
:func:`spawn_bot_peers` to fill seats of a LAN table.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from dudo_p2p import paths
from dudo_p2p.bots import make_bot
from dudo_p2p.consensus.presence import HUMAN_GRACE
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.errors import InvalidValue
from dudo_p2p.node.config import NetConfig
from dudo_p2p.node.node import Node
from dudo_p2p.rules import RuleSet
from dudo_p2p.session.node_session import NodeSession
from dudo_p2p.session.pacing import THINK_S

LOOPBACK = "127.0.0.1"
STOP_WAIT = 3.0  # seconds a bot process gets to leave after SIGTERM before SIGKILL
THINK = f"{THINK_S[0]:g}-{THINK_S[1]:g}"  # a bot at a person's table thinks this long
AGAIN_WAIT_S = 600  # ... and waits this long for the next table of the evening


def start_bot_table(
    n_bots: int,
    rules: RuleSet,
    level: str,
    *,
    name: str = "Jugador",
    turn_timer_s: float = 60.0,
    identity: Identity | None = None,
    bot_names: tuple[str, ...] = ("Ana", "Bruno", "Carmen", "Diego", "Elena"),
) -> NodeSession:
    """Host a table of ``n_bots + 1`` seats (ours is seat 0) and start the bot processes.

    Returns at once: the game starts when every bot has joined (``session.started``, then a
    ``GameStarted`` event), usually within a second; keep calling ``session.wait``. The
    session's ``close()`` leaves the table and stops the bots. Raises ``InvalidValue`` for
    a bad ``n_bots`` (1..5).
    """
    if not 1 <= n_bots <= 5:
        raise InvalidValue(f"a bot table has 1 to 5 bots, not {n_bots}")
    node = Node.host(
        identity or Identity.generate(), name, NetConfig(bind=LOOPBACK, discovery=False),
        seats=n_bots + 1, rules=rules, turn_timer_ms=int(turn_timer_s * 1000),
        grace_ms=int(HUMAN_GRACE * 1000), journal_dir=paths.journal_dir(),  # a person plays
    )
    pace, forget = pace_dir()
    stop_bots = spawn_bot_peers(n_bots, level, node.port, names=bot_names, pace=pace)
    timer_bot = make_bot(level, random.Random(node.rng.getrandbits(64)))
    return NodeSession(node, timer_bot=timer_bot.decide, hurry_dir=pace,
                       on_close=[stop_bots, forget])


def pace_dir() -> tuple[Path, Callable[[], None]]:
    """A fresh directory for paced bots' "skip to the end" files, and what removes it."""
    pace = Path(tempfile.mkdtemp(prefix="dudo-pace-"))
    return pace, lambda: shutil.rmtree(pace, ignore_errors=True)


def spawn_bot_peers(
    n: int, level: str, port: int, *, names: tuple[str, ...] = ("Ana", "Bruno", "Carmen",
                                                                  "Diego", "Elena"),
    bind: str = LOOPBACK,
    pace: Path | None = None,
) -> Callable[[], None]:
    """Start ``n`` bot peer processes that join the table at 127.0.0.1:``port``, each with a
    throwaway identity and its link port bound to ``bind``: the host's own bind address at
    a table friends join from other machines (they link to every seat, bots included;
    bound to loopback, no friend could reach them); returns the function that stops them
    (SIGTERM, then SIGKILL).

    ``pace``: a person plays at this table: the bots think :data:`THINK` seconds per
    decision (``--think``; "skip to the end" is a file in ``pace`` named by the game id,
    ``--hurry-dir``) and stay for one more game with the same table (``--again``)."""
    work = tempfile.TemporaryDirectory(prefix="dudo-bots-")
    procs: list[subprocess.Popen[bytes]] = []
    paced = [] if pace is None else ["--think", THINK, "--hurry-dir", str(pace),
                                     "--again", str(AGAIN_WAIT_S)]
    for i in range(n):
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "dudo_p2p", "bot", "--join", f"{LOOPBACK}:{port}",
             "--level", level, "--name", names[i % len(names)],
             "--identity", str(Path(work.name) / f"bot{i}"), "--bind", bind,
             "--journal", str(Path(work.name) / f"bot{i}.journal"),
             "--timeout", "7200", *paced],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        ))

    def stop_bots() -> None:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=STOP_WAIT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        work.cleanup()

    return stop_bots
