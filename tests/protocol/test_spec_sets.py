"""Closed sets protocol.md lists, against the code's enums and tables: refusal and vote
reasons, act kinds and options, palifico modes, the log's entry kinds and their fields, the
kinds a proof takes, the concurrent kinds, and §1's rule-set fields."""

from __future__ import annotations

import dataclasses
import re

from spec_tables import backticked, plain, said, section, spec_text, tables

from dudo_p2p.consensus.actions_wire import action_fields
from dudo_p2p.consensus.evidence import LOG_KINDS
from dudo_p2p.consensus.reasons import Reason
from dudo_p2p.consensus.transitions import CONCURRENT, EpochPhase
from dudo_p2p.protocol.messages import kind_of, message_class
from dudo_p2p.protocol.refusals import RefusalReason
from dudo_p2p.rules import (
    VARIANTS,
    Bid,
    Calzo,
    ChooseDirection,
    ChoosePalifico,
    DoubtClaim,
    Dudo,
    Matar,
    PalificoMode,
    Pasar,
    Picado,
    PlayerAction,
    Raise,
    RuleSet,
)

# ---- closed sets of names --------------------------------------------------------------


def test_the_refusal_reasons_are_the_enums() -> None:
    """§4.10 `refused` lists the reasons that travel; §4.9 the four a joiner concludes."""
    refused = next(t for t in tables(section(spec_text(), "`refused`")) if t[0][0] == "field")
    reason_cell = next(row[3] for row in refused[1:] if plain(row[0]) == "reason")
    wire = set(backticked(reason_cell.split("; a joiner")[0])) - {"other"}
    own = {RefusalReason.WRONG_HOST, RefusalReason.AMBIGUOUS, RefusalReason.NO_OPEN_TABLE,
           RefusalReason.GONE}
    code = {r.value for r in RefusalReason} - {RefusalReason.OTHER.value}
    assert wire == code - {r.value for r in own}
    lobby_text = said("4.9 ")
    concluded = lobby_text.split("A joiner concludes four more itself, which never travel:")[1]
    assert [r.value for r in sorted(own, key=lambda r: concluded.index(f"`{r.value}`"))] == \
        re.findall(r"`([a-z_]+)` \(", concluded)[:4]
    assert RefusalReason.from_wire("never-heard-of") is RefusalReason.OTHER
    assert "an unknown string is read as `other`" in lobby_text


def test_the_vote_reasons_are_the_enum() -> None:
    vote = next(t for t in tables(section(spec_text(), "`vote`")) if t[0][0] == "field")
    cell = next(row[3] for row in vote[1:] if plain(row[0]) == "reason")
    doc = set(backticked(cell)) - {"unknown"}
    local = {Reason.REMOVED, Reason.UNKNOWN}  # never voted: our own conclusion, the fallback
    assert doc == {r.value for r in Reason if r not in local}
    listed = said("4.6 ").split("reason: one of the fixed set")[1].split("read back")[0]
    assert set(backticked(listed)) == doc
    assert Reason.parse("something-new") is Reason.UNKNOWN


def test_the_act_kinds_and_options_are_the_wire_codecs() -> None:
    """§4.10 `act`: every kind and option the decoder takes, and §4.1's list of them."""
    bid = Bid(2, 3)
    actions: list[PlayerAction] = [
        Raise(0, bid), Picado(0, bid), Dudo(0), Calzo(0), Matar(0), Pasar(0), DoubtClaim(0),
        ChooseDirection(0, True), ChooseDirection(0, False),
        *(ChoosePalifico(0, mode) for mode in PalificoMode)]
    fields = [action_fields(a) for a in actions]
    table = next(t for t in tables(section(spec_text(), "`act`")) if t[0][0] == "field")
    cells = {plain(row[0]): row[3] for row in table[1:]}
    assert set(backticked(cells["kind"])) == {f[0] for f in fields}
    options = backticked(cells["option"].replace('"', "`"))
    assert set(options) - {"direction", "palifico"} == {f[3] for f in fields} - {""}
    assert [m.value for m in PalificoMode] == [o for o in options if o not in
                                              ("direction", "palifico", "cw", "ccw")]
    log_table = next(t for t in tables(section(spec_text(), "4.1 ")) if t[0][0] == "kind")
    act_row = next(row for row in log_table[1:] if plain(row[0]) == "act")
    listed = act_row[1].split("kind (")[1].split(")")[0]
    assert {k.strip() for k in listed.split(",")} == {f[0] for f in fields}
    modes = said("1. ").split("`ChoosePalifico(mode)` with mode in ")[1].split(".")[0]
    assert [m.strip() for m in modes.replace(" or ", ", ").split(",")] == \
        [m.value for m in PalificoMode]




