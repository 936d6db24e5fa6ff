"""What ``host``, ``bot``, ``tables`` and ``sim`` share: network options, identities, logging,
and the end of a game: its exit code, why it ended, its progress lines and the ``--json``
summary (the loop that plays a seat is :mod:`~dudo_p2p.cli.headless`).

Network options (every command that opens sockets): ``--identity PATH`` (default
:func:`~dudo_p2p.node.keystore.default_identity_path`), ``--beacon-port`` (47474),
``--bind`` (address of the link port, default 0.0.0.0), ``--port`` (link port, 0: the OS
picks), ``--broadcast ADDR`` (repeatable: beacon only there instead of every interface),
``-v`` (info; ``-vv`` debug). Exit codes (:mod:`~dudo_p2p.cli.exits`): 0 the game finished,
1 it did not (timed out, interrupted), 2 bad arguments or files, 3 the table removed us, 4 the
table is gone (no seat heard), 5 the table refused us, 6 the game was abandoned (two seats
left and one went silent: no winner); ``--json`` names the same outcome.
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

from dudo_p2p import paths
from dudo_p2p.bots import LEVELS
from dudo_p2p.cli.exits import Exit
from dudo_p2p.consensus.reasons import Outcome
from dudo_p2p.crypto.identity import Identity, KeyPin, fingerprint
from dudo_p2p.errors import InvalidValue
from dudo_p2p.net.beacon import is_table_code
from dudo_p2p.net.discovery import DEFAULT_BEACON_PORT
from dudo_p2p.node import journal as jr
from dudo_p2p.node import keystore
from dudo_p2p.node.config import NetConfig
from dudo_p2p.node.node import Node
from dudo_p2p.protocol import names
from dudo_p2p.rules import RuleSet
from dudo_p2p.session import (
    Ending,
    GameOver,
    PlayerLeft,
    RoundResolved,
    SeatDisconnected,
    SeatReconnected,
)
from dudo_p2p.session.node_session import NodeSession
from dudo_p2p.session.pacing import parse_think

DEFAULT_TIMEOUT = 900.0  # seconds: a headless peer gives up rather than hang for ever


def add_net_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--identity", type=Path, default=None, metavar="PATH",
                        help="identity file (default: identity in the user data directory, "
                             "e.g. ~/.local/share/dudo-p2p/ on Linux)")
    parser.add_argument("--beacon-port", type=int, default=DEFAULT_BEACON_PORT, metavar="P",
                        help="UDP port of the discovery beacons (default %(default)s)")
    parser.add_argument("--bind", default="0.0.0.0", metavar="ADDR",
                        help="address the link port binds (default %(default)s)")
    parser.add_argument("--port", type=int, default=0, metavar="P",
                        help="TCP link port (default 0: the OS picks)")
    parser.add_argument("--broadcast", action="append", default=None, metavar="ADDR",
                        help="send beacons only to ADDR (repeatable; default: the broadcast "
                             "address of every interface and 127.255.255.255)")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="log more (-v info, -vv debug) on stderr")


def add_game_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--level", default="normal", choices=LEVELS,
                        help="bot level of a headless seat (default %(default)s)")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the bot's choices (dice always come from os.urandom)")
    parser.add_argument("--journal", type=Path, default=None, metavar="PATH",
                        help="journal file: the log and our round keys, fsynced, for --resume "
                             "(default: one per game in the data directory's journals/, "
                             "deleted when the game ends)")
    parser.add_argument("--resume", action="store_true",
                        help="restart a crashed peer with the same --identity from --journal "
                             "(default: the latest journal of a game with a seat of ours)")
    parser.add_argument("--record", type=Path, default=None, metavar="DIR",
                        help="write the game record (dudo-p2p verify FILE) into DIR")
    parser.add_argument("--json", action="store_true",
                        help='last line: {"winner", "log_hash", "rounds", "seconds", '
                             '"outcome"} (outcome: ok, failed, removed, table_gone, refused, '
                             'abandoned, as the exit code); with --then-watch and removed, '
                             'also "watched": {"outcome", "verified", "log_hash", "moves"}')
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="S",
                        help="give up after S seconds (default %(default)s)")
    parser.add_argument("--name", default=None, help="display name (default from the key)")
    parser.add_argument("--then-watch", action="store_true",
                        help="when the table removes us, watch the rest of the game as a "
                             "spectator (verifying it) before exiting 3")
    parser.add_argument("--again", type=float, default=None, metavar="S",
                        help="after a won game, play one more with the same table when one "
                             "opens within S seconds (protocol.md §4.9 \"One more game\"); "
                             "the summary is the last game's")
    parser.add_argument("--games", type=int, default=None, metavar="N",
                        help="with --again: stop after N games (default: while a table opens)")
    parser.set_defaults(host_again=False)  # `host` opens the next table itself
    parser.add_argument("--think", type=parse_think, default=None, metavar="LO-HI",
                        help="think LO to HI seconds before each decision (a person watches; "
                             "drawn from --seed's RNG); default: act at once")
    parser.add_argument("--hurry-dir", type=Path, default=None, metavar="DIR",
                        help="with --think: stop thinking in a game once DIR holds a file "
                             "named by its game id in hex (the player's \"skip to the end\")")


def setup_logging(verbose: int) -> None:
    level = logging.WARNING if verbose <= 0 else logging.INFO if verbose == 1 else logging.DEBUG
    logging.basicConfig(level=level, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def load_identity(path: Path | None) -> Identity:
    return keystore.load_or_create(path or keystore.default_identity_path())


def net_config(args: argparse.Namespace, *, discovery: bool = True) -> NetConfig:
    return NetConfig(bind=args.bind, port=args.port, beacon_port=args.beacon_port,
                     broadcast=args.broadcast, discovery=discovery)


def parse_table(code: str | None, host_key: str | None) -> tuple[str | None, KeyPin | None]:
    """``--table CODE[@FINGERPRINT]`` and ``--host-key KEY`` as (code, pin); InvalidValue
    for a bad code, a bad key, or two keys that disagree."""
    pin = KeyPin.parse(host_key) if host_key is not None else None
    if code is None:
        return None, pin
    code, _, fp = code.partition("@")
    code = code.strip().upper()
    if not is_table_code(code):
        raise InvalidValue(f"bad table code {code!r}")
    if fp:
        in_code = KeyPin.parse(fp)
        if pin is not None and str(pin) != str(in_code):
            raise InvalidValue(f"--table says host {in_code}, --host-key says {pin}")
        pin = pin or in_code
    return code, pin


def default_name(identity: Identity, prefix: str) -> str:
    return f"{prefix}-{fingerprint(identity.public_key)[:4]}"


def parse_rules(options: list[str]) -> RuleSet:
    return RuleSet.parse_options(options)


def parse_host_port(text: str) -> tuple[str, int]:
    """``"HOST:PORT"`` as a pair (argparse turns the ValueError into a usage message)."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 1 <= int(port) <= 0xFFFF:
        raise ValueError(text)
    return host, int(port)


