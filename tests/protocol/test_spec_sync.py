"""protocol.md says what the code does: facts read from the code (constants, enums, socket
options, the order of the envelope checks) and the same facts read from the document, so
neither side can drift alone. test_protocol_spec.py holds the message, tag and timer tables;
this file the rest an outside implementer reads numbers from.

A fact is a phrase of protocol.md built from the code's value: change the value in the code
and the phrase no longer appears (the test names the section and the phrase it expected);
reword the document and keep the number, and only the phrase here changes with it.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import hashlib
import inspect
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest
import zmq
from hypothesis import given, settings
from hypothesis import strategies as st
from spec_tables import SPEC, plain, section, spec_text, tables

import dudo_p2p
from dudo_p2p.cli.exits import Exit
from dudo_p2p.cli.main import COMMANDS, build_parser
from dudo_p2p.consensus import (
    again,
    lobby,
    presence,
    rotation,
    settling,
    sync,
    talk,
    watch_desk,
    watch_door,
    watch_spectator,
    watching,
)
from dudo_p2p.consensus.actions_wire import action_fields
from dudo_p2p.consensus.evidence import LOG_KINDS
from dudo_p2p.consensus.intake import MAX_BUFFERED
from dudo_p2p.consensus.reasons import Reason
from dudo_p2p.consensus.transitions import CONCURRENT
from dudo_p2p.crypto import identity as identity_module
from dudo_p2p.crypto.hashing import PROTOCOL_VERSION, TAG_PREFIX, encode_parts
from dudo_p2p.crypto.identity import KEY_SIZE, SIGNATURE_SIZE, Identity
from dudo_p2p.crypto.shares import SEALED_SHARE_SIZE
from dudo_p2p.errors import BadSignature, DecodeError, FrameTooLarge, InvalidValue, WrongContext
from dudo_p2p.net import beacon, flood, routing, transport
from dudo_p2p.net.dealer import LinkTimers
from dudo_p2p.net.discovery import DEFAULT_BEACON_PORT, MAX_PEERS, Discovery
from dudo_p2p.net.links import Links
from dudo_p2p.net.router import MAX_BATCH
from dudo_p2p.node import seeking
from dudo_p2p.node.loop import MAX_EARLY_FRAMES
from dudo_p2p.node.node import LEAVE_LINGER_MS
from dudo_p2p.protocol import names
from dudo_p2p.protocol.codec import MAX_FRAME, encode
from dudo_p2p.protocol.envelope import GAME_ID_SIZE, MAX_COUNTER, seal_envelope
from dudo_p2p.protocol.kinds import MAX_PHRASE, Heartbeat
from dudo_p2p.protocol.messages import _KIND_RE, kind_of, message_class
from dudo_p2p.protocol.older import OLDER_VERSIONS
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

ROOT = SPEC.parent


def said(heading: str) -> str:
    """The section's text on one line (line breaks and runs of spaces do not matter)."""
    return " ".join(section(spec_text(), heading).split())


def ms(seconds: float) -> str:
    return f"{seconds * 1000:g} ms"


def s(seconds: float) -> str:
    return f"{seconds:g} s"


def thousands(n: float) -> str:
    """1 024, as the text of §4.9 and §5 writes counts (§2.3 writes 1,024)."""
    return f"{n:,.0f}".replace(",", " ")


