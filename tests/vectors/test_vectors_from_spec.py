"""The vectors re-derived from protocol.md's text alone, without the package: the byte
formulas of §2.2 (encode_parts, tagged hashes), §2.5 (signed bytes, entry digest), §3
(commitments, round seed, dice, public draws, sealed shares) and §4.1/§4.2 (the chain and
the genesis head) are written out here from the spec and must give every vector's bytes.
If one of them fails, protocol.md's description and the wire disagree."""

from __future__ import annotations

import hashlib
import hmac
import json
import struct
from pathlib import Path
from typing import Any

import msgpack
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

HERE = Path(__file__).resolve().parent


def load(name: str) -> Any:
    return json.loads((HERE / name).read_text(encoding="utf-8"))


# ---- §2.2 ------------------------------------------------------------------------------------


def encode_parts(tag: str, *parts: bytes | int | str) -> bytes:
    raw = tag.encode()
    out = struct.pack(">H", len(raw)) + raw + struct.pack(">I", len(parts))
    for part in parts:
        if isinstance(part, bytes):
            kind, payload = 1, part
        elif isinstance(part, int) and not isinstance(part, bool):
            kind, payload = 2, part.to_bytes(8, "big", signed=True)
        else:
            assert isinstance(part, str)
            kind, payload = 3, part.encode()
        out += bytes([kind]) + struct.pack(">I", len(payload)) + payload
    return out


def H(tag: str, *parts: bytes | int | str) -> bytes:  # the spec writes H and MAC
    return hashlib.sha256(encode_parts(f"dudo-p2p/1/{tag}", *parts)).digest()


def MAC(key: bytes, tag: str, *parts: bytes | int | str) -> bytes:
    return hmac.new(key, encode_parts(f"dudo-p2p/1/{tag}", *parts), hashlib.sha256).digest()


# ---- §2.5 ------------------------------------------------------------------------------------


def signed_bytes(frame: bytes) -> tuple[list[Any], bytes]:
    """The frame's 8 items and the canonical encoding of the signed array."""
    items = msgpack.unpackb(frame, raw=False)
    version, game, round_no, seq, author, kind, body, _ = items
    signed = msgpack.packb(["dudo-p2p/1/envelope", version, game, round_no, seq, author, kind,
                            body], use_bin_type=True)
    return items, signed


@pytest.mark.parametrize("vector", load("messages.json")["messages"], ids=lambda m: m["kind"])
def test_a_message_vector_signs_and_hashes_as_section_2_5_says(vector: Any) -> None:
    frame = bytes.fromhex(vector["frame"])
    items, signed = signed_bytes(frame)
    assert len(items) == 8 and items[0] == 2  # the wire's version (§2.5)
    assert msgpack.packb(items, use_bin_type=True) == frame  # the frame is canonical
    assert signed.hex() == vector["signed_bytes"]
    Ed25519PublicKey.from_public_bytes(items[4]).verify(items[7], signed)  # raises if not
    assert hashlib.sha256(encode_parts("dudo-p2p/1/entry", signed)).hexdigest() \
        == vector["entry_digest"]
    # §2.3: the signed bytes are 0x98 || enc(tag) || frame[1:-66]
    assert signed == b"\x98" + msgpack.packb("dudo-p2p/1/envelope") + frame[1:-66]


# ---- §3 --------------------------------------------------------------------------------------


def dice(key: bytes, game: bytes, r: int, seat: int, seed: bytes, count: int) -> list[int]:
    out: list[int] = []
    block = 0
    while len(out) < count:
        out += [b % 6 + 1 for b in MAC(key, "dice", game, r, seat, seed, block) if b < 252]
        block += 1
    return out[:count]


def public_draw(seed: bytes, label: str, index: int, n: int) -> int:
    limit = 2**32 - 2**32 % n
    block = 0
    while True:
        stream = MAC(seed, "public-draw", label, index, block)
        for word in struct.unpack(">8I", stream):
            if word < limit:
                return word % n + 1
        block += 1


