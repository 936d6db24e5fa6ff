"""Offline CFR+ solver for the small two-player Dudo endgames; writes ``endgame_table.json``.

Run ``python -m dudo_p2p.bots.cfr --out PATH [--iterations N]`` to rebuild the table the
expert bot ships with. Nothing here runs during play.

The model is :mod:`dudo_p2p.bots.endgame_model` (two-player rounds of the default table);
the solver and the exact exploitability measure are :mod:`dudo_p2p.bots.endgame_solver`.
This module solves every round game of the model, compacts the strategies into the shipped
table and measures the table as shipped. It re-exports the model's and the solver's names,
so ``cfr.build_game``, ``cfr.solve`` and the like keep working.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from dudo_p2p.bots.endgame_model import (
    CALZO,
    DUDO,
    GAMES,
    ModelBid,
    Node,
    RoundGame,
    Values,
    bid_key,
    build_game,
    game_name,
    hand_key,
    heuristic_value,
    model_legal_raise,
    node_key,
    outcome_value,
    state_value,
)
from dudo_p2p.bots.endgame_solver import (
    Solution,
    Strategy,
    expected_value,
    exploitability,
    reach_of,
    solve,
    uniform_strategy,
)

__all__ = [
    "CALZO",
    "DUDO",
    "GAMES",
    "TABLE_RESOURCE",
    "TABLE_VERSION",
    "ModelBid",
    "Node",
    "RoundGame",
    "Solution",
    "Strategy",
    "Values",
    "bid_key",
    "build_game",
    "compact_strategy",
    "expected_value",
    "exploitability",
    "game_name",
    "hand_key",
    "heuristic_value",
    "load_strategy",
    "main",
    "measure",
    "model_legal_raise",
    "node_key",
    "outcome_value",
    "solve",
    "solve_all",
    "state_value",
    "table_solution",
    "table_values",
]

# The table ships inside the package; read it with importlib.resources (works from a wheel,
# a zip or a frozen app, where no file path may exist).
TABLE_RESOURCE = "endgame_table.json"
TABLE_VERSION = 1


def solve_all(
    iterations: int, *, full_recall_1v1: bool = True, log: Callable[[str], None] = print
) -> dict[str, object]:
    """Solve every game of :data:`GAMES` and return the table as a JSON-ready dict.

    Two passes: the first with the heuristic next-state values and the cheap abstraction,
    the second with the values the first pass found. 1v1 games use full recall (the tree
    is small enough: 4,093 nodes) so their exploitability can be driven near 0.
    """
    values: Values = {}
    solutions: dict[tuple[int, int, bool], Solution] = {}
    used: Values = {}
    for final in (False, True):
        used = dict(values)
        for a, b, pal in GAMES:
            recall = "full" if (final and full_recall_1v1 and a == b == 1) else "1"
            game = build_game((a, b), pal, values, recall)
            sol = solve(game, iterations if final else max(20, iterations // 4))
            solutions[(a, b, pal)] = sol
            log(
                f"pass {int(final) + 1} {game_name(a, b, pal)} recall={recall} "
                f"value={sol.value:+.4f}"
            )
        values = {k: (s.value + 1.0) / 2.0 for k, s in solutions.items()}
    games: dict[str, Any] = {}
    for (a, b, pal), sol in solutions.items():
        games[game_name(a, b, pal)] = {
            "recall": sol.game.recall,
            "value": round(sol.value, 5),
            "exploitability": None,
            "strategy": compact_strategy(sol),
        }
    table: dict[str, Any] = {
        "version": TABLE_VERSION,
        "iterations": iterations,
        "units": "payoff in [-1, 1] = 2 * P(win game) - 1, exploitability averaged over seats",
        "next_state_values": {game_name(a, b, pal): w for (a, b, pal), w in used.items()},
        "games": games,
    }
    measure(table, log)
    return table


def measure(table: dict[str, Any], log: Callable[[str], None] = print) -> None:
    """Write into ``table`` the exploitability of its 1v1 games *as shipped* (compacted).

    Only the one-die games are measured: their full bid tree is small enough for an exact
    best response. The two-dice games keep ``None`` (not measured).
    """
    for a, b, pal in GAMES:
        if a == b == 1:
            expl = exploitability(table_solution(table, a, b, pal))
            table["games"][game_name(a, b, pal)]["exploitability"] = round(expl, 5)
            log(f"{game_name(a, b, pal)} exploitability (as shipped) = {expl:.5f}")


def compact_strategy(
    sol: Solution, floor: float = 0.005, min_reach: float = 1e-3
) -> dict[str, dict[str, dict[str, float]]]:
    """The average strategy as {node key: {hand: {action: prob}}}, dropping what barely matters.

    Rows the strategy itself reaches with probability under ``min_reach`` and actions under
    ``floor`` are left out (the bot falls back to its own judgement off the table); kept rows
    are renormalised. The cost in exploitability is measured on the table as shipped.
    """
    game = sol.game
    reach = reach_of(game, sol.strategy)
    out: dict[str, dict[str, dict[str, float]]] = {}
    for i, node in enumerate(game.nodes):
        own = reach[i][node.actor]
        hands_ = game.hands0 if node.actor == 0 else game.hands1
        rows: dict[str, dict[str, float]] = {}
        for h, (counts, _) in enumerate(hands_):
            if own[h] < min_reach:
                continue
            probs = sol.strategy[i][h]
            kept = {n: p for n, p in zip(node.actions, probs, strict=True) if p >= floor}
            if not kept:
                best = max(range(len(probs)), key=probs.__getitem__)
                kept = {node.actions[best]: 1.0}
            total = sum(kept.values())
            rows[hand_key(counts)] = {k: round(v / total, 3) for k, v in kept.items()}
        if rows:
            out[node.key] = rows
    return out


def table_values(table: dict[str, Any]) -> Values:
    """The next-state win chances a table's final pass was solved with."""
    stored = table.get("next_state_values", {})
    return {
        (a, b, pal): float(stored[game_name(a, b, pal)])
        for a, b, pal in GAMES
        if game_name(a, b, pal) in stored
    }


