"""``dudo-p2p bot``: a headless peer that joins a table and plays to the end.

``--discover`` sits at the first open table the beacons show, moving on to another when one
refuses (and exits 5, "no open table", when none is left); ``--table CODE`` narrows it to
one code, ``--table CODE@FINGERPRINT`` or ``--host-key`` to one host (two hosts may show
one code: ``dudo-p2p tables`` lists both). ``--join HOST:PORT`` goes straight to a host where
broadcast does not pass (another subnet), ``--host-key`` checking who answers. A refusal
(full, started, another host's key, ...) is printed and exits 5. With ``--json`` the last
line is ``{"winner", "log_hash", "rounds", "seconds", "outcome"}``; exit 0 only when the game
finished (the other codes: :mod:`~dudo_p2p.cli.exits`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from dudo_p2p.cli import common, headless
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.errors import DudoError
from dudo_p2p.node.node import Node


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "bot", help="a headless bot peer that joins a table and plays to the end",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--discover", action="store_true",
                     help="find the table by LAN beacons")
    how.add_argument("--join", action="append", default=[], metavar="HOST:PORT",
                     type=common.parse_host_port, help="join the host at HOST:PORT directly")
    parser.add_argument("--table", default=None, metavar="CODE[@FINGERPRINT]",
                        help="only sit at the table with this code (and this host)")
    parser.add_argument("--host-key", default=None, metavar="FINGERPRINT",
                        help="only sit at a table of this host (fingerprint XXXX-XXXX as "
                             "`dudo-p2p tables` shows it, or the key's 64 hex digits)")
    common.add_game_options(parser)
    common.add_net_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    common.setup_logging(args.verbose)
    try:
        table, pin = common.parse_table(args.table, args.host_key)
    except DudoError as exc:
        print(f"bot: {exc}", file=sys.stderr)
        return 2
    if not (args.discover or args.join or args.resume):
        print("bot: say where the table is: --discover or --join HOST:PORT", file=sys.stderr)
        return 2
    try:
        # A bot is somebody new each game unless told otherwise (or resuming): several bots
        # on one machine must not share the user's identity.
        if args.identity is None and not args.resume:
            identity = Identity.generate()
        else:
            identity = common.load_identity(args.identity)
        name = args.name or common.default_name(identity, "bot")
        # A --join peer needs no beacon socket: it may run where the port is taken.
        net = common.net_config(args, discovery=args.discover or args.resume)
        node = common.open_node(args, identity, name, net, "bot", lambda auto: Node.join(
            identity, name, net, table=table, addresses=args.join,
            discover=args.discover, journal_path=args.journal, pin=pin,
            # a throwaway identity cannot resume: no journal then, unless asked for
            journal_dir=auto if args.identity is not None else None,
        ))
        if node is None:
            return 2
    except (DudoError, OSError) as exc:
        print(f"bot: {exc}", file=sys.stderr)
        return 2
    return headless.play_headless(node, args, label=name)
