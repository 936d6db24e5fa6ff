"""Offline CFR+ solver for the small two-player Dudo endgames; writes ``endgame_table.json``.

Run ``python -m dudo_p2p.bots.cfr --out PATH [--iterations N]`` to rebuild the table the
expert bot ships with. Nothing here runs during play.

The model (a *round game*, exactly the default table D1–D16 restricted to two players):

* dice counts ``(a, b)`` in {1, 2}², ``a`` for the round's opener (player 0); normal rounds
  (aces wild, no opening on aces, the D6–D9 raise rules with ``ceil_half``) and palifico
  rounds (opened by a one-die player: aces not wild, any opening face, face locked);
* each player sees only their own hand; bids go up to the total dice on the table;
  ¡Dudo! and ¡Calzo! end the round (D12, D13, calzo regains a die);
* the payoff of a round is the opener's chance to win the *game* from the state the round
  leads to, mapped to [-1, 1] (``2 W - 1``). Next-state values come from the solved games
  themselves (two passes of value iteration); a state outside the model (three dice after a
  right calzo) uses ``x / (x + y)``. A drop from two dice to one makes the next round palifico.

Infosets: a player's hand plus the public *node*. With ``recall="full"`` a node is the whole
bid history (a tree: exact CFR+, perfect recall); with ``recall="last"`` it is (standing bid,
player to act) — the future of a round depends only on that, so the game is a small DAG and
the strategy table stays tiny. That abstraction forgets how the bid was reached; the solver
then sums each player's reach over the paths into a node (as in Neller & Lanctot's
fixed-strategy-iteration CFR), which is not guaranteed to converge, so the exploitability of
the result is measured exactly by a best response in the full perfect-recall tree
(:func:`exploitability`), in the same [-1, 1] units, averaged over both seats.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dudo_p2p.bots.prob import Counts, counts_matches, hands

ModelBid = tuple[int, int]  # (count, face)
DUDO = "dudo"
CALZO = "calzo"
# The table ships inside the package; read it with importlib.resources (works from a wheel,
# a zip or a frozen app, where no file path may exist).
TABLE_RESOURCE = "endgame_table.json"
TABLE_VERSION = 1


def model_legal_raise(prev: ModelBid | None, bid: ModelBid, *, palifico: bool) -> bool:
    """The raise rule of the model (D5–D9, D15 without V9/V10); mirrors ``rules.is_legal_raise``."""
    count, face = bid
    if palifico:
        return prev is None or (face == prev[1] and count > prev[0])
    if prev is None:
        return face != 1
    pc, pf = prev
    if pf != 1 and face != 1:
        return count > pc or (count == pc and face > pf)
    if pf != 1:
        return count >= math.ceil(pc / 2)
    if face == 1:
        return count >= pc + 1
    return count >= 2 * pc + 1


def bid_key(bid: ModelBid | None) -> str:
    """Text of a bid in table keys ("3x5"), "-" for no standing bid."""
    return "-" if bid is None else f"{bid[0]}x{bid[1]}"


def hand_key(counts: Counts) -> str:
    """Sorted dice of a hand as text ("15" for an ace and a five)."""
    return "".join(str(face) * n for face, n in zip(range(1, 7), counts, strict=True))


Values = dict[tuple[int, int, bool], float]


def node_key(actor: int, history: Sequence[ModelBid], recall: str) -> str:
    """Key of a public node: the actor and the last bids the abstraction remembers.

    ``recall`` is "full" (every bid) or a number k as text (the last k bids; "1" is the
    standing bid alone).
    """
    kept = history if recall == "full" else history[len(history) - int(recall) :]
    if not kept:
        return f"{actor}|-"
    return f"{actor}|" + ",".join(bid_key(b) for b in kept)


@dataclass
class Node:
    """A public decision point: the standing bid, who acts, and the actions from here."""

    key: str
    bid: ModelBid | None
    actor: int
    history: tuple[ModelBid, ...]
    actions: list[str] = field(default_factory=list)
    children: dict[str, int] = field(default_factory=dict)  # raise action -> node index


@dataclass
class RoundGame:
    """One endgame round: dice ``(a, b)``, palifico or not, and its terminal payoffs."""

    dice: tuple[int, int]
    palifico: bool
    recall: str
    values: Values
    hands0: list[tuple[Counts, float]]
    hands1: list[tuple[Counts, float]]
    nodes: list[Node]
    # terminal[node][action] -> payoff matrix for player 0, [h0][h1]
    terminal: list[dict[str, list[list[float]]]]


def heuristic_value(mine: int, theirs: int) -> float:
    """Win chance used for states outside the model (more dice, more wins)."""
    return mine / (mine + theirs)


def state_value(values: Values, opener_dice: int, other_dice: int, palifico: bool) -> float:
    """Opener's game-win chance in a state; the heuristic off the model."""
    if other_dice == 0:
        return 1.0
    if opener_dice == 0:
        return 0.0
    return values.get((opener_dice, other_dice, palifico), heuristic_value(opener_dice, other_dice))


