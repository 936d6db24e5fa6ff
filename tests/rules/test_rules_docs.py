"""The decisions of protocol.md §1 and the engine's docstrings say the same words."""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

from dudo_p2p.rules import legality, resolution, ruleset, state, turns

PROTOCOL = Path(__file__).resolve().parents[2] / "protocol.md"
HEAD = "Decisions implemented here (the same words are in protocol.md §1):"
MODULES: tuple[ModuleType, ...] = (ruleset, legality, turns, state, resolution)


def _norm(text: str) -> str:
    return " ".join(text.replace("`", "").split())


def _docstring_decisions(module: ModuleType) -> list[str]:
    doc = module.__doc__ or ""
    assert HEAD in doc, f"{module.__name__} has no decisions block"
    block = doc.split(HEAD, 1)[1]
    return [_norm(item) for item in re.split(r"\n- ", "\n" + block.strip()) if item.strip()]


def _protocol_decisions() -> list[str]:
    text = PROTOCOL.read_text(encoding="utf-8")
    section = text.split("## 1. Rules", 1)[1].split("\n## 2.", 1)[0]
    listing = section.split("### Decisions rules.md leaves open", 1)[1]
    items = re.split(r"\n(?=\d+\. )", listing.strip())
    return [_norm(re.sub(r"^\d+\. ", "", item)) for item in items if re.match(r"\d+\. ", item)]


def test_every_docstring_decision_is_in_protocol_md_in_the_same_words() -> None:
    documented = _protocol_decisions()
    for module in MODULES:
        for decision in _docstring_decisions(module):
            assert decision in documented, f"{module.__name__}: {decision[:60]}…"


def test_every_protocol_decision_is_stated_where_it_is_implemented() -> None:
    in_code = {d for m in MODULES for d in _docstring_decisions(m)}
    documented = _protocol_decisions()
    assert len(documented) >= 20
    for decision in documented:
        assert decision in in_code, decision[:60]
