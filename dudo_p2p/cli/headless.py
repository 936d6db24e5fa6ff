"""The loop that plays one seat of ``host --headless`` or ``bot`` to the end with a bot, and
prints the ``--json`` summary; with ``--then-watch``, a seat the table removed goes on
watching the game (:func:`~dudo_p2p.cli.watch.keep_watching`). Out of ``cli/common.py``
so that ``common`` (which ``watch`` builds on) does not import ``watch`` back."""

from __future__ import annotations

import argparse
import random
import sys

from dudo_p2p.bots import make_bot
from dudo_p2p.cli.common import Stop, emit_summary, finish, game_exit, progress, write_record
from dudo_p2p.cli.exits import Exit
from dudo_p2p.errors import DudoError
from dudo_p2p.node.node import Node
from dudo_p2p.protocol import names
from dudo_p2p.session.node_session import NodeSession
from dudo_p2p.session.watch_session import seat_to_watch_from


def play_headless(node: Node, args: argparse.Namespace, *, label: str) -> int:
    """Play our seat with a bot of ``args.level`` until the game ends and the others have our
    last entries; print a progress line per round on stderr and the summary on stdout."""
    stop = Stop()
    rng = random.Random(args.seed)
    bot = make_bot(args.level, rng)
    session = NodeSession(node, timer_bot=bot.decide, is_bot=True)
    deadline = node.clock() + args.timeout
    try:
        while not stop.requested and node.clock() < deadline and node.gave_up is None:
            session.wait(0.05)
            for event in session.poll_events():
                progress(label, session, event)
            legal = session.legal_actions()
            if legal:
                session.submit(bot.decide(session.view(), legal))
            if node.settled():
                break
        if args.record is not None:
            write_record(session, args.record)
    except DudoError as exc:
        print(f"{label}: {exc}", file=sys.stderr)
    summary = node.summary()
    code = game_exit(session)
    watch_from = seat_to_watch_from(node) if code is Exit.REMOVED and args.then_watch else None
    table = (node.table_code or "") if session.started else ""  # seated: the genesis code
    session.close()
    if watch_from is not None:  # our key may watch the game it left (protocol.md §4.9)
        # imported here: only a removed --then-watch seat pays the watch modules' start-up
        from dudo_p2p.cli.watch import keep_watching

        summary["watched"] = keep_watching(node.identity, watch_from, table, args, label)
    if node.gave_up is not None:
        print(f"{names.shown(label)}: refused: {node.seeker.why}", file=sys.stderr, flush=True)
        emit_summary({**summary, "outcome": "refused", "refused": node.gave_up.value}, args.json)
        return Exit.REFUSED
    return finish(names.shown(label), session, code, stop.requested, summary, args.json)