# ---- the log's entry kinds ---------------------------------------------------------------


def test_the_entry_kinds_of_section_4_1_are_the_log_kinds_with_their_fields() -> None:
    """§4.1's table lists every kind §4.10 marks as a log entry, each with every field of
    its dataclass; §4.5's proof kinds are the ones an equivocation proof takes."""
    entries = next(t for t in tables(section(spec_text(), "4.1 ")) if t[0][0] == "kind")
    doc = {plain(row[0]): [f.split(" (")[0].strip() for f in re.sub(r"\([^)]*\)", "",
                                                                     row[1]).split(",")]
           for row in entries[1:]}
    context = next(t for t in tables(section(spec_text(), "4.10 ")) if plain(t[0][0]) == "kind")
    logged = {plain(row[0]) for row in context[1:] if plain(row[1]) == "yes"}
    assert set(doc) == logged
    for kind, fields in doc.items():
        assert fields == [f.name for f in dataclasses.fields(message_class(kind))], kind
    proof_kinds = said("4.5 ").split("of a log kind (")[1].split(")")[0]
    assert set(backticked(proof_kinds)) == LOG_KINDS
    assert logged - {"key-share"} == LOG_KINDS




def test_the_concurrent_kinds_of_section_4_4_are_the_concurrent_phases_entries() -> None:
    listed = said("4.4 ").split("Concurrent entries (")[1].split(")")[0]
    assert {k.strip() for k in listed.split(",")} == {kind_of(c) for c in CONCURRENT.values()}




# ---- the rule set's fields (§1) ------------------------------------------------------------


def test_the_rule_set_table_is_the_rule_sets_fields_types_rules_and_values() -> None:
    """§1's table: every ``RuleSet`` field, in order, its wire type, its rule and its values,
    the default first (what a peer outside this code puts in a genesis's ``rules``)."""
    table = next(t for t in tables(section(spec_text(), "1. Rules")) if t[0][0] == "field")
    default = RuleSet()
    rendered = {True: "true", False: "false"}
    code = []
    for name, info in VARIANTS.items():
        first = getattr(default, name)
        values = [first, *(v for v in info.allowed if (v, type(v)) != (first, type(first)))]
        code.append((name, {bool: "bool", int: "int", str: "str"}[type(first)], info.rule,
                     ", ".join(rendered[v] if isinstance(v, bool) else str(v) for v in values)))
    doc = [tuple(plain(cell) for cell in row) for row in table[1:]]
    assert doc == code
    assert [f.name for f in dataclasses.fields(RuleSet)] == [row[0] for row in code]


def test_the_phases_of_section_4_3_are_the_epoch_phases_in_order() -> None:
    """§4.3's list names every phase an epoch moves through, in order, each concurrent one
    with the entry its seats send (`transitions.CONCURRENT`); OVER ends the game."""
    text = section(spec_text(), "4.3 ")
    parts = re.split(r"^(?:\d\. |   )\*\*([A-Z]+)\*\* — ", text, flags=re.M)[1:]
    listed = list(zip(parts[::2], parts[1::2], strict=True))  # (phase, its item's text)
    assert [name for name, _ in listed] == [p.name for p in EpochPhase if p is not EpochPhase.OVER]
    for name, item in listed:
        concurrent = CONCURRENT.get(EpochPhase[name])
        if concurrent is not None:
            assert f"`{kind_of(concurrent)}`" in item.split("\n\n")[0], name