# (section heading, what it must say: a phrase made from the code's value)
FACTS: list[tuple[str, str]] = [
    # §2.1 identities
    ("2.1 ", f"holds {len(Identity.generate(bytes).to_bytes())} bytes"),
    ("2.1 ", f"(`{identity_module._CROCKFORD}`, most significant bits first)"),
    # §2.3, §2.5: the envelope
    ("2.5 ", f"| 0 | version | int | {PROTOCOL_VERSION} (§2.5 \"Versions\") |"),
    ("2.5 ", f"| 1 | game_id | bin | {GAME_ID_SIZE} |"),
    ("2.5 ", f"| 4 | author | bin | {KEY_SIZE} (Ed25519 public key) |"),
    ("2.5 ", f"| 7 | signature | bin | {SIGNATURE_SIZE} (Ed25519) |"),
    ("2.5 ", f"a registered kind, `{_KIND_RE.pattern}`"),
    ("2.5 ", f"[\"{TAG_PREFIX}envelope\", {PROTOCOL_VERSION}, game_id, round_no, seq, author,"),
    ("2.5 ", f"version ≠ {PROTOCOL_VERSION}"),
    # §3.6: a sealed box
    ("3.6 ", f"a box is 12 + 32 + 16 = {SEALED_SHARE_SIZE} bytes"),
    # §4.3: entries ahead of the log
    ("4.3 ", f"buffered (at most {MAX_BUFFERED})"),
    # §4.6: told, always; a link that came up
    ("4.6 ", f"at most {s(settling.TELL_LINGER)} past the end (`TELL_LINGER`"),
    ("4.6 ", f"off for {s(presence.REACHED_WAIT)} (`REACHED_WAIT`"),
    ("4.6 ", "(`REACHED_WAIT`, below)"),  # named where the table-gone timer is
    # §4.7: answering catch-up
    ("4.7 ", f"{sync.ANSWER_BURST} requests at once then {sync.ANSWER_RATE:g} a second"),
    # §4.9 lobby
    ("4.9 ", f"(at most once per {ms(lobby.ANSWER_EVERY)} per seat)"),
    ("4.9 ", f"are kept (at most {thousands(MAX_EARLY_FRAMES)})"),
    ("4.9 ", f"sent nothing — no roster, no genesis — for **{s(lobby.HOST_SILENCE)}**"),
    ("4.9 ", f"its own clock jumped **{s(lobby.PAUSED)}** or more between two of its ticks (it "
             f"ticks every second while welcomed"),
    ("4.9 ", f"when the host finds its own clock jumped **{s(lobby.PAUSED)}** or more between "
             f"two of its ticks"),
    ("4.9 ", f"none other is heard for **{s(seeking.LOOK_AGAIN)}** more"),
    ("4.9 ", f"linger up to {LEAVE_LINGER_MS / 1000:g} s so the frame goes out"),
    # §4.9 watching
    ("4.9 ", f"genesis, **{ms(watch_spectator.WATCH_EVERY)}** after the first and then twice "
             f"as long after each, up to every **{s(watch_spectator.WATCH_EVERY_MAX)}**"),
    ("4.9 ", f"keeps the watch frames it got, up to {watch_door.EARLY_KEPT} distinct ones"),
    ("4.9 ", f"(the frames a seat that missed them gets, step 6; at most every "
             f"{ms(watch_door.GENESIS_EVERY)} per spectator)"),
    ("4.9 ", f"The link back that carries a refusal is closed **{s(watch_door.REFUSED_KEPT)}** "
             f"later, and at most {watch_door.REFUSED_LINKS} refused keys are linked back"),
    ("4.9 ", f"only when **{s(watching.QUIET_AFTER)}** passed without any reply from the seats "
             f"(`QUIET_AFTER`"),
    ("4.9 ", f"an ask nothing answers within **{s(watching.POLL_EVERY)}** moves it"),
    ("4.9 ", f"every **{s(watching.RENEW_EVERY)}** (`RENEW_EVERY`)"),
    ("4.9 ", f"within the last **{s(watching.IDLE_ASKER)}** (`IDLE_ASKER`"),
    ("4.9 ", f"at most every **{s(watch_desk.PUSH_EVERY)}**"),
    ("4.9 ", f"was sent nothing for **{s(watching.KEEPALIVE)}** (`KEEPALIVE`)"),
    ("4.9 ", f"a gap (it asks {s(watch_spectator.POLL_SOON)} later)"),
    ("4.9 ", f"tried again every **{s(rotation.ENLIST_EVERY)}** until it is queued once"),
    ("4.9 ", f"the next seat is asked {s(watch_spectator.UNSENT_RETRY)} later"),
    ("4.9 ", f"has not asked it for **{s(watching.IDLE_ASKER)}**"),
    ("4.9 ", f"if that spectator asked it within the last **{s(watching.IDLE_ASKER)}**"),
    ("4.9 ", f"(`consensus/watch_desk.py`, {watch_desk.REPLY_CACHE} kept)"),
    ("4.9 ", f"A seat takes at most **{watch_desk.MAX_SPECTATORS}** spectators "
             f"(`MAX_SPECTATORS`)"),
    ("4.9 ", f"the {watch_desk.MAX_SPECTATORS + 1}th key is answered"),
    # §4.9 one more game
    ("4.9 ", f"and again every **{s(again.AGAIN_EVERY)}** while it stays, an `again`"),
    ("4.9 ", f"only **{s(again.ANSWER_WITHIN)}** from the end of the game by the waiting seat's "
             f"clock (`ANSWER_WITHIN`"),
    # §4.10: talk
    ("4.10 ", f"less than {s(talk.TALK_GAP_S)} after the author's last one shown"),
    ("4.10 ", f"| `phrase` | int | 0..{MAX_PHRASE} |"),
    # §5.1 links
    ("5.1 ", f"sets `ZMQ_ROUTING_ID = 0x{routing.ROUTING_PREFIX.hex()} || peer id ||"),
    ("5.1 ", f"link nonce` ({len(routing.ROUTING_PREFIX) + KEY_SIZE + routing.LINK_NONCE_LEN} "
             f"bytes for an Ed25519 key), the *link nonce* being {routing.LINK_NONCE_LEN} random "
             f"bytes"),
    ("5.1 ", f"(`net/flood.py`, `node/conns.py`): a token bucket per connection "
             f"({flood.FLOOD_RATE:g} frames/s, burst {thousands(flood.FLOOD_BURST)})"),
    ("5.1 ", f"unproven ones get one each up to {flood.MAX_UNPROVEN}, the least recently used"),
    ("5.1 ", f"`max_frame` = {thousands(MAX_FRAME)} bytes"),
    ("5.1 ", f"`recv_ready` drains up to {thousands(MAX_BATCH)} messages"),
    # §5.2, §5.3, §5.4 discovery
    ("5.2 ", f"| beacon port | UDP | **{DEFAULT_BEACON_PORT}** |"),
    ("5.3 ", f"Length {beacon.HEADER_SIZE} + n bytes ({beacon.HEADER_SIZE} to "
             f"{beacon.MAX_BEACON_SIZE}:"),
    ("5.3 ", f"`{beacon.MAGIC.hex(' ').upper()}` (`\"{beacon.MAGIC.decode()}\"`)"),
    ("5.3 ", f"| 4 | 1 | version | `{beacon.VERSION:02x}` (§2.5 \"Versions\") |"),
    ("5.3 ", f"{beacon.TABLE_CODE_SIZE} ASCII characters of `{beacon.TABLE_CODE_ALPHABET}`"),
    ("5.3 ", f"| 56 | 1 | name length n | 0–{beacon.MAX_NAME_BYTES} |"),
    ("5.3 ", f"{beacon.MAX_TURN_TIMER_MS:,}".join(("the table's `turn_timer_ms` (§4.2), 0–",
                                                    " (`0`: no limit)"))),
    ("5.4 ", f"**interval = {s(inspect.signature(Discovery).parameters['interval'].default)}**"),
    ("5.4 ", f"**expiry = {s(inspect.signature(Discovery).parameters['expiry'].default)}**"),
    ("5.4 ", f"At most {MAX_PEERS} peers are remembered"),
    ("5.4 ", f"datagrams longer than {beacon.MAX_BEACON_SIZE} bytes ({beacon.HEADER_SIZE} + "
             f"{beacon.MAX_NAME_BYTES}, the longest beacon) are refused"),
    # §5.5 node
    ("5.5 ", f"the node holds a frame a link younger than **{s(transport.LINK_UP_GRACE)}** "
             f"refused, in order per link (at most {transport.MAX_HELD})"),
    # exit codes (cli/exits.py) the text names
    ("4.6 ", f'exits "removed" (exit code {Exit.REMOVED:d})'),
    ("4.6 ", f'("the table is gone", exit code {Exit.TABLE_GONE:d})'),
    ("4.8 ", f"summary (exit {Exit.OK:d}) or the first violation (`INVALID file: item 17: ...`, "
             f"exit {Exit.FAILED:d}); an unreadable file exits {Exit.USAGE:d}"),
    ("4.9 ", f"`bot` prints the refusal and exits {Exit.REFUSED:d}"),
    ("4.9 ", f'(exit {Exit.USAGE:d}, "empty once control and invisible characters are removed")'),
    ("4.9 ", f"(`watch` exits {Exit.REFUSED:d})"),
    ("4.9 ", f"(`wrong_host`, exit {Exit.REFUSED:d})"),
    ("4.9 ", f"and exits {Exit.FAILED:d}, and nothing after it is ever shown as verified"),
    ("2.5 ", f"(exit {Exit.REFUSED:d}, \"the host speaks another version of the protocol\")"),
    # names (§4.9)
    ("4.9 ", f"at most two combining marks on one letter; at most {names.MAX_NAME} characters"),
]
assert names.MAX_MARKS == 2  # "two" in the phrase above


