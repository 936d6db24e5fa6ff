"""protocol.md and the code agree: the message tables (§4.10) with the message dataclasses,
the tag table (§2.2) with the tags the code hashes with, the timers table (§4.6) with the
constants. A kind, field, tag or timer added or changed on one side only fails here."""

from __future__ import annotations

import ast
import dataclasses
import re
import typing
from pathlib import Path

import pytest
from spec_tables import code_kinds, plain, render, section, spec_text, tables

import dudo_p2p
from dudo_p2p.cli.main import build_parser
from dudo_p2p.consensus.lobby import (
    GENESIS_EVERY,
    HELLO_EVERY,
    SEAT_HOLD,
    SIGN_WITHIN,
    STAY_EVERY,
)
from dudo_p2p.consensus.presence import HUMAN_GRACE, TABLE_GONE_AFTER, TWO_SEAT_SILENCE
from dudo_p2p.consensus.sync import SYNC_BUDGET
from dudo_p2p.consensus.timers import DEFAULT_TIMEOUTS
from dudo_p2p.net.transport import HOLD_RETRY
from dudo_p2p.node.settling import SETTLE_GRACE
from dudo_p2p.protocol.codec import MAX_CONTAINER_LEN, MAX_DEPTH, MAX_FRAME
from dudo_p2p.protocol.kinds import SYNC_CHUNK

PACKAGE = Path(dudo_p2p.__file__).resolve().parent


def documented_kinds() -> dict[str, list[list[str]]]:
    """§4.10's field table of each kind, by kind (from its ``#### `kind``` heading)."""
    text = section(spec_text(), "4.10 ")
    found: dict[str, list[list[str]]] = {}
    for kind in re.findall(r"^#### `([a-z0-9-]+)`", text, flags=re.M):
        field_tables = [t for t in tables(section(text, f"`{kind}`"))
                        if [plain(c) for c in t[0]] == ["field", "msgpack type", "constraints",
                                                        "meaning"]]
        assert len(field_tables) == 1, f"§4.10 `{kind}` has {len(field_tables)} field tables"
        assert kind not in found, f"§4.10 documents `{kind}` twice"
        found[kind] = field_tables[0][1:]
    return found


def test_every_kind_the_code_registers_has_a_field_table_and_no_other() -> None:
    code, doc = set(code_kinds()), set(documented_kinds())
    assert not code - doc, f"kinds without a §4.10 table in protocol.md: {sorted(code - doc)}"
    assert not doc - code, f"§4.10 documents kinds the code lacks: {sorted(doc - code)}"


def test_every_kind_has_its_envelope_context_in_the_kinds_table() -> None:
    text = section(spec_text(), "4.10 ")
    context = next(t for t in tables(text) if plain(t[0][0]) == "kind")
    assert [plain(c) for c in context[0]] == [
        "kind", "log entry", "sent by, to", "game_id", "round_no", "seq"]
    rows = [plain(row[0]) for row in context[1:]]
    assert sorted(rows) == sorted(code_kinds()), "the envelope-context table lists every kind once"
    assert all(all(cell.strip() for cell in row) for row in context[1:])


@pytest.mark.parametrize("kind", sorted(code_kinds()))
def test_a_kinds_fields_types_and_constraints_are_the_dataclasses(kind: str) -> None:
    cls = code_kinds()[kind]
    doc = documented_kinds().get(kind)
    assert doc is not None, f"protocol.md §4.10 has no table for `{kind}`"
    hints = typing.get_type_hints(cls, include_extras=True)
    code_rows = [
        (field.name, *render(hints[field.name]))
        for field in dataclasses.fields(cls)
    ]
    doc_rows = [(plain(r[0]), plain(r[1]), plain(r[2])) for r in doc]
    assert doc_rows == code_rows, f"`{kind}`: protocol.md (left) and kinds.py (right) differ"
    assert all(r[3].strip() for r in doc), f"`{kind}`: a field without a meaning"


def code_tags() -> set[str]:
    """Every tag the package makes: ``tag("purpose")`` calls, read from the source."""
    found: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "tag" and node.args
                    and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)):
                found.add(f"dudo-p2p/1/{node.args[0].value}")
    return found


