"""``dudo-p2p tournament --matrix``: every level against every sparring-pool member.

One *cell* is a tournament (:func:`~dudo_p2p.bots.tournament.run_tournament`) of one level
against one pool member: head to head with ``--players 2``, one level against ``players - 1``
copies of the member otherwise. Every cell uses the same seed, so each level meets the same
dice streams. The table prints the level's win rate and its 95 % Wilson interval per cell;
while it runs, stderr carries one progress line (cell, pairing, games). With ``--json`` the
last stdout line is ``{"players": P, "games": G, "seed": S, "cells": {level: {member:
{"win_rate": w, "ci95": [lo, hi]}}}}``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from dudo_p2p.bots import LEVELS, POOL
from dudo_p2p.bots.tournament import Summary, run_tournament
from dudo_p2p.errors import InvalidValue
from dudo_p2p.rules import RuleSet

#: The levels the matrix plays by default (random is a baseline, not a level).
MATRIX_LEVELS = ("easy", "normal", "hard", "expert")

#: ``progress(text)``: the current state of the run, one line (the CLI rewrites it on stderr).
Status = Callable[[str], None]


@dataclass(frozen=True)
class Matrix:
    """Cells of the matrix: ``cells[(level, member)]`` is that pairing's tournament summary."""

    players: int
    games: int
    seed: int
    levels: tuple[str, ...]
    members: tuple[str, ...]
    cells: dict[tuple[str, str], Summary]

    def to_json(self) -> dict[str, object]:
        cells: dict[str, dict[str, object]] = {}
        for (level, member), summary in self.cells.items():
            lo, hi = summary.ci95(level)
            cells.setdefault(level, {})[member] = {
                "win_rate": round(summary.win_rate(level), 4),
                "ci95": [round(lo, 4), round(hi, 4)],
            }
        return {"players": self.players, "games": self.games, "seed": self.seed, "cells": cells}

    def lines(self) -> list[str]:
        """The table: one row per level, one column per member, "rate [lo, hi]" per cell."""
        width = 22
        names = (m.removeprefix("pool:") for m in self.members)
        head = f"{'level':<8}" + "".join(f"{name:>{width}}" for name in names)
        out = [head]
        for level in self.levels:
            row = f"{level:<8}"
            for member in self.members:
                s = self.cells[(level, member)]
                lo, hi = s.ci95(level)
                row += f"{f'{s.win_rate(level):.3f} [{lo:.3f}, {hi:.3f}]':>{width}}"
            out.append(row)
        return out


def parse_names(text: str | None, known: Sequence[str], default: Sequence[str]) -> tuple[str, ...]:
    """Comma-separated names (``pool:`` may be left out for members); ``default`` if empty."""
    if not text:
        return tuple(default)
    names: list[str] = []
    for raw in text.split(","):
        name = raw.strip()
        if not name:
            continue
        if name not in known and f"pool:{name}" in known:
            name = f"pool:{name}"
        if name not in known:
            raise InvalidValue(f"unknown {name!r}; choose from {', '.join(known)}")
        names.append(name)
    return tuple(names)


def run_matrix(
    players: int,
    games: int,
    seed: int,
    rules: RuleSet,
    *,
    levels: Sequence[str] = MATRIX_LEVELS,
    members: Sequence[str] = tuple(POOL),
    workers: int = 1,
    status: Status | None = None,
) -> Matrix:
    """Play every (level, member) cell of ``games`` games; ``status`` hears the progress."""
    for level in levels:
        if level not in LEVELS:
            raise InvalidValue(f"unknown level {level!r}; choose from {', '.join(LEVELS)}")
    cells: dict[tuple[str, str], Summary] = {}
    pairs = [(lv, m) for lv in levels for m in members]
    for i, (level, member) in enumerate(pairs, start=1):

        def report(done: int, total: int, level: str = level, member: str = member,
                   i: int = i) -> None:
            if status is not None and (done % max(1, total // 50) == 0 or done == total):
                status(f"matrix: cell {i}/{len(pairs)} {level} vs {member}: {done}/{total} games")

        cells[(level, member)] = run_tournament(
            players, games, [level, member], seed, rules, workers=workers, progress=report
        )
    return Matrix(players, games, seed, tuple(levels), tuple(members), cells)


def stderr_status() -> Status:
    """A status line rewritten in place on stderr (only when the text changes)."""
    last = [""]

    def show(text: str) -> None:
        if text != last[0]:
            last[0] = text
            print(f"\r{text}\x1b[K", end="", file=sys.stderr, flush=True)

    return show