@pytest.mark.parametrize(("heading", "phrase"), FACTS, ids=[f"§{h.strip()} {p[:50]}"
                                                            for h, p in FACTS])
def test_protocol_md_says_the_codes_value(heading: str, phrase: str) -> None:
    assert phrase in said(heading), f"protocol.md §{heading.strip()} should say: {phrase}"


# ---- what the document names exists ------------------------------------------------------

_PACKAGES = "consensus|protocol|net|node|crypto|rules|session|cli|bench|ui|bots"
# §6's abbreviations: "F::test_x" is test_x of that file (A:: a folder: "A::file.py::test_x")
_ABBREVIATIONS = re.compile(r"`([A-Z])::`\s+=\s+`(tests/[a-z0-9_/]+(?:\.py)?)/?`")


def named_modules(text: str) -> set[str]:
    found: set[str] = set()
    for m in re.finditer(rf"(?:dudo_p2p/)?({_PACKAGES})/\{{([a-z_,]+)\}}\.py", text):
        found |= {f"dudo_p2p/{m.group(1)}/{name}.py" for name in m.group(2).split(",")}
    for m in re.finditer(rf"(?<![\w/.])(?:dudo_p2p/)?({_PACKAGES})/([a-z_]+)\.py", text):
        found.add(f"dudo_p2p/{m.group(1)}/{m.group(2)}.py")
    return found