def test_the_dice_vector_follows_section_3() -> None:
    doc = load("dice.json")
    game, r = bytes.fromhex(doc["game_id"]), doc["round_no"]
    seats = doc["seats"]
    for s in seats:
        k, n = bytes.fromhex(s["dice_key"]), bytes.fromhex(s["nonce"])
        assert H("commit-key", game, r, s["seat"], k).hex() == s["key_c"]
        assert H("commit-nonce", game, r, s["seat"], n).hex() == s["nonce_c"]
        _, signed = signed_bytes(bytes.fromhex(s["commit_frame"]))
        assert H("entry", signed).hex() == s["commit_digest"]
    c = [bytes.fromhex(s["commit_digest"]) for s in seats]
    nonces = [bytes.fromhex(s["nonce"]) for s in seats]
    seed = H("round-seed", game, r, len(c), len(nonces), *c, *nonces)
    assert seed.hex() == doc["round_seed"]
    for s in seats:
        assert dice(bytes.fromhex(s["dice_key"]), game, r, s["seat"], seed,
                    s["dice_count"]) == s["dice"]
    for label, rolls in doc["opener_draw"].items():
        assert [public_draw(seed, label, s["seat"], 6) for s in seats] == rolls
    keys = [bytes.fromhex(s["dice_key"]) for s in seats]
    spin_seed = H("reveal-seed", seed, len(keys), *keys)
    assert spin_seed.hex() == doc["reveal_seed"]
    assert public_draw(spin_seed, "spin", 0, 6) == doc["spin"]


def unseal(recipient_x: bytes, sender_pub: bytes, context: bytes, box: bytes) -> bytes:
    me = X25519PrivateKey.from_private_bytes(recipient_x)
    shared = me.exchange(X25519PublicKey.from_public_bytes(sender_pub))
    mine = me.public_key().public_bytes_raw()
    info = encode_parts("dudo-p2p/1/seal", sender_pub, mine, context)
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(shared)
    nonce = box[:12]
    plain = ChaCha20Poly1305(key).decrypt(nonce, box[12:], context)
    assert MAC(key, "seal-nonce", plain)[:12] == nonce  # the synthetic nonce
    return plain


@pytest.mark.parametrize("case", ["open_4_of_4", "open_3_of_4"])
def test_the_open_palifico_vector_follows_sections_3_4_to_3_6_and_4_10(case: str) -> None:
    doc, keys = load("shares.json"), load("keys.json")["seats"]
    game, r = bytes.fromhex(doc["game_id"]), doc["round_no"]
    rnd = doc[case]
    live, n = rnd["live"], rnd["seats_in_genesis"]
    dealt: dict[int, dict[int, bytes]] = {}
    for dealer in rnd["dealers"]:
        d = dealer["seat"]
        body = dealer["commit_body"]
        share_cs = [bytes.fromhex(x["hex"]) for x in body["share_cs"]]
        sealed = [bytes.fromhex(x["hex"]) for x in body["sealed"]]
        assert len(share_cs) == len(sealed) == n
        for j in range(n):
            if j == d or j not in live:
                assert share_cs[j] == sealed[j] == b""
                continue
            recipients = [t for t in live if t not in (d, j)]
            assert len(sealed[j]) == 60 * len(recipients)
            for i, t in enumerate(recipients):
                context = encode_parts("dudo-p2p/1/share-context", game, r, d, t, j)
                share = unseal(bytes.fromhex(keys[t]["x25519_private"]),
                               bytes.fromhex(keys[d]["x25519_public"]), context,
                               sealed[j][60 * i: 60 * i + 60])
                assert H("commit-share", game, r, d, j, share) == share_cs[j]
                dealt.setdefault(j, {})[d] = share
    seed = bytes.fromhex(rnd["round_seed"])
    for j in live:
        shares = [dealt[j][d] for d in live if d != j]
        key = H("open-key", game, r, j, len(shares), *shares)
        assert key.hex() == rnd["open_keys"][str(j)]
        assert dice(key, game, r, j, seed, 1) == rnd["dice"][str(j)]


# ---- §4.1, §4.2 -------------------------------------------------------------------------------


def test_the_game_vectors_log_hash_is_the_chain_of_section_4_1() -> None:
    doc = load("game.json")
    genesis_items, genesis_signed = signed_bytes(bytes.fromhex(doc["genesis"]))
    game = genesis_items[1]
    signs = [H("entry", signed_bytes(bytes.fromhex(s))[1]) for s in doc["signatures"]]
    head = H("genesis-head", H("entry", genesis_signed), *signs)
    for item in msgpack.unpackb(bytes.fromhex(doc["record"]), raw=False)["items"]:
        if isinstance(item, bytes):
            digest = H("entry", signed_bytes(item)[1])
        else:
            _, epoch, seat, _, _ = item
            digest = H("removal", game, epoch, seat)
        head = H("chain", head, digest)
    assert head.hex() == doc["log_hash"]
