"""Where dudo-p2p keeps its files on this machine, the same way on Windows, macOS and Linux.

``platformdirs`` knows each system's convention (XDG on Linux, honouring ``XDG_DATA_HOME`` and
``XDG_CONFIG_HOME``; ``~/Library/Application Support`` on macOS; ``%LOCALAPPDATA%`` on
Windows), so we never hard-code a Linux path. Nothing here creates a directory: callers create
what they write into (the keystore makes its directory 0700).

Layering: only code that does I/O imports this (the keystore, the node, the session, the UI,
the CLI); the pure core never does (``tests/test_layers.py``).
"""

from __future__ import annotations

from pathlib import Path

import platformdirs

APP = "dudo-p2p"


def data_dir() -> Path:
    """The per-user data directory: the identity, journals of games in progress."""
    return Path(platformdirs.user_data_dir(APP, appauthor=False))


def config_dir() -> Path:
    """The per-user configuration directory: the settings file."""
    return Path(platformdirs.user_config_dir(APP, appauthor=False))


def identity_file() -> Path:
    """The default identity file (``--identity`` overrides it)."""
    return data_dir() / "identity"


def journal_dir() -> Path:
    """Where every networked game journals itself, so a crashed peer can ``--resume``."""
    return data_dir() / "journals"


def records_dir() -> Path:
    """Where the window's "Open a record" looks for game records (``--record`` can write
    there)."""
    return data_dir() / "records"


def settings_file() -> Path:
    """The settings file the window reads at launch and writes when a setting changes."""
    return config_dir() / "settings.json"