def test_every_module_protocol_md_names_exists() -> None:
    named = named_modules(spec_text())
    assert len(named) > 40  # the scan finds them (it is not vacuous)
    named |= set(re.findall(r"(?<![\w/])((?:tests|scripts)/[\w/.-]+\.(?:py|json))", spec_text()))
    missing = sorted(path for path in named if not (ROOT / path).is_file())
    assert not missing, f"protocol.md names modules that do not exist: {missing}"


def test_every_bare_module_name_is_a_file_of_the_package() -> None:
    """`journal.py`, `timers.py`...: a name without its folder is some module's."""
    text = spec_text()
    bare = set(re.findall(r"`([a-z_]+\.py)`", text)) | set(re.findall(r"`([a-z_]+\.py)[,:` ]",
                                                                       text))
    homes = {p.name for p in (ROOT / "dudo_p2p").rglob("*.py")}
    homes |= {p.name for p in (ROOT / "tests").rglob("*.py")}
    assert not sorted(bare - homes), f"no such module: {sorted(bare - homes)}"


def defined_tests(path: Path) -> set[str]:
    files = [path] if path.suffix == ".py" else list(path.rglob("test_*.py"))
    return {name for f in files
            for name in re.findall(r"^(?:async )?def (test_\w+)\(", f.read_text(), flags=re.M)}


