"""README pictures of one more game with the same friends:
``python scripts/evening_shots.py DIR [--bind ADDR]``.

Four players, each with their own headless window (SDL dummy driver) over real nodes in this
process: Ana hosts; ``lobby.png`` is Beto's lobby listing her table (as the beacons would
show it) before he joins; Beto, Cris and Dani join, game 1 is played (every seat doubts when it
may: ``dudo_p2p/ui/drive.py``, as the window tests play). Then Beto, Cris and Ana say "play
again"; the picture ``evening-waiting.png`` is Ana's waiting room with the two who came back
and the evening's scoreboard; Dani goes back to the lobby, so the table starts with three;
game 2 is played and ``evening-end.png`` is Ana's end screen with the scoreboard of both
games.

Ana's node binds ``--bind`` (default 127.0.0.1: the room then says it is reachable from this
machine only). The README's pictures were taken with ``--bind 0.0.0.0`` in a network
namespace whose one interface holds 192.168.1.20, so the room lists the address a friend
types::

    ip netns add shots && ip -n shots link set lo up
    ip -n shots link add lan0 type veth peer name lan1   # veth: kernels without dummy links
    ip -n shots addr add 192.168.1.20/24 dev lan0
    ip -n shots link set lan0 up && ip -n shots link set lan1 up
    ip netns exec shots python scripts/evening_shots.py docs --bind 0.0.0.0
    ip netns del shots
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame

from dudo_p2p.cli.lan_list import listing
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.net.beacon import decode, encode
from dudo_p2p.net.discovery import Seen
from dudo_p2p.node.advert import beacon_for
from dudo_p2p.node.node import NetConfig, Node
from dudo_p2p.node.reachable import reachable
from dudo_p2p.rules import RuleSet
from dudo_p2p.session.node_session import NodeSession
from dudo_p2p.ui import theme
from dudo_p2p.ui.app import App
from dudo_p2p.ui.drive import HandClock, click_button, run_tables
from dudo_p2p.ui.request import TableListing, TableRequest
from dudo_p2p.ui.settings import Settings
from dudo_p2p.ui.table import END_GRACE_S, TableScene

RULES = RuleSet(starting_dice=3)
TURN_TIMER_MS = 30_000
GAME_S = 120.0  # bound on real time for one game of four in one thread


class Tables:
    """The LAN list of the lobby: Ana's table, as her beacons would show it."""

    def __init__(self, listed: list[TableListing]) -> None:
        self.listed = listed

    def tables(self) -> list[TableListing]:
        return self.listed


def ended(app: App) -> bool:
    return isinstance(app.scene, TableScene) and app.scene.end_shown_at is not None


def main(out: Path, bind: str) -> int:
    pygame.display.init()
    pygame.font.init()
    clock = HandClock()
    ana_key = Identity.generate()
    host = Node.host(ana_key, "Ana", NetConfig(bind=bind, discovery=False), seats=4,
                     rules=RULES, turn_timer_ms=TURN_TIMER_MS)
    port = host.port
    where = next(iter(reachable(host)), f"127.0.0.1:{port}")
    # Beto's row is made as his lobby makes it: Ana's own beacon, through the wire's bytes.
    beacon = decode(encode(beacon_for(ana_key.public_key, port, "Ana", host.lobby,
                                      playing=False)))
    seen_at = where.rsplit(":", 1)[0]
    listed = [listing(Seen(beacon, seen_at, clock.now, clock.now))]
    joining = NetConfig(bind="127.0.0.1", discovery=False)
    sessions = [NodeSession(host)] + [
        NodeSession(Node.join(Identity.generate(), name, joining,
                              addresses=[("127.0.0.1", port)], discover=False))
        for name in ("Beto", "Cris", "Dani")]
    apps = []
    out.mkdir(parents=True, exist_ok=True)
    for i, session in enumerate(sessions):
        name = ("Ana", "Beto", "Cris", "Dani")[i]
        app = App(lambda _r, s=session: s, "es", clock, surface=pygame.Surface(theme.SIZE),
                  bot_delay=0.0, reveal_hold=0.0, directory=Tables(listed),
                  settings=Settings.memory(name=name, reduced_motion=True))
        if i == 1:  # Beto's lobby, his name typed, Ana's table listed
            app.frame()
            app.frame()
            pygame.image.save(app.canvas, str(out / "lobby.png"))
        app.start_table(TableRequest("create" if i == 0 else "join", rules=RULES,
                                     address=f"127.0.0.1:{port}"))
        apps.append(app)
    ana, beto, cris, dani = apps
    run_tables(apps, clock.advance, lambda: all(ended(a) for a in apps), GAME_S)
    clock.advance(END_GRACE_S + 0.1)
    for app in (beto, cris, ana):
        click_button(app, "play_again")
    room = ana.scene
    assert isinstance(room, TableScene)

    def came_back() -> bool:
        state = room.session.gatherer().gathering()  # type: ignore[union-attr]
        return state is not None and len(state.names) == 3

    run_tables(apps, clock.advance, came_back, 30)
    ana.frame()
    pygame.image.save(ana.canvas, str(out / "evening-waiting.png"))
    click_button(dani, "lobby")  # Dani goes home: the table starts with the three who came back
    three = [ana, beto, cris]
    run_tables(three, clock.advance, lambda: all(ended(a) for a in three), GAME_S)
    clock.advance(END_GRACE_S + 0.1)
    ana.frame()
    pygame.image.save(ana.canvas, str(out / "evening-end.png"))
    for app in apps:
        app.scene.leave()
    print(f"wrote {out / 'lobby.png'}, {out / 'evening-waiting.png'} and "
          f"{out / 'evening-end.png'}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path, default=Path("docs"))
    parser.add_argument("--bind", default="127.0.0.1", help="Ana's link address")
    options = parser.parse_args()
    sys.exit(main(options.out, options.bind))
