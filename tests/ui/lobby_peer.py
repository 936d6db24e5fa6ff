"""One player's window as its own process, used through the lobby as a player would: the
real program's ``App`` (its settings file, its LAN directory from the beacons, the CLI's
``NetworkTables`` session factory), SDL dummy driver, synthetic clicks and typing. For the
namespace tests of the LAN evening (``test_lobby_netns.py``, issue 15).

The test sends commands on stdin, one per line; the window answers on stdout with JSON lines,
each with ``t`` (``time.monotonic()``: one clock for every namespace of a machine, so times
taken in two windows compare). The window keeps running (drawing, its peer stepping) between
commands. Commands:

- ``create SEATS``: SEATS seats and "0" bots, 3 dice, 30 s a turn in the lobby, "Crear
  mesa y esperar" -> ``{"ev": "hosting", "code", "fp", "seats"}`` (read from the screen:
  the big ``CODE@FINGERPRINT`` and "Asientos 1/SEATS");
- ``seats SEATS``: the waiting room's "−" / "+" until it draws "Asientos n/SEATS" ->
  ``{"ev": "seats_set", "text"}``;
- ``remove NAME``: the waiting room's "Quitar" beside NAME -> ``{"ev": "removed", "at"}``
  (``at``: the click's time);
- ``join TEXT``: click the join field, type TEXT, press Enter -> ``{"ev": "join_sent"}``;
- ``roster A,B``: wait until the waiting room draws each name and "Asientos n/N" ->
  ``{"ev": "roster", "names", "seats", "screen"}``;
- ``start_bots``: click "Empezar ya con bots (n)" -> ``{"ev": "clicked", "label",
  "screen"}`` (``screen``: the strings of the frame after the click);
- ``play GAMES``: play our seat (doubt when we may); at each game's start ``{"ev":
  "game_start", "n", "players", "prev", "board", "waiting_board"}`` (``waiting_board``:
  the scoreboard rows the one-more-game waiting room drew, if it drew a frame); at its end
  ``{"ev": "game_over", "n", "winner", "head", "board"}``, then "Jugar otra vez" until GAMES
  games have started (the last one is only started, not played out) -> ``{"ev": "played"}``;
- ``cancel`` / ``esc``: the waiting room's Cancel button / the Esc key ->
  ``{"ev": "left"}`` (its ``t`` is the click's);
- ``shot PATH``: save the screen as PNG -> ``{"ev": "shot"}``;
- ``quit``: leave and exit 0.

Unprompted: ``{"ev": "seats", "text", "names"}`` whenever the waiting room's "Asientos n/N"
line or the names it draws change, and ``{"ev": "lobby", "message"}`` whenever the window is
back in the lobby with a message (a refusal, a join nobody answered). A command that cannot
finish within ``--timeout`` s prints ``{"ev": "stuck", "cmd", "screen"}`` and exits 1.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository: tests.ui.*

import pygame

from dudo_p2p import paths
from dudo_p2p.cli import common
from dudo_p2p.cli.play import LanDirectory, NetworkTables
from dudo_p2p.consensus.lobby import Seated
from dudo_p2p.session.api import Gathering
from dudo_p2p.ui import draw, theme, waiting
from dudo_p2p.ui.app import App
from dudo_p2p.ui.lobby import NAME_FIELD, LobbyScene
from dudo_p2p.ui.scoreboard import board_of
from dudo_p2p.ui.settings import Settings
from dudo_p2p.ui.table import END_GRACE_S, TableScene
from tests.ui.helpers import TextRecorder, click, click_button, key, node_of, play_our_seat

SEATS_LINE = re.compile(r"^Asientos \d+/\d+$")
Step = Iterator[None]  # a command runs one step per frame


class Window:
    """The app, the screen as words (every string the last frame drew), and the events."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        identity = common.load_identity(args.identity)
        self.directory = LanDirectory(args.beacon_port, args.broadcast)
        self.app = App(NetworkTables(args, identity), "es", time.monotonic,
                       directory=self.directory, surface=pygame.Surface(theme.SIZE),
                       bot_delay=0.0, reveal_hold=0.0,
                       settings=Settings.load(paths.settings_file()))
        self.recorder = TextRecorder()
        draw.text = self.recorder  # type: ignore[assignment]  # read the screen as words
        self.texts: list[str] = []
        self._seats_seen: tuple[str, tuple[str, ...]] | None = None
        self._lobby_seen = ""

    def say(self, ev: str, **fields: object) -> None:
        print(json.dumps({"ev": ev, "t": time.monotonic(), **fields}), flush=True)

    def pump(self) -> None:
        """Run the peer a little, draw a frame, tell what changed on screen."""
        scene = self.app.scene
        if isinstance(scene, TableScene):
            scene.session.wait(0.01)
        else:
            time.sleep(0.01)
        self.recorder.drawn = []
        self.app.frame()
        self.texts = [m for m, _, _ in self.recorder.drawn]
        self._watch()

    def _watch(self) -> None:
        scene = self.app.scene
        if isinstance(scene, LobbyScene):
            if scene.message and scene.message != self._lobby_seen:
                self._lobby_seen = scene.message
                self.say("lobby", message=scene.message, screen=self.texts)
            return
        if not isinstance(scene, TableScene) or scene.view is not None:
            return
        state = waiting.status(scene)
        line = next((m for m in self.texts if SEATS_LINE.match(m)), "")
        names = tuple(n for n in (state.names if state else ()) if n in self.texts)
        if line and (line, names) != self._seats_seen:
            self._seats_seen = (line, names)
            self.say("seats", text=line, names=list(names))

    # -- commands ------------------------------------------------------------------------
    def type_into(self, pos: tuple[int, int], text: str) -> None:
        click(self.app, pos)
        for _ in range(40):  # clear what the field holds (the saved name, say)
            key(self.app, pygame.K_BACKSPACE)
        self.app.dispatch(pygame.event.Event(pygame.TEXTINPUT, text=text))

    def name(self, text: str) -> Step:
        self.type_into(NAME_FIELD.center, text)
        key(self.app, pygame.K_RETURN)  # the name is taken as typed
        self.say("named", value=self.lobby().name_field.value)
        yield

    def lobby(self) -> LobbyScene:
        scene = self.app.scene
        assert isinstance(scene, LobbyScene), f"not in the lobby: {type(scene).__name__}"
        return scene

    def create(self, seats: str) -> Step:
        self.app.frame()
        click_button(self.app, f"seats_{seats}")  # chosen before the table exists
        click_button(self.app, "create_bots_0")
        click_button(self.app, "dice_3")
        click_button(self.app, "timer_1")  # 30 s a turn
        click_button(self.app, "create")
        while True:
            yield
            scene = self.app.scene
            state = waiting.status(scene) if isinstance(scene, TableScene) else None
            if state is None or not state.code:
                continue
            line = f"Asientos 1/{seats}"
            if line in self.texts:
                big = f"{state.code}@{state.host_fingerprint}"
                assert big in self.texts, f"{big} not on screen: {self.texts}"
                self.say("hosting", code=state.code, fp=state.host_fingerprint, seats=line,
                         addresses=list(state.addresses))
                return

    def seats(self, seats: str) -> Step:
        while True:
            yield
            state = self.gathering()
            line = f"Asientos {len(state.names)}/{seats}"
            if line in self.texts:
                self.say("seats_set", text=line)
                return
            click_button(self.app, "seats_plus" if state.seats < int(seats) else "seats_minus")

    def remove(self, name: str) -> Step:
        state = self.gathering()
        at = time.monotonic()
        click_button(self.app, f"remove_{state.names.index(name)}")
        self.say("removed", at=at)
        yield

    def gathering(self) -> Gathering:
        scene = self.app.scene
        state = waiting.status(scene) if isinstance(scene, TableScene) else None
        assert state is not None, f"no waiting room: {type(scene).__name__}"
        return state

    def join(self, text: str) -> Step:
        self._lobby_seen = ""  # this try's message is told, even if the last one said it
        self.app.frame()
        self.type_into(self.lobby().address.rect.center, text)
        at = time.monotonic()
        key(self.app, pygame.K_RETURN)
        self.say("join_sent", at=at, scene=type(self.app.scene).__name__)
        yield

    def roster(self, names: str) -> Step:
        wanted = names.split(",")
        while True:
            yield
            line = next((m for m in self.texts if SEATS_LINE.match(m)), "")
            if line and all(n in self.texts for n in wanted):
                self.say("roster", names=wanted, seats=line, screen=self.texts)
                return

    def start_bots(self) -> Step:
        button = click_button(self.app, "start_bots")
        yield  # the next frame: what the click changed
        self.say("clicked", label=button.label, screen=self.texts)

    def leave(self, how: str) -> Step:
        t = time.monotonic()
        if how == "esc":
            key(self.app, pygame.K_ESCAPE)
        else:
            click_button(self.app, "cancel")
        self.say("left", at=t, scene=type(self.app.scene).__name__)
        yield

    def shot(self, path: str) -> Step:
        self.app.frame()
        pygame.image.save(self.app.canvas, path)
        self.say("shot", path=path)
        yield

    def play(self, games: str) -> Step:
        total, n = int(games), 0
        waiting_board: list[list[object]] | None = None
        started: list[TableScene] = []
        waiting_frames = 0
        while True:
            yield
            scene = self.app.scene
            if not isinstance(scene, TableScene):
                raise RuntimeError(f"left the table: {self.app.error}")
            if scene.view is None:  # gathering (one more game: its waiting room)
                waiting_frames += 1
                if any(m.startswith("La noche") for m in self.texts):
                    waiting_board = list(self.texts)
                continue
            if scene not in started:  # a new table: game n+1 has started
                started.append(scene)
                n += 1
                self.say("game_start", n=n, players=players(scene),
                         prev=seated(scene).seating.prev.hex(),
                         board=board(scene), waiting_board=waiting_board,
                         waiting_frames=waiting_frames)
                waiting_frames, waiting_board = 0, None
                if n == total:
                    self.say("played")
                    return
            if scene.end_shown_at is None:  # playing, or the last reveal still shown
                play_our_seat(self.app, scene)
                continue
            if time.monotonic() - scene.end_shown_at < END_GRACE_S + 0.1:
                continue
            won = scene.model.winner
            assert won is not None
            self.say("game_over", n=n, winner=scene.session.players()[won].name, head=head(scene),
                     board=board(scene), players=players(scene))
            click_button(self.app, "play_again")