def test_every_test_protocol_md_cites_exists_where_it_says() -> None:
    """A citation is ``tests/x.py::test_y``, ``F::test_y`` (§6's abbreviations), ``…::test_y``
    (the file of the citation before it), or a bare `test_y` (any test file)."""
    text = spec_text()
    abbreviations = dict(_ABBREVIATIONS.findall(text))
    assert set("AFRNBCWD") <= set(abbreviations)
    everywhere = defined_tests(ROOT / "tests")
    problems: list[str] = []
    last: Path | None = None
    cited = 0
    for m in re.finditer(r"(?:([A-Z])::)?((?:tests/)?[a-z0-9_/]+\.py)?(::|…::)?(test_\w+)", text):
        letter, path, sep, name = m.groups()
        cited += 1
        if letter:
            base = ROOT / abbreviations[letter]
            where = base / path if path else base
        elif path and path.startswith("tests/"):
            where = ROOT / path
        elif sep == "…::" and last is not None:
            where = last
        else:
            if name not in everywhere and not any((ROOT / "tests").rglob(f"{name}.py")):
                problems.append(name)
            continue
        last = where
        if not where.exists() or name not in defined_tests(where):
            problems.append(f"{where.relative_to(ROOT)}::{name}")
    assert cited > 80
    assert not problems, f"protocol.md cites tests that are not there: {problems}"


# ---- closed sets of names --------------------------------------------------------------


def backticked(text: str) -> list[str]:
    return re.findall(r"`([a-z_-]+)`", text)


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


# ---- the envelope's checks, in the document's order -----------------------------------------

_ERRORS = {"FrameTooLarge": FrameTooLarge, "DecodeError": DecodeError,
           "WrongContext": WrongContext, "BadSignature": BadSignature}
_SIGNER = Identity.generate(lambda n: hashlib.sha512(b"spec").digest()[:n])
_STRANGER = Identity.generate(lambda n: hashlib.sha512(b"stranger").digest()[:n])
_GAME = bytes(range(16))


def _good() -> list[Any]:
    env = seal_envelope(_SIGNER, _GAME, 1, 0, Heartbeat(bytes(32), 0, 1, bytes(32), b""))
    items = [PROTOCOL_VERSION, env.game_id, env.round_no, env.seq, env.author, env.kind,
             {"head": bytes(32), "length": 0, "counter": 1, "to": bytes(32), "link": b""},
             env.signature]
    assert encode(items) == env.to_bytes()
    return items


def _breaking(step: int, items: list[Any]) -> bytes:
    """A frame that fails ``step`` of §2.5's table (and, from ``items``, maybe later ones)."""
    if step == 1:
        return encode([*items[:6], {"x": "y" * MAX_FRAME}, items[7]])
    if step == 2:
        return encode(["2", *items[1:]])
    items = list(items)
    if step == 3:
        items[0] = PROTOCOL_VERSION + 1
    elif step == 4:
        items[1] = bytes(15)
    elif step == 5:
        items[4] = _STRANGER.public_key
    elif step == 6:
        items[7] = bytes(64)
    elif step == 7:
        items[2] = MAX_COUNTER  # the round signed is not the round expected
        items[7] = _SIGNER.sign(encode([f"{TAG_PREFIX}envelope", *items[:7]]))
    return encode(items)


def test_open_envelope_checks_in_the_order_of_the_table() -> None:
    """Each step of §2.5's table, failed alone and together with every later step, raises
    the error the table names for it: the earliest failure wins."""
    from dudo_p2p.protocol.envelope import open_envelope

    table = next(t for t in tables(section(spec_text(), "2.5 ")) if t[0][0] == "step")
    steps = [(int(row[0]), _ERRORS[plain(row[2])]) for row in table[1:]]
    assert [n for n, _ in steps] == list(range(1, 8))
    known = {_SIGNER.public_key}

    def opened(frame: bytes) -> type[Exception] | None:
        try:
            open_envelope(frame, expect_game=_GAME, expect_round=1, known_authors=known)
        except (FrameTooLarge, DecodeError, WrongContext, BadSignature) as exc:
            return type(exc)
        return None

    assert opened(encode(_good())) is None
    for step, error in steps:
        assert opened(_breaking(step, _good())) is error, f"step {step} alone"
        if step >= 3:  # the same step with every later one broken too (3..7 share a frame)
            items = _good()
            for later in range(7, step - 1, -1):
                items = decode_items(_breaking(later, items))
            assert opened(encode(items)) is error, f"step {step} with every later one"


