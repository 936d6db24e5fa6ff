"""``dudo-p2p tables``: the tables seen on the LAN (code, host fingerprint, address, seats,
state, each player's dice, turn timer, host name).

Listens to the discovery beacons for ``--wait`` seconds. It announces itself with a beacon of
its own (no table), so hosts answer at once instead of at their next interval. A table is a
code *and* a host key: two hosts showing one code are two rows, each with its fingerprint
(``CODE@FINGERPRINT``, what ``bot --table`` takes to choose one). ``--json`` rows also carry
``fingerprint``, ``key`` (the host's public key in hex), ``turn_timer_s`` and ``variants``
(the rule-set fields off the default table). A beacon whose dice and variants make no rule
set is left out, and so are tables of another protocol version (logged). Names are printed
escaped.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import select
import time
from typing import Any

from dudo_p2p.cli import common
from dudo_p2p.cli.lan_list import listing
from dudo_p2p.errors import DecodeError
from dudo_p2p.net.beacon import Beacon, TableState
from dudo_p2p.net.discovery import Discovery, Seen
from dudo_p2p.protocol import names
from dudo_p2p.rules import RuleSet

log = logging.getLogger(__name__)


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "tables", help="list the tables seen on the LAN", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--wait", type=float, default=2.5, metavar="S",
                        help="listen this long (default %(default)s s)")
    parser.add_argument("--json", action="store_true", help="one JSON list on the last line")
    common.add_net_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    common.setup_logging(args.verbose)
    try:
        discovery = Discovery(args.beacon_port, broadcast_addresses=args.broadcast)
    except OSError as exc:
        print(f"tables: cannot listen on UDP port {args.beacon_port}: {exc}")
        return 2
    with discovery:
        # A throwaway id: listing tables needs no identity, and nobody links to us.
        discovery.set_beacon(Beacon(os.urandom(32), 1, name="tables"))
        deadline = time.monotonic() + args.wait
        while (now := time.monotonic()) < deadline:
            discovery.tick(now)
            due = discovery.next_deadline() or deadline
            select.select([discovery.fileno()], [], [], max(0.0, min(deadline, due) - now))
            discovery.on_readable(time.monotonic())
        seen = discovery.peers(time.monotonic())
    rows = [row for s in seen.values() if s.beacon.state is not TableState.NONE
            if (row := _row(s)) is not None]
    rows.sort(key=lambda r: (r["state"] != "open", r["code"], r["fingerprint"]))
    if args.json:
        print(json.dumps(rows))
    elif not rows:
        print("no tables seen")
    else:
        print(f"{'table':16} {'state':8} {'seats':6} {'dice':5} {'timer':6} {'address':22} "
              "host")
        for r in rows:
            table = f"{r['code']}@{r['fingerprint']}"
            timer = f"{r['turn_timer_s']:g}s" if r["turn_timer_s"] else "-"
            print(f"{table:16} {r['state']:8} {r['seats']:6} {r['dice']:<5} {timer:6} "
                  f"{r['address']:22} {names.shown(r['host'])}")
    return 0


def _row(seen: Seen) -> dict[str, Any] | None:
    """One table's JSON row; None (logged) when its beacon's rules make no rule set."""
    try:
        table = listing(seen)
    except DecodeError as exc:
        log.warning("table %s at %s left out: %s", seen.beacon.table_code, seen.host, exc)
        return None
    assert table.rules is not None
    house = RuleSet()
    return {"code": table.code, "fingerprint": table.fingerprint,
            "key": seen.beacon.peer_id.hex(), "host": table.host, "address": table.address,
            "seats": f"{table.players}/{table.seats}", "state": table.state,
            "dice": table.rules.starting_dice, "turn_timer_s": table.turn_timer_s,
            "variants": {k: v for k, v in table.rules.to_dict().items()
                         if k != "starting_dice" and v != getattr(house, k)}}
