"""``dudo-p2p play`` over the real stack: the table against bot peers that are processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pygame
from node_helpers import loopback_net


def test_play_screenshot_against_real_bot_peers(tmp_path: Path, beacon_port: int) -> None:
    """The window (SDL dummy) hosts a table on loopback, 2 bot peer processes join, the first
    bid stands, and the picture of the live table is saved."""
    shot = tmp_path / "table.png"
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    done = subprocess.run(
        [sys.executable, "-m", "dudo_p2p", "play", "--bots", "2", "--screenshot", str(shot),
         "--identity", str(tmp_path / "me"), "--lang", "en", *loopback_net(beacon_port)],
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    picture = pygame.image.load(str(shot))
    assert picture.get_size() >= (1280, 800)