def decode_items(frame: bytes) -> list[Any]:
    from dudo_p2p.protocol.codec import decode

    value = decode(frame)
    assert isinstance(value, list)
    return value


# ---- hashes ----------------------------------------------------------------------------


def test_encode_parts_is_the_layout_of_section_2_2() -> None:
    """The part types and widths of §2.2's pseudo-code, from a hash the code makes."""
    text = section(spec_text(), "2.2 ")
    types = dict(re.findall(r"type (0x0[1-3]) +(bytes|int|str)", text))
    assert types == {"0x01": "bytes", "0x02": "int", "0x03": "str"}
    tag = f"{TAG_PREFIX}t"
    made = encode_parts(tag, b"\xaa", -2, "é")
    expected = (len(tag).to_bytes(2, "big") + tag.encode() + (3).to_bytes(4, "big")
                + bytes.fromhex(types_hex(types, "bytes")) + (1).to_bytes(4, "big") + b"\xaa"
                + bytes.fromhex(types_hex(types, "int")) + (8).to_bytes(4, "big")
                + (-2).to_bytes(8, "big", signed=True)
                + bytes.fromhex(types_hex(types, "str")) + (2).to_bytes(4, "big")
                + "é".encode())
    assert made == expected
    assert "8 bytes, two's complement big-endian (-2^63 .. 2^63-1)" in text
    for bad in (True, 2**63, 1.0):
        with pytest.raises(InvalidValue):  # each refused, as §2.2 says
            encode_parts(tag, bad)  # type: ignore[arg-type]  # what a caller may not pass


def types_hex(types: dict[str, str], name: str) -> str:
    return next(code for code, kind in types.items() if kind == name)[2:]


# ---- the link sockets' options, read back from real sockets --------------------------------


_OPTIONS = {
    "ZMQ_ROUTER_HANDOVER": None,  # write-only in libzmq: checked from the code below
    "ZMQ_MAXMSGSIZE": zmq.MAXMSGSIZE, "ZMQ_RCVHWM": zmq.RCVHWM, "ZMQ_LINGER": zmq.LINGER,
    "ZMQ_SNDHWM": zmq.SNDHWM, "ZMQ_IMMEDIATE": zmq.IMMEDIATE,
    "ZMQ_HEARTBEAT_IVL": zmq.HEARTBEAT_IVL, "_TIMEOUT": zmq.HEARTBEAT_TIMEOUT,
    "_TTL": zmq.HEARTBEAT_TTL, "ZMQ_RECONNECT_IVL": zmq.RECONNECT_IVL,
    "_MAX": zmq.RECONNECT_IVL_MAX, "ZMQ_CONNECT_TIMEOUT": zmq.CONNECT_TIMEOUT,
}


def socket_table() -> list[tuple[str, str, int]]:
    """(socket, option, value) rows of §5.1's table; "a / b" options and values split."""
    table = next(t for t in tables(section(spec_text(), "5.1 ")) if t[0][0] == "socket")
    rows: list[tuple[str, str, int]] = []
    for socket_cell, option_cell, value_cell, _why in table[1:]:
        options = [o.strip() for o in plain(option_cell).split("/")]
        values = [int(re.sub(r"\D", "", v)) for v in
                  plain(value_cell).replace("(none)", "").replace(" ms", "").split("/")]
        assert len(options) == len(values), (option_cell, value_cell)
        for socket_name in ("ROUTER", "DEALER") if socket_cell == "both" else (socket_cell,):
            rows += [(socket_name, o, v) for o, v in zip(options, values, strict=True)]
    return rows


