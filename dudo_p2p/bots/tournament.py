"""``dudo-p2p tournament``: bots against bots in-process, with honest statistics.

``--bots A,B,...`` lists one level per seat; when it is shorter than ``--players`` the last
level fills the remaining seats (``--players 4 --bots expert,normal`` is one expert against
three normal). Games come in *blocks* of ``players`` games sharing one dice seed; within a
block the lineup is rotated one seat per game, so every level sits in every seat with the
same dice stream and no level gets luckier seats. ``--games`` is rounded up to whole blocks.

Each level's win rate is the share of games one of its seats won, with a 95 % Wilson
interval; its Elo is measured against the field per seat (a level holding k of P seats that
wins a fair k/P share scores 0). With ``--json`` the last stdout line is
``{"games": G, "win_rate": {...}, "ci95": {level: [lo, hi]}}``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from dudo_p2p.bots import LEVELS, POOL, as_player, make_bot
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
) -> Summary:
    """Play ``games`` (rounded up to whole rotation blocks) and summarise them.

    ``levels`` may name levels (:data:`LEVELS`) and sparring-pool members (:data:`POOL`).
    ``progress``: True prints a progress line on stderr; a callable is called instead.
    """
    base = lineup(levels, players)
    for level in base:
        if level not in LEVELS and level not in POOL:
            raise InvalidValue(
                f"unknown bot {level!r}; choose from {', '.join((*LEVELS, *POOL))}"
            )
    total = -(-games // players) * players
    jobs = [Job(g, seed, players, base, rules.to_dict()) for g in range(total)]
    wins = dict.fromkeys(base, 0)
    seats = {lv: base.count(lv) for lv in wins}
    report = progress if callable(progress) else _progress_line if progress else None
    if workers > 1:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            outcomes = pool.imap_unordered(play_one, jobs, chunksize=4)
            _count(outcomes, wins, total, report)
    else:
        _count(map(play_one, jobs), wins, total, report)
    if progress is True:
        print(file=sys.stderr)
    return Summary(total, players, wins, seats)


def _count(
    outcomes: Iterable[tuple[int, str]], wins: dict[str, int], total: int, report: Progress | None
) -> None:
    for done, (_, winner) in enumerate(outcomes, start=1):
        wins[winner] += 1
        if report is not None:
            report(done, total)


def _progress_line(done: int, total: int) -> None:
    if done % max(1, total // 50) == 0 or done == total:
        print(f"\rtournament: {done}/{total} games", end="", file=sys.stderr, flush=True)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``tournament`` on the CLI's subparsers (``run`` is its handler)."""
    p = subparsers.add_parser("tournament", help="bots against bots, with win rates and CIs")
    p.add_argument("--players", type=int, default=2, help="seats at the table (2..6)")
    p.add_argument("--games", type=int, default=200, help="games to play (whole rotations)")
    p.add_argument("--bots", help="levels (or pool:STYLE members) per seat, e.g. expert,normal")
    p.add_argument("--matrix", action="store_true",
                   help="every level against every sparring-pool member (a cell per pairing)")
    p.add_argument("--levels", help="--matrix: levels to play (default easy,normal,hard,expert)")
    p.add_argument("--pool", help="--matrix: pool members to meet (default all)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--workers", type=int, default=2, help="processes (1: in this process)")
    p.add_argument("--json", action="store_true", help="last stdout line is a JSON summary")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run the tournament described by ``args``; prints a table (and JSON with --json)."""
    try:
        rules = RuleSet.parse_options(args.rule)
        if not 2 <= args.players <= 6 or args.games < 1:
            raise InvalidValue("need 2..6 players and at least one game")
        if args.matrix:
            return _run_matrix(args, rules)
        if not args.bots:
            raise InvalidValue("give --bots (or --matrix)")
        levels = [lv.strip() for lv in str(args.bots).split(",") if lv.strip()]
        summary = run_tournament(
            args.players, args.games, levels, args.seed, rules,
            workers=max(1, args.workers), progress=args.games >= 100,
        )
    except InvalidValue as exc:
        print(f"dudo-p2p tournament: {exc}", file=sys.stderr)
        return 2
    print(f"{summary.games} games, {summary.players} players, seed {args.seed}")
    for level in summary.wins:
        lo, hi = summary.ci95(level)
        print(
            f"  {level:<8} seats {summary.seats[level]}  win rate {summary.win_rate(level):.3f}"
            f"  95% CI [{lo:.3f}, {hi:.3f}]  Elo vs field {summary.elo(level):+.0f}"
        )
    names = list(summary.wins)
    if len(names) == 2:
        a, b = names
        print(f"  Elo difference {a} - {b}: {summary.elo(a) - summary.elo(b):+.0f}")
    if args.json:
        print(json.dumps(summary.to_json()))
    return 0


def _run_matrix(args: argparse.Namespace, rules: RuleSet) -> int:
    from dudo_p2p.bots import matrix  # the matrix builds on this module

    levels = matrix.parse_names(args.levels, LEVELS, matrix.MATRIX_LEVELS)
    members = matrix.parse_names(args.pool, tuple(POOL), tuple(POOL))
    result = matrix.run_matrix(
        args.players, args.games, args.seed, rules, levels=levels, members=members,
        workers=max(1, args.workers), status=matrix.stderr_status(),
    )
    print(file=sys.stderr)
    shape = "head to head" if args.players == 2 else f"one level vs {args.players - 1} of a member"
    print(f"{result.cells[(levels[0], members[0])].games} games a cell, {args.players} players "
          f"({shape}), seed {args.seed}: win rate of the level, 95% CI")
    for line in result.lines():
        print(line)
    if args.json:
        print(json.dumps(result.to_json()))
    return 0


if __name__ == "__main__":  # python -m dudo_p2p.bots.tournament (before the CLI registers it)
    _parser = argparse.ArgumentParser(prog="python -m dudo_p2p.bots.tournament")
    add_parser(_parser.add_subparsers(dest="command", required=True))
    _args = _parser.parse_args(["tournament", *sys.argv[1:]])
    sys.exit(run(_args))
