"""One seat's secrets for one epoch: its dice key, its nonce, the palifico shares it deals and
the shares dealt to it; and what dice those secrets let the seat see.

Pure: randomness comes in as bytes from the caller (the node's CSPRNG). The record form
(:meth:`EpochSecrets.to_record`) is what the journal stores *before* the commitment leaves
the machine, so a peer restarted after a crash re-sends the very same commitment instead of
signing a second, different one (which would be equivocation).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from dudo_p2p.consensus.dealing import deal_fields
from dudo_p2p.consensus.replica import SEALED_SHARE_SIZE, Replica
from dudo_p2p.crypto.dice import commit, derive_dice
from dudo_p2p.crypto.edwards import scalar_bytes
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.crypto.shares import open_palifico_key, open_sealed, seal, share_context
from dudo_p2p.errors import DecodeError, DecryptError
from dudo_p2p.protocol.kinds import Commit, Reveal

RandomBytes = Callable[[int], bytes]


@dataclass
class EpochSecrets:
    """What one seat chose for one epoch (``shares[j]``: its share for seat j's dice key)."""

    epoch: int
    key: bytes
    nonce: bytes
    shares: dict[int, bytes] = field(default_factory=dict)
    # shares other seats dealt to us, by subject then dealer (open palifico)
    received: dict[int, dict[int, bytes]] = field(default_factory=dict)

    @classmethod
    def draw(cls, epoch: int, replica: Replica, me: int, rng: RandomBytes) -> EpochSecrets:
        """Fresh secrets for ``epoch``; shares only in an open palifico round."""
        key = rng(32)
        if replica.deals_keys():
            # a dealt key is a scalar (§3.7): the same 32 random bytes, reduced mod L
            key = scalar_bytes(int.from_bytes(key, "little"))
        secrets = cls(epoch=epoch, key=key, nonce=rng(32))
        mode, _ = replica.palifico_mode()
        if mode == "open" and epoch > 0:
            for subject in replica.epoch.participants:
                if subject != me:
                    secrets.shares[subject] = rng(32)
        return secrets

    def to_record(self) -> list[object]:
        return [self.epoch, self.key, self.nonce, sorted(self.shares.items())]

    @classmethod
    def from_record(cls, record: list[object]) -> EpochSecrets:
        epoch, key, nonce, shares = record
        if not isinstance(epoch, int) or not isinstance(key, bytes) or not isinstance(nonce, bytes):
            raise DecodeError("bad secrets record")
        dealt: dict[int, bytes] = {}
        for item in shares if isinstance(shares, list) else []:
            subject, share = item
            dealt[int(subject)] = bytes(share)
        return cls(epoch=epoch, key=key, nonce=nonce, shares=dealt)

    # ---- the entries these secrets make ---------------------------------------------------

    def commit_body(self, replica: Replica, me: int, identity: Identity) -> Commit:
        """Our ``commit`` for the epoch, with shares sealed to every seat but their subject."""
        game, n = replica.seating.game_id, replica.seating.n
        key_c = commit("key", game, self.epoch, me, self.key)
        nonce_c = commit("nonce", game, self.epoch, me, self.nonce)
        vss_cs: tuple[bytes, ...] = ()
        dealt = b""
        if replica.deals_keys():
            vss_cs, dealt = deal_fields(replica, me, self.key, identity)
        if not self.shares:
            return Commit(replica.head, key_c, nonce_c, (), (), vss_cs, dealt)
        share_cs: list[bytes] = []
        sealed: list[bytes] = []
        parts = replica.epoch.participants
        for subject in range(n):
            share = self.shares.get(subject)
            if share is None:
                share_cs.append(b"")
                sealed.append(b"")
                continue
            share_cs.append(commit("share", game, self.epoch, me, share, subject=subject))
            boxes = [
                seal(
                    identity,
                    replica.seating.x25519s[r],
                    share_context(game, self.epoch, me, r, subject),
                    share,
                )
                for r in parts
                if r not in (subject, me)
            ]
            sealed.append(b"".join(boxes))
        return Commit(replica.head, key_c, nonce_c, tuple(share_cs), tuple(sealed), vss_cs, dealt)

    def reveal_body(self, replica: Replica) -> Reveal:
        """Our ``reveal``: the key, and in open palifico every share we dealt."""
        shares: tuple[bytes, ...] = ()
        if self.shares:
            shares = tuple(self.shares.get(s, b"") for s in range(replica.seating.n))
        return Reveal(replica.head, self.key, shares)

    # ---- what we may see ------------------------------------------------------------------

    def take_sealed(
        self, replica: Replica, me: int, dealer: int, body: Commit, identity: Identity
    ) -> None:
        """Open the shares ``dealer`` sealed for us. Raises DecryptError when one does not
        open (the dealer cheated; the reveal will prove which share was wrong)."""
        game, parts = replica.seating.game_id, replica.epoch.participants
        for subject, blob in enumerate(body.sealed):
            if not blob or subject == me:
                continue
            recipients = [r for r in parts if r not in (subject, dealer)]
            if me not in recipients:
                continue
            i = recipients.index(me)
            box = blob[i * SEALED_SHARE_SIZE : (i + 1) * SEALED_SHARE_SIZE]
            share = open_sealed(
                identity,
                replica.seating.x25519s[dealer],
                share_context(game, self.epoch, dealer, me, subject),
                box,
            )
            if len(share) != 32:
                raise DecryptError("a share is 32 bytes")
            self.received.setdefault(subject, {})[dealer] = share

    def visible_dice(
        self, replica: Replica, me: int
    ) -> tuple[tuple[int, ...] | None, dict[int, tuple[int, ...]]]:
        """(our own dice or None, other seats' dice we may see) once the round seed exists."""
        seed = replica.epoch.seed
        if seed is None or self.epoch != replica.epoch.number:
            return None, {}
        game, counts = replica.seating.game_id, replica.engine.dice_counts
        mode, owner = replica.palifico_mode()
        if mode == "closed" and me != owner:
            return None, {}
        if mode != "open":
            return derive_dice(self.key, game, self.epoch, me, seed, counts[me]), {}
        others: dict[int, tuple[int, ...]] = {}
        for subject in replica.epoch.participants:
            if subject == me:
                continue
            dealt = dict(self.received.get(subject, {}))
            dealt[me] = self.shares[subject]
            dealers = [j for j in replica.epoch.participants if j != subject]
            if all(j in dealt for j in dealers):
                key = open_palifico_key(game, self.epoch, subject, [dealt[j] for j in dealers])
                others[subject] = derive_dice(key, game, self.epoch, subject, seed, counts[subject])
        return None, others