def test_the_link_socket_options_are_the_ones_the_sockets_hold() -> None:
    """§5.1's table against a real ROUTER and DEALER of :class:`Links` on loopback."""
    rows = socket_table()
    assert {o for _, o, _ in rows} == set(_OPTIONS)
    ctx: zmq.Context[Any] = zmq.Context()
    links = Links(ctx, b"spec", bind_host="127.0.0.1")
    try:
        links.connect(b"self", "127.0.0.1", links.port)
        sockets = {"ROUTER": links._router, "DEALER": links._dealers[b"self"].sock}
        for socket_name, option, value in rows:
            code = _OPTIONS[option]
            if code is None:
                continue
            assert sockets[socket_name].getsockopt(code) == value, (socket_name, option)
    finally:
        links.close()
        ctx.term()
    # ROUTER_HANDOVER cannot be read back: the net package sets it to 0, and never to 1
    source = "".join(p.read_text() for p in (ROOT / "dudo_p2p" / "net").glob("*.py"))
    assert re.findall(r"setsockopt\(zmq\.ROUTER_HANDOVER, (\w+)\)", source) == ["0"]
    assert ("ROUTER", "ZMQ_ROUTER_HANDOVER", 0) in rows
    assert LinkTimers().heartbeat_ivl == 1000  # the ZMTP ping the §5.1 text explains


def test_the_package_has_the_version_the_document_states() -> None:
    """One version for envelope and beacon (§2.5, §5.3), and the older one a host still
    answers a hello of (§2.5 "Versions")."""
    assert f"Version {PROTOCOL_VERSION} (what changed since version {PROTOCOL_VERSION - 1}" in \
        spec_text()
    assert beacon.VERSION == PROTOCOL_VERSION
    assert {PROTOCOL_VERSION - 1} == OLDER_VERSIONS
    assert f"**A peer of version {PROTOCOL_VERSION - 1}** asking to sit" in said("2.5 ")
    assert f"tags did not change (`{TAG_PREFIX}`, §2.2)" in said("2.5 ")
    assert Path(dudo_p2p.__file__).parent == ROOT / "dudo_p2p"


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


# ---- every name of the code the document quotes ----------------------------------------------

# names of libzmq, the socket API and the text's own notation, not of this package
_NOT_OURS = re.compile(r"(ZMQ_|EVENT_|SO_|SIOC)\w+|MAXMSGSIZE|H|MAC|len|packb")


def test_every_class_function_and_constant_protocol_md_quotes_is_in_the_package() -> None:
    """`TableMachine.heard`, `open_genesis(...)`, `TELL_LINGER`, `CheatDetected`: each a
    class, function or constant that exists, so a renamed one fails here."""
    text = spec_text()
    quoted = set(re.findall(r"`([A-Za-z_][\w.]*)\(", text))
    quoted |= set(re.findall(r"`([A-Z][A-Za-z]+\.[a-z_]+)`", text))
    quoted |= set(re.findall(r"`([A-Z][A-Z_]{3,})`", text))
    quoted |= set(re.findall(r"`([A-Z][a-z]+(?:[A-Z][a-z0-9]+)+)[`(]", text))
    quoted = {q for q in quoted if not _NOT_OURS.fullmatch(q)}
    assert len(quoted) > 60  # the scan finds them (it is not vacuous)
    source = "\n".join(p.read_text() for p in (ROOT / "dudo_p2p").rglob("*.py"))
    missing = []
    for name in sorted(quoted):
        last = re.escape(name.split(".")[-1])
        if not re.search(rf"(def {last}\(|class {last}\b|^\s*{last}\b[^=\n]*=|\b{last}: )",
                         source, flags=re.M):
            missing.append(name)
    # snake_case names (functions, fields, options): a word of the package's source at least
    words = {w for w in re.findall(r"`([a-z]+(?:_[a-z0-9]+)+)`", text)
             if not w.startswith("test_") and not re.fullmatch(r"[a-z]_[a-z]", w)}
    assert len(words) > 40
    missing += sorted(w for w in words if not re.search(rf"\b{w}\b", source))
    assert not missing, f"protocol.md quotes names the package does not have: {missing}"


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


