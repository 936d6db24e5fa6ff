"""The sound bank: one name per game event, played through ``pygame.mixer``.

``SoundBank.open(settings)`` starts the mixer and synthesizes the sounds (``synth``) in a
background thread, so the window opens at once; a sound asked for before it is ready is
skipped. A machine without an audio device (no card, CI, ``SDL_AUDIODRIVER=dummy`` on a
system whose SDL lacks it) gets a silent bank: the mixer's error is logged once, never
raised. Volume and mute come from the settings at each play, so the menu changes them at
once.

``SoundBank.silent()`` plays nothing and starts nothing (tests that do not listen).
Every call goes through :meth:`SoundBank.play`, which is what a test spies on.
"""

from __future__ import annotations

import logging
import threading

import pygame

from dudo_p2p.ui import synth
from dudo_p2p.ui.settings import Settings

log = logging.getLogger(__name__)

#: Every sound the table plays, by the event it marks.
NAMES = tuple(synth.SOUNDS)
VOLUME_STEPS = (0.0, 0.25, 0.5, 0.75, 1.0)


class SoundBank:
    """Named sounds; see the module docstring."""

    def __init__(self, settings: Settings, sounds: dict[str, pygame.mixer.Sound] | None = None
                 ) -> None:
        self.settings = settings
        self._sounds = sounds if sounds is not None else {}
        self.available = False  # the mixer opened
        self._ready = threading.Event()

    @classmethod
    def silent(cls, settings: Settings | None = None) -> SoundBank:
        """A bank that plays nothing (no mixer opened)."""
        return cls(settings or Settings.memory())

    @classmethod
    def open(cls, settings: Settings, *, background: bool = True) -> SoundBank:
        """Open the mixer and build the sounds (in a thread unless ``background`` is False);
        a silent bank when there is no audio device."""
        bank = cls(settings)
        try:
            if pygame.mixer.get_init() is None:
                # 16-bit signed exactly (allowedchanges=0: SDL converts for the device), so
                # the synthesized PCM is read as what it is
                pygame.mixer.init(synth.RATE, -16, 1, 512, allowedchanges=0)
        except pygame.error as exc:
            log.info("no sound: the mixer did not open (%s)", exc)
            return bank
        bank.available = True
        if background:
            threading.Thread(target=bank._build, name="sound-bank", daemon=True).start()
        else:
            bank._build()
        return bank

    def _build(self) -> None:
        init = pygame.mixer.get_init()
        channels = init[2] if init is not None else 1
        try:
            for name in NAMES:
                self._sounds[name] = pygame.mixer.Sound(buffer=synth.render(name, channels))
        except pygame.error as exc:  # the mixer closed under us (the program is ending)
            log.info("sounds not built: %s", exc)
        self._ready.set()

    def wait_ready(self, timeout: float) -> bool:
        """Wait until the sounds are built (tests); True when they are."""
        return self._ready.wait(timeout)

    def play(self, name: str) -> None:
        """Play ``name`` at the settings' volume, unless muted, silent or not built yet."""
        if name not in synth.SOUNDS:
            raise KeyError(name)
        sound = self._sounds.get(name)
        if sound is None or self.settings.flag("muted"):
            return
        volume = max(0.0, min(1.0, self.settings.number("volume")))
        if volume <= 0:
            return
        sound.set_volume(volume)
        sound.play()

    def close(self) -> None:
        """Stop the mixer (the program is ending)."""
        if self.available and pygame.mixer.get_init() is not None:
            pygame.mixer.quit()
