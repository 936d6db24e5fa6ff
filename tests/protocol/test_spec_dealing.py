"""§3.7's dealing of a dice key, checked by the text's formulas on the commits and reveals of
a real FakeNet game (no vector covers it): t, the coefficients from `vss-coefficient`
hashes of the revealed key, `vss_cs` = a_k·B, and each box opening, under `vss-context`, to
the recipient's share f(j + 1)."""

from __future__ import annotations

from consensus.fakenet import FakeNet

from dudo_p2p.crypto import edwards
from dudo_p2p.crypto.hashing import TAG_PREFIX, encode_parts, tagged_hash
from dudo_p2p.crypto.shares import open_sealed
from dudo_p2p.protocol.envelope import Envelope, open_envelope
from dudo_p2p.protocol.kinds import Commit, Reveal
from dudo_p2p.rules import RuleSet

BOX = 60  # one sealed share: nonce 12, share 32, tag 16 (§3.6)


def entries(net: FakeNet) -> list[Envelope]:
    """Every entry seat 0 chained, opened."""
    return [open_envelope(item.data) for item in net.machines[0].replica.chain if item.data]


def test_a_dealt_commit_is_the_polynomial_of_its_revealed_key_as_section_3_7_writes_it() -> None:
    net = FakeNet(5, RuleSet(), seed=71)
    net.run_until(lambda: any(isinstance(e.body, Reveal) and e.round_no >= 1
                              for e in entries(net)))
    chained = entries(net)
    epoch = next(e.round_no for e in chained if isinstance(e.body, Reveal) and e.round_no >= 1)
    commits = {net.seating.pubs.index(e.author): e.body for e in chained
               if e.round_no == epoch and isinstance(e.body, Commit)}
    keys = {net.seating.pubs.index(e.author): e.body.key for e in chained
            if e.round_no == epoch and isinstance(e.body, Reveal)}
    live = sorted(commits)
    m = len(live)
    assert m >= 3 and set(keys) == set(live)  # a normal round of three or more deals
    t = (m - 1) // 2 + 1
    game = net.seating.game_id
    for dealer, body in commits.items():
        key = keys[dealer]
        x = int.from_bytes(key, "little")
        assert x < edwards.L  # a dealt key is a canonical scalar
        coefs = [x] + [
            int.from_bytes(b"".join(tagged_hash(f"{TAG_PREFIX}vss-coefficient", game, epoch,
                                                dealer, k, half, key) for half in (0, 1)),
                           "little") % edwards.L
            for k in range(1, t)]
        assert list(body.vss_cs) == [edwards.encode(edwards.mul_base(a)) for a in coefs]
        others = [j for j in live if j != dealer]
        assert len(body.vss_boxes) == BOX * (m - 1)
        for n, j in enumerate(others):
            context = encode_parts(f"{TAG_PREFIX}vss-context", game, epoch, dealer, j)
            share = open_sealed(net.ids[j], net.seating.x25519s[dealer], context,
                                body.vss_boxes[n * BOX:(n + 1) * BOX])
            f = sum(a * (j + 1) ** k for k, a in enumerate(coefs)) % edwards.L
            assert share == f.to_bytes(32, "little")
