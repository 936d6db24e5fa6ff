"""``dudo-p2p tables``: the tables seen on the LAN (code, host fingerprint, address, seats,
state, host name).

Listens to the discovery beacons for ``--wait`` seconds. It announces itself with a beacon of
its own (no table), so hosts answer at once instead of at their next interval. A table is a
code *and* a host key: two hosts showing one code are two rows, each with its fingerprint
(``CODE@FINGERPRINT``, what ``bot --table`` takes to choose one). ``--json`` rows also carry
``fingerprint`` and ``key`` (the host's public key in hex). Names are printed escaped.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import time
from typing import Any

from dudo_p2p.cli import common
from dudo_p2p.crypto.identity import fingerprint
from dudo_p2p.net.beacon import Beacon, TableState
from dudo_p2p.net.discovery import Discovery
from dudo_p2p.protocol import names


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
    rows = [
        {"code": s.beacon.table_code, "fingerprint": fingerprint(s.beacon.peer_id),
         "key": s.beacon.peer_id.hex(), "host": s.beacon.name,
         "address": f"{s.host}:{s.beacon.port}",
         "seats": f"{s.beacon.seats_taken}/{s.beacon.seats_total}",
         "state": s.beacon.state.name.lower()}
        for s in seen.values() if s.beacon.state is not TableState.NONE
    ]
    rows.sort(key=lambda r: (r["state"] != "open", r["code"], r["fingerprint"]))
    if args.json:
        print(json.dumps(rows))
    elif not rows:
        print("no tables seen")
    else:
        print(f"{'table':16} {'state':8} {'seats':6} {'address':22} host")
        for r in rows:
            table = f"{r['code']}@{r['fingerprint']}"
            print(f"{table:16} {r['state']:8} {r['seats']:6} {r['address']:22} "
                  f"{names.shown(r['host'])}")
    return 0
