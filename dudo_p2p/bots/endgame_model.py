"""The endgame model the CFR+ solver plays: two-player rounds of the default table D1–D16.

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

Public nodes are keyed by the actor and the bids the abstraction remembers
(:func:`node_key`); hands by their sorted dice (:func:`hand_key`). These keys are also the
keys of the shipped table that :mod:`dudo_p2p.bots.expert` reads.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from dudo_p2p.bots.prob import Counts, counts_matches, hands

ModelBid = tuple[int, int]  # (count, face)
DUDO = "dudo"
CALZO = "calzo"


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