def table_solution(table: dict[str, Any], opener_dice: int, other_dice: int, pal: bool) -> Solution:
    """Rebuild one game of a shipped table as a :class:`Solution` (to measure it)."""
    entry = table["games"][game_name(opener_dice, other_dice, pal)]
    game = build_game((opener_dice, other_dice), pal, table_values(table), str(entry["recall"]))
    strategy = load_strategy(game, entry["strategy"])
    return Solution(game, strategy, expected_value(game, strategy))


def load_strategy(game: RoundGame, table: dict[str, dict[str, dict[str, float]]]) -> Strategy:
    """Rebuild a full strategy for ``game`` from a compact table (uniform where absent)."""
    out = uniform_strategy(game)
    for i, node in enumerate(game.nodes):
        rows = table.get(node.key)
        if rows is None:
            continue
        hands_ = game.hands0 if node.actor == 0 else game.hands1
        for h, (counts, _) in enumerate(hands_):
            row = rows.get(hand_key(counts))
            if row is not None:
                out[i][h] = [row.get(name, 0.0) for name in node.actions]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Solve every endgame of the model, write the table and print its exploitability."""
    parser = argparse.ArgumentParser(prog="python -m dudo_p2p.bots.cfr")
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument(
        "--out", type=Path, required=True, metavar="PATH",
        help=f"where to write the table (to ship it: dudo_p2p/bots/{TABLE_RESOURCE})",
    )
    parser.add_argument(
        "--measure", action="store_true", help="only re-measure the table at --out"
    )
    args = parser.parse_args(argv)

    def log(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    if args.measure:
        table: dict[str, Any] = json.loads(args.out.read_text())
        measure(table, log)
    else:
        table = solve_all(args.iterations, log=log)
    args.out.write_text(json.dumps(table, separators=(",", ":"), sort_keys=True) + "\n")
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