def outcome_value(values: Values, dice: tuple[int, int], player: int, delta: int) -> float:
    """Player 0's win chance after ``player`` loses (-1) or regains (+1) a die.

    The player whose dice changed opens the next round (D14); a drop from two to one die
    makes it palifico (the model assumes the player has not had one yet).
    """
    new = [dice[0], dice[1]]
    new[player] += delta
    if new[player] == 0:
        return 0.0 if player == 0 else 1.0
    palifico = delta < 0 and new[player] == 1 and dice[player] == 2
    mine, other = new[player], new[1 - player]
    w_next_opener = state_value(values, mine, other, palifico)
    return w_next_opener if player == 0 else 1.0 - w_next_opener


def build_game(
    dice: tuple[int, int], palifico: bool, values: Values, recall: str = "1"
) -> RoundGame:
    """Build the public graph of one round game and its terminal payoff matrices."""
    total = dice[0] + dice[1]
    wild = not palifico
    all_bids = [(c, f) for c in range(1, total + 1) for f in range(1, 7)]
    hands0 = list(hands(dice[0]))
    hands1 = list(hands(dice[1]))
    nodes: list[Node] = []
    index: dict[str, int] = {}
    terminal: list[dict[str, list[list[float]]]] = []

    def payoff_matrix(bid: ModelBid, caller: int, kind: str) -> list[list[float]]:
        rows: list[list[float]] = []
        for h0, _ in hands0:
            row: list[float] = []
            for h1, _ in hands1:
                held = counts_matches(h0, bid[1], wild=wild) + counts_matches(h1, bid[1], wild=wild)
                if kind == DUDO:
                    loser = caller if held >= bid[0] else 1 - caller
                    w = outcome_value(values, dice, loser, -1)
                elif held == bid[0]:
                    w = outcome_value(values, dice, caller, +1)
                else:
                    w = outcome_value(values, dice, caller, -1)
                row.append(2.0 * w - 1.0)
            rows.append(row)
        return rows

    def visit(history: tuple[ModelBid, ...], actor: int) -> int:
        bid = history[-1] if history else None
        key = node_key(actor, history, recall)
        if key in index:
            return index[key]
        node = Node(key=key, bid=bid, actor=actor, history=history)
        index[key] = len(nodes)
        nodes.append(node)
        terminal.append({})
        me = index[key]
        for nxt in all_bids:
            if model_legal_raise(bid, nxt, palifico=palifico):
                name = bid_key(nxt)
                node.actions.append(name)
                node.children[name] = visit((*history, nxt), 1 - actor)
        if bid is not None:
            for kind in (DUDO, CALZO):
                node.actions.append(kind)
                terminal[me][kind] = payoff_matrix(bid, actor, kind)
        return me

    visit((), 0)
    return RoundGame(dice, palifico, recall, values, hands0, hands1, nodes, terminal)


def _topological(game: RoundGame) -> list[int]:
    order: list[int] = []
    seen: set[int] = set()

    def dfs(i: int) -> None:
        seen.add(i)
        for child in game.nodes[i].children.values():
            if child not in seen:
                dfs(child)
        order.append(i)

    dfs(0)
    order.reverse()
    return order


Strategy = list[list[list[float]]]  # [node][hand of the actor][action]


@dataclass
class Solution:
    """A solved round game: average strategy, game value for player 0, exploitability."""

    game: RoundGame
    strategy: Strategy
    value: float
    exploitability: float | None = None


def _uniform(game: RoundGame) -> Strategy:
    out: Strategy = []
    for node in game.nodes:
        n_hands = len(game.hands0 if node.actor == 0 else game.hands1)
        k = len(node.actions)
        out.append([[1.0 / k] * k for _ in range(n_hands)])
    return out


