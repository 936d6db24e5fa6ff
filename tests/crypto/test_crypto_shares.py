"""Palifico open/closed: sealing works only for its addressee, and a blind seat cannot know
its own dice before the reveal, however it combines what it legitimately holds."""

from __future__ import annotations

import pytest
from crypto_fixtures import GAME, identities, secret, spec_encode

from dudo_p2p.crypto import (
    SEALED_SHARE_SIZE,
    check_commitment,
    closed_palifico_key,
    commit,
    derive_dice,
    open_palifico_key,
    open_sealed,
    round_seed,
    seal,
    share_context,
)
from dudo_p2p.errors import DecodeError, DecryptError, InvalidValue, RemoteProtocolError

ROUND = 7
SEATS = 4


# ---- sealing -------------------------------------------------------------------------------


def test_sealed_data_opens_for_its_recipient_and_is_deterministic() -> None:
    alice, bob, _ = identities(3)
    context = share_context(GAME, ROUND, 0, 1, 2)
    sealed = seal(alice, bob.x25519_public, context, secret("share"))
    assert len(sealed) == SEALED_SHARE_SIZE
    assert open_sealed(bob, alice.x25519_public, context, sealed) == secret("share")
    assert seal(alice, bob.x25519_public, context, secret("share")) == sealed
    assert secret("share") not in sealed


def test_decrypt_error_is_a_decode_error_from_a_remote_peer() -> None:
    assert issubclass(DecryptError, DecodeError)
    assert issubclass(DecryptError, RemoteProtocolError)


def test_opening_fails_for_tampering_another_recipient_sender_or_context() -> None:
    alice, bob, carol = identities(3)
    context = share_context(GAME, ROUND, 0, 1, 2)
    sealed = seal(alice, bob.x25519_public, context, secret("share"))
    flipped = [sealed[:i] + bytes([sealed[i] ^ 1]) + sealed[i + 1 :] for i in (0, 20, 59)]
    attempts = [(bob, alice.x25519_public, context, bad) for bad in flipped] + [
        (bob, alice.x25519_public, context, sealed[:-1]),
        (bob, alice.x25519_public, context, b""),
        (carol, alice.x25519_public, context, sealed),  # not the addressee
        (bob, carol.x25519_public, context, sealed),  # wrong claimed sender
        (bob, alice.x25519_public, share_context(GAME, ROUND + 1, 0, 1, 2), sealed),
        (bob, alice.x25519_public, share_context(GAME, ROUND, 0, 1, 3), sealed),
    ]
    for recipient, sender_pub, ctx, data in attempts:
        with pytest.raises(DecryptError):
            open_sealed(recipient, sender_pub, ctx, data)


def test_unusable_peer_keys_are_refused_not_used() -> None:
    alice, bob = identities(2)
    context = share_context(GAME, ROUND, 0, 1, 2)
    for bad_key in (b"\x00" * 32, b"\x01" + b"\x00" * 31, b"short"):  # low order, wrong size
        with pytest.raises(DecryptError):
            seal(alice, bad_key, context, secret("s"))
        with pytest.raises(DecryptError):
            open_sealed(bob, bad_key, context, b"\x00" * SEALED_SHARE_SIZE)


def test_a_share_context_names_three_different_seats() -> None:
    for sender, recipient, subject in ((0, 0, 1), (0, 1, 1), (1, 0, 1)):
        with pytest.raises(InvalidValue):
            share_context(GAME, ROUND, sender, recipient, subject)


# ---- open palifico -------------------------------------------------------------------------


