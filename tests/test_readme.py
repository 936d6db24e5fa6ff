"""The README's rule-variant table is the engine's: every option, its rule and its values."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from dudo_p2p.rules import VARIANTS, RuleSet

README = Path(__file__).resolve().parent.parent / "README.md"


def _show(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def test_every_rule_option_is_in_the_readme_with_its_rule_and_values() -> None:
    text = README.read_text(encoding="utf-8")
    defaults = RuleSet()
    for f in fields(RuleSet):
        info = VARIANTS[f.name]
        values = ", ".join(_show(v) for v in info.allowed)
        row = f"| `{f.name}` | {info.rule} | {_show(getattr(defaults, f.name))} | {values} |"
        assert row in text, f"README lacks the row for {f.name}: {row}"
