"""One player's window as its own process, driven by synthetic input (for the namespace test).

``python tests/ui/window_peer.py --create NAME`` hosts a 2-seat table, ``--join NAME
HOST:PORT`` joins one; the window is the real program's (``App`` over the CLI's
``NetworkTables`` session factory, SDL dummy driver), with the lobby's request made directly.
It plays its seat (doubting when it may), says "Jugar otra vez" at the end of each game,
plays ``--games`` games, and prints one JSON line: each game's final log hash and the
``prev`` its genesis named, and the scoreboard its end screen showed last. Exit 0 when all
games were played, 1 otherwise (with what it saw on stderr).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository: tests.ui.*

import pygame

from dudo_p2p.cli import common
from dudo_p2p.cli.play import NetworkTables
from dudo_p2p.rules import RuleSet
from dudo_p2p.ui import theme
from dudo_p2p.ui.app import App
from dudo_p2p.ui.request import TableRequest
from dudo_p2p.ui.scoreboard import board_of
from dudo_p2p.ui.table import END_GRACE_S, TableScene
from tests.ui.helpers import click_button, node_of, play_our_seat


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--create", metavar="NAME")
    parser.add_argument("--join", nargs=2, metavar=("NAME", "HOST:PORT"))
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=150.0)
    common.add_net_options(parser)
    args = parser.parse_args()
    args.name = args.create or args.join[0]
    pygame.display.init()
    pygame.font.init()
    identity = common.load_identity(args.identity)
    app = App(NetworkTables(args, identity), "es", time.monotonic,
              surface=pygame.Surface(theme.SIZE), bot_delay=0.0, reveal_hold=0.0)
    rules = RuleSet(starting_dice=3)
    if args.create:
        request = TableRequest("create", rules=rules, bots=0, players=2, name=args.name)
    else:
        request = TableRequest("join", rules=rules, address=args.join[1], name=args.name)
    app.start_table(request)
    heads: list[str] = []
    prevs: list[str] = []
    board: dict[str, object] = {}
    deadline = time.monotonic() + args.timeout
    while len(heads) < args.games and time.monotonic() < deadline:
        scene = app.scene
        if not isinstance(scene, TableScene):
            print(f"{args.name}: left the table: {app.error}", file=sys.stderr)
            return 1
        scene.session.wait(0.01)
        app.frame()
        if scene.end_shown_at is None:
            play_our_seat(app, scene)
            continue
        if time.monotonic() - scene.end_shown_at < END_GRACE_S + 0.1:
            continue
        node = node_of(scene)
        assert node.seated is not None and node.machine is not None  # the game ended
        seating = node.seated.seating
        heads.append(node.machine.replica.head.hex())
        prevs.append(seating.prev.hex())
        shown = board_of(scene.session)
        if shown is not None:
            board = {"games": shown.games, "wins": {r.name: r.wins for r in shown.rows}}
        if len(heads) < args.games:
            click_button(app, "play_again")  # one more: the other window must follow
    print(json.dumps({"name": args.name, "heads": heads, "prevs": prevs, "board": board}),
          flush=True)
    app.scene.leave()
    return 0 if len(heads) == args.games else 1


if __name__ == "__main__":
    sys.exit(main())
