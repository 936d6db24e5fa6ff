"""``dudo-p2p verify FILE``: re-check a game record offline.

Exit 0 with a summary when every signature, hash link, commitment, derived die, rule, result
and removal holds; exit 1 naming the first violation; exit 2 when the file cannot be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from dudo_p2p.consensus.record import RecordViolation, verify_record
from dudo_p2p.protocol import names


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "verify", help="re-check a game record offline", description=__doc__
    )
    parser.add_argument("file", type=Path, help="a record written by --record DIR")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.set_defaults(handler=run)


def read_record_file(path: Path, prog: str) -> bytes | None:
    """The file's bytes, or None after telling stderr why it cannot be read (exit 2)."""
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        print(f"{prog}: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return None


def run(args: argparse.Namespace) -> int:
    data = read_record_file(args.file, "verify")
    if data is None:
        return 2
    try:
        summary = verify_record(data)
    except RecordViolation as exc:
        print(f"INVALID {args.file}: {exc}")
        return 1
    winner = summary.names[summary.winner] if summary.winner is not None else None
    if args.json:
        print(json.dumps({
            "valid": True, "winner": winner, "rounds": summary.rounds,
            "players": list(summary.names), "log_hash": summary.log_hash,
            "removals": [[summary.names[s], r] for s, r in summary.removals],
            "finished": summary.finished, "abandoned": summary.abandoned,
        }))
        return 0
    # The genesis check keeps names clean; escaped anyway, as every printer does (names.py).
    shown = [names.shown(n) for n in summary.names]
    state = (f"won by {shown[summary.winner]}" if summary.winner is not None
             else "abandoned: two seats were left and one went silent, no winner"
             if summary.abandoned else "not finished")
    print(f"valid record: {len(shown)} players ({', '.join(shown)}), "
          f"{summary.rounds} rounds, {summary.items} entries, {state}")
    for seat, reason in summary.removals:
        print(f"  removed: {shown[seat]} ({reason})")
    print(f"  log hash {summary.log_hash}")
    return 0
