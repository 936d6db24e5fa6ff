"""protocol.md's wire tables against the code run for real: §2.5's check order (each step
failed alone and with every later one), §2.2's encode_parts layout, §5.1's socket options read
back from a real ROUTER and DEALER on loopback, and §3.7's bad-deal proof checked by the
text's formulas."""

from __future__ import annotations

import hashlib
import re
from typing import Any

import pytest
import zmq
from spec_tables import ROOT, plain, section, spec_text, tables

from dudo_p2p.crypto import edwards
from dudo_p2p.crypto.hashing import PROTOCOL_VERSION, TAG_PREFIX, encode_parts, tagged_hash
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.crypto.vss import vss_context
from dudo_p2p.errors import BadSignature, DecodeError, FrameTooLarge, InvalidValue, WrongContext
from dudo_p2p.net.dealer import LinkTimers
from dudo_p2p.net.links import Links
from dudo_p2p.protocol.codec import MAX_FRAME, decode, encode
from dudo_p2p.protocol.envelope import MAX_COUNTER, open_envelope, seal_envelope
from dudo_p2p.protocol.kinds import Heartbeat

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
    """The items of an envelope frame (to break one more step of it)."""
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
    """The hex digits of the part type §2.2 gives ``name`` ("0x02" for int: "02")."""
    return next(code for code, kind in types.items() if kind == name)[2:]


# ---- the link sockets' options, read back from real sockets --------------------------------


_OPTIONS = {
    "ZMQ_ROUTER_HANDOVER": None,  # write-only in libzmq: checked from the code below
    "ZMQ_MAXMSGSIZE": zmq.MAXMSGSIZE, "ZMQ_RCVHWM": zmq.RCVHWM, "ZMQ_LINGER": zmq.LINGER,
    "ZMQ_SNDHWM": zmq.SNDHWM, "ZMQ_IMMEDIATE": zmq.IMMEDIATE,
    "ZMQ_HEARTBEAT_IVL": zmq.HEARTBEAT_IVL, "_TIMEOUT": zmq.HEARTBEAT_TIMEOUT,
    "_TTL": zmq.HEARTBEAT_TTL, "ZMQ_RECONNECT_IVL": zmq.RECONNECT_IVL,
    "_MAX": zmq.RECONNECT_IVL_MAX, "ZMQ_CONNECT_TIMEOUT": zmq.CONNECT_TIMEOUT,
    # a kernel TCP option, not a ZMQ one: tests/net/test_net_thin.py reads it back from the
    # kernel on both ends of both connections
    "TCP TCP_THIN_LINEAR_TIMEOUTS (Linux only)": None,
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


# ---- the exchange proof of a bad-deal (§3.7) ---------------------------------------------


def ident(label: bytes) -> Identity:
    return Identity.generate(lambda n: hashlib.sha512(label).digest()[:n])


def d_i_as_written(u: bytes) -> bytes | None:
    """The encoding of §3.7's D_i: y = (u − 1)/(u + 1) with u read little-endian, top bit
    cleared, mod p; x even, so the encoding is y with its sign bit 0 (None: no such point)."""
    p = 2**255 - 19
    value = int.from_bytes(u, "little") & ((1 << 255) - 1)
    if (value + 1) % p == 0:
        return None
    y = (value - 1) * pow(value + 1, p - 2, p) % p
    return y.to_bytes(32, "little") if edwards.decode(y.to_bytes(32, "little")) else None


def test_a_bad_deal_proof_checks_by_the_formulas_of_section_3_7() -> None:
    """A proof the code makes, checked step by step as §3.7 writes it (the group operations
    from crypto/edwards.py, the composition from the text): D_i, G1, G2, T1 = z·G1 − c·A1,
    T2 = z·G2 − c·A2, the challenge over its parts, A1's X25519 form, and Z."""
    prover, dealer = ident(b"prover"), ident(b"dealer")
    context = vss_context(bytes(16), 3, 1, 2)
    z_value, proof = prover.prove_exchange(dealer.x25519_public, context)
    d_i = d_i_as_written(dealer.x25519_public)
    assert d_i is not None
    assert d_i == edwards.encode(edwards.from_montgomery(dealer.x25519_public))  # type: ignore[arg-type]
    a1, a2 = edwards.decode(proof[:32]), edwards.decode(proof[32:64])
    c, z = (int.from_bytes(proof[k:k + 32], "little") for k in (64, 96))
    assert a1 is not None and a2 is not None and c < edwards.L and z < edwards.L
    g1 = edwards.mul(8, edwards.B)
    g2 = edwards.mul(8, edwards.decode(d_i))  # type: ignore[arg-type]
    t1 = edwards.add(edwards.mul(z, g1), edwards.neg(edwards.mul(c, a1)))
    t2 = edwards.add(edwards.mul(z, g2), edwards.neg(edwards.mul(c, a2)))
    parts = [edwards.encode(q) for q in (g1, g2, a1, a2, t1, t2)]
    wide = b"".join(tagged_hash(f"{TAG_PREFIX}exchange-proof", half, *parts, context)
                    for half in (0, 1))
    assert int.from_bytes(wide, "little") % edwards.L == c
    assert edwards.montgomery_u(a1) == prover.x25519_public
    assert edwards.montgomery_u(a2) == z_value == prover.exchange(dealer.x25519_public)
