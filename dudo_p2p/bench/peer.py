"""A headless peer that reports when things happen: ``python -m dudo_p2p.bench.peer``.

It plays one seat exactly as ``dudo-p2p bot`` does (a ``Node`` behind a ``NodeSession``, an
easy bot by default, links on 127.0.0.1, a fsynced journal), through the public session API
only, so the node's hot path carries no bench code. It prints, flushed, one line per fact on
stdout, each stamped with ``time.monotonic()`` (CLOCK_MONOTONIC: one clock for every process
on Linux, so the bench can subtract one peer's stamp from another's)::

    port PORT                     (host only: join us at 127.0.0.1:PORT)
    seated T SEAT
    submit T INDEX KIND ACTION    (we submitted our INDEX-th action of the game)
    taken T INDEX KIND ACTION     (the table agreed on its INDEX-th action: ActionTaken)
    left T SEAT REASON            (PlayerLeft)
    over T WINNER
    links JSON                    (the link counters at the end: frames sent, refused...)
    done T RSS_MB CPU_S           (our peak resident memory, and the CPU seconds we used
                                   since the game was seated, at the end)

INDEX counts ``ActionTaken`` events from 0; every peer sees the same sequence, and a bot only
acts after it has seen the previous action agreed, so the submitter's INDEX names the same
action as the others' INDEX (the bench also compares ACTION). ``taken`` is stamped as soon as
``NodeSession.wait`` returns, which it does right after the node step that emitted the event.

``--pace S`` waits S seconds (while running the node) before each of our actions, as a person
would: the table is quiet when a bid starts, so its latency is not that of a table still busy
with the previous bid. The peer stops when the game is over and settled, when its stdin
closes, or after ``--timeout``. With ``--profile FILE`` the game is run under cProfile and
the stats are written to FILE (for ``python -m pstats FILE``); ``--profile-clock cpu`` times
the main thread's CPU (``time.thread_time``) instead of the wall clock, so a call that waits
(``poll``, or a ``send`` during which the 2-core machine ran someone else) costs what it
burns, not how long it took.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import select
import sys
import time
from collections.abc import Container
from pathlib import Path

from dudo_p2p.bench.procs import peak_rss_mb
from dudo_p2p.bots import make_bot
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.node import keystore
from dudo_p2p.node.config import NetConfig
from dudo_p2p.node.node import Node
from dudo_p2p.rules import RuleSet
from dudo_p2p.session import (
    ActionTaken,
    GameOver,
    GameStarted,
    PlayerLeft,
    SeatDisconnected,
)
from dudo_p2p.session.node_session import NodeSession

LOOPBACK = "127.0.0.1"


def say(*parts: object) -> None:
    print(*parts, flush=True)


def _stdin_closed() -> bool:
    readable, _, _ = select.select([sys.stdin], [], [], 0)
    return bool(readable) and not os.read(sys.stdin.fileno(), 4096)


class QueuedTo:
    """Frames our links queued, by the key they went to (the bench's own wrapper of
    ``Links.send``, in this process only): what a seat sent the other seats, apart from
    what it sent spectators, counted as the wire saw it. (The desk counts the frames it
    meant for spectators; some of those a young or full link drops, so the links' total
    minus the desk's count under-counted the seats' frames when spectators were there.)"""

    def __init__(self, node: Node) -> None:
        self.counts: dict[bytes, int] = {}
        links = node.links
        send = links.send

        def counted(peer_id: bytes, frame: bytes) -> bool:
            queued = send(peer_id, frame)
            if queued:
                self.counts[peer_id] = self.counts.get(peer_id, 0) + 1
            return queued

        links.send = counted  # type: ignore[method-assign]

    def to(self, keys: Container[bytes]) -> int:
        """Frames queued to any of ``keys``."""
        return sum(n for key, n in self.counts.items() if key in keys)


def build_node(args: argparse.Namespace) -> Node:
    identity = (keystore.load_or_create(Path(args.identity)) if args.identity
                else Identity.generate())
    net = NetConfig(bind=LOOPBACK, discovery=False)
    journal = Path(args.journal) if args.journal else None
    if args.resume:
        assert journal is not None, "--resume needs --journal"
        return Node.resume(identity, args.name, net, journal)
    if args.join is None:
        return Node.host(identity, args.name, net, seats=args.players, rules=RuleSet(),
                         turn_timer_ms=int(args.turn_timer * 1000), journal_path=journal)
    return Node.join(identity, args.name, net, addresses=[(LOOPBACK, args.join)],
                     discover=False, journal_path=journal)


def play(node: Node, args: argparse.Namespace) -> None:
    bot = make_bot(args.level, random.Random(args.seed))
    session = NodeSession(node, timer_bot=bot.decide, is_bot=True)
    queued = QueuedTo(node)
    deadline = time.monotonic() + args.timeout
    taken = 0
    cpu_seated = time.process_time()
    act_at: float | None = None  # when our paced action goes out
    try:
        while time.monotonic() < deadline and not _stdin_closed():
            wait = 0.05 if act_at is None else max(0.0, min(0.05, act_at - time.monotonic()))
            session.wait(wait)
            now = time.monotonic()
            for event in session.poll_events():
                match event:
                    case GameStarted():
                        cpu_seated = time.process_time()
                        say("seated", repr(now), session.seat)
                    case ActionTaken(action=action):
                        say("taken", repr(now), taken, type(action).__name__, action)
                        taken += 1
                    case PlayerLeft(seat=seat, reason=reason):
                        say("left", repr(now), seat, reason)
                    case SeatDisconnected(seat=seat):
                        say("away", repr(now), seat)
                    case GameOver(winner=winner):
                        say("over", repr(now), winner)
                    case _:
                        pass
            legal = session.legal_actions()
            if not legal:
                act_at = None
            elif act_at is None and args.pace > 0:
                act_at = now + args.pace
            elif act_at is None or now >= act_at - 0.001:  # the node's poll has ms steps
                action = bot.decide(session.view(), legal)
                submitted = time.monotonic()
                session.submit(action)
                say("submit", repr(submitted), taken, type(action).__name__, action)
                act_at = None
            if node.settled():
                break
    finally:
        # frames to spectators counted apart: the bench compares what seats send each other
        # and what spectators cost us, counted: frames taken from them, steps that took
        # theirs and no other frame, replies signed for them (watch_desk.py)
        desk = node.desk
        seats = set(node.machine.seating.pubs) if node.machine is not None else set()
        say("links", json.dumps({**node.links.stats, "to_spectators": desk.sent,
                                 "to_seats": queued.to(seats),
                                 "to_others": sum(queued.counts.values()) - queued.to(seats),
                                 "from_spectators": desk.received,
                                 "spectator_steps": desk.steps,
                                 "spectator_signed": desk.signed}))
        session.close()
        say("done", repr(time.monotonic()), peak_rss_mb(os.getpid()) or 0.0,
            f"{time.process_time() - cpu_seated:.3f}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m dudo_p2p.bench.peer")
    parser.add_argument("--players", type=int, default=6, help="seats (host only)")
    parser.add_argument("--join", type=int, default=None, metavar="PORT",
                        help="join the host at 127.0.0.1:PORT (default: host a table)")
    parser.add_argument("--name", default="peer")
    parser.add_argument("--level", default="easy")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--pace", type=float, default=0.0, metavar="S")
    parser.add_argument("--turn-timer", type=float, default=60.0, metavar="S")
    parser.add_argument("--journal", default=None, metavar="PATH")
    parser.add_argument("--identity", default=None, metavar="PATH",
                        help="keep the identity in PATH (a restart with --resume needs it)")
    parser.add_argument("--resume", action="store_true", help="restart from --journal")
    parser.add_argument("--timeout", type=float, default=120.0, metavar="S")
    parser.add_argument("--profile", default=None, metavar="FILE")
    parser.add_argument("--profile-clock", choices=("wall", "cpu"), default="wall")
    args = parser.parse_args(argv)
    node = build_node(args)
    if args.join is None and not args.resume:
        say("port", node.port)
    if args.profile is None:
        play(node, args)
        return 0
    import cProfile

    clock = time.thread_time if args.profile_clock == "cpu" else time.perf_counter
    with cProfile.Profile(clock) as profile:
        play(node, args)
    profile.dump_stats(args.profile)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