def seated(scene: TableScene) -> Seated:
    seated = node_of(scene).seated
    assert seated is not None
    return seated


def head(scene: TableScene) -> str:
    return node_of(scene).machine.replica.head.hex()


def players(scene: TableScene) -> list[list[str]]:
    return [[p.name, p.fingerprint] for p in scene.session.players()]


def board(scene: TableScene) -> dict[str, object] | None:
    shown = board_of(scene.session)
    if shown is None:
        return None
    return {"games": shown.games, "rows": [[r.name, r.fingerprint, r.wins] for r in shown.rows]}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="the longest any one command may take")
    common.add_net_options(parser)
    args = parser.parse_args()
    args.name = None
    pygame.display.init()
    pygame.font.init()
    window = Window(args)
    commands: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for line in sys.stdin:
            commands.put(line.strip())
        commands.put(None)  # stdin closed: the test is gone

    threading.Thread(target=read, daemon=True).start()
    try:
        while True:
            window.pump()
            try:
                command = commands.get_nowait()
            except queue.Empty:
                continue
            if command is None or command == "quit":
                return 0
            verb, _, arg = command.partition(" ")
            step = {"name": window.name, "create": window.create, "join": window.join,
                    "roster": window.roster, "start_bots": lambda _: window.start_bots(),
                    "seats": window.seats, "remove": window.remove,
                    "cancel": window.leave, "esc": window.leave,
                    "shot": window.shot, "play": window.play}[verb](
                        arg if verb != "esc" else "esc")
            deadline = time.monotonic() + args.timeout
            for _ in step:
                if time.monotonic() > deadline:
                    window.say("stuck", cmd=command, screen=window.texts)
                    return 1
                window.pump()
    finally:
        window.app.scene.leave()
        window.directory.close()


if __name__ == "__main__":
    sys.exit(main())
