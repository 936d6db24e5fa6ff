"""The seat's side of watching (protocol.md §4.9 "Watching"; overview in
:mod:`~dudo_p2p.consensus.watching`).

:class:`Desk` keeps what a spectator costs a seat near nothing:

- **the cap** and the genesis (:class:`~dudo_p2p.consensus.watch_door.Door`, the base
  class): every spectator says ``watch`` to every seat once, so every seat counts the same
  spectators (a cap per table), but only the seat it joined hands it the genesis and links
  back at once; a ``watch`` in the game's context (the spectator holds the genesis) costs a
  seat one signature check and nothing else until that spectator asks it;
- **answers** to a spectator's ``sync-request``, within the per-asker bounds catch-up uses
  (:class:`~dudo_p2p.consensus.sync.SyncPacer`, a pacer of its own: a spectator's requests
  never spend a seat's tokens), from a cache: a caught-up spectator's renewal is answered
  with the last push's frame as it is (no signature), a chunk with one signed once per
  place and state of the log for whoever asks it;
- **pushes** (:meth:`Desk.push`): every :data:`PUSH_EVERY` at most, one signed chunk from
  where the last push ended (and the chunks after it, up to :data:`PUSH_CHUNKS`), the same
  bytes to every spectator subscribed (it asked within IDLE_ASKER) that holds at least that
  much; after the table's own frames, never on a step that carried them unless a push is
  overdue, and never waking the seat. Which seat serves a spectator is the spectator's
  choice (rotation.py): spread over the seats by its key, not all at the seat it joined;
- **keepalives**: a caught-up subscriber sent nothing for :data:`KEEPALIVE` gets the log's
  length (an empty reply, signed once per state of the log for all of them) on a step the
  seat takes anyway: so a caught-up spectator never needs to ask while its seat is there
  (it renews its subscription every RENEW_EVERY), and costs the seat a few sends, no
  wake-up and no signature check;
- **whom the seat shows disconnected**: an ``away`` frame when that changes, signed once
  for every spectator asking it (watch_away.py).

It only *reads* the machine's chain and removal votes: no consensus state of a seat depends
on a spectator, which is never acked, voted on, counted as heard or waited for.

Pure: no I/O, no clock (``now`` is passed in); the node carries out the effects, after the
table's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from dudo_p2p.consensus.lobby import SendTo
from dudo_p2p.consensus.machine import TableMachine
from dudo_p2p.consensus.replica import ChainItem
from dudo_p2p.consensus.sync import SyncPacer, sync_chunk
from dudo_p2p.consensus.watch_away import away_frame
from dudo_p2p.consensus.watch_door import MAX_SPECTATORS as MAX_SPECTATORS
from dudo_p2p.consensus.watch_door import DeskEffect, Door, Genesis
from dudo_p2p.consensus.watch_door import Unlink as Unlink
from dudo_p2p.consensus.watching import IDLE_ASKER, KEEPALIVE, Note
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.errors import DecodeError, DudoError
from dudo_p2p.protocol.envelope import open_envelope, seal_envelope
from dudo_p2p.protocol.kinds import SyncReply, SyncRequest, Watch

REPLY_CACHE = 8  # signed replies kept, by place and state of the log (_chunk)
# a seat pushes the log as it grows to each spectator that asked it within IDLE_ASKER, at
# most this often, one signed chunk for all of them: see Desk.push
# (1 s, not 0.5: at load 16 the serving host's CPU per action above the others' fell from
# +0.11 to -0.06 ms, 4 alternated runs each, bench spectators at idle priority)
PUSH_EVERY = 1.0
# a push brings a subscriber up to this many chunks (SYNC_CHUNK items each), one after the
# other: a log that grew by more than a chunk in a push interval (40 items a second: 6 bots)
# is pushed whole, and the spectator needs no ask to catch up (each one a signature check)
PUSH_CHUNKS = 3


class Desk(Door):
    """A seated peer's spectators (see the module docstring; who gets in, and our links back
    to them: :class:`~dudo_p2p.consensus.watch_door.Door`). ``receive`` takes a ``watch``
    from anyone and a ``sync-request`` from a spectator it took; returns effects."""

    def __init__(self, identity: Identity, heartbeat: float = 1.0) -> None:
        super().__init__(identity)
        self.pacer = SyncPacer(heartbeat)
        self.reached: dict[bytes, int] = {}  # key -> the log length it holds, as far as we know
        self.sent_at: dict[bytes, float] = {}  # key -> when we last sent it anything
        self.next_keep = -1e9  # the next keepalive round (Desk.push)
        # (have, log state) -> (the signed reply, its entry count): see _chunk
        self._replies: dict[tuple[object, ...], tuple[bytes, int]] = {}
        # the last push: where it started and ended, its frame, and whether it was cut short
        self._last: tuple[int, int, bytes, bool] | None = None
        self._digests: list[bytes] = []  # the chain's item digests as we last saw it (_track)
        self.next_push = -1e9
        self._quiet_after = -1e9  # no spectator asked us within IDLE_ASKER after this
        self._changes = 0  # bumped when an ask or a send moves what a spectator holds
        self._memo: tuple[tuple[int, int], float, list[bytes]] | None = None  # _behind's
        self.pushed = 0  # frames pushed (a figure for tests and the bench)
        self.answered_asks = 0  # sync-requests answered (each one signature check)
        self._away: dict[int, float] = {}  # the seats we last told shown disconnected
        self._away_frame: bytes | None = None  # that telling (for a spectator that comes)
        self._away_seq = 0
        self.signed = 0  # replies signed (pushes and answers; cached ones are not signed again)
        self.sent = 0  # frames sent to spectators, of every kind (the bench counts them apart)
        self.kept = 0  # keepalives sent (each a send of a frame signed once for all)
        self.received = 0  # spectators' frames taken once seated (each a signature check)
        self.steps = 0  # the node's steps that took spectators' frames and no other (node.py)

    def caught_up(self, length: int, now: float) -> bool:
        """Every spectator that pulls from us holds the log up to ``length`` (as far as our
        replies and its asks tell): a seat whose game ended lingers for this within its
        settle grace, never longer (node.py). A spectator that has not asked us for
        IDLE_ASKER seconds pulls from another seat (rotation.py): not waited for."""
        return all(self.reached.get(key, 0) >= length
                   or now - self.asked_at.get(key, -1e9) > IDLE_ASKER
                   for key in self.spectators)

    def receive(
        self, frame: bytes, address: str | None, machine: TableMachine | None,
        genesis: Genesis | None, now: float,
    ) -> list[DeskEffect]:
        """One ``watch`` or spectator ``sync-request``; ``machine``/``genesis`` None: we are
        not seated yet (a watch is kept for :meth:`waiting`, up to EARLY_KEPT of them;
        past that it is dropped: its spectator says it again)."""
        if machine is None or genesis is None:
            self._keep_early(frame, address)
            return []
        self.received += 1
        seating = machine.seating
        try:
            env = open_envelope(frame)
            if isinstance(env.body, Watch):
                alive = machine.replica.engine.alive
                out = self._watch(env, env.body, address, seating, alive, genesis, now)
            elif isinstance(env.body, SyncRequest) and env.author in self.spectators:
                if env.game_id != seating.game_id or env.seq != 0:
                    raise DecodeError("a spectator's sync-request is for this game, seq 0")
                out = self._answer(env.author, env.body.have, machine, now)
            else:
                raise DecodeError(f"a spectator sends watch or sync-request, not {env.kind}")
        except DudoError as exc:
            return [Note("warning", f"spectator frame refused: {exc}")]
        for effect in out:
            if isinstance(effect, SendTo):
                self.sent += 1
                if effect.peer in self.spectators:  # (not a refused stranger: bounded)
                    self.sent_at[effect.peer] = now
        return out

    def _answer(self, key: bytes, have: int, machine: TableMachine, now: float) -> list[DeskEffect]:
        """One chunk from ``have`` (a caught-up spectator renewing its push: the last push's
        frame, when it ends at our length, else an empty reply), within the catch-up bounds
        per asker (sync.py); nothing when ``have`` is past our length (its log holds an
        epoch a removal voided: it asks again from the anchor). The ask also subscribes it
        to :meth:`push` for IDLE_ASKER seconds."""
        chain = machine.replica.chain
        self._track(chain)
        fresh = now - self.asked_at.get(key, -1e9) > IDLE_ASKER  # a new subscriber
        self.asked_at[key] = now
        self._changes += 1
        if have > len(chain) or not self.pacer.may_answer(self.spectators[key], have, now):
            return []
        self.answered_asks += 1
        out = self._link(key, now)
        if fresh and self._away_frame is not None:
            out.append(SendTo(key, self._away_frame))  # whom we show disconnected
        # never back: an ask crossing a push in flight names less than the push brings, and
        # spectators at one place share one signed push (a voided tail is _track's)
        self.reached[key] = max(self.reached.get(key, 0), have)
        self._quiet_after = max(self._quiet_after, now + IDLE_ASKER)
        last = self._last  # (_track dropped it if a removal voided it)
        if last is not None and have == len(chain) == last[1]:
            return [*out, SendTo(key, last[2])]  # signed already: sent as it is
        # (not left to the next push: a push waits for a step without the table's frames,
        # up to a second more, and an ask unanswered for POLL_EVERY moves the spectator)
        return [*out, self._send_chunk(key, have, machine, now)]

    def push(self, machine: TableMachine | None, now: float,
             busy: bool = False) -> list[SendTo | Unlink]:
        """The log's new items for every subscriber (a spectator that asked us within
        IDLE_ASKER) behind our log, at most every PUSH_EVERY: one chunk from where the last
        push ended, signed once, the same bytes for every spectator holding at least that
        much (one further behind gets a chunk from where it is, cached the same way:
        _chunk); and every KEEPALIVE, to each caught-up subscriber sent nothing for that
        long, the log's length (:meth:`_keepalives`). ``busy``: this step carried the
        table's own frames (a bid on its way): both wait for a quieter step, up to one more
        interval, so they never delay what the seats wait for. The seat's loop does not wake
        for them: they go out on a step the seat takes anyway (a frame, its heartbeat), so
        spectators add no wake-up to a seat. A link back to a spectator that has not asked
        for IDLE_ASKER is closed (:class:`Unlink`)."""
        if machine is None or now > self._quiet_after:
            self._last = None  # nobody to push to: the next ask is answered, not deferred
            # (on every step of the seat's loop: the common case returns here)
            return [*self._lapsed(now)] if self.linked or self.refusing else []
        news: list[SendTo | Unlink] = [*self._lapsed(now)] if now >= self.next_lapse else []
        if machine.presence.away != self._away:
            news.extend(self._news(machine, now))
        if now < self.next_push and now < self.next_keep:
            return news
        chain = machine.replica.chain
        behind = self._behind(len(chain), now)
        out: list[SendTo] = []
        if behind and now >= self.next_push and (not busy or now >= self.next_push + PUSH_EVERY):
            out = self._push(machine, now)
        if now >= self.next_keep and (not busy or now >= self.next_keep + KEEPALIVE):
            out.extend(self._keepalives(machine, now))
        return [*news, *out]

    def _push(self, machine: TableMachine, now: float) -> list[SendTo]:
        chain = machine.replica.chain
        self._track(chain)
        self.next_push = now + PUSH_EVERY
        behind = self._behind(len(chain), now)  # again: _track may have moved some back
        at = {key: self.reached.get(key, 0) for key in behind}
        start = self._last[1] if self._last is not None else min(at.values(), default=0)
        out: list[SendTo] = []
        for key, reached in at.items():  # up to PUSH_CHUNKS chunks each, so it never asks
            place = start if reached >= start else reached
            for _ in range(PUSH_CHUNKS):
                out.append(self._send_chunk(key, place, machine, now))
                place = self.reached[key]
                if place >= len(chain):
                    break
        place = start
        for _ in range(PUSH_CHUNKS):  # the last chunk pushed from `start` (signed already)
            if place >= len(chain):
                break
            frame, entries = self._chunk(place, machine)
            self._last = (place, place + entries, frame, place + entries < len(chain))
            place += entries
        self.pushed += len(out)
        self.sent += len(out)
        return out

    def _keepalives(self, machine: TableMachine, now: float) -> list[SendTo]:
        """The log's length (an empty ``sync-reply`` from it: signed once per state of the
        log, for every spectator) to each subscriber that holds our whole log and was sent
        nothing for KEEPALIVE: it tells the spectator its seat is there, so it does not ask
        (watch_spectator.py, QUIET_AFTER). At most one round every KEEPALIVE."""
        self.next_keep = now + KEEPALIVE
        length = len(machine.replica.chain)
        keys = [key for key in self.spectators
                if now - self.asked_at.get(key, -1e9) <= IDLE_ASKER
                and self.reached.get(key, 0) >= length
                and now - self.sent_at.get(key, -1e9) >= KEEPALIVE]
        if not keys:
            return []
        frame, _ = self._chunk(length, machine)
        for key in keys:
            self.sent_at[key] = now
        self.kept += len(keys)
        self.sent += len(keys)
        return [SendTo(key, frame) for key in keys]

    def _news(self, machine: TableMachine, now: float) -> list[SendTo]:
        """Whom our seat shows disconnected changed: an ``away`` frame, signed once, to every
        spectator asking us lately (and later to each one that starts asking, _answer)."""
        away = machine.presence.away
        self._away = dict(away)
        self._away_seq += 1
        self._away_frame = away_frame(self.identity, machine.seating,
                                      machine.replica.epoch.number, self._away_seq, away, now)
        self.signed += 1
        out = [SendTo(key, self._away_frame) for key in self.spectators
               if now - self.asked_at.get(key, -1e9) <= IDLE_ASKER]
        for effect in out:
            self.sent_at[effect.peer] = now
        self.sent += len(out)
        return out

    def push_due(self, length: int, now: float) -> float | None:
        """When :meth:`push` has something to send (a spectator asked us lately and is behind
        a log of ``length`` items), or None."""
        if now > self._quiet_after:
            return None
        return self.next_push if self._behind(length, now) else None

    def _behind(self, length: int, now: float) -> list[bytes]:
        """The spectators asking us lately that lack some of a log of ``length`` items. Asked
        on many steps of the seat's loop: kept until the log, an ask or a send changes it,
        or the first of them stops counting as asking (``_memo``)."""
        memo = self._memo
        if memo is not None and memo[0] == (length, self._changes) and now <= memo[1]:
            return memo[2]
        keys = [key for key in self.spectators
                if now - self.asked_at.get(key, -1e9) <= IDLE_ASKER
                and self.reached.get(key, 0) < length]
        until = min((self.asked_at[key] + IDLE_ASKER for key in keys), default=math.inf)
        self._memo = ((length, self._changes), until, keys)
        return keys

    def _track(self, chain: Sequence[ChainItem]) -> None:
        """Notice a removal that voided part of the log we sent: a spectator holding more
        than what is left of it holds only that much of our log now (the next push starts
        there, and the spectator rebuilds from it)."""
        seen = self._digests
        common = min(len(seen), len(chain))
        while common and chain[common - 1].digest != seen[common - 1]:
            common -= 1
        if common < len(seen):
            del seen[common:]
            for key, reached in self.reached.items():
                self.reached[key] = min(reached, common)
            if self._last is not None and self._last[1] > common:
                self._last = None  # the next push starts where the spectators are
            self._changes += 1
        seen.extend(item.digest for item in chain[len(seen):])

    def _send_chunk(self, key: bytes, have: int, machine: TableMachine, now: float) -> SendTo:
        frame, entries = self._chunk(have, machine)
        self.reached[key] = max(self.reached.get(key, 0), have + entries)
        self.sent_at[key] = now
        self._changes += 1
        return SendTo(key, frame)

    @staticmethod
    def _state(machine: TableMachine) -> tuple[object, ...]:
        """What a reply from a place of the log depends on besides that place."""
        rep = machine.replica
        return (len(rep.chain), rep.head, rep.epoch.number, len(machine.votes.certificates))

    def _chunk(self, have: int, machine: TableMachine) -> tuple[bytes, int]:
        """The signed sync-reply from ``have`` (up to a chunk; none at our length) and its
        entry count. A reply names no asker, so it is the same frame for every spectator at
        the same place of the same log: built and signed once (``_replies``). Acts travel
        without their acks (a spectator checks the entries, not the certificates)."""
        state = (have, *self._state(machine))
        cached = self._replies.get(state)
        if cached is None:
            reply = sync_chunk(machine.replica.chain, have, machine.votes.certificates)
            if reply is None:
                reply = SyncReply(have, (), False)  # caught up: the renewal's answer
            sealed = seal_envelope(self.identity, machine.seating.game_id,
                                   machine.replica.epoch.number, 0, reply)
            self.signed += 1
            cached = (sealed.to_bytes(), len(reply.entries))
            if len(self._replies) >= REPLY_CACHE:
                del self._replies[next(iter(self._replies))]  # the oldest
            self._replies[state] = cached
        return cached
