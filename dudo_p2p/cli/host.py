"""``dudo-p2p host``: open a table on the LAN, start when every seat is taken, play it.

The table is advertised by beacon (code, seats taken, state) and accepts ``bot --join`` by
address. ``--headless`` plays the host's seat with a bot; otherwise the seat is played from
the terminal (numbered legal actions on stdout, a number on stdin) and the turn timer's bot
plays a turn nobody answered; after a won game the terminal offers one more with the same
table (:mod:`~dudo_p2p.cli.host_terminal`). Progress (one line per round) goes to stderr.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from dudo_p2p.cli import common, headless
from dudo_p2p.cli.host_terminal import play_terminal
from dudo_p2p.consensus.presence import HUMAN_GRACE
from dudo_p2p.crypto.identity import fingerprint
from dudo_p2p.errors import DudoError
from dudo_p2p.net.beacon import is_table_code
from dudo_p2p.node.node import Node


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "host", help="open a table on the LAN and play it", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--table", default=None, metavar="CODE",
                        help="table code (5 of ABCDEFGHJKMNPQRSTUVWXYZ23456789; default random)")
    parser.add_argument("--players", type=int, default=4, metavar="N",
                        help="seats, host included, 2-6 (default %(default)s)")
    parser.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                        help="a rule variant (repeatable; the README lists every NAME)")
    parser.add_argument("--turn-timer", type=float, default=60.0, metavar="S",
                        help="seconds a player has per turn, 0 for none (default %(default)s)")
    parser.add_argument("--headless", action="store_true", help="a bot plays the host's seat")
    parser.add_argument("--grace", type=float, default=None, metavar="S",
                        help="reconnect grace: seconds a silent seat is waited for before it "
                             f"is voted out (default {HUMAN_GRACE:g} with a person at the "
                             "terminal, 0 with --headless)")
    common.add_game_options(parser)
    common.add_net_options(parser)
    parser.set_defaults(handler=run, host_again=True)  # --again: we open the next table


def run(args: argparse.Namespace) -> int:
    common.setup_logging(args.verbose)
    if args.table is not None and not is_table_code(args.table):
        print(f"host: bad table code {args.table!r}", file=sys.stderr)
        return 2
    grace = args.grace if args.grace is not None else 0.0 if args.headless else HUMAN_GRACE
    if not 2 <= args.players <= 6 or args.turn_timer < 0 or not 0 <= grace <= 600:
        print("host: --players is 2..6, --turn-timer >= 0, --grace 0..600", file=sys.stderr)
        return 2
    try:
        rules = common.parse_rules(args.rule)
        identity = common.load_identity(args.identity)
        name = args.name or common.default_name(identity, "host")
        net = common.net_config(args)
        node = common.open_node(args, identity, name, net, "host", lambda auto: Node.host(
            identity, name, net, seats=args.players, rules=rules,
            turn_timer_ms=int(args.turn_timer * 1000), table=args.table,
            journal_path=args.journal, journal_dir=auto, grace_ms=int(grace * 1000),
        ))
        if node is None:
            return 2
    except (DudoError, OSError) as exc:
        print(f"host: {exc}", file=sys.stderr)
        return 2
    code = f"{node.table_code}@{fingerprint(identity.public_key)}"
    # resumed: the journal's table, not --players' default (a 3-seat table said "4 seats")
    seats = len(node.seated.seating.pubs) if node.seated is not None else args.players
    print(f"host: table {code}, {seats} seats, link port {node.port}",
          file=sys.stderr, flush=True)
    if args.headless:
        return headless.play_headless(node, args, label=name)
    return play_terminal(node, args, name)  # game after game while the player says yes

