"""Write the test vectors of protocol.md §4.11 into tests/vectors/*.json.

Run ``scripts/make_vectors`` (or ``python tests/vectors/make_vectors.py``) after any change
to the wire, and commit the files with the change; ``test_vectors.py`` checks that the code
reproduces them byte for byte. Everything is built from fixed keys and secrets through the
package's own functions, so the output depends only on the protocol.

Every message kind the package registers gets a vector: the kinds below have a hand-made
body; a kind added later gets one filled in from its field types (the first value each
constraint allows), so regenerating covers it at once.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import sys
import types
import typing
from collections import deque
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated, Any, Union

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent
for path in (TESTS / "protocol",):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from spec_tables import code_kinds  # noqa: E402

from dudo_p2p.consensus.dealing import deal_fields  # noqa: E402
from dudo_p2p.consensus.genesis import Candidate, propose, seating_from, sign  # noqa: E402
from dudo_p2p.consensus.machine import Effect, Send, TableMachine  # noqa: E402
from dudo_p2p.consensus.secrets import EpochSecrets  # noqa: E402
from dudo_p2p.crypto import vss  # noqa: E402
from dudo_p2p.crypto.dice import commit, derive_dice, public_draw, reveal_seed, round_seed  # noqa: E402
from dudo_p2p.crypto.identity import Identity, fingerprint  # noqa: E402
from dudo_p2p.crypto.shares import closed_palifico_key, open_palifico_key  # noqa: E402
from dudo_p2p.protocol.codec import decode  # noqa: E402
from dudo_p2p.protocol.envelope import Envelope, seal_envelope  # noqa: E402
from dudo_p2p.protocol.kinds import (  # noqa: E402
    Ack,
    Act,
    Again,
    Away,
    Bye,
    Commit,
    Genesis,
    GenesisSign,
    Heartbeat,
    Hello,
    Leave,
    Nonce,
    Proof,
    Refusal,
    ResultSign,
    Reveal,
    SyncReply,
    SyncRequest,
    Talk,
    Vote,
    Welcome,
)
from dudo_p2p.protocol.messages import MaxLen, Message, Range, Size, to_wire  # noqa: E402
from dudo_p2p.rules import RuleSet  # noqa: E402

GAME = bytes(range(16))
LOBBY = bytes(16)
EPOCH = 3
PREV = hashlib.sha256(b"dudo-p2p vectors: a head").digest()
FILES = ("keys.json", "messages.json", "dice.json", "shares.json", "game.json")


def key(seat: int) -> Identity:
    """Seat ``seat``'s identity: Ed25519 seed 0x10+seat repeated, X25519 key 0x40+seat."""
    return Identity(bytes([0x10 + seat]) * 32, bytes([0x40 + seat]) * 32)


def secret(label: str, *n: int) -> bytes:
    """A fixed 32-byte secret: SHA-256 of its label and numbers."""
    return hashlib.sha256(f"dudo-p2p vectors: {label} {n}".encode()).digest()


def typed(value: object) -> object:
    """A wire value as JSON: bytes as {"hex": ...} so that bin and str stay apart."""
    if isinstance(value, bytes):
        return {"hex": value.hex()}
    if isinstance(value, list | tuple):
        return [typed(v) for v in value]
    if isinstance(value, dict):
        return {k: typed(v) for k, v in value.items()}
    return value


# ---- keys -------------------------------------------------------------------------------------


def keys() -> dict[str, object]:
    return {"about": "seat i: Ed25519 seed and X25519 private key (32 bytes each)",
            "seats": [{"seat": s, "ed25519_seed": (bytes([0x10 + s]) * 32).hex(),
                       "x25519_private": (bytes([0x40 + s]) * 32).hex(),
                       "ed25519_public": key(s).public_key.hex(),
                       "x25519_public": key(s).x25519_public.hex(),
                       "fingerprint": fingerprint(key(s).public_key)} for s in range(6)]}


# ---- one envelope per kind --------------------------------------------------------------------


