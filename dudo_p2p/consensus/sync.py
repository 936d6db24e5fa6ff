"""Sync items (protocol.md §4.7): size-bounded chunks, removal items, when to ask or tell.

- :func:`sync_chunk` cuts the chain from ``have`` into one ``sync-reply`` of at most
  ``SYNC_CHUNK`` items and about ``SYNC_BUDGET`` bytes (frames are limited to 64 KiB); the
  requester asks for the next chunk at once while ``more`` is set.
- Removals travel as ``["removal", epoch, seat, reason, [vote envelope, ...]]`` items
  (:func:`item_bytes`, read back by :func:`removal_certificate`), so the votes that justify
  a removal always come with it, as in the game record; acts as ``["act", envelope, [ack
  envelope, ...]]`` (:mod:`~dudo_p2p.consensus.act_certs`), with the acks that made them
  final; concurrent entries as their envelope.
- :class:`SyncPacer` limits our asks to about one a heartbeat interval, picks where to ask
  from and whom (the seat ahead of us asked longest ago: a seat that never answers cannot
  keep us behind), remembers what we asked whom (a reply is taken only for one of our last
  two asks to its seat, :data:`ASKS_OPEN`), limits
  how many requests of one asker we answer (:data:`ANSWER_RATE`, :data:`ANSWER_BURST`),
  and how often we tell one peer about removals it may have missed.

Pure: the machine (:mod:`~dudo_p2p.consensus.catchup`) sends the replies and checks every
item it receives like a live entry.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from dudo_p2p.consensus.act_certs import agreed_bytes
from dudo_p2p.consensus.replica import ChainItem
from dudo_p2p.errors import DecodeError
from dudo_p2p.protocol.codec import decode, encode
from dudo_p2p.protocol.kinds import SYNC_CHUNK, SyncReply

SYNC_BUDGET = 48 * 1024  # bytes of items in one sync reply (frames are limited to 64 KiB)

# answers to one asker's sync-requests: a burst, then this many a second (a restarted peer
# fetches a long log in a few seconds; a flood of requests gets a trickle of replies)
ANSWER_BURST = 8
ANSWER_RATE = 4.0

# our asks to one seat that a reply may still answer: the last two. We ask about once a
# heartbeat interval, each time from another ``have`` (our length, then the anchor), and on a
# lossy link a reply can take longer than an interval (TCP retransmits): keeping only the
# latest ask made every such reply "unasked", its entries ignored, and with them the one sign
# that could withdraw a vote (lan_sweep --hard seed 56: both live seats ended "table gone")
ASKS_OPEN = 2

Certificates = dict[tuple[int, int], list[bytes]]
ActCertificates = dict[bytes, list[bytes]]  # a chained act's digest -> its acks


def removal_bytes(epoch: int, seat: int, reason: str, cert: Sequence[bytes]) -> bytes:
    """A removal with its certificate, as a sync item and as a journal record."""
    return encode(["removal", epoch, seat, reason, list(cert)])


def item_bytes(
    item: ChainItem, certificates: Certificates, acts: ActCertificates | None = None
) -> bytes:
    """A chain item as it travels: an entry's envelope, an act with its acks, or a removal
    with its votes. An act whose acks we do not hold (``acts`` None, or lost) travels bare:
    the receiver then treats it as a live candidate, never as an agreed act."""
    if item.removed_seat is None:
        acks = acts.get(item.digest) if acts is not None else None
        return item.data if acks is None else agreed_bytes(item.data, acks)
    cert = certificates.get((item.epoch, item.removed_seat), [])
    return removal_bytes(item.epoch, item.removed_seat, item.reason, cert)


def removal_certificate(data: bytes) -> Sequence[object] | None:
    """The votes of a removal item (unchecked: the caller opens each), or None when
    ``data`` is not a removal item (then it should be an entry's envelope)."""
    try:
        decoded = decode(data)
    except DecodeError:
        return None
    if isinstance(decoded, list) and len(decoded) == 5 and decoded[0] == "removal":
        cert = decoded[4]
        return cert if isinstance(cert, list) else []
    return None


def sync_chunk(
    chain: Sequence[ChainItem], have: int, certificates: Certificates,
    acts: ActCertificates | None = None,
) -> SyncReply | None:
    """Up to SYNC_CHUNK chain items from ``have``, cut so the frame stays well under the
    frame limit (at least one item); None when we hold nothing from ``have``."""
    items: list[bytes] = []
    size = 0
    end = have
    while end < len(chain) and len(items) < SYNC_CHUNK:
        data = item_bytes(chain[end], certificates, acts)
        if items and size + len(data) > SYNC_BUDGET:
            break
        items.append(data)
        size += len(data)
        end += 1
    if not items:
        return None
    return SyncReply(have, tuple(items), end < len(chain))


def removals_reply(chain: Sequence[ChainItem], certificates: Certificates) -> SyncReply:
    """Every removal of the chain (the last SYNC_CHUNK), in order, with their votes: the
    peer told may have missed earlier ones too (a lost vote), and each applies only at the
    epoch it belongs to."""
    removals = [i for i in chain if i.removed_seat is not None]
    items = tuple(item_bytes(i, certificates) for i in removals[-SYNC_CHUNK:])
    return SyncReply(0, items, False)


class SyncPacer:
    """How often we ask to catch up, from where, and how often we tell a peer our removals."""

    def __init__(self, heartbeat: float) -> None:
        self.heartbeat = heartbeat
        self.asked_at = -1e9
        self.asked_len: dict[int, int] = {}  # seat -> the `have` of our last ask to it
        self.told: dict[tuple[str, int], float] = {}  # (what, seat) -> not again before
        self.told_at: dict[int, float] = {}  # seat -> when we last sent it any news
        self.beat_at: dict[int, float] = {}  # seat -> when its last heartbeat reached us
        # seat -> the `have` of our last ASKS_OPEN requests to it not yet answered, oldest first
        self.asked: dict[int, list[int]] = {}
        self.asked_seat_at: dict[int, float] = {}  # seat -> when we last asked it
        self.answers: dict[int, tuple[float, float]] = {}  # asker -> (tokens, at)
        self.last_answer: dict[int, tuple[int, float]] = {}  # asker -> (have, at)
        self.refused = 0  # requests not answered (over an asker's rate)

    def may_ask(self, now: float) -> bool:
        """At most about once a heartbeat (the 0.9 lets every heartbeat ask: they are about
        one interval apart, and a lost reply must not cost two); True records the ask."""
        if now - self.asked_at < 0.9 * self.heartbeat:
            return False
        self.asked_at = now
        return True

    def have(self, seat: int, length: int, anchor_index: int) -> int:
        """Where to ask ``seat`` from: our length, or the epoch's anchor when our last ask to
        that seat from this same length brought nothing. Our chain may hold entries of an
        epoch the others voided by a removal we missed (we were down, or cut off); what
        follows our length in their chain then never fits, and only the removal item at the
        anchor unblocks us. Per seat: asks that alternate between two seats ahead (one of
        them gone) would otherwise ask the live one from the anchor every time, a reply of
        the whole epoch (5.8 KB in soak seed 5190's trace) instead of what we lack (~1 KB)."""
        have = length
        if have == self.asked_len.get(seat):
            have = anchor_index
        self.asked_len[seat] = have
        return have

    def pick(self, ahead: Iterable[int], now: float) -> int | None:
        """Whom to ask among the seats ``ahead`` of us: the one asked longest ago (never
        asked first, then the lowest seat), so every seat ahead is asked in turn and one
        that never answers, however fast its heartbeats, cannot keep us behind. Seats whose
        heartbeat reached us in the last two intervals first: a seat that went silent (a
        crash) still looks ahead by its last heartbeat until its removal, and asking it
        every other time would halve how often we ask the live ones; it is asked only when
        no live seat is ahead."""
        seats = sorted(ahead)
        if not seats:
            return None
        live = [s for s in seats if now - self.beat_at.get(s, -1e9) <= 2 * self.heartbeat]
        return min(live or seats, key=lambda s: self.asked_seat_at.get(s, -1e9))

    def expect(self, seat: int, have: int, now: float) -> None:
        """We asked ``seat`` for our log from ``have``: its reply at ``have`` is taken, also
        after our next ask to it (the last :data:`ASKS_OPEN` asks stay open)."""
        open_asks = self.asked.setdefault(seat, [])
        open_asks.append(have)
        del open_asks[:-ASKS_OPEN]
        self.asked_seat_at[seat] = now

    def answered(self, seat: int, start: int) -> bool:
        """A reply from ``seat`` at ``start``: True (once per ask) when it answers one of our
        last :data:`ASKS_OPEN` asks to it; any other reply was not asked for, and only its
        removal items (which carry their own evidence, the votes) may be taken."""
        open_asks = self.asked.get(seat, [])
        if start not in open_asks:
            return False
        open_asks.remove(start)
        return True

    def may_answer(self, asker: int, have: int, now: float) -> bool:
        """Whether to answer a sync-request of ``asker`` from ``have`` now. A reply can be far
        larger than its request; without a bound, requests would buy bandwidth. So: the same
        ``have`` once a heartbeat interval (an honest peer asks again only when a reply was
        lost, or moves on), and at most a token bucket of ANSWER_BURST requests refilled at
        ANSWER_RATE a second, per asker."""
        last = self.last_answer.get(asker)
        if last is not None and last[0] == have and now - last[1] < 0.9 * self.heartbeat:
            self.refused += 1
            return False
        tokens, at = self.answers.get(asker, (float(ANSWER_BURST), now))
        tokens = min(float(ANSWER_BURST), tokens + (now - at) * ANSWER_RATE)
        if tokens < 1.0:
            self.answers[asker] = (tokens, now)
            self.refused += 1
            return False
        self.answers[asker] = (tokens - 1.0, now)
        self.last_answer[asker] = (have, now)
        return True

    def may_tell(self, what: str, peer: int, now: float) -> bool:
        """Whether telling ``peer`` about ``what`` is not too soon (see :meth:`told_now`)."""
        return now >= self.told.get((what, peer), -1e9)

    def told_now(self, what: str, peer: int, now: float) -> None:
        """We told ``peer`` about ``what``: not again for about a heartbeat interval (0.9 of
        one, as for asking: the tells answer heartbeats that come about one interval apart,
        and a full interval skipped every other one when a heartbeat came a few ms early)."""
        self.told[(what, peer)] = now + 0.9 * self.heartbeat
        self.told_at[peer] = now

    def beat(self, peer: int, now: float) -> None:
        """A heartbeat of ``peer`` reached us (what :meth:`heard_of_it` reads)."""
        self.beat_at[peer] = now

    def heard_of_it(self, peer: int, now: float) -> bool:
        """We told ``peer`` and it has not beaten since, for two heartbeat intervals: as far
        as we can see, it heard. A send is not a delivery: our tell answers its heartbeat and
        can be lost (a link to a restarted peer not up yet, or closed with linger 0 as we
        leave), and a peer that missed it beats again within an interval, which we answer
        with the news again; one that heard it left the table (removed: its process exits).
        Counting the tell itself as told let every finished peer leave within ms of
        answering a restarted host's first heartbeat, its tell lost, and the host waited
        for nobody."""
        told = self.told_at.get(peer)
        if told is None or self.beat_at.get(peer, -1e9) > told:
            return False
        return now - told >= 2 * self.heartbeat
