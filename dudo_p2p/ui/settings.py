"""The player's settings: a small JSON object in the user's config directory.

``Settings.load(path)`` never fails: a missing, unreadable or corrupt file gives the defaults
(and the next change writes a good file). ``set(key, value)`` writes at once, atomically (a
temporary file in the same directory, then ``os.replace``), so a crash never leaves half a
file. Keys this version does not know are kept as they were read, so an older or newer
program sharing the file loses nothing; other features add their own keys to ``DEFAULTS``.

``Settings.memory(...)`` is the same object with no file (tests, screenshots).
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path

log = logging.getLogger(__name__)

JsonValue = bool | int | float | str | None

#: Every key this version uses, with its default; a stored value of another type is ignored.
DEFAULTS: dict[str, JsonValue] = {
    "volume": 0.8,  # 0..1, the sound bank's master volume
    "muted": False,
    "reduced_motion": False,  # no tumbling, flying or sliding: states change at once
    # the lobby's choices, restored at the next launch (ui/remember.py)
    "name": "",  # "" : the login name
    "lang": "",  # "" : from the locale
    "bot_level": "normal",
    "quick_bots": 3,
    "create_seats": 5,  # a created table's seats, ours included
    "create_bots": 3,
    "timer_index": 0,
    "rules": "",  # the last table's rule set, as RuleSet.to_dict() in JSON ("" : defaults)
}
MAX_BYTES = 64 * 1024  # a settings file is a few hundred bytes; anything bigger is not ours


class Settings:
    """Typed access to the settings, backed by ``path`` (or by nothing). See the module
    docstring."""

    def __init__(self, values: dict[str, object], path: Path | None) -> None:
        self._values = values
        self.path = path

    @classmethod
    def memory(cls, **values: JsonValue) -> Settings:
        """Settings held only in memory: nothing is read or written."""
        return cls(dict(values), None)

    @classmethod
    def load(cls, path: Path) -> Settings:
        """Read ``path``; on any problem (missing, too big, not a JSON object) the defaults,
        with the problem logged (a missing file is the normal first run and is not)."""
        values: dict[str, object] = {}
        try:
            if path.stat().st_size > MAX_BYTES:
                raise ValueError(f"{path.stat().st_size} bytes")
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            values = data
        except FileNotFoundError:
            pass
        except (OSError, ValueError) as exc:
            log.warning("settings file %s ignored (%s): defaults used", path, exc)
        return cls(values, path)

    def get(self, key: str) -> JsonValue:
        """The value of ``key``: the stored one when it has the default's type, else the
        default (``bool`` is not taken for a number, nor a number for a ``bool``)."""
        default = DEFAULTS[key]
        value = self._values.get(key, default)
        if isinstance(default, bool):
            return value if isinstance(value, bool) else default
        if isinstance(default, int | float):
            ok = isinstance(value, int | float) and not isinstance(value, bool)
            return value if ok and isinstance(value, int | float) else default
        return value if isinstance(value, str) else default

    def flag(self, key: str) -> bool:
        """A boolean setting."""
        return bool(self.get(key))

    def number(self, key: str) -> float:
        """A numeric setting."""
        value = self.get(key)
        assert isinstance(value, int | float)
        return float(value)

    def set(self, key: str, value: JsonValue) -> None:
        """Change ``key`` and write the file at once (a failed write is logged: the setting
        still holds for this session)."""
        self.update({key: value})

    def update(self, values: dict[str, JsonValue]) -> None:
        """Change several keys and write the file once (as :meth:`set`)."""
        for key in values:
            if key not in DEFAULTS:
                raise KeyError(key)
        self._values.update(values)
        if self.path is not None:
            try:
                write_atomically(self.path, json.dumps(self._values, indent=2, sort_keys=True))
            except OSError as exc:
                log.warning("settings not saved to %s: %s", self.path, exc)


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same directory and
    ``os.replace``: readers see the old file or the new one, never a part."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".settings-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