def test_every_command_line_option_protocol_md_names_exists() -> None:
    """`--join`, `--table`, `--host-key`, `--then-watch`...: options of some command."""
    options: set[str] = set()
    for name in COMMANDS:
        parser = build_parser(name)
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        options |= {o for action in sub.choices[name]._actions for o in action.option_strings}
    named = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", spec_text()))
    assert len(named) > 10
    assert not sorted(named - options), f"no command has {sorted(named - options)}"


def test_the_name_fold_table_is_the_fold_names_py_applies() -> None:
    """§4.9's fold, code point by code point (peers that fold differently disagree on which
    names collide, and a genesis one host makes fails the other's check)."""
    text = section(spec_text(), "4.9 ")
    doc = fold_table()
    assert doc == {k: v for k, v in names._FOLD.items()}
    said_dead = {int(cp, 16) for cp in re.findall(r"U\+([0-9A-F]{4}) \(Greek lunate sigma\) is "
                                                  r"case folded", " ".join(text.split()))}
    dead = {cp for cp, latin in doc.items()  # entries skeleton() never applies
            if names.skeleton(f"x{chr(cp)}x") != names.skeleton(f"x{latin}x")}
    assert dead == said_dead == {0x03F2}


def clean_as_written(raw: str) -> str:
    """§4.9's `clean`, written from the text alone (not from names.py)."""
    while True:
        kept: list[str] = []
        marks = 0
        for ch in unicodedata.normalize("NFC", raw):
            category = unicodedata.category(ch)
            if category in ("Cc", "Cf", "Cs", "Co"):
                continue
            if category.startswith("Z") or ch.isspace():
                if kept and kept[-1] != " ":
                    kept.append(" ")
                marks = 0
            elif category in ("Mn", "Mc", "Me"):
                if kept and kept[-1] != " " and marks < 2:
                    kept.append(ch)
                    marks += 1
            else:
                kept.append(ch)
                marks = 0
        once = unicodedata.normalize("NFC", "".join(kept)).strip()[:32].rstrip()
        if once == raw:
            return once
        raw = once


# any text, and text dense in what clean() decides on: marks (Mn, Me, Mc), separators and
# white space, format and control characters, letters that NFC composes with a mark
_NAMEISH = st.text(st.characters(codec="utf-8"), max_size=40) | st.text(st.sampled_from(
    "aA\u0301\u0302\u0303\u0489\u0903 \u2028\u3000\u200b\u202e\t\n#\u030a\ufeff"),
    max_size=40)


@settings(derandomize=True, max_examples=400)
@given(_NAMEISH)
def test_clean_is_what_section_4_9_says(raw: str) -> None:
    assert names.clean(raw) == clean_as_written(raw)


@functools.cache
def fold_table() -> dict[int, str]:
    """§4.9's fold table: code point -> the Latin text it is folded to."""
    table = next(t for t in tables(section(spec_text(), "4.9 ")) if plain(t[0][0]) == "folded to")
    return {int(cp[2:], 16): plain(row[0]) for row in table[1:] for cp in plain(row[1]).split(", ")}


def skeleton_as_written(name: str) -> str:
    """§4.9's skeleton from the text and its fold table alone (not from names.py)."""
    text = unicodedata.normalize("NFKD", name)
    text = "".join(ch for ch in text if unicodedata.combining(ch) == 0).casefold()
    text = text.translate(fold_table())
    return "".join(ch for ch in text if ch.isalnum())


@settings(derandomize=True, max_examples=300)
@given(_NAMEISH, _NAMEISH)
def test_two_names_collide_as_section_4_9_says(a: str, b: str) -> None:
    a, b = names.clean(a) or "x", names.clean(b) or "y"
    written = (skeleton_as_written(a) or a) == (skeleton_as_written(b) or b)
    assert (names.problem([a, b]) == "two names look alike") == (written and a != b) or a == b
    assert names.skeleton(a) == skeleton_as_written(a)
