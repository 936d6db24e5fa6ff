"""The spectator's side of watching (protocol.md §4.9 "Watching"; overview in
:mod:`~dudo_p2p.consensus.watching`).

:class:`Spectator` asks (to catch up; then only to renew its subscription every
RENEW_EVERY, or when its seat sent nothing for QUIET_AFTER), takes replies, pushes and
keepalives, and feeds items to a :class:`~dudo_p2p.consensus.record.RecordVerifier`
(the loop of ``verify``, one item at a time). A reply that disagrees with what it verified
is either the table voiding the current epoch (a removal: the chain went back to the
epoch's anchor) or a lie; it asks again from the anchor once, and an item that still does
not verify is *flagged* (:attr:`Spectator.flagged`): never counted as verified.

Pure: no I/O, no clock (``now`` is passed in); ``node/watcher.py`` owns the sockets.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from dudo_p2p.consensus.events import Event
from dudo_p2p.consensus.genesis import seating_from
from dudo_p2p.consensus.lobby import LOBBY_GAME_ID
from dudo_p2p.consensus.record import RecordVerifier, RecordViolation
from dudo_p2p.consensus.replica import EpochPhase, NotYet, Seating, Stale
from dudo_p2p.consensus.rotation import Rotation
from dudo_p2p.consensus.watch_away import AwayBoard
from dudo_p2p.consensus.watch_events import Before, item_events
from dudo_p2p.consensus.watch_items import ItemVerifier, record_item
from dudo_p2p.consensus.watching import POLL_EVERY, QUIET_AFTER, RENEW_EVERY, Note
from dudo_p2p.crypto.identity import Identity, KeyPin
from dudo_p2p.errors import DecodeError, DudoError
from dudo_p2p.protocol.envelope import Envelope, open_envelope, seal_envelope
from dudo_p2p.protocol.kinds import (
    Away,
    Genesis,
    GenesisSign,
    Refusal,
    SyncReply,
    SyncRequest,
    Watch,
)
from dudo_p2p.protocol.refusals import RefusalReason

# the spectator's watch, until it holds the genesis (as a hello): after WATCH_EVERY, then
# twice as long after each one up to WATCH_EVERY_MAX (a seat not seated yet keeps the watch
# and answers it once seated, watch_desk.py: a lobby that waits minutes for its players is
# not woken 5 times a second per spectator)
WATCH_EVERY = 0.2
WATCH_EVERY_MAX = 2.0
POLL_SOON = 0.3  # ask this soon after a push that did not fit what we hold (a gap)
UNSENT_RETRY = 0.1  # ... after an ask whose seat's link was down (the next seat's turn)
# polls without an answer before asking from the epoch's anchor: a seat answers nothing from
# a length its chain no longer has (a removal voided what we verified past the anchor)
ASK_ANCHOR_AFTER = 3


@dataclass(frozen=True)
class Outgoing:
    """A frame for a seat: ``to`` its key, or None for the link we joined at; ``poll``: a
    sync-request (tell :meth:`Spectator.unsent` when it could not be sent); ``enlist``: a
    watch enlisting at that seat (tell ``rotation.queued`` when it went out)."""

    to: bytes | None
    frame: bytes
    poll: bool
    enlist: bool = False


@dataclass(frozen=True)
class Verified:
    """Progress: ``items`` of the log verified, ``moves`` of them players' acts."""

    items: int
    moves: int
    head: str
    finished: bool