class Stop:
    """SIGTERM/SIGINT set a flag the loops read, so sockets and the journal close cleanly."""

    def __init__(self) -> None:
        self.requested = False
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)

    def _on_signal(self, _signum: int, _frame: FrameType | None) -> None:
        self.requested = True


def open_node(
    args: argparse.Namespace, identity: Identity, name: str, net: NetConfig, label: str,
    make: Callable[[Path | None], Node],
) -> Node | None:
    """The node of a ``host``/``bot`` command: resumed from a journal (``--resume``: the one
    given, else the latest of a game where ``identity`` sits), or made by ``make(dir)``,
    which journals into ``dir`` unless ``--journal`` names a file. None (and a line on
    stderr) when there is nothing to resume."""
    directory = paths.journal_dir()
    if args.resume:
        journal = args.journal or jr.find_resumable(directory, identity)
        if journal is None:
            print(f"{label}: --resume: no journal of a game with a seat of ours in "
                  f"{directory}", file=sys.stderr)
            return None
        node = Node.resume(identity, name, net, journal)
        if args.journal is None:
            node.journal.auto = journal  # ours to delete once the game is over
        return node
    return make(None if args.journal is not None else directory)


def game_exit(session: NodeSession) -> Exit:
    """How the game ended for us, as the exit code (the ``--json`` ``outcome``)."""
    end = session.ending()
    if end.outcome is None:
        return Exit.REFUSED if end.refused else Exit.FAILED
    return {
        Outcome.FINISHED: Exit.OK, Outcome.REMOVED: Exit.REMOVED,
        Outcome.ABANDONED: Exit.ABANDONED, Outcome.TABLE_GONE: Exit.TABLE_GONE,
    }.get(end.outcome, Exit.FAILED)