def first_allowed(hint: object, constraints: tuple[object, ...] = ()) -> object:
    """The first value a field type allows (for a kind without a hand-made body)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Annotated:
        return first_allowed(args[0], constraints + tuple(hint.__metadata__))  # type: ignore[attr-defined]
    if origin is Union or origin is types.UnionType:
        return first_allowed(next(a for a in args if a is not type(None)), constraints)
    if origin is tuple:
        return () if args[-1] is Ellipsis else tuple(first_allowed(a) for a in args)
    if origin is dict:
        return {}
    size = next((c.n for c in constraints if isinstance(c, Size)), None)
    bounds = next((c for c in constraints if isinstance(c, Range)), None)
    if hint is bytes:
        return bytes(range(size or 4))
    if hint is str:
        return "x"[: next((c.n for c in constraints if isinstance(c, MaxLen)), 1)]
    if hint is bool:
        return False
    return bounds.lo if bounds else 0


def filled(cls: type) -> Message:
    hints = typing.get_type_hints(cls, include_extras=True)
    values = {f.name: first_allowed(hints[f.name])
              for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    return typing.cast(Message, cls(**values))


def examples() -> dict[str, tuple[int, bytes, int, int, Message]]:
    """(author seat, game id, round_no, seq, body) of each hand-made kind."""
    pubs = tuple(key(s).public_key for s in range(3))
    act = seal_envelope(key(1), GAME, EPOCH, 1, Act(PREV, "raise", 3, 5, ""))
    act2 = seal_envelope(key(1), GAME, EPOCH, 1, Act(PREV, "dudo", 0, 0, ""))
    genesis = Genesis("K7QXM", RuleSet().to_dict(), 60_000, pubs,
                      tuple(key(s).x25519_public for s in range(3)), ("Ana", "Bo", "Cy"),
                      ("", "192.168.1.20", "192.168.1.21"), (40000, 40001, 40002),
                      prev=PREV)  # one more game: it follows the game that ended on PREV
    genesis_env = seal_envelope(key(0), GAME, 0, 0, genesis)
    return {
        "hello": (1, LOBBY, 0, 0, Hello("K7QXM", "Bo", key(1).x25519_public, "", 40001)),
        "welcome": (0, LOBBY, 0, 0, Welcome("K7QXM", GAME, ("Ana", "Bo"), pubs[:2], 3, 40000,
                                            RuleSet().to_dict(), 60_000)),
        "refused": (0, LOBBY, 0, 0, Refusal("K7QXM", key(2).public_key, "full")),
        "leave": (1, LOBBY, 0, 0, Leave("K7QXM", GAME)),
        "genesis": (0, GAME, 0, 0, genesis),
        "genesis-sign": (1, GAME, 0, 0, GenesisSign(genesis_env.digest())),
        "act": (1, GAME, EPOCH, 1, act.body),
        "commit": (2, GAME, EPOCH, 0, Commit(PREV, commit("key", GAME, EPOCH, 2, secret("key", 2)),
                                             commit("nonce", GAME, EPOCH, 2, secret("nonce", 2)),
                                             (), ())),
        "nonce": (2, GAME, EPOCH, 0, Nonce(PREV, secret("nonce", 2))),
        "reveal": (2, GAME, EPOCH, 0, Reveal(PREV, secret("key", 2), ())),
        "result-sign": (2, GAME, EPOCH, 0, ResultSign(PREV)),
        "ack": (2, GAME, EPOCH, 1, Ack(act.to_bytes())),
        "vote": (2, GAME, EPOCH, 1, Vote(pubs[1], "equivocation")),
        "proof": (2, GAME, EPOCH, 0, Proof(act.to_bytes(), act2.to_bytes())),
        "heartbeat": (2, GAME, EPOCH, 0, Heartbeat(PREV, 17, 42, pubs[0], bytes(range(8)))),
        "sync-request": (2, GAME, EPOCH, 0, SyncRequest(12)),
        "sync-reply": (1, GAME, EPOCH, 0, SyncReply(12, (act.to_bytes(),), False)),
        "away": (1, GAME, EPOCH, 4, Away((2,), (25_000,))),
        "bye": (2, GAME, EPOCH, 0, Bye("quit")),
        "talk": (2, GAME, EPOCH, 3, Talk(5)),
        "again": (0, GAME, 0, 0, Again(PREV, True, True, "K7QXM", 40007)),
    }


def envelope_vector(env: Envelope, seat: int) -> dict[str, object]:
    return {"kind": env.kind, "author_seat": seat, "game_id": env.game_id.hex(),
            "round_no": env.round_no, "seq": env.seq, "body": typed(to_wire(env.body)),
            "signed_bytes": env.signed_bytes.hex(), "signature": env.signature.hex(),
            "frame": env.to_bytes().hex(), "entry_digest": env.digest().hex()}


def messages() -> dict[str, object]:
    made = examples()
    out = []
    for kind, cls in sorted(code_kinds().items()):
        seat, game, round_no, seq, body = made.get(kind, (1, GAME, EPOCH, 0, filled(cls)))
        out.append(envelope_vector(seal_envelope(key(seat), game, round_no, seq, body), seat))
    return {"about": "one signed envelope per kind; keys.json has the keys; bytes as hex, "
                     "body values typed ({\"hex\": ...} = bin)", "messages": out}


# ---- dice ---------------------------------------------------------------------------------------


def dice() -> dict[str, object]:
    seats = (0, 1, 2)
    counts = (5, 3, 1)
    commits = []
    for s in seats:
        body = Commit(PREV, commit("key", GAME, EPOCH, s, secret("key", s)),
                      commit("nonce", GAME, EPOCH, s, secret("nonce", s)), (), ())
        commits.append(seal_envelope(key(s), GAME, EPOCH, 0, body))
    c = [env.digest() for env in commits]
    nonces = [secret("nonce", s) for s in seats]
    seed = round_seed(GAME, EPOCH, c, nonces)
    keys_ = [secret("key", s) for s in seats]
    spin_seed = reveal_seed(seed, keys_)
    return {
        "about": "epoch 3 of game 00..0f, seats 0-2: commit frames, round seed, dice",
        "game_id": GAME.hex(), "round_no": EPOCH,
        "seats": [{"seat": s, "dice_key": keys_[s].hex(), "nonce": nonces[s].hex(),
                   "key_c": commit("key", GAME, EPOCH, s, keys_[s]).hex(),
                   "nonce_c": commit("nonce", GAME, EPOCH, s, nonces[s]).hex(),
                   "commit_frame": commits[s].to_bytes().hex(), "commit_digest": c[s].hex(),
                   "dice_count": counts[s],
                   "dice": list(derive_dice(keys_[s], GAME, EPOCH, s, seed, counts[s]))}
                  for s in seats],
        "round_seed": seed.hex(),
        "opener_draw": {f"opener/{a}": [public_draw(seed, f"opener/{a}", s, 6) for s in seats]
                        for a in (0, 1)},
        "reveal_seed": spin_seed.hex(),
        "spin": public_draw(spin_seed, "spin", 0, 6),
    }


# ---- palifico shares ----------------------------------------------------------------------------


def open_round(n: int, live: tuple[int, ...]) -> dict[str, object]:
    """Every live seat's commit and reveal bodies in an open palifico round, as the code
    makes them (EpochSecrets), and each live seat's open key and die."""
    seating = SimpleNamespace(game_id=GAME, n=n, x25519s=[key(s).x25519_public for s in range(n)])
    replica = typing.cast(Any, SimpleNamespace(
        seating=seating, head=PREV, epoch=SimpleNamespace(participants=live),
        deals_keys=lambda: False))
    dealt: dict[int, dict[int, bytes]] = {}
    seats = []
    for d in live:
        shares = {j: secret("share", d, j) for j in live if j != d}
        dealt[d] = shares
        mine = EpochSecrets(EPOCH, secret("key", d), secret("nonce", d), shares)
        body = mine.commit_body(replica, d, key(d))
        reveal = mine.reveal_body(replica)
        seats.append({"seat": d, "shares_dealt": {str(j): v.hex() for j, v in shares.items()},
                      "commit_body": typed(to_wire(body)), "reveal_body": typed(to_wire(reveal))})
    seed = secret("round seed")
    keys_ = {j: open_palifico_key(GAME, EPOCH, j, [dealt[d][j] for d in live if d != j])
             for j in live}
    return {"seats_in_genesis": n, "live": list(live), "round_seed": seed.hex(),
            "dealers": seats,
            "open_keys": {str(j): k.hex() for j, k in keys_.items()},
            "dice": {str(j): list(derive_dice(k, GAME, EPOCH, j, seed, 1))
                     for j, k in keys_.items()}}