class OpenRound:
    """A 4-seat open palifico round played out honestly, with what each seat holds."""

    def __init__(self) -> None:
        self.ids = identities(SEATS)
        self.shares = {
            (j, i): secret(f"share {j}->{i}") for j in range(SEATS) for i in range(SEATS) if i != j
        }
        self.share_commitments = {
            (j, i): commit("share", GAME, ROUND, j, s, subject=i)
            for (j, i), s in self.shares.items()
        }
        # Sealed s_{j,i} to every t outside {i, j}: public, in j's signed COMMIT entry.
        self.sealed = {
            (j, t, i): seal(
                self.ids[j], self.ids[t].x25519_public, share_context(GAME, ROUND, j, t, i), s
            )
            for (j, i), s in self.shares.items()
            for t in range(SEATS)
            if t not in (i, j)
        }
        self.keys = [secret(f"round key {seat}") for seat in range(SEATS)]
        self.nonces = [secret(f"nonce {seat}") for seat in range(SEATS)]
        commitments = [commit("key", GAME, ROUND, s, self.keys[s]) for s in range(SEATS)]
        commitments += [self.share_commitments[k] for k in sorted(self.share_commitments)]
        self.seed = round_seed(GAME, ROUND, commitments, self.nonces)
        self.public = [*commitments, *self.nonces, self.seed, *self.sealed.values()]

    def true_key(self, subject: int) -> bytes:
        shares = [self.shares[(j, subject)] for j in range(SEATS) if j != subject]
        return open_palifico_key(GAME, ROUND, subject, shares)

    def key_seen_by(self, viewer: int, subject: int) -> bytes:
        """What ``viewer`` computes for ``subject``'s key from its own share and the sealed
        shares addressed to it, checking each against its public commitment."""
        shares = []
        for j in range(SEATS):
            if j == subject:
                continue
            if j == viewer:
                share = self.shares[(viewer, subject)]
            else:
                context = share_context(GAME, ROUND, j, viewer, subject)
                sealed = self.sealed[(j, viewer, subject)]
                share = open_sealed(self.ids[viewer], self.ids[j].x25519_public, context, sealed)
            assert check_commitment(
                "share",
                GAME,
                ROUND,
                j,
                share,
                self.share_commitments[(j, subject)],
                subject=subject,
            )
            shares.append(share)
        return open_palifico_key(GAME, ROUND, subject, shares)

    def material_of(self, seat: int) -> list[bytes]:
        """Everything ``seat`` legitimately holds or can sniff before the reveal."""
        own_shares = [s for (j, _), s in self.shares.items() if j == seat]
        received = [
            open_sealed(
                self.ids[seat], self.ids[j].x25519_public, share_context(GAME, ROUND, j, t, i), c
            )
            for (j, t, i), c in self.sealed.items()
            if t == seat
        ]
        return [*self.public, *own_shares, *received, self.keys[seat], self.ids[seat].to_bytes()]


def test_open_palifico_every_other_seat_sees_the_same_dice_for_each_seat() -> None:
    game = OpenRound()
    for subject in range(SEATS):
        expected = derive_dice(game.true_key(subject), GAME, ROUND, subject, game.seed, 5)
        for viewer in range(SEATS):
            if viewer != subject:
                key = game.key_seen_by(viewer, subject)
                assert derive_dice(key, GAME, ROUND, subject, game.seed, 5) == expected


@pytest.mark.parametrize("owner", range(SEATS))
def test_open_palifico_the_owner_lacks_every_input_of_its_own_dice_key(owner: int) -> None:
    game = OpenRound()
    material = game.material_of(owner)
    missing = [game.shares[(j, owner)] for j in range(SEATS) if j != owner]
    for share in missing:
        # Neither held outright nor visible inside anything it holds.
        assert all(share not in item for item in material)
    # Every sealed share about the owner is addressed to someone else: it cannot open it,
    # whichever of the two ends it pretends to be.
    about_owner = {k: c for k, c in game.sealed.items() if k[2] == owner}
    assert len(about_owner) == (SEATS - 1) * (SEATS - 2)
    for (j, t, i), sealed in about_owner.items():
        context = share_context(GAME, ROUND, j, t, i)
        for claimed_sender in (game.ids[j].x25519_public, game.ids[t].x25519_public):
            with pytest.raises(DecryptError):
                open_sealed(game.ids[owner], claimed_sender, context, sealed)
    # Its best guess from what it holds is not its key.
    guess = open_palifico_key(GAME, ROUND, owner, [m[:32] for m in material[: SEATS - 1]])
    assert guess != game.true_key(owner)


