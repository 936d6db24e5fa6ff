"""Where a level loses its dice against an opponent: ``python -m dudo_p2p.bots.diagnose``.

Plays seeded games of ``--bots A,B`` (seats rotated like the tournament) and sorts every
round that ended with a call by what kind of round it was (``normal``, ``palifico``, or
``table`` when the decisive call was made in a two-seat endgame the CFR table covers) and
how it ended for ``A``: its bid doubted and false (``caught``), its bid doubted and true
(``held``), its ¡Dudo! right or wrong, its ¡Calzo! right or wrong, the opponent's ¡Calzo!
right or wrong. The counts say which part of a level an opponent exploits.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from collections.abc import Sequence

from dudo_p2p.bots import as_player, make_bot
from dudo_p2p.bots.expert import table_policy
from dudo_p2p.bots.tournament import dice_seed, lineup, seating
from dudo_p2p.rules import Action, RoundResult, RuleSet, SeatView
from dudo_p2p.rules.runner import Player, play_game


def outcome(result: RoundResult, me: set[int]) -> str | None:
    """How a resolved round ended for the seats ``me`` (None: it did not involve them)."""
    if result.bid is None or result.kind not in ("dudo", "calzo"):
        return None
    true = result.held >= result.bid.count
    if result.kind == "calzo":
        who = "our calzo" if result.caller in me else "their calzo"
        return f"{who} {'right' if result.held == result.bid.count else 'wrong'}"
    if result.caller in me:
        return "our dudo " + ("wrong" if true else "right")
    if result.target in me:
        return "our bid " + ("held" if true else "caught")
    return None


def diagnose(
    levels: Sequence[str], players: int, games: int, seed: int, rules: RuleSet
) -> Counter[tuple[str, str]]:
    """Counts of (round kind, outcome for the first level) over ``games`` seeded games."""
    base = lineup(levels, players)
    counts: Counter[tuple[str, str]] = Counter()
    for game in range(games):
        seats = seating(base, game)
        me = {s for s, lv in enumerate(seats) if lv == base[0]}
        bots = [make_bot(lv, random.Random(f"{seed}/{game}/{s}")) for s, lv in enumerate(seats)]
        kinds: dict[int, str] = {}
        plays = [as_player(b) for b in bots]

        def player(
            view: SeatView,
            rng: random.Random,
            kinds: dict[int, str] = kinds,
            plays: list[Player] = plays,
        ) -> Action:
            kind = "palifico" if view.palifico_round is not None else "normal"
            if view.own_dice is not None and table_policy(view):
                kind = "table"
            kinds[view.round_no] = kind
            return plays[view.seat](view, rng)

        rng = random.Random(dice_seed(seed, game, players))
        record = play_game(rules, players, [player] * players, rng)
        for result in record.final.results:
            how = outcome(result, me)
            if how is not None:
                counts[(kinds.get(result.round_no, "normal"), how)] += 1
        counts[("game", "won" if record.winner in me else "lost")] += 1
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m dudo_p2p.bots.diagnose")
    p.add_argument("--bots", required=True)
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE")
    args = p.parse_args(argv)
    levels = [lv.strip() for lv in args.bots.split(",") if lv.strip()]
    counts = diagnose(levels, args.players, args.games, args.seed,
                      RuleSet.parse_options(args.rule))
    for (kind, how), n in sorted(counts.items()):
        print(f"{kind:<9} {how:<18} {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