def dealt_round(n: int, live: tuple[int, ...]) -> dict[str, object]:
    """A normal round that deals its dice keys (§3.7): each live seat's key (a scalar),
    Feldman commitments and boxes as on the wire, every share, the key rebuilt from the
    first t shares, and seat 1's proof of its X25519 value with dealer 0."""
    seating = SimpleNamespace(game_id=GAME, n=n, x25519s=[key(s).x25519_public for s in range(n)])
    t = vss.threshold(len(live) - 1)
    replica = typing.cast(Any, SimpleNamespace(
        seating=seating, head=PREV, epoch=SimpleNamespace(participants=live, number=EPOCH),
        key_threshold=lambda: t))
    seats = []
    for d in live:
        x = vss.secret_key(secret("dealt key", d) + secret("dealt key", d, 1))
        cs, boxes = deal_fields(replica, d, x, key(d))
        coefs = vss.coefficients(GAME, EPOCH, d, x, t)
        got = {j: vss.share_for(coefs, j) for j in live if j != d}
        seats.append({"seat": d, "dice_key": x.hex(), "vss_cs": [c.hex() for c in cs],
                      "vss_boxes": boxes.hex(),
                      "shares": {str(j): v.hex() for j, v in got.items()},
                      "rebuilt_from": sorted(got)[:t],
                      "rebuilt": vss.recover(got, t).hex()})
    context = vss.vss_context(GAME, EPOCH, 0, 1)
    shared, proof = key(1).prove_exchange(key(0).x25519_public, context)
    return {"live": list(live), "t": t, "seats": seats,
            "exchange_proof": {"prover": 1, "dealer": 0, "context": context.hex(),
                               "x25519_value": shared.hex(), "proof": proof.hex()}}


