"""protocol.md states the code's numbers: each fact is read from the code (a constant, a
default, an exit code) and found in the document, so neither side can drift alone. The other
checks of the document against the code: test_protocol_spec.py (the message, tag and timer
tables), test_spec_sets.py (closed sets of names), test_spec_wire.py (envelope check order,
encode_parts, socket options), test_spec_names.py (§4.9 "Names"), test_spec_references.py
(every module, test, code name and option the document names exists).

A fact is a phrase of protocol.md built from the code's value: change the value in the code
and the phrase no longer appears (the test names the section and the phrase it expected);
reword the document and keep the number, and only the phrase here changes with it.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from spec_tables import ROOT, said, spec_text

import dudo_p2p
from dudo_p2p.cli.exits import Exit
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
from dudo_p2p.consensus.intake import MAX_BUFFERED
from dudo_p2p.crypto import identity as identity_module
from dudo_p2p.crypto.hashing import PROTOCOL_VERSION, TAG_PREFIX
from dudo_p2p.crypto.identity import KEY_SIZE, SIGNATURE_SIZE, Identity
from dudo_p2p.crypto.shares import SEALED_SHARE_SIZE
from dudo_p2p.net import beacon, flood, routing, transport
from dudo_p2p.net.discovery import DEFAULT_BEACON_PORT, MAX_PEERS, Discovery
from dudo_p2p.net.router import MAX_BATCH
from dudo_p2p.node import seeking
from dudo_p2p.node.loop import MAX_EARLY_FRAMES
from dudo_p2p.node.node import LEAVE_LINGER_MS
from dudo_p2p.protocol import names
from dudo_p2p.protocol.codec import MAX_FRAME
from dudo_p2p.protocol.envelope import GAME_ID_SIZE
from dudo_p2p.protocol.kinds import MAX_PHRASE
from dudo_p2p.protocol.messages import _KIND_RE
from dudo_p2p.protocol.older import OLDER_VERSIONS


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
    ("4.9 ", f"tried again every **{s(rotation.ENLIST_EVERY)}** until it is queued once "
             f"(every **{s(rotation.ENLIST_SOON)}** while its first ask waits"),
    ("4.9 ", f"or **{s(rotation.PREFER_WITHIN)}** passed (`PREFER_WITHIN`"),
    ("4.9 ", f"up to **{watch_desk.PUSH_CHUNKS}** replies a push (`PUSH_CHUNKS`"),
    ("4.9 ", f"within **{s(watch_door.INTRODUCED_KEPT)}** of the genesis it handed it "
             f"(`INTRODUCED_KEPT`"),
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
    # §4.10: the heartbeat's link nonce, talk
    ("4.10 ", f"the link nonce ({routing.LINK_NONCE_LEN} bytes today)"),
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
