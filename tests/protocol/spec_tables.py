"""Reading protocol.md's tables, and rendering a message field the way its tables write it
(shared by the doc-vs-code test and the test-vector generator)."""

from __future__ import annotations

import importlib
import pkgutil
import re
import types
import typing
from pathlib import Path
from typing import Annotated, Union

from dudo_p2p.protocol.messages import MaxLen, Range, Size, message_class, registered_kinds

SPEC = Path(__file__).resolve().parents[2] / "protocol.md"
_SCALAR_NAMES = {int: "int", bool: "bool", str: "str", bytes: "bin"}
# where message kinds may be registered (the ui and bots only use the session API)
KIND_HOMES = ("protocol", "consensus", "net", "node", "session")


def code_kinds() -> dict[str, type]:
    """Every kind the package registers, by kind (test kinds, registered by tests, left out):
    every module of the packages where kinds may live is imported first."""
    for home in KIND_HOMES:
        pkg = importlib.import_module(f"dudo_p2p.{home}")
        for info in pkgutil.iter_modules(pkg.__path__, f"dudo_p2p.{home}."):
            importlib.import_module(info.name)
    found = {kind: message_class(kind) for kind in registered_kinds()}
    return {k: c for k, c in found.items() if c.__module__.startswith("dudo_p2p.")}


def spec_text() -> str:
    return SPEC.read_text(encoding="utf-8")


def section(text: str, heading: str) -> str:
    """The text under the heading that starts with ``heading`` (any level), up to the next
    heading of the same or a higher level."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"(#+) (.*)", line)
        if m and m.group(2).startswith(heading):
            level = len(m.group(1))
            body = []
            for nxt in lines[i + 1:]:
                n = re.match(r"(#+) ", nxt)
                if n and len(n.group(1)) <= level:
                    break
                body.append(nxt)
            return "\n".join(body)
    raise AssertionError(f"protocol.md has no heading {heading!r}")


def tables(text: str) -> list[list[list[str]]]:
    """Every markdown table in ``text``: rows of cells (header first, separator dropped)."""
    found: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                current.append(cells)
        elif current:
            found.append(current)
            current = []
    return found


def plain(cell: str) -> str:
    """A cell without markdown code quotes and with single spaces."""
    return " ".join(cell.replace("`", "").split())


def render(hint: object) -> tuple[str, str]:
    """(msgpack type, constraints) of a field type, as the message tables write them."""
    constraints: list[object] = []
    while typing.get_origin(hint) is Annotated:
        constraints += list(hint.__metadata__)  # type: ignore[attr-defined]
        hint = typing.get_args(hint)[0]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Union or origin is types.UnionType:
        present = [a for a in args if a is not type(None)]
        if len(present) < len(args):
            inner = present[0] if len(present) == 1 else Union[tuple(present)]  # noqa: UP007
            kind, limit = render(Annotated[(inner, *constraints)] if constraints else inner)
            return f"{kind} or nil", limit
        return " or ".join(render(a)[0] for a in present), "—"
    if origin is tuple:
        limit = next((f"≤ {c.n} items" for c in constraints if isinstance(c, MaxLen)), "")
        if len(args) == 2 and args[1] is Ellipsis:
            kind, each = render(args[0])
            parts = [p for p in (limit, "" if each == "—" else f"each {each}") if p]
            return f"array of {kind}", "; ".join(parts) or "—"
        cells = [render(a) for a in args]
        return "array [" + ", ".join(k for k, _ in cells) + "]", "; ".join(
            f"item {i}: {c}" for i, (_, c) in enumerate(cells) if c != "—") or "—"
    if origin is dict:
        values = render(args[1])[0]
        return f"map str → {values}", "—"
    name = _SCALAR_NAMES[typing.cast(type, hint)]
    for c in constraints:
        if isinstance(c, Size):
            return name, f"{c.n} bytes"
        if isinstance(c, MaxLen):
            return name, f"≤ {c.n} {'chars' if hint is str else 'bytes'}"
        if isinstance(c, Range):
            return name, f"{c.lo}..{c.hi}"
    return name, "—"


ROOT = SPEC.parents[0]


def said(heading: str) -> str:
    """The section's text on one line (line breaks and runs of spaces do not matter)."""
    return " ".join(section(spec_text(), heading).split())


def backticked(text: str) -> list[str]:
    """The `lower-case-or_snake` words quoted in ``text``, in order."""
    return re.findall(r"`([a-z_-]+)`", text)
