"""Is a figure unchanged, changed, or can we not tell? An equivalence test on paired runs.

A comparison runs both sides back to back, pair after pair (order alternating, so that a
load drifting over the section falls on both sides alike), and reads each pair's difference
(the side with minus the side without). :func:`paired_interval` gives the mean difference
and its 95 % interval (Student's t over the pairs: a pair with a stall of the shared machine
widens it, it cannot hide). :func:`judge` reads that interval against a stated margin, the
largest change that still counts as none:

- **unchanged**: the whole interval lies strictly inside (-margin, +margin);
- **changed**: the whole interval lies at or beyond one side of the margin;
- **can't tell**: anything else (the interval straddles a margin: too few pairs, or too much
  noise, to say either), and always with fewer than 2 pairs.

So "unchanged" is never the default: it has to be shown, as "changed" has (the two one-sided
tests of an equivalence test, at 2.5 % each). Pure: no I/O, no clock.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

UNCHANGED, CHANGED, CANT_TELL = "unchanged", "changed", "can't tell"

# Student's t, two-sided 95 % (the 97.5th percentile), by degrees of freedom 1..30
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
         2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
         2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t975(df: int) -> float:
    """The 97.5th percentile of Student's t with ``df`` degrees of freedom (a table to 30;
    past it 1.96 + 2.4/df, within 0.001 of the true value)."""
    if df < 1:
        raise ValueError("t needs at least one degree of freedom")
    return _T975[df - 1] if df <= len(_T975) else 1.96 + 2.4 / df


@dataclass(frozen=True, slots=True)
class Judgement:
    """One figure's paired comparison: the mean difference (with minus without), its 95 %
    interval (None below 2 pairs), the margin it was read against, and the verdict."""

    delta: float
    low: float | None
    high: float | None
    margin: float
    pairs: int
    verdict: str

    def as_figure(self) -> dict[str, float]:
        """For the bench's JSON (floats only): the verdict as 0/1 flags, "can't tell" when
        neither is 1."""
        out = {"delta": self.delta, "margin": self.margin, "pairs": float(self.pairs),
               "unchanged": float(self.verdict == UNCHANGED),
               "changed": float(self.verdict == CHANGED)}
        if self.low is not None and self.high is not None:
            out.update(low=self.low, high=self.high)
        return out

    def __str__(self) -> str:
        shown = (f"[{self.low:+.3g}, {self.high:+.3g}]" if self.low is not None
                 and self.high is not None else "[no interval]")
        return (f"{self.delta:+.3g} {shown} against +-{self.margin:.3g}: {self.verdict}")


def paired_interval(differences: Sequence[float]) -> tuple[float, float | None, float | None]:
    """The mean of ``differences`` and its two-sided 95 % interval (Student's t over them;
    None, None with fewer than 2). ValueError on none."""
    if not differences:
        raise ValueError("no pairs")
    mean = statistics.fmean(differences)
    if len(differences) < 2:
        return mean, None, None
    half = t975(len(differences) - 1) * statistics.stdev(differences) / math.sqrt(len(differences))
    return mean, mean - half, mean + half


def judge(differences: Sequence[float], margin: float) -> Judgement:
    """The verdict on a figure from its pairs' ``differences`` (with minus without), against
    the equivalence ``margin`` (> 0; see the module docstring)."""
    if not margin > 0:
        raise ValueError(f"a margin must be positive, not {margin}")
    delta, low, high = paired_interval(differences)
    if low is None or high is None:
        word = CANT_TELL
    elif -margin < low and high < margin:
        word = UNCHANGED
    elif low >= margin or high <= -margin:
        word = CHANGED
    else:
        word = CANT_TELL
    return Judgement(delta, low, high, margin, len(differences), word)


def overall(judgements: Sequence[Judgement]) -> str:
    """Changed if any figure changed; unchanged if every one is; else can't tell."""
    words = {j.verdict for j in judgements}
    if CHANGED in words:
        return CHANGED
    return UNCHANGED if words == {UNCHANGED} else CANT_TELL
