"""``dudo-p2p play``: the table window, wired to the real network and the real bots.

The UI (``dudo_p2p.ui``) knows only sessions; this module gives it:

- a session factory: "play against N bots" hosts a table on loopback and starts N bot peer
  processes (:func:`~dudo_p2p.cli.bot_table.start_bot_table`); "create" hosts a table on
  the LAN (beacons on every interface) and fills the chosen number of seats with bot peers,
  leaving the rest for players who join; "join" sits at the table at ``host:port``, or at
  the one the LAN beacons show under a typed ``CODE[@FINGERPRINT]``;
  "hot-seat" is the in-process table (nobody else on the network);
- a directory of the tables seen on the LAN, from the discovery beacons (cli/lan_list.py).

Our identity is the user's (``--identity``, default in the data directory), so friends see
the same fingerprint beside our name every evening.
"""

from __future__ import annotations

import argparse
import os
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dudo_p2p import paths
from dudo_p2p.bots import make_bot
from dudo_p2p.cli import common
from dudo_p2p.cli.bot_table import pace_dir, spawn_bot_peers, start_bot_table
from dudo_p2p.cli.lan_list import LanDirectory as LanDirectory
from dudo_p2p.consensus.presence import HUMAN_GRACE
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.errors import DudoError
from dudo_p2p.node import journal as jr
from dudo_p2p.node.config import NetConfig
from dudo_p2p.node.node import Node
from dudo_p2p.protocol.kinds import MAX_SEATS
from dudo_p2p.session import Session
from dudo_p2p.session.node_session import NodeSession
from dudo_p2p.ui import app
from dudo_p2p.ui.local_tables import local_factory
from dudo_p2p.ui.request import TableRequest, Unavailable, parse_address
from dudo_p2p.ui.resume_prompt import ResumeOffer

# the bots "start now" calls to empty seats (names apart from the created table's bots')
FILL_NAMES = ("Fede", "Gabi", "Hugo", "Inés", "Julia")


def add_parser(subparsers: Any) -> None:
    parser = app.add_parser(subparsers)
    parser.add_argument("--name", default=None, help="your name at the table")
    common.add_net_options(parser)
    parser.set_defaults(handler=run)


class NetworkTables:
    """The session factory the lobby calls (see the module docstring)."""

    def __init__(self, args: argparse.Namespace, identity: Identity) -> None:
        self.args = args
        self.identity = identity
        self.name = args.name or common.default_name(identity, "Jugador")

    def __call__(self, request: TableRequest) -> Session:
        match request.kind:
            case "bots":
                return start_bot_table(
                    request.bots, request.rules, request.bot_level,
                    name=request.name or self.name,
                    turn_timer_s=request.turn_timer_s or 0.0, identity=self.identity,
                )
            case "hotseat":
                return local_tables(request)
            case "create":
                return self._create(request)
            case "join":
                return self._join(request)
            case "watch":
                return self._watch(request)
            case "resume":
                return self._resume(request)
        raise Unavailable(request.kind)

    def _net(self) -> NetConfig:
        return common.net_config(self.args)

    def _create(self, request: TableRequest) -> Session:
        # "Crear mesa y esperar" waits for a friend: the bots chosen leave a seat free (with
        # one seat for each bot only, the table filled and started before anyone could join)
        bots = min(request.bots, MAX_SEATS - 2)
        seats = min(MAX_SEATS, max(request.players, bots + 2))
        timer = request.turn_timer_s or 0.0  # the lobby's "no limit" is none (§4.6: 0)
        node = Node.host(self.identity, request.name or self.name, self._net(), seats=seats,
                         rules=request.rules, turn_timer_ms=int(timer * 1000),
                         grace_ms=int(HUMAN_GRACE * 1000), journal_dir=paths.journal_dir())
        bind = self.args.bind  # the bots are reached where we are (a friend links to them)
        pace, forget = pace_dir()  # a person hosts: the bots think at a human pace
        stop = spawn_bot_peers(bots, request.bot_level, node.port, bind=bind, pace=pace)
        bot = make_bot(request.bot_level, random.Random())

        def fill(n: int, port: int) -> Callable[[], None]:  # "start now": bots to our empty
            # seats, at this table or at the next one we open (one more game: another port)
            return spawn_bot_peers(n, request.bot_level, port, names=FILL_NAMES, bind=bind,
                                   pace=pace)

        return NodeSession(node, timer_bot=bot.decide, hurry_dir=pace, on_close=[stop, forget],
                           filler=fill)

    def _join(self, request: TableRequest) -> Session:
        if request.code:  # CODE[@FINGERPRINT]: the table the beacons show, by that host
            table, pin = common.parse_table(request.code, None)
            node = Node.join(self.identity, request.name or self.name, self._net(),
                             table=table, pin=pin, discover=True,
                             journal_dir=paths.journal_dir())
        else:
            address = parse_address(request.address)
            if address is None:
                raise Unavailable(f"not host:port: {request.address!r}")
            node = Node.join(self.identity, request.name or self.name, self._net(),
                             addresses=[address],
                             discover=False, journal_dir=paths.journal_dir())
        bot = make_bot(request.bot_level, random.Random())
        return NodeSession(node, timer_bot=bot.decide)

    def _resume(self, request: TableRequest) -> Session:
        """Our seat back in the interrupted game journalled at ``request.journal``."""
        journal = Path(request.journal)
        node = Node.resume(self.identity, request.name or self.name, self._net(), journal)
        node.journal.auto = journal  # ours to delete once the game is over
        bot = make_bot(request.bot_level, random.Random())
        return NodeSession(node, timer_bot=bot.decide)

    def _watch(self, request: TableRequest) -> Session:
        """A spectator of the table at ``request.address`` (protocol.md §4.9 "Watching")."""
        from dudo_p2p.session.watch_session import WatchSession  # zmq only for a watch

        address = parse_address(request.address)
        if address is None:
            raise Unavailable(f"not host:port: {request.address!r}")
        table, pin = common.parse_table(request.code, None) if request.code else (None, None)
        return WatchSession(self.identity, *address, table=table or "", pin=pin,
                            bind=self.args.bind)


def local_tables(request: TableRequest) -> Session:
    """An in-process table (hot-seat, or a reproducible ``--seed`` screenshot) with our bots."""
    return local_factory(request, bot_maker=lambda level, rng: make_bot(level, rng).decide)


def resume_offer(identity: Identity, directory: Path) -> ResumeOffer | None:
    """The interrupted game of ours the window offers to resume: the newest journal of a
    game where ``identity`` sits (``find_resumable``), with its table code; None if none."""
    journal = jr.find_resumable(directory, identity)
    if journal is None:
        return None
    try:
        seated = jr.parse_seating(jr.read(journal)[0])
    except (OSError, IndexError, DudoError):
        return None
    return ResumeOffer(seated.seating.table, journal)


def run(args: argparse.Namespace) -> int:
    common.setup_logging(args.verbose)
    no_window = not app.has_display(os.environ) and not args.screenshot
    if no_window or args.hotseat or (args.screenshot and args.seed is not None):
        # in-process (hot-seat, a reproducible screenshot), or no display: app.run says so
        # in one line, before any socket is opened
        return app.run(args, session_factory=local_tables)
    identity = common.load_identity(args.identity)
    directory = LanDirectory(args.beacon_port, args.broadcast)
    try:
        return app.run(args, session_factory=NetworkTables(args, identity), directory=directory,
                       resume=resume_offer(identity, paths.journal_dir()))
    finally:
        directory.close()
