"""The committed test vectors (protocol.md §4.11) are what the code produces, byte for byte,
and each says what it claims when read back through the package's public functions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from make_vectors import FILES, build, key
from spec_tables import code_kinds

from dudo_p2p.cli.main import main
from dudo_p2p.consensus.record import verify_record
from dudo_p2p.crypto.dice import check_commitment, derive_dice, public_draw, round_seed
from dudo_p2p.crypto.shares import closed_palifico_key, open_sealed, share_context
from dudo_p2p.protocol.codec import decode
from dudo_p2p.protocol.envelope import open_envelope, seal_envelope
from dudo_p2p.protocol.messages import to_wire

HERE = Path(__file__).resolve().parent


def load(name: str) -> Any:
    return json.loads((HERE / name).read_text(encoding="utf-8"))


def untyped(value: Any) -> Any:
    """The wire value of a vector's typed JSON ({"hex": ...} is bin)."""
    if isinstance(value, dict):
        if set(value) == {"hex"}:
            return bytes.fromhex(value["hex"])
        return {k: untyped(v) for k, v in value.items()}
    if isinstance(value, list):
        return [untyped(v) for v in value]
    return value


def test_the_code_reproduces_every_vector_file_byte_for_byte() -> None:
    made = build()
    assert set(made) == set(FILES)
    for name, text in made.items():
        committed = (HERE / name).read_text(encoding="utf-8")
        assert committed == text, f"tests/vectors/{name} is stale: run scripts/make_vectors"


def test_every_kind_the_package_registers_has_a_message_vector() -> None:
    kinds = [m["kind"] for m in load("messages.json")["messages"]]
    assert sorted(kinds) == sorted(code_kinds()), "run scripts/make_vectors"


@pytest.mark.parametrize("vector", load("messages.json")["messages"], ids=lambda m: m["kind"])
def test_a_message_vector_opens_to_its_fields_and_reseals_to_its_bytes(vector: Any) -> None:
    frame = bytes.fromhex(vector["frame"])
    env = open_envelope(frame)
    author = load("keys.json")["seats"][vector["author_seat"]]
    assert env.author.hex() == author["ed25519_public"]
    assert (env.kind, env.game_id.hex(), env.round_no, env.seq) == (
        vector["kind"], vector["game_id"], vector["round_no"], vector["seq"])
    assert to_wire(env.body) == untyped(vector["body"])
    assert env.signed_bytes.hex() == vector["signed_bytes"]
    assert env.digest().hex() == vector["entry_digest"]
    again = seal_envelope(key(vector["author_seat"]), env.game_id, env.round_no, env.seq,
                          env.body)
    assert again.to_bytes() == frame  # Ed25519 is deterministic


def test_the_dice_vector_derives_from_its_secrets() -> None:
    doc = load("dice.json")
    game, r = bytes.fromhex(doc["game_id"]), doc["round_no"]
    seats = doc["seats"]
    digests = [open_envelope(bytes.fromhex(s["commit_frame"])).digest() for s in seats]
    assert [d.hex() for d in digests] == [s["commit_digest"] for s in seats]
    seed = round_seed(game, r, digests, [bytes.fromhex(s["nonce"]) for s in seats])
    assert seed.hex() == doc["round_seed"]
    for s in seats:
        k, n = bytes.fromhex(s["dice_key"]), bytes.fromhex(s["nonce"])
        assert check_commitment("key", game, r, s["seat"], k, bytes.fromhex(s["key_c"]))
        assert check_commitment("nonce", game, r, s["seat"], n, bytes.fromhex(s["nonce_c"]))
        assert list(derive_dice(k, game, r, s["seat"], seed, s["dice_count"])) == s["dice"]
        assert all(1 <= d <= 6 for d in s["dice"]) and len(s["dice"]) == s["dice_count"]
    assert doc["opener_draw"]["opener/0"] == [public_draw(seed, "opener/0", s["seat"], 6)
                                              for s in seats]


@pytest.mark.parametrize("case", ["open_4_of_4", "open_3_of_4"])
def test_every_sealed_box_opens_for_its_recipient_to_the_share_its_commitment_names(
    case: str,
) -> None:
    doc = load("shares.json")
    game, r = bytes.fromhex(doc["game_id"]), doc["round_no"]
    round_ = doc[case]
    live = round_["live"]
    for dealer in round_["dealers"]:
        d = dealer["seat"]
        body = untyped(dealer["commit_body"])
        n = round_["seats_in_genesis"]
        assert len(body["share_cs"]) == len(body["sealed"]) == n
        for j in range(n):
            share = dealer["shares_dealt"].get(str(j))
            if share is None:  # itself, or a seat out of the game: empty items
                assert body["share_cs"][j] == body["sealed"][j] == b""
                continue
            value = bytes.fromhex(share)
            assert check_commitment("share", game, r, d, value, body["share_cs"][j], subject=j)
            recipients = [t for t in live if t not in (d, j)]
            boxes = body["sealed"][j]
            assert len(boxes) == 60 * len(recipients)
            for i, t in enumerate(recipients):
                box = boxes[60 * i: 60 * (i + 1)]
                opened = open_sealed(key(t), key(d).x25519_public,
                                     share_context(game, r, d, t, j), box)
                assert opened == value
        assert untyped(dealer["reveal_body"])["shares"] == [
            bytes.fromhex(dealer["shares_dealt"].get(str(j), "")) for j in range(n)]


def test_the_game_vector_verifies_to_its_log_hash() -> None:
    doc = load("game.json")
    record = bytes.fromhex(doc["record"])
    summary = verify_record(record)
    assert summary.log_hash == doc["log_hash"]
    assert summary.finished and summary.winner == doc["winner"]
    assert summary.rounds == doc["rounds"]
    parsed = decode(record)
    assert isinstance(parsed, dict)
    assert parsed["items"] == untyped(doc["items"])
    assert parsed["genesis"].hex() == doc["genesis"]
    assert [s.hex() for s in parsed["signatures"]] == doc["signatures"]


def test_the_closed_palifico_vector_hashes_every_round_key_into_each_blind_key() -> None:
    doc = load("shares.json")
    game, r = bytes.fromhex(doc["game_id"]), doc["round_no"]
    closed = doc["closed_3_of_4"]
    keys = [bytes.fromhex(closed["round_keys"][str(s)]) for s in closed["live"]]
    seed = bytes.fromhex(closed["round_seed"])
    for s in closed["live"]:
        seat = closed["seats"][str(s)]
        want = keys[closed["live"].index(s)] if s == closed["owner"] else closed_palifico_key(
            game, r, s, keys)
        assert seat["dice_key"] == want.hex()
        assert list(derive_dice(want, game, r, s, seed, len(seat["dice"]))) == seat["dice"]


def test_dudo_p2p_verify_prints_the_game_vectors_log_hash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    doc = load("game.json")
    path = tmp_path / "game.record"
    path.write_bytes(bytes.fromhex(doc["record"]))
    assert main(["verify", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["log_hash"] == doc["log_hash"] and out["rounds"] == doc["rounds"]
    broken = bytearray(path.read_bytes())
    broken[-40] ^= 1  # in the last genesis signature (map keys are sorted: it comes last)
    path.write_bytes(bytes(broken))
    assert main(["verify", str(path)]) == 1