def test_the_tag_table_names_every_tag_the_code_uses_with_the_types_of_its_parts() -> None:
    text = section(spec_text(), "2.2 ")
    table = next(t for t in tables(text) if plain(t[0][0]) == "tag")
    assert [plain(c) for c in table[0]] == ["tag", "function", "parts in order"]
    doc = [plain(row[0]) for row in table[1:]]
    assert len(doc) == len(set(doc)), "a tag listed twice"
    code = code_tags()
    assert len(code) >= 15  # the scan finds the tags (it is not vacuous)
    assert set(doc) == code, (
        f"undocumented: {sorted(code - set(doc))}; documented, unused: {sorted(set(doc) - code)}")
    for row in table[1:]:
        parts = plain(row[2])
        if parts != "—":  # every part is typed: bytes[n], bytes, int or str
            for part in parts.split(", "):
                assert re.search(r"\b(bytes(\[\d+\])?|int|str)\b", part), (row[0], part)


def seconds(cell: str) -> float:
    m = re.search(r"(\d+(?:\.\d+)?) (s|ms)\b", cell)
    assert m, f"no duration in {cell!r}"
    return float(m.group(1)) / (1000 if m.group(2) == "ms" else 1)


def test_the_timers_table_is_the_constants() -> None:
    """Every field of ``Timeouts`` is a row of §4.6's table (``link_setup``: "link setup")
    with its default, but ``paused``, which the text states; and the rows that are not
    fields are the other constants."""
    text = section(spec_text(), "4.6 ")
    table = next(t for t in tables(text) if plain(t[0][0]) == "timer")
    doc = {plain(row[0]): seconds(row[1]) for row in table[1:]}
    host = build_parser("host").parse_args(["host"])
    fields = {f.name.replace("_", " "): getattr(DEFAULT_TIMEOUTS, f.name)
              for f in dataclasses.fields(DEFAULT_TIMEOUTS) if f.name != "paused"}
    assert doc == {
        **fields,
        "resend": DEFAULT_TIMEOUTS.heartbeat,  # re-sends run on the heartbeat interval
        "human turn": host.turn_timer,
        "reconnect grace": HUMAN_GRACE,
        "table gone": TABLE_GONE_AFTER,
        "two-seat silence": TWO_SEAT_SILENCE,
    }
    assert len(fields) >= 5  # heartbeat, step, silence, link setup, turn grace at least
    assert f"(no tick of its own for {DEFAULT_TIMEOUTS.paused:g} s:" in " ".join(text.split())


def test_the_node_and_lobby_intervals_in_the_text_are_the_constants() -> None:
    text = spec_text()
    node = section(text, "5.5 ")
    assert "There is no fixed tick" in node and "next_deadline()" in node
    assert f"retries every {HOLD_RETRY * 1000:g} ms" in node
    assert f"at most **{SETTLE_GRACE:g} s**" in node
    assert f"hello {HELLO_EVERY * 1000:g} ms, genesis/signature {GENESIS_EVERY * 1000:g} ms" in node
    lobby = section(text, "4.9 ")
    assert f"every **{HELLO_EVERY * 1000:g} ms**" in lobby
    assert f"every **{GENESIS_EVERY * 1000:g} ms**" in lobby
    assert f"every **{STAY_EVERY:g} s** (a stay)" in lobby
    assert f"unheard for **{SEAT_HOLD:g} s**" in lobby
    assert f"signature has not come **{SIGN_WITHIN:g} s** after the" in lobby


def test_the_decoding_limits_in_the_text_are_the_constants() -> None:
    text = " ".join(section(spec_text(), "2.3 ").split())  # line breaks do not matter
    assert f"frame size ≤ {MAX_FRAME:,} bytes" in text
    assert f"array and map ≤ {MAX_CONTAINER_LEN:,} items" in text
    assert f"nesting ≤ {MAX_DEPTH} levels" in text
    catchup = " ".join(section(spec_text(), "4.7 ").split())
    assert f"a chunk of up to {SYNC_CHUNK} items (and at most {SYNC_BUDGET // 1024} KiB" in catchup
