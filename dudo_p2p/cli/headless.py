"""The loop that plays one seat of ``host --headless`` or ``bot`` to the end with a bot, and
prints the ``--json`` summary; with ``--then-watch``, a seat the table removed goes on
watching the game (:func:`~dudo_p2p.cli.watch.keep_watching`). Out of ``cli/common.py``
so that ``common`` (which ``watch`` builds on) does not import ``watch`` back."""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from dudo_p2p.bots import make_bot
from dudo_p2p.cli.common import Stop, emit_summary, finish, game_exit, progress, write_record
from dudo_p2p.cli.exits import Exit
from dudo_p2p.errors import DudoError
from dudo_p2p.node.node import Node
from dudo_p2p.protocol import names
from dudo_p2p.rules import Action, SeatView
from dudo_p2p.session import RoundResolved
from dudo_p2p.session.again import AgainSession
from dudo_p2p.session.node_session import NodeSession
from dudo_p2p.session.pacing import Pacer
from dudo_p2p.session.watch_session import seat_to_watch_from


def play_headless(node: Node, args: argparse.Namespace, *, label: str) -> int:
    """Play our seat with a bot of ``args.level`` until the game ends and the others have our
    last entries (with ``--again``, then the next games of the table); print a progress line
    per round on stderr and the summary on stdout."""
    stop = Stop()
    rng = random.Random(args.seed)
    bot = make_bot(args.level, rng)
    pacer = Pacer(random.Random(rng.getrandbits(64)), args.think) if args.think else None
    seat = NodeSession(node, timer_bot=bot.decide, is_bot=True)  # the game being played
    session: NodeSession | AgainSession = seat  # later: one more game (--again)
    deadline = node.clock() + args.timeout
    follow_until: float | None = None  # --again: when we stop waiting for the next table
    games = 1
    try:
        while not stop.requested and node.clock() < deadline and node.gave_up is None:
            session.wait(0.05)
            for event in session.poll_events():
                progress(label, seat, event)
                if pacer is not None and isinstance(event, RoundResolved):
                    pacer.revealed()
            legal = session.legal_actions()
            if legal and paced(pacer, session.view(), legal, node.clock(),
                               hurry_file(args.hurry_dir, node)):
                session.submit(bot.decide(session.view(), legal))
            if isinstance(session, AgainSession):
                if not session.started:  # waiting for the next table to open and fill
                    if session.no_next_game or node.clock() > (follow_until or deadline):
                        break
                    continue
                node = session.node_now()
                if isinstance(session.current, NodeSession):  # the one it built: ours
                    seat = session.current
            if node.settled():
                if args.record is not None:
                    write_record(seat, args.record)
                more = args.again is not None and (args.games is None or games < args.games)
                nxt = session.one_more(host=args.host_again) if more else None
                if not isinstance(nxt, AgainSession):
                    break
                games += 1
                session, follow_until = nxt, node.clock() + float(args.again)
                pacer = Pacer(pacer.rng, pacer.think) if pacer is not None else None
    except DudoError as exc:
        print(f"{label}: {exc}", file=sys.stderr)
    summary = node.summary()
    code = game_exit(seat)
    watch_from = seat_to_watch_from(node) if code is Exit.REMOVED and args.then_watch else None
    table = (node.table_code or "") if seat.started else ""  # seated: the genesis code
    session.close()
    if watch_from is not None:  # our key may watch the game it left (protocol.md §4.9)
        # imported here: only a removed --then-watch seat pays the watch modules' start-up
        from dudo_p2p.cli.watch import keep_watching

        summary["watched"] = keep_watching(node.identity, watch_from, table, args, label)
    if node.gave_up is not None:
        print(f"{names.shown(label)}: refused: {node.seeker.why}", file=sys.stderr, flush=True)
        emit_summary({**summary, "outcome": "refused", "refused": node.gave_up.value}, args.json)
        return Exit.REFUSED
    return finish(names.shown(label), seat, code, stop.requested, summary, args.json)


def hurry_file(directory: Path | None, node: Node) -> Path | None:
    """The file whose existence hurries our bot in the game ``node`` plays (None: none)."""
    if directory is None or node.seated is None:
        return None
    return directory / node.seated.seating.game_id.hex()


def paced(pacer: Pacer | None, view: SeatView, legal: list[Action], now: float,
          hurry: Path | None) -> bool:
    """May the bot act now? Always without a pacer; with one, once the decision's think
    time passed, or at once when the player asked to hurry (``hurry`` exists)."""
    if pacer is None:
        return True
    if hurry is not None and not pacer.hurried and hurry.exists():
        pacer.hurry()
    return pacer.ready((view.round_no, len(view.state.bids), tuple(legal)), now)