def solve(game: RoundGame, iterations: int) -> Solution:
    """Run CFR+ (regret floors, linear averaging, alternating updates) on ``game``."""
    order = _topological(game)
    regrets = _zeros(game)
    avg = _zeros(game)
    chance = ([p for _, p in game.hands0], [p for _, p in game.hands1])
    for t in range(1, iterations + 1):
        for updater in (0, 1):
            current = _current_strategy(regrets)
            reach = _forward(game, order, current)
            utils = _backward(game, order, current)
            _update(game, current, reach, utils, chance, updater, regrets, avg, t)
    strategy = _normalise(avg)
    value = expected_value(game, strategy)
    return Solution(game, strategy, value)


def _zeros(game: RoundGame) -> list[list[list[float]]]:
    return [
        [[0.0] * len(n.actions) for _ in row]
        for n, row in zip(game.nodes, _uniform(game), strict=True)
    ]


def _current_strategy(regrets: list[list[list[float]]]) -> Strategy:
    out: Strategy = []
    for node in regrets:
        rows = []
        for r in node:
            total = sum(r)
            rows.append([x / total for x in r] if total > 0 else [1.0 / len(r)] * len(r))
        out.append(rows)
    return out


def _normalise(avg: list[list[list[float]]]) -> Strategy:
    return _current_strategy(avg)


def _forward(
    game: RoundGame, order: Sequence[int], strategy: Strategy
) -> list[tuple[list[float], list[float]]]:
    """Each player's reach per hand into each node, summed over the paths into it."""
    reach = [([0.0] * len(game.hands0), [0.0] * len(game.hands1)) for _ in game.nodes]
    reach[0] = ([1.0] * len(game.hands0), [1.0] * len(game.hands1))
    for i in order:
        node = game.nodes[i]
        mine, theirs = reach[i][node.actor], reach[i][1 - node.actor]
        sigma = strategy[i]
        for a, name in enumerate(node.actions):
            child = node.children.get(name)
            if child is None:
                continue
            c_mine, c_theirs = reach[child][node.actor], reach[child][1 - node.actor]
            for h, r in enumerate(mine):
                c_mine[h] += r * sigma[h][a]
            for h, r in enumerate(theirs):
                c_theirs[h] += r
    return reach


def _action_matrix(
    game: RoundGame, utils: list[list[list[float]]], i: int, name: str
) -> list[list[float]]:
    child = game.nodes[i].children.get(name)
    return utils[child] if child is not None else game.terminal[i][name]


def _backward(game: RoundGame, order: Sequence[int], strategy: Strategy) -> list[list[list[float]]]:
    """Player 0's payoff matrix [h0][h1] at each node under ``strategy``."""
    utils: list[list[list[float]]] = [[] for _ in game.nodes]
    n0, n1 = len(game.hands0), len(game.hands1)
    for i in reversed(order):
        node = game.nodes[i]
        sigma = strategy[i]
        acc = [[0.0] * n1 for _ in range(n0)]
        for a, name in enumerate(node.actions):
            mat = _action_matrix(game, utils, i, name)
            for h0 in range(n0):
                row, acc_row = mat[h0], acc[h0]
                if node.actor == 0:
                    p = sigma[h0][a]
                    if p:
                        for h1 in range(n1):
                            acc_row[h1] += p * row[h1]
                else:
                    for h1 in range(n1):
                        p = sigma[h1][a]
                        if p:
                            acc_row[h1] += p * row[h1]
        utils[i] = acc
    return utils


def _update(
    game: RoundGame,
    current: Strategy,
    reach: list[tuple[list[float], list[float]]],
    utils: list[list[list[float]]],
    chance: tuple[list[float], list[float]],
    updater: int,
    regrets: list[list[list[float]]],
    avg: list[list[list[float]]],
    t: int,
) -> None:
    for i, node in enumerate(game.nodes):
        if node.actor != updater:
            continue
        opp = 1 - updater
        weights = [p * r for p, r in zip(chance[opp], reach[i][opp], strict=True)]
        sign = 1.0 if updater == 0 else -1.0
        mats = [_action_matrix(game, utils, i, name) for name in node.actions]
        own_reach = reach[i][updater]
        for h, sigma in enumerate(current[i]):
            cfv = []
            for mat in mats:
                if updater == 0:
                    v = sum(w * x for w, x in zip(weights, mat[h], strict=True))
                else:
                    v = sum(w * mat[o][h] for o, w in enumerate(weights))
                cfv.append(sign * v)
            base = sum(s * v for s, v in zip(sigma, cfv, strict=True))
            reg = regrets[i][h]
            for a, v in enumerate(cfv):
                reg[a] = max(0.0, reg[a] + v - base)
            if own_reach[h] > 0:
                acc = avg[i][h]
                for a, s in enumerate(sigma):
                    acc[a] += t * own_reach[h] * s


