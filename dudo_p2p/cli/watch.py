"""``dudo-p2p watch --join HOST:PORT``: watch a table without a seat, verifying as it goes.

Says ``watch`` to the seat at HOST:PORT, takes the genesis and every seat's signature, then
pulls the log as it grows and checks every item as ``verify`` does (protocol.md §4.9
"Watching"). Prints ``verified to move N`` whenever a round ends, and at the end the log
hash and ``verified``. Exit codes (cli/exits.py): 0 the game ended and all of it verified;
1 an item did not verify (the line names it), or the watch timed out; 5 the seat refused
us (its spectator places are taken, or another table code).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from dudo_p2p.cli import common
from dudo_p2p.cli.exits import Exit


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "watch", help="watch a table without a seat, verifying every entry", description=__doc__
    )
    parser.add_argument("--join", required=True, metavar="HOST:PORT",
                        type=common.parse_host_port, help="the seat to watch from")
    parser.add_argument("--table", default="", metavar="CODE",
                        help="the table code (refused when the seat holds another)")
    parser.add_argument("--timeout", type=float, default=600.0, metavar="S",
                        help="give up after S seconds (default %(default)s)")
    parser.add_argument("--json", action="store_true", help="print the outcome as JSON")
    common.add_net_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from dudo_p2p.session.watch_session import WatchSession  # zmq only for this command

    common.setup_logging(args.verbose)
    identity = common.load_identity(args.identity)
    host, port = args.join
    stop = common.Stop()
    session = WatchSession(identity, host, port, table=args.table, bind=args.bind)
    spectator = session.watcher.spectator
    rounds = 0
    try:
        deadline = session.watcher.clock() + args.timeout
        while not stop.requested and session.watcher.clock() < deadline:
            session.wait(0.05)
            session.poll_events()
            done = session.verified
            if done is not None and session.ready:
                results = len(session.view().state.results)
                if results != rounds:
                    rounds = results
                    if not args.json:
                        print(f"round {rounds}: verified to move {done.moves} "
                              f"({done.items} entries)", flush=True)
            if spectator.finished or spectator.flagged is not None or spectator.refused:
                break
    finally:
        session.close()
    done = spectator.progress()
    if spectator.refused is not None:
        code, line = Exit.REFUSED, f"watch: refused: {spectator.refused.text}"
    elif spectator.flagged is not None:
        code, line = Exit.FAILED, f"watch: NOT verified: {spectator.flagged}"
    elif done is not None and done.finished:
        code, line = Exit.OK, f"log hash {done.head}\nverified"
    else:
        code, line = Exit.FAILED, "watch: timed out before the game ended"
    if args.json:
        print(json.dumps({
            "outcome": code.name.lower(), "verified": code is Exit.OK,
            "log_hash": None if done is None else done.head,
            "moves": 0 if done is None else done.moves,
            "items": 0 if done is None else done.items,
            "flagged": None if spectator.flagged is None else str(spectator.flagged),
            "refused": None if spectator.refused is None else spectator.refused.value,
        }))
    else:
        print(line, file=sys.stdout if code is Exit.OK else sys.stderr)
    return int(code)
