"""``dudo-p2p tournament``: its options and what it prints (the games and the statistics are
:mod:`~dudo_p2p.bots.tournament`; ``--matrix`` is :mod:`~dudo_p2p.bots.matrix`, which builds on
the tournament: apart from it, so that neither imports the other back)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from dudo_p2p.bots import LEVELS, POOL, matrix
from dudo_p2p.bots.tournament import run_tournament
from dudo_p2p.errors import InvalidValue
from dudo_p2p.rules import RuleSet


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
    p.add_argument("--out", type=Path, metavar="FILE",
                   help="log each game to FILE (JSON lines); a cut run resumes from it")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run the tournament described by ``args``; prints a table (and JSON with --json)."""
    try:
        rules = RuleSet.parse_options(args.rule)
        if not 2 <= args.players <= 6 or args.games < 1:
            raise InvalidValue("need 2..6 players and at least one game")
        if args.matrix:
            if args.out is not None:
                raise InvalidValue("--out logs one tournament: give --bots, not --matrix")
            return _run_matrix(args, rules)
        if not args.bots:
            raise InvalidValue("give --bots (or --matrix)")
        levels = [lv.strip() for lv in str(args.bots).split(",") if lv.strip()]
        summary = run_tournament(
            args.players, args.games, levels, args.seed, rules,
            workers=max(1, args.workers), progress=args.games >= 100, out=args.out,
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


if __name__ == "__main__":  # python -m dudo_p2p.bots.tournament_cli (before the CLI registers it)
    _parser = argparse.ArgumentParser(prog="python -m dudo_p2p.bots.tournament_cli")
    add_parser(_parser.add_subparsers(dest="command", required=True))
    _args = _parser.parse_args(["tournament", *sys.argv[1:]])
    sys.exit(run(_args))
