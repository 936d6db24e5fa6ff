"""``dudo-p2p play``: the window, the main loop, and the command-line options.

``App(session_factory, lang, clock)`` owns the window and the current scene; the session
factory (injected) turns a lobby :class:`~dudo_p2p.ui.request.TableRequest` into a session, so
the same UI runs an in-process table with bots or a real peer on the LAN. The loop draws at
60 fps only while something moves, and otherwise naps in 20 ms slices between looks at the
input queue (so input, session events and turn timers are still noticed), which keeps idle
CPU low.

Exit codes of ``run``: 0 after a normal quit or a saved screenshot, 2 when there is no display
(the one-line message names the headless commands), 1 when the table could not be opened.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pygame

from dudo_p2p import paths
from dudo_p2p.errors import DudoError
from dudo_p2p.rules import RuleSet
from dudo_p2p.session import Session
from dudo_p2p.ui import theme
from dudo_p2p.ui.held_keys import HeldKeys
from dudo_p2p.ui.i18n import LANGS, Tr, default_lang
from dudo_p2p.ui.lobby import LobbyScene
from dudo_p2p.ui.remember import saved_lang, typed_name
from dudo_p2p.ui.request import (
    BOT_LEVELS,
    SessionFactory,
    TableDirectory,
    TableRequest,
    Unavailable,
    hotseat_names,
)
from dudo_p2p.ui.resume_prompt import ResumeOffer, ResumePrompt
from dudo_p2p.ui.scene import Scene
from dudo_p2p.ui.settings import Settings
from dudo_p2p.ui.sound import SoundBank
from dudo_p2p.ui.table import DEFAULT_BOT_DELAY_S, TableScene

FRAME_S = 1 / 60
# The window may not shrink below 75% of the canvas: the smallest text (19 px) stays about
# 14 px on screen; at half size the plates and the key help could no longer be read.
MIN_WINDOW = (960, 600)
IDLE_WAIT_S = 0.25  # idle wake-up: session events and timers are seen within 0.25 s


class App:
    """The program: one window, one current scene. See the module docstring.

    ``surface``: draw here instead of opening a window (tests, benchmarks).
    ``bot_delay``: pause between in-process bot moves; ``autoplay``: screenshot mode.
    ``settings``: the player's settings (default: in memory, reduced motion); ``sounds``: the
    sound bank (default: silent); ``records_folder``: where "Open a record" looks (default:
    the data directory's ``records``).
    """

    def __init__(
        self,
        session_factory: SessionFactory,
        lang: str,
        clock: Callable[[], float],
        *,
        directory: TableDirectory | None = None,
        surface: pygame.Surface | None = None,
        bot_delay: float = DEFAULT_BOT_DELAY_S,
        autoplay: bool = False,
        reveal_hold: float = 6.0,
        settings: Settings | None = None,
        sounds: SoundBank | None = None,
        records_folder: Path | None = None,
    ) -> None:
        # Without a settings file (tests, benchmarks) the table is still: reduced motion on,
        # so a test sees each state at once; and silent unless a bank is handed in.
        self.settings = settings if settings is not None else Settings.memory(
            reduced_motion=True)
        self.sounds = sounds if sounds is not None else SoundBank.silent(self.settings)
        self.session_factory = session_factory
        self.records_folder = records_folder or paths.records_dir()  # "Open a record"
        self.tr = Tr(lang)
        self.clock = clock
        self.directory = directory
        self.bot_delay = bot_delay
        self.autoplay = autoplay
        self.reveal_hold = reveal_hold
        self.running = True
        self.fullscreen = False
        self.window = surface
        self.canvas = pygame.Surface(theme.SIZE)
        self.scene: Scene = LobbyScene(self, directory)
        self.error: str | None = None
        self.held = HeldKeys()  # one Esc that left a screen does not also quit the lobby

    # -- Host --------------------------------------------------------------------------
    def switch(self, scene: Scene) -> None:
        self.scene.leave()
        self.scene = scene
        scene.enter()

    def quit(self) -> None:
        self.running = False

    def show_lobby(self) -> None:
        self.switch(LobbyScene(self, self.directory))

    def start_table(self, request: TableRequest) -> None:
        try:
            session = self.session_factory(request)
        except Unavailable:
            self._lobby_message(self.tr("error.join_unavailable"))
            return
        except (DudoError, OSError) as exc:
            self._lobby_message(self.tr("error.session", why=str(exc)))
            return
        self.switch(TableScene(self, session, request, bot_delay=self.bot_delay,
                               autoplay=self.autoplay, reveal_hold=self.reveal_hold))

    def continue_with(self, session: Session, request: TableRequest) -> None:
        """Go on at the table ``session`` plays (one more game: it took the last table's
        session over, so that one is not closed)."""
        self.scene = TableScene(self, session, request, bot_delay=self.bot_delay,
                                autoplay=self.autoplay, reveal_hold=self.reveal_hold)
        self.scene.enter()

    def back_to_lobby(self, text: str) -> None:
        """Show the lobby (closing the current table) with ``text`` as its message."""
        self._lobby_message(text)

    def _lobby_message(self, text: str) -> None:
        self.error = text
        if not isinstance(self.scene, LobbyScene):
            self.show_lobby()
        assert isinstance(self.scene, LobbyScene)
        self.scene.message = text

    def toggle_language(self) -> None:
        self.tr = Tr("en" if self.tr.lang == "es" else "es")
        self.settings.set("lang", self.tr.lang)  # the next launch speaks it too

    def toggle_fullscreen(self) -> None:
        self.fullscreen = not self.fullscreen
        if pygame.display.get_init() and pygame.display.get_surface() is not None:
            flags = pygame.FULLSCREEN if self.fullscreen else pygame.RESIZABLE
            size = (0, 0) if self.fullscreen else theme.SIZE
            self.window = pygame.display.set_mode(size, flags)
            set_minimum_window_size(MIN_WINDOW)

    # -- the loop ----------------------------------------------------------------------
    def open_window(self) -> None:
        """Open the resizable 1280x800 window."""
        pygame.display.init()
        pygame.font.init()
        pygame.display.set_caption("Dudo")
        self.window = pygame.display.set_mode(theme.SIZE, pygame.RESIZABLE)
        set_minimum_window_size(MIN_WINDOW)
        pygame.key.set_repeat(350, 60)

    def _to_canvas(self, pos: tuple[int, int]) -> tuple[int, int]:
        """Window pixel -> logical canvas pixel (the canvas is letterboxed into the window)."""
        if self.window is None or self.window.get_size() == theme.SIZE:
            return pos
        scale, ox, oy = self._fit()
        return int((pos[0] - ox) / scale), int((pos[1] - oy) / scale)

    def _fit(self) -> tuple[float, int, int]:
        assert self.window is not None
        w, h = self.window.get_size()
        scale = min(w / theme.WIDTH, h / theme.HEIGHT)
        return scale, int((w - theme.WIDTH * scale) / 2), int((h - theme.HEIGHT * scale) / 2)

    def dispatch(self, event: pygame.event.Event) -> None:
        """Global keys (quit, F11), then the current scene."""
        if event.type == pygame.QUIT:
            self.quit()
            return
        if self.held.carried_over(event, self.scene):
            return  # a key held since another screen (pygame's repeat): not a new press
        if event.type == pygame.KEYDOWN and event.key == pygame.K_F11:
            self.toggle_fullscreen()
            return
        if event.type == pygame.VIDEORESIZE or event.type == pygame.WINDOWRESIZED:
            if pygame.display.get_surface() is not None:
                self.window = pygame.display.get_surface()
            return
        if hasattr(event, "pos") and event.type in (
            pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP, pygame.MOUSEMOTION
        ):
            attrs: dict[str, Any] = dict(event.dict)
            attrs["pos"] = self._to_canvas(event.pos)
            event = pygame.event.Event(event.type, attrs)
        self.scene.handle_event(event)

    def frame(self, *, update: bool = True) -> None:
        """Update the scene to now (unless told not to) and draw one frame onto the window
        (or surface)."""
        if update:
            self.scene.update(self.clock())
        target = self.window
        if target is not None and target.get_size() == theme.SIZE:
            self.scene.draw(target)  # no scaling needed: draw straight onto the window
            self.canvas = target
            return
        if self.canvas.get_size() != theme.SIZE or self.canvas is target:
            self.canvas = pygame.Surface(theme.SIZE)
        self.scene.draw(self.canvas)
        if target is not None:
            scale, ox, oy = self._fit()
            size = (int(theme.WIDTH * scale), int(theme.HEIGHT * scale))
            target.fill((0, 0, 0))
            target.blit(pygame.transform.smoothscale(self.canvas, size), (ox, oy))

    def run_loop(self, screenshot: str | None = None, max_seconds: float | None = None) -> int:
        """Run until quit (or until the screenshot is saved). Returns an exit code.

        The window is drawn only when something changed (input, a table event, a new view,
        an animation frame), so an idle table costs almost nothing; while idle the scene
        sleeps in ``wait_input`` (which keeps a networked peer running)."""
        started = time.monotonic()
        dirty = True
        while self.running:
            animating = self.scene.animating(self.clock())
            self.scene.update(self.clock())
            if dirty or animating or self.scene.take_changed() or screenshot is not None:
                self.frame(update=False)
                if pygame.display.get_surface() is not None:
                    pygame.display.flip()
                dirty = False
            if screenshot is not None and self.scene.screenshot_ready:
                pygame.image.save(self.canvas, screenshot)
                return 0
            if max_seconds is not None and time.monotonic() - started > max_seconds:
                return 1 if screenshot is not None else 0
            wait = FRAME_S if animating else IDLE_WAIT_S
            if screenshot is not None:
                wait = 0.001
            for event in self.scene.wait_input(wait):
                self.dispatch(event)
                dirty = True
        return 0


def set_minimum_window_size(size: tuple[int, int]) -> None:
    """Stop the user shrinking the open window below ``size`` (the window manager enforces it;
    the canvas is then letterboxed at no less than that)."""
    with warnings.catch_warnings():
        # pygame-ce warns that drawing through a Window taken from the display module is
        # deprecated; we only set its minimum size and keep drawing through pygame.display
        warnings.simplefilter("ignore", DeprecationWarning)
        window = pygame.Window.from_display_module()
    window.minimum_size = size


# -- command line ----------------------------------------------------------------------
def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``play`` on an argparse subparsers object; the handler is :func:`run`."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "play", help="open the table (a window): lobby, or straight to bots with --bots N",
        description="Open the Dudo table. Keys: Enter bid, D dudo, C calzo, M look, "
                    "arrows count/face, P probability, R rules, Esc menu, F11 fullscreen.")
    p.add_argument("--bots", type=int, metavar="N", choices=range(1, 6),
                   help="skip the lobby and play at once against N bots (1-5)")
    p.add_argument("--hotseat", type=int, metavar="N", choices=range(2, 7),
                   help="pass-and-play: N humans (2-6) share this screen")
    p.add_argument("--names", metavar="A,B,...", default=None,
                   help="with --hotseat: the players' names, comma-separated, in seat order "
                        "(trimmed, at most 16 characters; empty or missing: \"Jugador n\")")
    p.add_argument("--lang", choices=LANGS, default=None,
                   help="language (default: from the locale, Spanish when unsure)")
    p.add_argument("--screenshot", metavar="PATH",
                   help="render the live table once the first bid stands, save a PNG, exit")
    p.add_argument("--level", choices=BOT_LEVELS, default="normal", help="bot level")
    p.add_argument("--dice", type=int, choices=(3, 4, 5), default=5, help="starting dice")
    p.add_argument("--seed", type=int, default=None, help="seed of an in-process table")
    p.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                   help="a rule-set option (repeatable), e.g. --rule calza=false")
    p.set_defaults(handler=run)
    return p


def has_display(environ: Mapping[str, str]) -> bool:
    """True when a window can open: an X or Wayland display, or an SDL driver chosen."""
    return any(environ.get(v) for v in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"))


def run(args: argparse.Namespace, *, session_factory: SessionFactory,
        directory: TableDirectory | None = None, resume: ResumeOffer | None = None) -> int:
    """Handle ``dudo-p2p play`` (the CLI injects the session factory: real bot peers and the
    LAN, or in-process tables; and ``resume``, an interrupted game of ours, which the window
    offers to resume before the lobby). See the module docstring for the exit codes."""
    lang = args.lang or default_lang(os.environ)
    tr = Tr(lang)
    typed_names = tuple(args.names.split(",")) if getattr(args, "names", None) else ()
    if typed_names and not args.hotseat:
        print(tr("app.names_need_hotseat"), file=sys.stderr)
        return 2
    if len(typed_names) > (args.hotseat or 0):
        print(tr("app.too_many_names", names=len(typed_names), n=args.hotseat), file=sys.stderr)
        return 2
    if not has_display(os.environ):
        if not args.screenshot:
            print(tr("app.no_display"), file=sys.stderr)
            return 2
        os.environ["SDL_VIDEODRIVER"] = "dummy"  # a screenshot needs no screen
    if args.screenshot:
        os.environ.setdefault("SDL_AUDIODRIVER", "dummy")  # a screenshot makes no sound
    try:
        rules = RuleSet.parse_options(args.rule).with_option("starting_dice", str(args.dice))
    except DudoError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    screenshot: str | None = args.screenshot
    settings = (Settings.memory(reduced_motion=True, muted=True) if screenshot
                else Settings.load(paths.settings_file()))
    lang = args.lang or saved_lang(settings) or lang  # --lang, else the last one chosen
    typed_name(settings, getattr(args, "name", None))  # play --name: the lobby's name
    app = App(session_factory, lang, time.monotonic, directory=directory,
              bot_delay=0.0 if screenshot else DEFAULT_BOT_DELAY_S, autoplay=bool(screenshot),
              reveal_hold=0.0 if screenshot else 6.0, settings=settings)
    app.open_window()
    if not screenshot:  # a picture needs no sounds built
        app.sounds = SoundBank.open(settings)  # silent when the machine has no audio device
    try:
        request: TableRequest | None = None
        if args.hotseat:
            request = TableRequest("hotseat", rules=rules, players=args.hotseat, seed=args.seed,
                                   names=hotseat_names(typed_names, args.hotseat))
        elif args.bots or screenshot:
            request = TableRequest("bots", rules=rules, bots=args.bots or 3,
                                   bot_level=args.level, seed=args.seed)
        if request is not None:
            app.start_table(request)
            if app.error is not None:
                print(app.error, file=sys.stderr)
                return 1
        elif resume is not None and not screenshot:
            app.switch(ResumePrompt(app, resume))
        return app.run_loop(screenshot, max_seconds=60.0 if screenshot else None)
    finally:
        app.scene.leave()  # closes the table's session: bot peers stop, the peer says bye
        app.sounds.close()
        pygame.display.quit()