def expected_value(game: RoundGame, strategy: Strategy) -> float:
    """Player 0's expected payoff in [-1, 1] when both play ``strategy``."""
    utils = _backward(game, _topological(game), strategy)
    return sum(
        p0 * p1 * utils[0][i][j]
        for i, (_, p0) in enumerate(game.hands0)
        for j, (_, p1) in enumerate(game.hands1)
    )


def exploitability(sol: Solution) -> float:
    """Mean gain of a perfect-recall best response over the solution's value, both seats.

    Walks the full bid tree (every history, not the abstraction's nodes): the responder
    keeps the whole history and picks its best action per hand, the other player follows
    ``sol.strategy`` looked up by its own node. Returns ``((BR0 - v) + (BR1 + v)) / 2`` in
    [-1, 1] payoff units (0 at an exact equilibrium, never negative).
    """
    game = sol.game
    full = build_game(game.dice, game.palifico, game.values, recall="full")
    by_key = {n.key: i for i, n in enumerate(game.nodes)}

    def policy_index(node: Node) -> int:
        return by_key[node_key(node.actor, node.history, game.recall)]

    br0 = _best_response(full, sol.strategy, policy_index, responder=0)
    br1 = _best_response(full, sol.strategy, policy_index, responder=1)
    return max(0.0, ((br0 - sol.value) + (br1 + sol.value)) / 2.0)


def _best_response(
    full: RoundGame,
    strategy: Strategy,
    policy_index: Callable[[Node], int],
    responder: int,
) -> float:
    """The responder's best-response payoff (its own sign) against ``strategy``."""
    mine = full.hands0 if responder == 0 else full.hands1
    theirs = full.hands1 if responder == 0 else full.hands0
    sign = 1.0 if responder == 0 else -1.0

    def leaf(mat: list[list[float]], reach: list[float]) -> list[float]:
        out = []
        for h in range(len(mine)):
            total = 0.0
            for o, (_, p) in enumerate(theirs):
                if reach[o]:
                    x = mat[h][o] if responder == 0 else mat[o][h]
                    total += p * reach[o] * x
            out.append(sign * total)
        return out

    def walk(i: int, reach: list[float]) -> list[float]:
        node = full.nodes[i]
        branches: list[list[float]] = []
        if node.actor == responder:
            for name in node.actions:
                child = node.children.get(name)
                if child is None:
                    branches.append(leaf(full.terminal[i][name], reach))
                else:
                    branches.append(walk(child, reach))
            return [max(b[h] for b in branches) for h in range(len(mine))]
        sigma = strategy[policy_index(node)]
        acc = [0.0] * len(mine)
        for a, name in enumerate(node.actions):
            r = [reach[o] * sigma[o][a] for o in range(len(theirs))]
            if not any(r):
                continue
            child = node.children.get(name)
            vals = leaf(full.terminal[i][name], r) if child is None else walk(child, r)
            for h in range(len(mine)):
                acc[h] += vals[h]
        return acc

    values = walk(0, [1.0] * len(theirs))
    return sum(p * v for (_, p), v in zip(mine, values, strict=True))


#: The round games the table covers: (opener dice, other dice, palifico).
GAMES: tuple[tuple[int, int, bool], ...] = (
    (1, 1, False),
    (1, 2, False),
    (2, 1, False),
    (2, 2, False),
    (1, 1, True),
    (1, 2, True),
)


def game_name(opener_dice: int, other_dice: int, palifico: bool) -> str:
    """Table key of a round game, e.g. "1v2-palifico"."""
    return f"{opener_dice}v{other_dice}-{'palifico' if palifico else 'normal'}"


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
    reach = _forward(game, _topological(game), sol.strategy)
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
    out = _uniform(game)
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
