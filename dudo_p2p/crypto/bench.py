"""Micro-benchmark of the cryptography one round costs (``scripts/bench`` calls it).

A measurement tool, not protocol logic: it reads a clock, which the pure modules never do.
The clock is injected (default ``timeit.default_timer``, the perf counter) so the layer
rule "no time in crypto" stays checkable: the module imports no ``time`` itself.
"""

from __future__ import annotations

import timeit
from collections.abc import Callable

from dudo_p2p.crypto import vss
from dudo_p2p.crypto.dice import commit, derive_dice, round_seed
from dudo_p2p.crypto.identity import Identity, verify


def _deterministic_bytes(label: int) -> Callable[[int], bytes]:
    def source(n: int) -> bytes:
        return bytes((label * 31 + i) % 256 for i in range(n))

    return source


def round_cost(
    n_players: int = 6,
    repeats: int = 200,
    *,
    clock: Callable[[], float] = timeit.default_timer,
) -> dict[str, float]:
    """Mean microseconds of each crypto step of one round for ``n_players`` seats.

    Keys: "sign_us" (one Ed25519 signature of a 200-byte entry), "verify_us" (one
    verification), "commit_us" (one commitment), "derive_round_us" (the whole table's dice
    for one round: every key commitment, the seed, then 5 dice per seat), and
    "round_total_us", a per-peer estimate built from those: its own 2 commitments and 3
    signatures (COMMIT, NONCE, REVEAL entries), the verification of 3 entries per seat, 2
    commitment checks per seat, and the derivation; and "vss_us" (not in the total, which
    predates it): one seat's share of a dealt round's verifiable secret sharing (§3.7):
    dealing its key (coefficients, Feldman commitments, a share per other seat), checking
    the share each other seat dealt it and each other seat's revealed key (the sealing of
    the shares, X25519 and ChaCha20, is not in it). Raises ValueError on bad arguments.
    """
    if n_players < 2 or repeats < 1:
        raise ValueError("n_players >= 2 and repeats >= 1")
    identity = Identity.generate(_deterministic_bytes(1))
    entry = bytes(range(200))
    signature = identity.sign(entry)
    game_id = bytes(16)
    keys = [bytes([seat + 1]) * 32 for seat in range(n_players)]
    nonces = [bytes([seat + 101]) * 32 for seat in range(n_players)]

    def timed(step: Callable[[], object]) -> float:
        start = clock()
        for _ in range(repeats):
            step()
        return (clock() - start) / repeats * 1e6

    def derive_round() -> None:
        commitments = [commit("key", game_id, 1, s, keys[s]) for s in range(n_players)]
        seed = round_seed(game_id, 1, commitments, nonces)
        for seat in range(n_players):
            derive_dice(keys[seat], game_id, 1, seat, seed, 5)

    result = {
        "sign_us": timed(lambda: identity.sign(entry)),
        "verify_us": timed(lambda: verify(identity.public_key, entry, signature)),
        "commit_us": timed(lambda: commit("key", game_id, 1, 0, keys[0])),
        "derive_round_us": timed(derive_round),
    }
    result["vss_us"] = _vss_round(n_players, max(1, min(repeats, 20)), clock)
    result["round_total_us"] = (
        2 * result["commit_us"]
        + 3 * result["sign_us"]
        + 3 * n_players * result["verify_us"]
        + 2 * n_players * result["commit_us"]
        + result["derive_round_us"]
    )
    return result


def _vss_round(n_players: int, repeats: int, clock: Callable[[], float]) -> float:
    """Mean microseconds of one seat's VSS work in a round (see :func:`round_cost`); each
    repeat deals fresh keys (a point decoded in one round is not decoded in the next), and
    the other dealers' work is done before the clock starts."""
    game_id = bytes(16)
    t = vss.threshold(n_players - 1)
    total = 0.0
    for r in range(repeats):
        keys = [vss.secret_key(bytes((r * 131 + s * 7 + i) % 256 for i in range(64)))
                for s in range(n_players)]
        others = []
        for dealer in range(1, n_players):
            coefs = vss.coefficients(game_id, r, dealer, keys[dealer], t)
            others.append((vss.commitments(coefs), vss.share_for(coefs, 0)))
        start = clock()
        mine = vss.coefficients(game_id, r, 0, keys[0], t)
        vss.commitments(mine)
        for seat in range(1, n_players):
            vss.share_for(mine, seat)
        for (commitments, share), key in zip(others, keys[1:], strict=True):
            if not vss.share_ok(commitments, 0, share):
                raise AssertionError("a share dealt by the book does not check")
            if not vss.key_ok(commitments[0], key):
                raise AssertionError("a key dealt by the book does not check")
        total += clock() - start
    return total / repeats * 1e6