def shares() -> dict[str, object]:
    live = (0, 1, 3)
    seed = secret("round seed")
    round_keys = [secret("key", s) for s in live]
    owner = 1
    closed = {}
    for s in live:
        k = (secret("key", s) if s == owner
             else closed_palifico_key(GAME, EPOCH, s, round_keys))
        count = 1 if s == owner else 3
        closed[str(s)] = {"dice_key": k.hex(),
                          "dice": list(derive_dice(k, GAME, EPOCH, s, seed, count))}
    return {
        "about": "open palifico: commit/reveal bodies as on the wire (share_cs, sealed, "
                 "shares: one item per seat of the genesis); closed palifico: blind keys",
        "game_id": GAME.hex(), "round_no": EPOCH,
        "open_4_of_4": open_round(4, (0, 1, 2, 3)),
        "open_3_of_4": open_round(4, (0, 1, 3)),
        "dealt_3_of_4": dealt_round(4, live),
        "closed_3_of_4": {"live": list(live), "owner": owner, "round_seed": seed.hex(),
                          "round_keys": {str(s): secret("key", s).hex() for s in live},
                          "seats": closed},
    }


# ---- a whole game -------------------------------------------------------------------------------


def play_two(seed: int) -> tuple[list[Identity], bytes, list[bytes], TableMachine]:
    """A whole 2-player game (3 dice each) on a lossless FIFO network with a fixed clock:
    whenever nothing is in flight, the seat that may act plays a random legal action from
    ``random.Random(seed)``. The game depends on the protocol only (not on how many frames
    travel, nor on timing: no timer fires), so it changes exactly when the wire does."""
    rng = random.Random(seed)
    ids = [Identity(secret("identity ed25519", s), secret("identity x25519", s)) for s in (0, 1)]
    players = [Candidate(i.public_key, i.x25519_public, f"p{s}", "", 40000 + s)
               for s, i in enumerate(ids)]
    genesis = propose(ids[0], GAME, "K7QXM", RuleSet(starting_dice=3), 0, players)
    signatures = [sign(i, genesis).to_bytes() for i in ids]
    seating = seating_from(genesis.to_bytes(), signatures)
    secrets = [random.Random(seed * 10 + s) for s in (0, 1)]
    now = 0.0
    machines = [TableMachine(i, seating, secrets[s].randbytes, now) for s, i in enumerate(ids)]
    queue: deque[tuple[int, bytes]] = deque()

    def carry_out(seat: int, effects: list[Effect]) -> None:
        queue.extend((1 - seat, e.frame) for e in effects if isinstance(e, Send))

    for s, m in enumerate(machines):
        carry_out(s, m.start(now))
    while not all(m.over for m in machines):
        if queue:
            dst, frame = queue.popleft()
            carry_out(dst, machines[dst].receive(frame, now))
            continue
        actors = [s for s, m in enumerate(machines) if m.legal_actions()]
        if actors:
            m = machines[actors[0]]
            carry_out(actors[0], m.submit(rng.choice(m.legal_actions()), now))
            continue
        now += 0.01  # nothing in flight, nobody to act: let the timers run
        assert now < 60, "the vector game did not end"
        for s, m in enumerate(machines):
            carry_out(s, m.tick(now))
    return ids, genesis.to_bytes(), signatures, machines[0]


def game() -> dict[str, object]:
    ids, genesis, signatures, machine = play_two(2026)
    record = machine.record(genesis, signatures)
    doc = decode(record)
    assert isinstance(doc, dict)
    return {
        "about": "a whole 2-player game (3 dice each): its record, as `dudo-p2p verify` reads "
                 "it, and the final log hash; identities as Ed25519 seed || X25519 key",
        "identities": [i.to_bytes()[5:69].hex() for i in ids],
        "genesis": genesis.hex(),
        "signatures": [s.hex() for s in signatures],
        "items": typed(doc["items"]),
        "record": record.hex(),
        "log_hash": machine.replica.head.hex(),
        "winner": machine.replica.engine.winner,
        "rounds": len(machine.replica.engine.results),
    }


def build() -> dict[str, str]:
    """Every vector file's text, by file name."""
    made = {"keys.json": keys(), "messages.json": messages(), "dice.json": dice(),
            "shares.json": shares(), "game.json": game()}
    return {name: json.dumps(doc, indent=1, sort_keys=True) + "\n" for name, doc in made.items()}


def main() -> int:
    for name, text in build().items():
        (HERE / name).write_text(text, encoding="utf-8")
        print(f"wrote tests/vectors/{name} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
