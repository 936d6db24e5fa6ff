"""``dudo-p2p watch --join HOST:PORT`` or ``watch --discover [--table CODE[@FINGERPRINT]]``:
watch a table without a seat, verifying as it goes.

Says ``watch`` to the seat at HOST:PORT (with ``--discover``: the host the LAN beacons show,
of that code and that host key when given; node/watch_find.py), takes the genesis and every
seat's signature, then pulls the log as it grows from every seat in turn and checks every
item as ``verify`` does (protocol.md §4.9 "Watching"). Prints ``verified to move N``
whenever a round ends, and at the end the log hash and ``verified``. Exit codes
(cli/exits.py): 0 the game ended and all of it verified; 1 an item did not verify (the line
names it), or the watch timed out; 5 refused: the seat's spectator places are taken,
another table code, a genesis whose host is not the key chosen, no table of that code on
the LAN, or several and none chosen (each named ``CODE@FINGERPRINT``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dudo_p2p.cli import common
from dudo_p2p.cli.exits import Exit
from dudo_p2p.consensus.watch_spectator import Verified
from dudo_p2p.crypto.identity import Identity, KeyPin
from dudo_p2p.errors import InvalidValue
from dudo_p2p.node.watch_find import Found, NotFound
from dudo_p2p.protocol.refusals import RefusalReason

if TYPE_CHECKING:
    from dudo_p2p.session.watch_session import WatchSession


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "watch", help="watch a table without a seat, verifying every entry", description=__doc__
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--join", metavar="HOST:PORT", type=common.parse_host_port,
                       help="the seat to watch from")
    where.add_argument("--discover", action="store_true",
                       help="the table the LAN beacons show (of --table, if given)")
    parser.add_argument("--table", default=None, metavar="CODE[@FINGERPRINT]",
                        help="the table code, and its host's key fingerprint (refused when "
                             "the seat holds another table, or the host has another key)")
    parser.add_argument("--wait", type=float, default=5.0, metavar="S",
                        help="with --discover: listen this long for the table's beacon "
                             "(default %(default)s)")
    parser.add_argument("--timeout", type=float, default=600.0, metavar="S",
                        help="give up after S seconds (default %(default)s)")
    parser.add_argument("--json", action="store_true",
                        help='last line: {"outcome", "verified", "log_hash", "moves", '
                             '"items", "flagged", "refused"} (outcome: ok, failed, refused, '
                             'as the exit code)')
    common.add_net_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from dudo_p2p.session.watch_session import WatchSession  # zmq only for this command

    common.setup_logging(args.verbose)
    try:
        table, pin = common.parse_table(args.table, None)
    except InvalidValue as exc:
        print(f"watch: {exc}", file=sys.stderr)
        return int(Exit.USAGE)
    if args.discover:
        try:
            found = _discover(args, table, pin)
        except NotFound as exc:
            return _refused(args, exc.reason, f"watch: refused: {exc}")
        print(f"watching {found}", file=sys.stderr, flush=True)
        host, port, table = found.host, found.port, found.code
    else:
        host, port = args.join
    identity = common.load_identity(args.identity)
    session = WatchSession(identity, host, port, table=table or "", pin=pin, bind=args.bind)
    print(f"watch: waiting for the table at {host}:{port} (our link port "
          f"{session.watcher.links.port})", file=sys.stderr, flush=True)
    # the round lines with --json too: the JSON line comes last, as every --json says
    code, line = watch_to_the_end(session, args.timeout, _say)
    spectator = session.watcher.spectator
    done = spectator.progress()
    if args.json:
        _print_json(code, done, spectator.flagged, spectator.refused)
    else:
        print(line, file=sys.stdout if code is Exit.OK else sys.stderr)
    return int(code)


def watch_to_the_end(
    session: WatchSession, timeout: float, say: Callable[[str], None] | None,
) -> tuple[Exit, str]:
    """Drive ``session`` until the verified log ends the game, an item is flagged, we are
    refused, ``timeout`` s passed or a signal came; ``say`` gets "round N: verified to move
    M (K entries)" as rounds end. Closes the session; returns the exit code and its line."""
    stop = common.Stop()
    spectator = session.watcher.spectator
    rounds, items = 0, -1
    try:
        deadline = session.watcher.clock() + timeout
        while not stop.requested and session.watcher.clock() < deadline:
            session.wait(0.25)  # or less: the watcher wakes for a frame or what falls due
            session.poll_events()
            done = session.verified
            if done is not None and done.items != items and session.ready:
                items = done.items
                results = len(session.view().state.results)
                if results != rounds:
                    rounds = results
                    if say is not None:
                        say(f"round {rounds}: verified to move {done.moves} "
                            f"({done.items} entries)")
            if spectator.finished or spectator.flagged is not None or spectator.refused:
                break
    finally:
        session.close()
    done = spectator.progress()
    if spectator.refused is not None:
        return Exit.REFUSED, f"watch: refused: {spectator.refused.text}"
    if spectator.flagged is not None:
        return Exit.FAILED, f"watch: NOT verified: {spectator.flagged}"
    if done is not None and done.finished:
        return Exit.OK, f"log hash {done.head}\nverified"
    return Exit.FAILED, ("watch: timed out before the game ended "
                         f"({0 if done is None else done.items} items verified, "
                         f"{len(spectator.rotation.enlisted)} seats enlisted at)")


