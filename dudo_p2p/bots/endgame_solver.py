"""CFR+ on one endgame round game, and the exact exploitability of a strategy.

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

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from dudo_p2p.bots.endgame_model import Node, RoundGame, build_game, node_key


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


def uniform_strategy(game: RoundGame) -> Strategy:
    """Every action equally likely at every node, for every hand (where a table is silent)."""
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
        for n, row in zip(game.nodes, uniform_strategy(game), strict=True)
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



def reach_of(game: RoundGame, strategy: Strategy) -> list[tuple[list[float], list[float]]]:
    """Each player's reach per hand into each node when both play ``strategy``."""
    return _forward(game, _topological(game), strategy)
