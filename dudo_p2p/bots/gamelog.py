"""A tournament's games on disk, one JSON line each, so that a long run survives being cut.

``dudo-p2p tournament --out FILE`` appends a line per finished game to FILE and, when FILE
already holds games of the same tournament (same seed, players, lineup and rules: the first
line), plays only the games missing from it. A game depends on the seed and its index alone
(:mod:`~dudo_p2p.bots.tournament`), so a run resumed any number of times counts exactly the
games one uninterrupted run would; a log of more games than asked is read for the first ones
only (``--games 1500`` on a 2,000-game log summarises games 0..1499 and plays nothing).

Layout: line 1 ``{"tournament": 1, "seed": S, "players": P, "bots": [...], "rules": {...}}``,
then ``{"game": g, "winner": level}`` per game in the order they finished. A last line cut
by a kill (no newline) is dropped and that game played again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO

from dudo_p2p.errors import InvalidValue


class GameLog:
    """An append-only log of one tournament's games (see the module docstring)."""

    def __init__(self, path: Path, header: dict[str, object]) -> None:
        """Open ``path`` for ``header``'s tournament; raises InvalidValue if it holds another."""
        self.header = {"tournament": 1, **header}
        self.done: dict[int, str] = {}
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        if text and not text.endswith("\n"):
            text = text[: text.rfind("\n") + 1]  # a line cut by a kill: play that game again
            path.write_text(text, encoding="utf-8")
        lines = text.splitlines()
        if lines:
            try:
                first = json.loads(lines[0])
                entries = [json.loads(line) for line in lines[1:]]
                games = {int(e["game"]): str(e["winner"]) for e in entries}
            except (ValueError, TypeError, KeyError) as exc:
                raise InvalidValue(f"{path} is not a tournament log: {exc}") from exc
            if first != self.header:
                raise InvalidValue(f"{path} holds the games of another tournament: {lines[0]}")
            self.done = games
        self._file: IO[str] = path.open("a", encoding="utf-8")
        if not lines:
            self._write(self.header)

    def record(self, game: int, winner: str) -> None:
        """Append one finished game (flushed at once: a kill loses at most the game in play)."""
        self.done[game] = winner
        self._write({"game": game, "winner": winner})

    def close(self) -> None:
        self._file.close()

    def _write(self, entry: dict[str, object]) -> None:
        self._file.write(json.dumps(entry) + "\n")
        self._file.flush()
