"""Bots against bots in-process, with honest statistics (the ``dudo-p2p tournament`` command
is :mod:`~dudo_p2p.bots.tournament_cli`).

``--bots A,B,...`` lists one level per seat; when it is shorter than ``--players`` the last
level fills the remaining seats (``--players 4 --bots expert,normal`` is one expert against
three normal). Games come in *blocks* of ``players`` games sharing one dice seed; within a
block the lineup is rotated one seat per game, so every level sits in every seat with the
same dice stream and no level gets luckier seats. ``--games`` is rounded up to whole blocks.

Each level's win rate is the share of games one of its seats won, with a 95 % Wilson
interval; its Elo is measured against the field per seat (a level holding k of P seats that
wins a fair k/P share scores 0). With ``--json`` the last stdout line is
``{"games": G, "win_rate": {...}, "ci95": {level: [lo, hi]}}``. With ``--out FILE`` every
game is logged as it ends and a cut run resumes where it stopped
(:mod:`~dudo_p2p.bots.gamelog`).
"""

from __future__ import annotations

import multiprocessing
import random
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from dudo_p2p.bots import LEVELS, POOL, as_player, make_bot
from dudo_p2p.bots.gamelog import GameLog
from dudo_p2p.bots.stats import elo_difference, fair_share_score, wilson_interval
from dudo_p2p.errors import InvalidValue
from dudo_p2p.rules import RuleSet
from dudo_p2p.rules.runner import play_game


def lineup(levels: Sequence[str], players: int) -> tuple[str, ...]:
    """One level per seat: ``levels`` padded with its last entry up to ``players`` seats."""
    if not levels or len(levels) > players:
        raise InvalidValue(f"give 1 to {players} bot levels for {players} players")
    return (*levels, *([levels[-1]] * (players - len(levels))))


def seating(base: Sequence[str], game: int) -> tuple[str, ...]:
    """The lineup of game ``game``: ``base`` rotated by ``game % len(base)`` seats."""
    n = len(base)
    r = game % n
    return tuple(base[(seat + r) % n] for seat in range(n))


def dice_seed(seed: int, game: int, players: int) -> int:
    """The dice seed of ``game``: shared by the ``players`` rotations of one block."""
    return seed * 1_000_003 + game // players


@dataclass(frozen=True)
class Job:
    """Everything a worker needs to play one game (picklable)."""

    game: int
    seed: int
    players: int
    base: tuple[str, ...]
    rules: dict[str, bool | int | str]


def play_one(job: Job) -> tuple[int, str]:
    """Play game ``job.game``; returns (game, level of the winner)."""
    seats = seating(job.base, job.game)
    bots = [
        make_bot(level, random.Random(f"{job.seed}/{job.game}/{seat}"))
        for seat, level in enumerate(seats)
    ]
    rng = random.Random(dice_seed(job.seed, job.game, job.players))
    record = play_game(RuleSet.from_dict(job.rules), job.players, [as_player(b) for b in bots], rng)
    return job.game, seats[record.winner]


@dataclass(frozen=True)
class Summary:
    """Tournament outcome per level: wins, seats held, win rate, 95 % CI and Elo vs the field."""

    games: int
    players: int
    wins: dict[str, int]
    seats: dict[str, int]

    def win_rate(self, level: str) -> float:
        return self.wins[level] / self.games if self.games else 0.0

    def ci95(self, level: str) -> tuple[float, float]:
        return wilson_interval(self.wins[level], self.games)

    def elo(self, level: str) -> float:
        """Elo of one seat of ``level`` against the field (0 = a fair share of wins)."""
        per_seat = self.win_rate(level) / self.seats[level]
        return elo_difference(fair_share_score(per_seat, self.players))

    def to_json(self) -> dict[str, object]:
        return {
            "games": self.games,
            "win_rate": {lv: round(self.win_rate(lv), 4) for lv in self.wins},
            "ci95": {lv: [round(x, 4) for x in self.ci95(lv)] for lv in self.wins},
        }


#: ``progress(done, total)`` after each game (the CLI's progress line on stderr).
Progress = Callable[[int, int], None]


def run_tournament(
    players: int,
    games: int,
    levels: Sequence[str],
    seed: int,
    rules: RuleSet,
    *,
    workers: int = 1,
    progress: bool | Progress = False,
    out: Path | None = None,
) -> Summary:
    """Play ``games`` (rounded up to whole rotation blocks) and summarise them.

    ``levels`` may name levels (:data:`LEVELS`) and sparring-pool members (:data:`POOL`).
    ``progress``: True prints a progress line on stderr; a callable is called instead.
    ``out``: log each game there and play only the games it does not hold yet
    (:class:`~dudo_p2p.bots.gamelog.GameLog`; InvalidValue if it logs another tournament).
    """
    base = lineup(levels, players)
    for level in base:
        if level not in LEVELS and level not in POOL:
            raise InvalidValue(
                f"unknown bot {level!r}; choose from {', '.join((*LEVELS, *POOL))}"
            )
    total = -(-games // players) * players
    header: dict[str, object] = {
        "seed": seed, "players": players, "bots": list(base), "rules": rules.to_dict(),
    }
    log = GameLog(out, header) if out is not None else None
    done = {g: w for g, w in log.done.items() if g < total} if log is not None else {}
    jobs = [Job(g, seed, players, base, rules.to_dict()) for g in range(total) if g not in done]
    wins = dict.fromkeys(base, 0)
    for winner in done.values():
        wins[winner] += 1
    seats = {lv: base.count(lv) for lv in wins}
    report = progress if callable(progress) else _progress_line if progress else None
    try:
        if workers > 1:
            with multiprocessing.get_context("spawn").Pool(workers) as pool:
                outcomes = pool.imap_unordered(play_one, jobs, chunksize=4)
                _count(outcomes, wins, len(done), total, report, log)
        else:
            _count(map(play_one, jobs), wins, len(done), total, report, log)
    finally:
        if log is not None:
            log.close()
    if progress is True:
        print(file=sys.stderr)
    return Summary(total, players, wins, seats)


def _count(
    outcomes: Iterable[tuple[int, str]],
    wins: dict[str, int],
    before: int,
    total: int,
    report: Progress | None,
    log: GameLog | None,
) -> None:
    for done, (game, winner) in enumerate(outcomes, start=before + 1):
        wins[winner] += 1
        if log is not None:
            log.record(game, winner)
        if report is not None:
            report(done, total)


def _progress_line(done: int, total: int) -> None:
    if done % max(1, total // 50) == 0 or done == total:
        print(f"\rtournament: {done}/{total} games", end="", file=sys.stderr, flush=True)
