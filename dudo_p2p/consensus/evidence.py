"""Evidence against a seat: what a seat signed that proves it cheated (protocol.md §4.5, §4.6).

Two kinds, each checkable by anyone with the seat's key and the genesis alone:

- **equivocation**: two different signed log entries by one author for one slot (epoch,
  kind, seq) (:func:`check_proof`);
- **bad opening**: the author's signed ``commit`` of an epoch and its signed ``nonce`` or
  ``reveal`` of the same epoch that does not open it (:func:`opening_fails`).

A removal that ends a two-seat game needs such evidence (or the removed seat's own vote:
its consent) in its certificate; the winner's vote alone is only a claim (§4.6).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations

from dudo_p2p.consensus.replica import Replica, Seating
from dudo_p2p.crypto.dice import check_commitment
from dudo_p2p.errors import RemoteProtocolError
from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.protocol.kinds import Commit, Nonce, Reveal

LOG_KINDS = frozenset({"act", "commit", "nonce", "reveal", "result-sign"})


def check_proof(a: Envelope, b: Envelope) -> None:
    """Two authenticated envelopes prove equivocation when one author signed two different
    log entries for one slot (epoch, kind, seq); RemoteProtocolError otherwise."""
    same_slot = (a.author, a.round_no, a.kind, a.seq) == (b.author, b.round_no, b.kind, b.seq)
    if not same_slot or a.digest() == b.digest() or a.kind not in LOG_KINDS:
        raise RemoteProtocolError("not a proof of equivocation")


def opening_fails(seating: Seating, commit: Envelope, opening: Envelope) -> bool:
    """True when ``opening`` (a nonce or reveal) and ``commit`` are one seat's signed entries
    of one epoch and the opening does not open the commitment (its nonce, key, or a share
    it reveals)."""
    seat = seating.seat_of(commit.author)
    body, c = opening.body, commit.body
    if seat is None or opening.author != commit.author or opening.round_no != commit.round_no:
        return False
    if not isinstance(c, Commit):
        return False
    game, epoch = seating.game_id, commit.round_no
    if isinstance(body, Nonce):
        return not check_commitment("nonce", game, epoch, seat, body.nonce, c.nonce_c)
    if not isinstance(body, Reveal):
        return False
    if not check_commitment("key", game, epoch, seat, body.key, c.key_c):
        return True
    for subject, share in enumerate(body.shares):
        expected = c.share_cs[subject] if subject < len(c.share_cs) else b""
        if share and (not expected or not check_commitment(
            "share", game, epoch, seat, share, expected, subject=subject
        )):
            return True
    return False


def proves_cheat(seating: Seating, target: int, envs: Sequence[Envelope]) -> bool:
    """True when two of ``envs`` signed by seat ``target`` prove it cheated (either kind)."""
    own = [e for e in envs if e.author == seating.pubs[target] and e.kind in LOG_KINDS]
    for a, b in combinations(own, 2):
        try:
            check_proof(a, b)
            return True
        except RemoteProtocolError:
            pass
        if opening_fails(seating, a, b) or opening_fails(seating, b, a):
            return True
    return False


def bad_opening(
    replica: Replica, seat: int, opening: Envelope, open_entry: Callable[[bytes], Envelope]
) -> tuple[bytes, bytes] | None:
    """The evidence pair (the seat's chained commit of the epoch, ``opening``) for a nonce or
    reveal that failed its commitment, or None when the commit is not in our chain."""
    pub = replica.seating.pubs[seat]
    for item in replica.chain[replica.epoch.anchor_index :]:
        if not item.data:
            continue
        env = open_entry(item.data)
        if env.author == pub and isinstance(env.body, Commit) and opening_fails(
            replica.seating, env, opening
        ):
            return item.data, opening.to_bytes()
    return None
