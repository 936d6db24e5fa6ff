"""A finished (or interrupted) game, read back from its record for the replay viewer.

:meth:`Replay.load` verifies the whole record first (:func:`~dudo_p2p.consensus.record.
verify_record`: every signature, commitment, derived die, rule and result) and refuses an
invalid one with the :class:`~dudo_p2p.consensus.record.RecordViolation` that names the first
bad item, so the viewer never shows a game it could not check. What it keeps:

* ``steps``: the table after every public move, in order: the start, each bid or call, each
  round's reveal (a step of its own, showing that round's bids with every die face up and the
  result), and each removal. A step's ``state`` is the engine's public state; nothing hidden.
* the dice of every round, taken from the round's result (the log only reveals them at the end
  of the round, so :meth:`Replay.dice_at` shows them only from the reveal on, unless asked to
  show them from the start; the game's last step, its end, keeps the last round's face up);
* per bid, the chance it held *from what its bidder knew* (its own dice and how many others'
  dice were hidden): :meth:`Replay.bid_chance`;
* per player, how often their bids held and how often their calls were right:
  :meth:`Replay.player_stats`.

Pure: give it the record's bytes; it does no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

# re-exported: the ui names it and imports no consensus module (tests/test_layers.py)
from dudo_p2p.consensus.record import RecordViolation as RecordViolation
from dudo_p2p.consensus.record import Summary, verify_record
from dudo_p2p.rules import Action, Calzo, Dudo, GameState, Phase, Raise, RoundResult
from dudo_p2p.rules.legality import count_showing
from dudo_p2p.rules.odds import chance_at_least

Hands = tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class Step:
    """The table after one public move. ``action`` is that move (None: the game's start, a
    reveal, a removal); ``reveal`` is the result shown at this step (a reveal step), and
    ``round_no`` the round the step belongs to."""

    state: GameState
    action: Action | None
    round_no: int
    reveal: RoundResult | None = None
    removed: int | None = None


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """One player's game: bids made and how many held at the reveal of their round; ¡Dudo!
    and ¡Calzo! calls made and how many were right."""

    seat: int
    name: str
    bids: int
    bids_held: int
    doubts: int
    doubts_right: int
    calzos: int
    calzos_right: int


class Replay:
    """A verified record as steps. Build with :meth:`load`."""

    def __init__(self, summary: Summary, steps: list[Step], final: GameState) -> None:
        self.summary = summary
        self.steps: tuple[Step, ...] = tuple(steps)
        self.final = final
        self._results = {r.round_no: r for r in final.results}

    @classmethod
    def load(cls, data: bytes) -> Replay:
        """Verify ``data`` (a record file's bytes) and step through it; raises
        ``RecordViolation`` (with the index of the first bad item) when it does not verify."""
        engines: list[GameState] = []
        summary = verify_record(data, lambda _index, engine: engines.append(engine))
        if not engines:
            raise RecordViolation(-1, "the record holds no move: nothing to replay")
        return cls(summary, _steps(engines), engines[-1])

    @property
    def names(self) -> tuple[str, ...]:
        return self.summary.names

    def round_starts(self) -> list[int]:
        """The index of the first step of each round (for stepping round by round)."""
        starts: list[int] = []
        for i, step in enumerate(self.steps):
            if step.reveal is None and (not starts or step.round_no != self.steps[starts[-1]]
                                         .round_no):
                starts.append(i)
        return starts

    def voided_before(self, index: int) -> range:
        """The rounds called off just before step ``index`` when it starts a round (dealt,
        then dealt again without a result, as when a seat left mid-round): their numbers are
        skipped by the steps; empty at any other step."""
        step = self.steps[index]
        if index == 0 or index not in self.round_starts():
            return range(0)
        return range(self.steps[index - 1].round_no + 1, step.round_no)

    def result_of(self, index: int) -> RoundResult | None:
        """The result of the round step ``index`` belongs to (None: never resolved)."""
        step = self.steps[index]
        return step.reveal or self._results.get(step.round_no)

    def shown_result(self, index: int) -> RoundResult | None:
        """The result on the table at step ``index``: a reveal step's, and at the game's end
        (the step after the last reveal) that last round's, whose dice stay face up under the
        winner's name; None at any other step."""
        step = self.steps[index]
        if step.reveal is not None:
            return step.reveal
        if step.state.phase is Phase.OVER and step.action is None and step.removed is None:
            while index > 0 and self.steps[index - 1].removed is not None:
                index -= 1  # (past the seats removed as the last round resolved)
            return self.steps[index - 1].reveal if index > 0 else None
        return None

    def dice_at(self, index: int, *, from_start: bool = False) -> Hands | None:
        """Every seat's dice to show at step ``index``: the round's dice once it is revealed
        (or all along with ``from_start``), None while they are still hidden."""
        step = self.steps[index]
        shown = self.shown_result(index)
        if shown is not None:
            return shown.dice
        result = self._results.get(step.round_no)
        if result is None or not from_start:
            return None
        return result.dice

    def bid_chance(self, index: int) -> float | None:
        """For a raise at step ``index``: the chance it held, as its bidder could know it (own
        dice of that round, the others' dice unseen). None for other steps or a round whose
        dice never came out."""
        step = self.steps[index]
        if not isinstance(step.action, Raise) or index == 0:
            return None
        result = self._results.get(step.round_no)
        if result is None:
            return None
        before = self.steps[index - 1].state
        own = result.dice[step.action.seat]
        if not own:
            return None  # a bidder holds dice: its hand never came out (removed unrevealed)
        unseen = before.total_dice - len(own)
        bid = step.action.bid
        return chance_at_least(bid.count, bid.face, own, unseen, wild=before.wild)

    def player_stats(self) -> tuple[PlayerStats, ...]:
        """Bluffs and calls per player over the whole record."""
        counts = {s: [0, 0, 0, 0, 0, 0] for s in range(len(self.names))}
        for index, step in enumerate(self.steps):
            action, result = step.action, self._results.get(step.round_no)
            if action is None or result is None or index == 0:
                continue
            row = counts[action.seat] if hasattr(action, "seat") else None
            if row is None:
                continue
            if isinstance(action, Raise):
                wild = self.steps[index - 1].state.wild
                table = [d for hand in result.dice for d in hand]
                row[0] += 1
                row[1] += count_showing(table, action.bid.face, wild=wild) >= action.bid.count
            elif isinstance(action, Dudo) and result.kind == "dudo":
                row[2] += 1
                row[3] += result.losses.get(action.seat, 0) == 0
            elif isinstance(action, Calzo) and result.kind == "calzo":
                row[4] += 1
                row[5] += result.held == result.bid.count if result.bid is not None else 0
        return tuple(
            PlayerStats(s, self.names[s], *counts[s]) for s in range(len(self.names))
        )


def _steps(engines: list[GameState]) -> list[Step]:
    """Collapse the engine after every record item into public moves."""
    steps: list[Step] = []
    previous: GameState | None = None
    for engine in engines:
        if previous is not None and engine is previous:
            continue  # a commitment, nonce or signature: nothing public moved
        if previous is not None:
            _between(previous, engine, steps)
        elif engine.phase is not Phase.DRAW_OPENER:
            steps.append(Step(engine, None, engine.round_no))
        previous = engine
    if not steps:
        steps.append(Step(engines[-1], None, engines[-1].round_no))
    if (len(steps) > 1 and steps[0].state.phase is Phase.SETUP
            and _plain(steps[1]) and steps[1].round_no == steps[0].round_no):
        # the table before its first opener is drawn and the same table after: one picture,
        # so the first → would seem to do nothing
        del steps[0]
    return steps


def _plain(step: Step) -> bool:
    """A step that is no move: a round's start or the game's end."""
    return step.action is None and step.reveal is None and step.removed is None


def _between(before: GameState, after: GameState, steps: list[Step]) -> None:
    """The public steps that lead from ``before`` to ``after`` (one item's worth)."""
    if not steps and before.phase is not Phase.DRAW_OPENER:
        steps.append(Step(before, None, before.round_no))
    gone = [s for s in range(after.n_seats) if before.alive[s] and not after.alive[s]
            and len(after.results) == len(before.results)]
    if len(after.results) > len(before.results):
        result = after.results[-1]
        revealed = before if before.bids else after
        steps.append(Step(revealed, None, result.round_no, reveal=result))
        # a seat the table removed as the round resolved (it never revealed: its dice are
        # not in the result) is said, not only dimmed
        for seat in range(after.n_seats):
            if (before.alive[seat] and not after.alive[seat]
                    and seat not in result.eliminated):
                steps.append(Step(after, None, result.round_no, removed=seat))
        steps.append(Step(after, None, after.round_no))  # the next round, or the game's end
        return
    if gone:
        steps.append(Step(after, None, after.round_no, removed=gone[0]))
        return
    if after.bids and after.bids != before.bids:
        steps.append(Step(after, after.bids[-1], after.round_no))
    elif not steps or steps[-1].state is not after:
        if after.phase is Phase.DRAW_OPENER:
            return
        steps.append(Step(after, None, after.round_no))