class Spectator:
    """The spectator's state (see the module docstring): what to send, what it verified."""

    def __init__(self, identity: Identity, table: str, host: str, port: int,
                 pin: KeyPin | None = None) -> None:
        self.identity = identity
        self.watch = Watch(table, host, port)
        self.pin = pin  # the host chosen (CODE@FINGERPRINT): seat 0 of the genesis must be it
        self.seating: Seating | None = None
        self.genesis: bytes | None = None
        self.signatures: dict[bytes, bytes] = {}
        self.verifier: RecordVerifier | None = None
        self.items: list[object] = []  # the record items verified, in order
        self.moves = 0
        self.flagged: RecordViolation | None = None
        self.refused: RefusalReason | None = None
        self.next_watch = -1e9
        self.watch_every = WATCH_EVERY  # the next wait between watches (backs off)
        self._watches: dict[bytes, bytes] = {}  # game id -> our signed watch (_watch_frame)
        self.next_poll = -1e9
        self.last_ask = -1e9  # when we last asked
        self.asked: int | None = None  # the `have` of our open request
        self.retried_from: int | None = None  # asked again from the anchor after a misfit
        self.empty_polls = 0
        self.rebuilds = 0  # times a removal voided items we had verified
        self.rotation = Rotation(identity.public_key)  # which seat we ask (rotation.py)
        # the events of the items verified (watch_events.py), each with the moves verified
        # when it happened; the session takes them (take_told)
        self.told: list[tuple[Event, int]] = []
        self.tell_from = 0  # items before this one are verified without being told
        self.board = AwayBoard()  # the seats shown disconnected, as the seats tell us

    # ---- what to send ----------------------------------------------------------------------

    def due(self, now: float) -> list[Outgoing]:
        """The frames to send now. Before the genesis: a watch to the seat we joined,
        WATCH_EVERY after the first, backing off to every WATCH_EVERY_MAX. After it: an
        enlisting watch, in the game's context, to each other seat until one is queued
        (rotation.py), and a sync-request to the seat the rotation names (after such a
        watch when we just moved to it; the first one once the seat it prefers to the one
        we joined is enlisted at, or PREFER_WITHIN passed): at once after a chunk with more
        to come; caught up, only when the seat sent nothing for QUIET_AFTER, or to renew our
        subscription every RENEW_EVERY (the seat pushes the log and keepalives meanwhile);
        an ask that nothing answered within POLL_EVERY (no reply from where we asked or
        before it) moves the rotation to the next seat."""
        if self.flagged is not None or self.refused is not None:
            return []
        if self.seating is None:
            if now < self.next_watch:
                return []
            self.next_watch = now + self.watch_every
            self.watch_every = min(2 * self.watch_every, WATCH_EVERY_MAX)
            return [Outgoing(None, self._watch_frame(), poll=False)]
        out: list[Outgoing] = []
        if not self.finished:
            enlist = self.rotation.enlist(now)
            if enlist:
                frame = self._watch_frame(self.seating.game_id)
                out.extend(Outgoing(pub, frame, poll=False, enlist=True) for pub in enlist)
        if now < self.next_poll or self.finished or self.rotation.waiting(now):
            return out  # (waiting: for the link to the seat we ask first, rotation.py)
        self.next_poll = now + POLL_EVERY
        self.last_ask = now
        have = len(self.items) if self.retried_from is None else self.retried_from
        if self.asked is not None:  # the last ask brought nothing: the next seat's turn
            self.empty_polls += 1
            self.rotation.advance()
        if self.empty_polls >= ASK_ANCHOR_AFTER:  # our log may hold an epoch since voided
            self.empty_polls, have = 0, min(have, self._anchor())
        fresh = self.rotation.take_fresh()
        if fresh is not None:  # a seat we moved to: enlist there again (it may have restarted)
            out.append(Outgoing(fresh, self._watch_frame(self.seating.game_id), poll=False))
        self.asked = have
        env = seal_envelope(self.identity, self.seating.game_id, 0, 0, SyncRequest(have))
        return [*out, Outgoing(self.rotation.target(), env.to_bytes(), poll=True)]

    def next_due(self) -> float:
        """When :meth:`due` may next have a frame to send (its caller sleeps until then, or
        until a frame comes)."""
        if self.flagged is not None or self.refused is not None:
            return math.inf
        if self.seating is None:
            return self.next_watch
        rot = self.rotation
        enlist = rot.next_enlist if len(rot.enlisted) < len(rot.pubs) else math.inf
        poll = math.inf if self.finished else self.next_poll
        if rot.prefer is not None and rot.prefer not in rot.enlisted:
            poll = max(poll, rot.prefer_until)  # (or once its enlisting watch is queued)
        return min(enlist, poll)

    def unsent(self, now: float) -> None:
        """The last ask could not be sent (its seat's link is down: the seat left, or the
        link is still coming up): ask the next seat shortly, not a poll later."""
        self.asked = None
        self.rotation.advance()
        self.next_poll = min(self.next_poll, now + UNSENT_RETRY)

    def _watch_frame(self, game_id: bytes = LOBBY_GAME_ID) -> bytes:
        """Our watch: in the lobby's context it asks for the genesis; in the game's it says
        we hold it (the seat only enlists us, watch_door.py). Signed once for each."""
        frame = self._watches.get(game_id)
        if frame is None:
            frame = seal_envelope(self.identity, game_id, 0, 0, self.watch).to_bytes()
            self._watches[game_id] = frame
        return frame

    def addresses(self) -> list[tuple[bytes, str, int]]:
        """Where each seat's link is, from the genesis: (key, host, port); host "" when the
        genesis does not say (the host binds every interface: the address we joined at)."""
        if self.genesis is None or self.seating is None:
            return []
        body = open_envelope(self.genesis).body
        assert isinstance(body, Genesis)
        return [(pub, host if host not in ("0.0.0.0", "::") else "", port)
                for pub, host, port in zip(body.pubs, body.hosts, body.ports, strict=True)]

    @property
    def finished(self) -> bool:
        """The log verified so far ends the game: the rules engine is over and the last
        round's result signatures are chained (the winner is known one phase earlier)."""
        return self.verifier is not None and self.verifier.replica.phase is EpochPhase.OVER

    def progress(self) -> Verified | None:
        """What is verified so far (None before the genesis)."""
        if self.verifier is None:
            return None
        return Verified(len(self.items), self.moves, self.verifier.replica.head.hex(),
                        self.finished)

    # ---- what comes back ---------------------------------------------------------------------

    def receive(self, frame: bytes, now: float, sender: bytes | None = None) -> list[Note]:
        """One frame from a seat: the genesis, a signature, a refusal, a sync-reply or an
        ``away`` (whom the seat shows disconnected: told as a seat is told it);
        ``sender`` is the link's claimed id (the rotation learns who serves us from it).
        Bad frames are refused with a note; an item that does not verify flags the log."""
        if sender is not None:
            self.rotation.heard_from(sender)
        try:
            env = open_envelope(frame)
            body = env.body
            match body:
                case Refusal() if body.to == self.identity.public_key:
                    self.refused = RefusalReason.from_wire(body.reason)
                    return [Note("warning", f"refused: {self.refused.text}")]
                case Genesis() | GenesisSign() if self.seating is None:
                    return self._genesis_part(env, frame, now)
                case SyncReply() if self.seating is not None and self.flagged is None:
                    if env.author not in self.seating.pubs or env.game_id != self.seating.game_id:
                        raise DecodeError("a sync-reply from someone not seated at this game")
                    return self._reply(body, now)
                case Away() if self.seating is not None and self.flagged is None:
                    events = self.board.take(env, self.seating, now)  # watch_away.py
                    self.told.extend((event, self.moves) for event in events)
            return []
        except DudoError as exc:
            return [Note("warning", f"frame refused: {exc}")]

    def _genesis_part(self, env: Envelope, frame: bytes, now: float) -> list[Note]:
        if isinstance(env.body, Genesis):
            self.genesis = frame
        else:
            self.signatures[env.author] = frame
        if self.genesis is None:
            return []
        genesis_env = open_envelope(self.genesis)
        assert isinstance(genesis_env.body, Genesis)
        pubs = genesis_env.body.pubs
        if not all(p in self.signatures for p in pubs):
            return []
        seating = seating_from(self.genesis, [self.signatures[p] for p in pubs])
        if self.pin is not None and not self.pin.matches(seating.pubs[0]):
            self.refused = RefusalReason.WRONG_HOST
            return [Note("warning", f"refused: {self.refused.text} (host {self.pin} chosen)")]
        self.seating = seating
        self.verifier = ItemVerifier(self.seating)
        self.rotation.seated(self.seating.pubs, now)
        self.next_poll = -1e9
        return [Note("info", f"watching table {self.seating.table}: genesis and "
                             f"{len(pubs)} signatures verified")]

    def _reply(self, reply: SyncReply, now: float) -> list[Note]:
        """An answer to our ask (``start`` is its ``have``) or a push (Desk.push: any other
        reply). A push that does not start at our length is a gap (we ask soon) or, when it
        starts inside what we hold and differs from it, the table voiding what we verified
        (we ask from its start, and the answer rebuilds); only an answer rebuilds. A reply
        from where we asked or before it, that agrees with what we hold, answers our ask (a
        seat answers a caught-up ask with its last push as it is, and a push crossing an ask
        brings what the answer would)."""
        asked = self.asked
        solicited = asked is not None and reply.start == asked
        start = reply.start
        if not solicited and start > len(self.items):
            self.next_poll = min(self.next_poll, now + POLL_SOON)  # we missed a push: ask
            return []
        incoming = [record_item(d) for d in reply.entries]
        # what we hold from `start` must agree with the reply; a difference is the epoch
        # voided by a removal (the chain went back to its anchor) or a lie: rebuild up to it
        common = 0
        while (common < len(incoming) and start + common < len(self.items)
               and incoming[common] == self.items[start + common]):
            common += 1
        if start + common < len(self.items) and common < len(incoming):
            if not solicited:  # a push says the log changed there: ask, and rebuild then
                self.retried_from = start
                self.next_poll = now
                return []
            self._rebuild(start + common)
        # it answers our ask when it brings what follows the place we asked from, or says
        # there is nothing more: one that stops there with more to come is a chunk we were
        # sent before (an answer and a push of the same place), not an answer
        if asked is not None and start <= asked and (
                start + len(incoming) > asked or not reply.more):
            self.asked, self.empty_polls = None, 0
            # the next chunk at once; once caught up, pushes and keepalives carry the log
            # (watch_desk.py): no ask while they come, but a renewal every RENEW_EVERY
            self.next_poll = now if reply.more else self._renewal(now)
        elif asked is None:
            # a push or a keepalive that agrees with what we hold: the seat is there (a push
            # cut short is followed by the next one: the seat pushes until we hold its log)
            self.next_poll = max(self.next_poll, self._renewal(now))
        for item in incoming[common:]:
            try:
                self._add(item, now)
            except RecordViolation as exc:
                # an entry that does not follow ours (NotYet, Stale) may be the table voiding
                # the epoch: ask again from its anchor once; anything else is a lie at once
                fits_later = isinstance(exc.__cause__, NotYet | Stale)
                if fits_later and self.retried_from is None and start > self._anchor():
                    self.retried_from = self._anchor()  # the table may have voided the epoch
                    self.next_poll = now
                    return [Note("info", f"item {exc.index} does not follow our log; "
                                         f"asking again from item {self.retried_from}")]
                self.flagged = exc
                return [Note("warning", f"FORGED or inconsistent: {exc}")]
        if solicited:
            self.retried_from = None
        return []

    def _renewal(self, now: float) -> float:
        """When to ask next, our seat having just sent us something: once QUIET_AFTER passes
        without anything more from it (it left: the ask finds out, and the rotation moves
        on), and anyway RENEW_EVERY after our last ask (the subscription a seat keeps for
        IDLE_ASKER)."""
        return min(now + QUIET_AFTER, self.last_ask + RENEW_EVERY)

    def _anchor(self) -> int:
        """Where the log may still change: the current epoch's anchor (a removal voids back
        to it), or the voided epoch's when removals started this one (another removal of
        it joins them, in seat order)."""
        assert self.verifier is not None
        epoch = self.verifier.replica.epoch
        return epoch.voided[0].anchor_index if epoch.voided is not None else epoch.anchor_index

    def take_told(self) -> list[tuple[Event, int]]:
        """The events of the items verified since the last call (watch_events.py), each
        with the number of moves verified when it happened; a removal's rebuild tells
        nothing again of the items it re-verifies."""
        told, self.told = self.told, []
        return told

    def _add(self, item: object, now: float, *, tell: bool = True) -> None:
        verifier = self.verifier
        assert verifier is not None
        before = Before.of(verifier.replica)
        verifier.add(item)
        self.items.append(item)
        tell = tell and len(self.items) > self.tell_from
        entry = None
        if isinstance(item, bytes):  # verified just above: the envelope the verifier opened
            opened = verifier.open_entry(item)
            if opened.kind == "act":
                self.moves += 1
                entry = opened
        if tell:
            self.told.extend((event, self.moves)
                             for event in item_events(before, verifier.replica, item, entry, now))

    def _rebuild(self, upto: int) -> None:
        """Verify ``items[:upto]`` again from the genesis (a removal voided what follows)."""
        assert self.seating is not None
        self.rebuilds += 1
        kept, self.items, self.moves = self.items[:upto], [], 0
        self.verifier = ItemVerifier(self.seating)
        for item in kept:
            self._add(item, 0.0, tell=False)  # told already