def ending(session: NodeSession, code: Exit, interrupted: bool) -> str | None:
    """The line that says why the game ended without a result for us (None when it did)."""
    end = session.ending()
    seated = [names.shown(n) for n in end.names]
    played = end.outcome is not None
    match code:
        case Exit.OK:
            return None
        case Exit.REMOVED if played:
            return f"the table removed us ({end.removed_for})"
        case Exit.TABLE_GONE if played:
            return gone_line(end, seated)
        case Exit.ABANDONED if played and end.abandoned_by == end.seat and end.other is not None:
            return (f"game abandoned: two seats were left and {seated[end.other]} claimed we "
                    "went silent or stalled; nobody wins")
        case Exit.ABANDONED if played and end.abandoned_by is not None:
            return (f"game abandoned: two seats were left and {seated[end.abandoned_by]} "
                    "went silent or stalled; nobody wins")
        case Exit.REFUSED:
            return f"the table refused us: {'; '.join(end.refused)}"
    why = "interrupted" if interrupted else "timed out"
    return f"game not finished ({why})"


def gone_line(end: Ending, seated: list[str]) -> str:
    """Why the table is gone for us, true to the case that fired (``end.gone.why``): only
    when nobody was heard may the table be gone or our network down; otherwise we heard
    seats, too few of them (or stuck behind our log) to vote the silent ones out."""
    gone = end.gone
    silent = ", ".join(seated[s] for s in gone.silent if s < len(seated))
    behind = ", ".join(seated[s] for s in gone.behind if s < len(seated))
    after = f"{end.silent_after:.0f} s"
    if gone.why == "too-few":
        return (f"{silent} not heard for {after}, and too few seats are heard to vote them "
                "out: the game cannot go on")
    if gone.why == "behind":
        return (f"{silent} not heard for {after}, and {behind} is heard but stuck behind "
                "our log, so nobody can vote them out: the game cannot go on")
    return f"no seat heard for {after}: the table is gone (or this machine's network is down)"


def finish(
    label: str, session: NodeSession, code: Exit, interrupted: bool, summary: dict[str, Any],
    as_json: bool,
) -> int:
    """Say why the game ended without a result (stderr), print the summary with its
    ``outcome`` (stdout), and return the exit code."""
    line = ending(session, code, interrupted)
    if line is not None:
        print(f"{label}: {line}", file=sys.stderr, flush=True)
    emit_summary({**summary, "outcome": code.name.lower()}, as_json)
    return int(code)


def progress(label: str, session: NodeSession, event: Any) -> None:
    """One line per round (and per departure) on stderr, for long runs."""
    # Names are clean since the genesis check, and escaped again here: nothing a peer chose
    # reaches the terminal raw (protocol/names.py).
    seated = [names.shown(p.name) for p in session.players()]
    label = names.shown(label)
    if isinstance(event, RoundResolved):
        state = session.public_state()
        counts = state.dice_counts if state is not None else ()
        print(f"{label}: round {len(state.results) if state is not None else '?'} "
              f"resolved; dice {list(counts)}", file=sys.stderr, flush=True)
    elif isinstance(event, PlayerLeft):
        who = seated[event.seat] if event.seat < len(seated) else event.seat
        print(f"{label}: {who} left ({event.reason})", file=sys.stderr, flush=True)
    elif isinstance(event, GameOver):
        who = seated[event.winner] if event.winner < len(seated) else event.winner
        print(f"{label}: game over, {who} wins", file=sys.stderr, flush=True)
    elif isinstance(event, SeatDisconnected):
        left = max(0.0, event.until - session.now())
        print(f"{label}: {seated[event.seat]}: disconnected, {left:.0f} s to come back",
              file=sys.stderr, flush=True)
    elif isinstance(event, SeatReconnected):
        print(f"{label}: {seated[event.seat]}: back", file=sys.stderr, flush=True)


def write_record(session: NodeSession, directory: Path) -> Path | None:
    """Write the game record (``dudo-p2p verify`` reads it) into ``directory``."""
    record = session.record()
    if record is None:
        return None
    name, data = record
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_bytes(data)
    return path


def emit_summary(summary: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(summary), flush=True)
    elif summary.get("winner") is not None:
        print(f"winner {summary['winner']} after {summary['rounds']} rounds "
              f"({summary['seconds']} s); log {summary['log_hash']}", flush=True)
