"""Figures, their targets and the table: the shared vocabulary of the bench modules.

A :class:`Figure` names one JSON key, its unit and (optionally) a :class:`Target`. A value
is a float, a dict of floats (one per level, step...), or None when its measurement failed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

Value = float | dict[str, float] | None


@dataclass(frozen=True, slots=True)
class Target:
    """``value <= bound`` (``at_most``) or ``value >= bound``; a dict value must meet it in
    every entry."""

    bound: float
    at_most: bool = True

    def met(self, value: float) -> bool:
        return value <= self.bound if self.at_most else value >= self.bound

    def __str__(self) -> str:
        return f"{'<=' if self.at_most else '>='} {self.bound:g}"


@dataclass(frozen=True, slots=True)
class Figure:
    """One reported number (or object of numbers) under JSON key ``key``."""

    key: str
    unit: str
    target: Target | None = None


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0..100) by nearest rank; ``ValueError`` on no values."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    rank = math.ceil(q / 100 * len(ordered))
    return ordered[max(0, min(len(ordered) - 1, rank - 1))]


def verdict(figure: Figure, value: Value) -> str:
    """"ok", "MISS", "" (no target) or "ERROR" (no value) for one figure."""
    if value is None:
        return "ERROR"
    if figure.target is None:
        return ""
    values = value.values() if isinstance(value, dict) else [value]
    return "ok" if all(figure.target.met(v) for v in values) else "MISS"


def _number(value: float) -> str:
    if value == 0 or abs(value) >= 100:
        return f"{value:.0f}" if abs(value) >= 1000 else f"{value:.1f}"
    return f"{value:.3g}" if abs(value) < 1 else f"{value:.2f}"


def table(figures: Sequence[Figure], values: Mapping[str, Value],
          errors: Mapping[str, str]) -> str:
    """The human table: name, value, unit, target, ok/MISS; a dict value gets one row per
    entry; a failed figure shows "error" and its measurement's error follows the table."""
    rows: list[tuple[str, str, str, str, str]] = []
    for figure in figures:
        value = values.get(figure.key)
        target = str(figure.target) if figure.target else "-"
        if isinstance(value, dict):
            for name, sub in value.items():
                ok = verdict(Figure(figure.key, figure.unit, figure.target), sub)
                rows.append((f"{figure.key}.{name}", _number(sub), figure.unit, target, ok))
        elif value is None:
            rows.append((figure.key, "error", figure.unit, target, "ERROR"))
        else:
            rows.append((figure.key, _number(value), figure.unit, target,
                         verdict(figure, value)))
    headers = ("name", "value", "unit", "target", "")
    widths = [max(len(r[i]) for r in [headers, *rows]) for i in range(5)]
    lines = ["  ".join(cell.ljust(w) if i != 1 else cell.rjust(w)
                       for i, (cell, w) in enumerate(zip(row, widths, strict=True))).rstrip()
             for row in [headers, *rows]]
    lines.insert(1, "-" * len(lines[0]))
    lines.extend(f"error in {name}: {text}" for name, text in errors.items())
    return "\n".join(lines)
