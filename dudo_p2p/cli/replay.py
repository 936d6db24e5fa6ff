"""``dudo-p2p replay FILE``: step through a game record on the table, every die checked.

The record is verified first, as ``verify`` does; an invalid record opens nothing and the
first bad item is named (exit 1); an unreadable file exits 2. With a display the table opens
(←/→ a step, ↑/↓ a round, Home/End, F dice from the start, Esc quits); ``--text`` (or no
display) prints every round instead: bids with the chance each had from its bidder's dice,
the dice, the result, and each player's bluffs and calls. ``--screenshot PATH --step N``
saves step N as a PNG and exits (headless with SDL's dummy driver).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from dudo_p2p.cli.verify import read_record_file
from dudo_p2p.consensus.record import RecordViolation
from dudo_p2p.session.replay import Replay


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "replay", help="step through a game record on the table", description=__doc__
    )
    parser.add_argument("file", type=Path, help="a record written by --record DIR")
    parser.add_argument("--text", action="store_true", help="print the game instead")
    parser.add_argument("--json", action="store_true", help="print the per-player summary")
    parser.add_argument("--from-start", action="store_true",
                        help="show every round's dice from its start, not from its reveal")
    parser.add_argument("--step", type=int, default=0, help="the step to open at (0-based)")
    parser.add_argument("--screenshot", type=Path, default=None, metavar="PATH",
                        help="save the table at --step as a PNG and exit")
    parser.add_argument("--lang", choices=("es", "en"), default=None, help="language")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    data = read_record_file(args.file, "replay")
    if data is None:
        return 2
    try:
        replay = Replay.load(data)
    except RecordViolation as exc:
        print(f"INVALID {args.file}: {exc}: nothing to replay", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"log_hash": replay.summary.log_hash, "steps": len(replay.steps),
                          "players": [vars_of(s) for s in replay.player_stats()]}))
        return 0
    windowed = args.screenshot is not None or (
        not args.text and any(os.environ.get(v) for v in ("DISPLAY", "WAYLAND_DISPLAY",
                                                          "SDL_VIDEODRIVER")))
    if not windowed:
        print_text(replay, from_start=args.from_start)
        return 0
    from dudo_p2p.ui.replay_window import open_replay

    return open_replay(replay, lang=args.lang, step=args.step, from_start=args.from_start,
                       screenshot=args.screenshot)


def vars_of(stats: Any) -> dict[str, Any]:
    return {name: getattr(stats, name) for name in stats.__slots__}


def print_text(replay: Replay, *, from_start: bool) -> None:
    """The whole game, a line per move."""
    names = replay.names
    summary = replay.summary
    print(f"{len(names)} players ({', '.join(names)}), {summary.rounds} rounds; "
          f"verified, log hash {summary.log_hash}")
    for index, step in enumerate(replay.steps):
        if index in replay.round_starts():
            for voided in replay.voided_before(index):
                print(f"round {voided}: called off, the dice dealt again")
            dice = replay.dice_at(index, from_start=True)
            shown = f"  dice {list(map(list, dice))}" if dice is not None and from_start else ""
            print(f"round {step.round_no}{shown}")
        if step.action is not None:
            chance = replay.bid_chance(index)
            odds = f"   ({chance:.0%} from the bidder's dice)" if chance is not None else ""
            print(f"  {names[step.action.seat] if hasattr(step.action, 'seat') else '?'}: "
                  f"{describe(step.action)}{odds}")
        elif step.reveal is not None:
            result = step.reveal
            print(f"  reveal {list(map(list, result.dice))}: {result.kind} by "
                  f"{names[result.caller]}, {result.held} counted; dice "
                  + (", ".join([f"{names[s]} -{n}" for s, n in result.losses.items()]
                               + [f"{names[s]} +{n}" for s, n in result.gains.items()])
                     or "unchanged"))
        elif step.removed is not None:
            print(f"  {names[step.removed]} removed")
    final = replay.final
    if final.winner is not None:
        print(f"{names[final.winner]} wins")
    else:
        print("the record ends before a winner")
    for stats in replay.player_stats():
        print(f"{stats.name}: bids held {stats.bids_held}/{stats.bids}, dudo right "
              f"{stats.doubts_right}/{stats.doubts}, calzo right "
              f"{stats.calzos_right}/{stats.calzos}")


def describe(action: Any) -> str:
    bid = getattr(action, "bid", None)
    return f"{type(action).__name__.lower()} {bid}" if bid is not None else type(
        action).__name__.lower()