def keep_watching(identity: Identity, address: tuple[str, int], table: str,
                  args: argparse.Namespace, label: str) -> dict[str, Any]:
    """A seat the table removed watches the rest of its game with its own key from the seat
    at ``address`` (``bot``/``host --then-watch``); its lines go to stderr under ``label``.
    Returns what the summary's ``watched`` says: outcome, verified, log_hash, moves."""
    from dudo_p2p.session.watch_session import WatchSession  # zmq only for this command

    host, port = address
    print(f"{label}: watching the rest of the game from {host}:{port}", file=sys.stderr,
          flush=True)
    session = WatchSession(identity, host, port, table=table, bind=args.bind)
    code, line = watch_to_the_end(
        session, args.timeout,
        lambda text: print(f"{label}: {text}", file=sys.stderr, flush=True))
    for text in line.splitlines():
        print(f"{label}: {text}", file=sys.stderr, flush=True)
    done = session.watcher.spectator.progress()
    return {"outcome": code.name.lower(), "verified": code is Exit.OK,
            "log_hash": None if done is None else done.head,
            "moves": 0 if done is None else done.moves}


def _say(line: str) -> None:
    print(line, flush=True)


def _discover(args: argparse.Namespace, table: str | None, pin: KeyPin | None) -> Found:
    """The table the beacons show (node/watch_find.py); NotFound when none or several."""
    from dudo_p2p.net.discovery import Discovery
    from dudo_p2p.node.watch_find import find_table  # sockets only for this command

    try:
        discovery = Discovery(args.beacon_port, broadcast_addresses=args.broadcast)
    except OSError as exc:
        raise NotFound(RefusalReason.NO_OPEN_TABLE, [f"cannot listen for beacons: {exc}"]) \
            from None
    with discovery:
        return find_table(discovery, table, pin, args.wait)


def _refused(args: argparse.Namespace, reason: RefusalReason, line: str) -> int:
    if args.json:
        _print_json(Exit.REFUSED, None, None, reason)
    else:
        print(line, file=sys.stderr)
    return int(Exit.REFUSED)


def _print_json(code: Exit, done: Verified | None, flagged: object, refused:
                RefusalReason | None) -> None:
    print(json.dumps({
        "outcome": code.name.lower(), "verified": code is Exit.OK,
        "log_hash": None if done is None else done.head,
        "moves": 0 if done is None else done.moves,
        "items": 0 if done is None else done.items,
        "flagged": None if flagged is None else str(flagged),
        "refused": None if refused is None else refused.value,
    }))