def test_open_palifico_the_owner_learns_its_dice_once_the_shares_are_revealed() -> None:
    game = OpenRound()
    owner = 2
    revealed = [game.shares[(j, owner)] for j in range(SEATS) if j != owner]
    for j, share in zip([0, 1, 3], revealed, strict=True):
        assert check_commitment(
            "share", GAME, ROUND, j, share, game.share_commitments[(j, owner)], subject=owner
        )
    assert open_palifico_key(GAME, ROUND, owner, revealed) == game.key_seen_by(0, owner)


def test_open_palifico_key_binds_subject_and_order() -> None:
    shares = [secret("a"), secret("b")]
    key = open_palifico_key(GAME, ROUND, 0, shares)
    assert open_palifico_key(GAME, ROUND, 1, shares) != key
    assert open_palifico_key(GAME, ROUND, 0, shares[::-1]) != key
    with pytest.raises(InvalidValue):
        open_palifico_key(GAME, ROUND, 0, [])


# ---- closed palifico -----------------------------------------------------------------------


@pytest.mark.parametrize("viewer", range(SEATS))
def test_closed_palifico_no_seat_holds_the_inputs_of_a_blind_key(viewer: int) -> None:
    owner = 0  # the one-die seat; seats 1..3 play blind
    keys = [secret(f"round key {seat}") for seat in range(SEATS)]
    nonces = [secret(f"nonce {seat}") for seat in range(SEATS)]
    commitments = [commit("key", GAME, ROUND, s, keys[s]) for s in range(SEATS)]
    seed = round_seed(GAME, ROUND, commitments, nonces)
    material = [*commitments, *nonces, seed, keys[viewer]]
    others = [keys[s] for s in range(SEATS) if s != viewer]
    assert all(key not in item for key in others for item in material)
    for blind in range(1, SEATS):
        true_key = closed_palifico_key(GAME, ROUND, blind, keys)
        # The viewer's best try: its own key in its slot, its material elsewhere.
        guess = [keys[s] if s == viewer else material[s] for s in range(SEATS)]
        assert closed_palifico_key(GAME, ROUND, blind, guess) != true_key
    # The owner alone sees its die: its dice key is its own round key, not a blind key.
    assert keys[owner] not in {closed_palifico_key(GAME, ROUND, owner, keys)}


def test_closed_palifico_keys_agree_after_the_reveal_and_differ_per_seat() -> None:
    keys = [secret(f"round key {seat}") for seat in range(SEATS)]
    blind_keys = {closed_palifico_key(GAME, ROUND, seat, keys) for seat in range(1, SEATS)}
    assert len(blind_keys) == SEATS - 1
    assert closed_palifico_key(GAME, ROUND, 1, keys) == closed_palifico_key(
        GAME, ROUND, 1, list(keys)
    )
    with pytest.raises(InvalidValue):
        closed_palifico_key(GAME, ROUND, 1, keys[:1])


def test_a_box_matches_an_independent_implementation_of_the_spec() -> None:
    import hashlib
    import hmac

    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric.x25519 import (
        X25519PrivateKey,
        X25519PublicKey,
    )
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    sender, recipient = identities(2)
    sender_private = X25519PrivateKey.from_private_bytes(sender.to_bytes()[37:69])
    shared = sender_private.exchange(X25519PublicKey.from_public_bytes(recipient.x25519_public))
    context = spec_encode("dudo-p2p/1/share-context", GAME, ROUND, 0, 1, 2)
    assert share_context(GAME, ROUND, 0, 1, 2) == context
    info = spec_encode("dudo-p2p/1/seal", sender.x25519_public, recipient.x25519_public, context)
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(shared)
    plaintext = secret("share")
    mac = hmac.new(key, spec_encode("dudo-p2p/1/seal-nonce", plaintext), hashlib.sha256).digest()
    nonce = mac[:12]
    expected = nonce + ChaCha20Poly1305(key).encrypt(nonce, plaintext, context)
    assert seal(sender, recipient.x25519_public, context, plaintext) == expected
