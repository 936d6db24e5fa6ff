"""The checks of a concurrent entry's content against the commitments it opens (protocol.md
§3, §3.7): a commit's shape, a nonce, a reveal, a key share. Each raises (DecodeError for a
malformed entry, CommitmentMismatch for one that does not open what its author committed to)
and changes nothing; :meth:`~dudo_p2p.consensus.replica.Replica.check_concurrent` calls them
after the entry's position and phase are checked. Pure: no I/O, no clock.
"""

from __future__ import annotations

from dudo_p2p.consensus.chain import SEALED_SHARE_SIZE, EpochLog
from dudo_p2p.crypto.dice import check_commitment
from dudo_p2p.crypto.vss import key_ok, share_ok
from dudo_p2p.errors import CommitmentMismatch, DecodeError
from dudo_p2p.protocol.kinds import Commit, KeyShare, Nonce, Reveal


def check_nonce(rep: EpochLog, seat: int, body: Nonce) -> None:
    """A nonce opens its author's nonce commitment (CommitmentMismatch otherwise)."""
    commit = rep.epoch.commits[seat]
    if not check_commitment(
        "nonce", rep.seating.game_id, rep.epoch.number, seat, body.nonce, commit.nonce_c,
    ):
        raise CommitmentMismatch(f"seat {seat}'s nonce does not open its commitment")


def check_commit_shape(rep: EpochLog, seat: int, body: Commit) -> None:
    """A commit of the current epoch has the shape its round asks for: a dealt dice key
    (§3.7) exactly when the round deals keys, palifico shares exactly in an open palifico
    round, one slot per seat (DecodeError otherwise)."""
    if rep.deals_keys():
        boxes = SEALED_SHARE_SIZE * (len(rep.epoch.participants) - 1)
        if len(body.vss_cs) != rep.key_threshold() or len(body.vss_boxes) != boxes:
            raise DecodeError(f"a commit of this round deals its key in "
                              f"{rep.key_threshold()} commitments and {boxes} bytes")
    elif body.vss_cs or body.vss_boxes:
        raise DecodeError("a dice key is dealt only in a normal round of three seats or more")
    mode, _ = rep.palifico_mode()
    if mode != "open" or rep.epoch.number == 0:
        if body.share_cs or body.sealed:
            raise DecodeError("shares are only dealt in an open palifico round")
        return
    n = rep.seating.n
    if len(body.share_cs) != n or len(body.sealed) != n:
        raise DecodeError(f"an open palifico commit deals {n} shares")
    parts = rep.epoch.participants
    for subject in range(n):
        dealt = subject in parts and subject != seat
        want_c = 32 if dealt else 0
        recipients = [r for r in parts if r not in (subject, seat)] if dealt else []
        if len(body.share_cs[subject]) != want_c:
            raise DecodeError(f"share commitment for seat {subject} has the wrong size")
        if len(body.sealed[subject]) != SEALED_SHARE_SIZE * len(recipients):
            raise DecodeError(f"sealed shares for seat {subject} have the wrong size")


def check_reveal(rep: EpochLog, seat: int, body: Reveal) -> None:
    """A reveal opens its author's commitments: the key (and the key it dealt), and in open
    palifico every share it dealt (CommitmentMismatch or DecodeError otherwise)."""
    game, number = rep.seating.game_id, rep.epoch.number
    commit = rep.epoch.commits[seat]
    if not check_commitment("key", game, number, seat, body.key, commit.key_c):
        raise CommitmentMismatch(f"seat {seat}'s revealed key does not open its commitment")
    if commit.vss_cs and not key_ok(commit.vss_cs[0], body.key):
        # the key its shares rebuild must be the key it reveals: else withholding
        # would pick between two hands
        raise CommitmentMismatch(f"seat {seat}'s revealed key is not the key it dealt")
    mode, _ = rep.palifico_mode()
    if mode != "open":
        if body.shares:
            raise DecodeError("shares are only revealed in an open palifico round")
        return
    if len(body.shares) != rep.seating.n:
        raise DecodeError("an open palifico reveal carries one share slot per seat")
    for subject, share in enumerate(body.shares):
        expected = commit.share_cs[subject]
        if not expected:
            if share:
                raise DecodeError(f"seat {seat} revealed a share it never dealt")
            continue
        if not check_commitment(
            "share", game, number, seat, share, expected, subject=subject
        ):
            raise CommitmentMismatch(
                f"seat {seat}'s share for seat {subject} does not open its commitment"
            )


def check_key_share(rep: EpochLog, seat: int, body: KeyShare) -> None:
    """A key share names every seat withheld, in seat order, and each share checks
    against that seat's commitments (the author checked its boxes at COMMIT: a share that
    does not check now is its own fault)."""
    ep = rep.epoch
    if body.seats != tuple(sorted(ep.withheld)) or len(body.shares) != len(body.seats):
        raise DecodeError(f"the keys of seats {sorted(ep.withheld)} are being recovered")
    for hidden, share in zip(body.seats, body.shares, strict=True):
        if not share_ok(ep.commits[hidden].vss_cs, seat, share):
            raise CommitmentMismatch(
                f"seat {seat}'s share of seat {hidden}'s key does not check"
            )
