"""Dealing the dice keys of a round, and catching a bad deal (protocol.md §3.7).

The consensus side of :mod:`dudo_p2p.crypto.vss`. In a normal round of three or more live
seats (:func:`dealt`), every seat's ``commit`` carries the Feldman commitments of its dice
key and one box per other live seat holding that seat's share (:func:`deal_fields`). A
seat that receives a commit opens its own box and checks the share at once
(:func:`received_share`), before the round seed exists. When it does not check, the
recipient proves the pair's X25519 value (:func:`bad_deal_evidence`) and anyone can open
the box and see the dealer's own signed commit deal a bad share (:func:`proves_bad_deal`):
the dealer is caught then, the round is voided before any die exists, and it cannot later
withhold its reveal behind shares nobody can use.

Pure: no I/O, no clock; secrets come in as arguments.
"""

from __future__ import annotations

from dudo_p2p.consensus.replica import SEALED_SHARE_SIZE, Replica, Seating
from dudo_p2p.crypto import exchange_proof, vss
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.crypto.shares import open_sealed, open_with_shared, seal
from dudo_p2p.errors import DecryptError, InvalidValue
from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.protocol.kinds import BadDeal, Commit


def dealt(rep: Replica) -> bool:
    """Whether the current epoch's dice keys are dealt: a normal round (no palifico) after
    the opener draw, with three or more live seats."""
    mode, _ = rep.palifico_mode()
    ep = rep.epoch
    return mode == "normal" and ep.number > 0 and vss.dealt_at(len(ep.participants))


def threshold(rep: Replica) -> int:
    """How many shares rebuild a dice key of the current epoch."""
    return vss.threshold(len(rep.epoch.participants) - 1)


def recipients(rep: Replica, dealer: int) -> list[int]:
    """The seats ``dealer`` deals a share to, in the order of its boxes."""
    return [s for s in rep.epoch.participants if s != dealer]


def deal_fields(
    rep: Replica, me: int, key: bytes, identity: Identity
) -> tuple[tuple[bytes, ...], bytes]:
    """(Feldman commitments, boxes) of our ``commit`` for the dice key ``key``."""
    game, number = rep.seating.game_id, rep.epoch.number
    coefs = vss.coefficients(game, number, me, key, threshold(rep))
    boxes = [
        seal(identity, rep.seating.x25519s[r], vss.vss_context(game, number, me, r),
             vss.share_for(coefs, r))
        for r in recipients(rep, me)
    ]
    return vss.commitments(coefs), b"".join(boxes)


def _box(rep: Replica, dealer: int, recipient: int, body: Commit) -> bytes:
    i = recipients(rep, dealer).index(recipient)
    return body.vss_boxes[i * SEALED_SHARE_SIZE : (i + 1) * SEALED_SHARE_SIZE]


def _checked(body: Commit, recipient: int, share: bytes) -> bool:
    return vss.share_ok(body.vss_cs, recipient, share)


def received_share(
    rep: Replica, me: int, dealer: int, body: Commit, identity: Identity
) -> bytes | None:
    """Our share of ``dealer``'s dice key from its commit (of the current epoch, whose shape
    the replica checked), or None when the box does not open or the share does not check
    against the dealer's commitments (a bad deal)."""
    context = vss.vss_context(rep.seating.game_id, rep.epoch.number, dealer, me)
    try:
        share = open_sealed(identity, rep.seating.x25519s[dealer], context,
                            _box(rep, dealer, me, body))
    except DecryptError:
        return None
    return share if _checked(body, me, share) else None


def bad_deal_evidence(
    rep: Replica, me: int, dealer: int, commit: Envelope, identity: Identity
) -> BadDeal:
    """The ``bad-deal`` body against ``dealer``: its signed ``commit`` and the proof of our
    X25519 value with it (all zero when the dealer's own X25519 key is not a usable point:
    that is the proof, see :func:`proves_bad_deal`)."""
    context = vss.vss_context(rep.seating.game_id, commit.round_no, dealer, me)
    try:
        _, proof = identity.prove_exchange(rep.seating.x25519s[dealer], context)
    except InvalidValue:
        proof = bytes(exchange_proof.PROOF_SIZE)
    return BadDeal(commit.to_bytes(), proof)


def proves_bad_deal(rep: Replica, complainer: int, commit: Envelope, proof: bytes) -> bool:
    """True when ``commit`` (checked by the caller: authenticated, a commit of the current
    epoch by a participant) deals ``complainer`` a share that does not check, shown by the
    proof of their X25519 value: the box does not open with it, or opens to a bad share.
    False for a proof that does not check or a share that does (a false complaint)."""
    seating: Seating = rep.seating
    dealer = seating.seat_of(commit.author)
    body = commit.body
    if dealer is None or not isinstance(body, Commit) or complainer == dealer:
        return False
    if commit.round_no != rep.epoch.number or complainer not in recipients(rep, dealer):
        return False
    if not exchange_proof.usable(seating.x25519s[dealer]):
        return True  # the dealer's own key (signed in the genesis) can share with nobody
    context = vss.vss_context(seating.game_id, commit.round_no, dealer, complainer)
    shared = exchange_proof.check(seating.x25519s[complainer], seating.x25519s[dealer],
                                  proof, context)
    if shared is None:
        return False
    try:
        share = open_with_shared(shared, seating.x25519s[dealer], seating.x25519s[complainer],
                                 context, _box(rep, dealer, complainer, body))
    except DecryptError:
        return True
    return not _checked(body, complainer, share)
