"""The live table: ``receive(frame, now) -> effects``, ``submit``, ``tick``. No I/O, no clock.

A :class:`TableMachine` is one seat's consensus state machine. It wraps the deterministic
:class:`~dudo_p2p.consensus.replica.Replica` with what only a live peer needs:

- **Agreement.** Every entry a peer accepts from another author is relayed to everyone in an
  ``ack``. An ``act`` is chained only when every live seat has acked it (its author's own
  message counts as its ack), so the next action always builds on an action the whole table
  holds, and keys are revealed only after the call is agreed by all. Concurrent entries
  (commit, nonce, reveal, result-sign) are chained when the phase is complete.
- **Equivocation.** Two valid entries signed by one author for one slot (epoch, kind, seq)
  are a proof; the machine broadcasts it and votes to remove the author.
- **Racing calls (V5).** When the acks for one slot show two different candidates, every
  peer switches its ack to the same winner: a ¡Calzo! beats a raise; between calls, the seat
  nearest after the bidder in the direction of play wins. A seat acks a loser only if it saw
  it first, so a loser can never gather every ack once any seat acked the winner.
- **Liveness.** Heartbeats every second; a seat the log waits for past the step timeout (or
  past the human turn timer plus a grace), or one silent past the silence timeout, gets our
  signed ``vote``; a strict majority of the other live seats removes it, voiding the epoch.
- **Catch-up.** A heartbeat showing a longer log triggers a ``sync-request``; replies carry
  chain items, each checked like a live entry (removals carry their votes).

This module is the one class, :class:`TableMachine`: the public API, receiving, heartbeats.
It is composed of collaborators, each owning its state and returning the effects it makes:
:class:`~dudo_p2p.consensus.context.SeatContext` (who we are, the replica, sealing and
opening entries), :class:`~dudo_p2p.consensus.intake.LogIntake` (entries into the log,
agreement on acts, journalling, re-sends), :class:`~dudo_p2p.consensus.phases.Phases` (our
secrets, our automatic entries, the events of phases), :class:`~dudo_p2p.consensus.playing.Play`
(our view, legal actions and submitted acts),
:class:`~dudo_p2p.consensus.removal.Removals` (proofs, suspicion, votes, removals, how the
game ended for us), :class:`~dudo_p2p.consensus.catchup.CatchUp` (sync, telling peers their
removal), :class:`~dudo_p2p.consensus.cuts.Cuts` (relaying across a cut), and the
bookkeeping of :mod:`~dudo_p2p.consensus.timers`, :mod:`~dudo_p2p.consensus.presence`,
:mod:`~dudo_p2p.consensus.liveness` and :mod:`~dudo_p2p.consensus.talk`. The calls between
them form no circle: catch-up uses the intake and removals, the intake uses phases and
removals; a removal's consequences for the log (:meth:`LogIntake.removed`) are the one step
handed to :class:`Removals` as a callable. How an epoch's phase changes is
:mod:`~dudo_p2p.consensus.transitions`; when the machine next needs the time,
:mod:`~dudo_p2p.consensus.deadlines`; when a finished seat may leave,
:mod:`~dudo_p2p.consensus.settling`.

Effects are values the node carries out in order: :class:`Persist` (write to the journal
durably *before* the sends that follow it), :class:`Send`, :class:`Emit` (a session event)
and :class:`Log` (a rejection worth telling the operator). Nothing from the wire raises out
of :meth:`TableMachine.receive`: bad input becomes a ``Log`` effect and changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from dudo_p2p.consensus import deadlines, restoring, settling
from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus.acts import ActRace
from dudo_p2p.consensus.bindings import ReplayGuard
from dudo_p2p.consensus.catchup import CatchUp
from dudo_p2p.consensus.context import VERIFIED_CACHE, SeatContext
from dudo_p2p.consensus.cuts import Cuts
from dudo_p2p.consensus.effects import Effect, Effects, Emit, Log, Persist, Send
from dudo_p2p.consensus.faults import VoteBook
from dudo_p2p.consensus.inbox import Inbox
from dudo_p2p.consensus.intake import MAX_BUFFERED, LogIntake
from dudo_p2p.consensus.liveness import Beats
from dudo_p2p.consensus.phases import Phases
from dudo_p2p.consensus.playing import Play
from dudo_p2p.consensus.presence import Presence
from dudo_p2p.consensus.reasons import Outcome
from dudo_p2p.consensus.record import encode_record
from dudo_p2p.consensus.removal import Removals
from dudo_p2p.consensus.replica import Replica, Seating
from dudo_p2p.consensus.secrets import EpochSecrets, RandomBytes
from dudo_p2p.consensus.sync import SYNC_BUDGET, SyncPacer
from dudo_p2p.consensus.talk import TalkBook
from dudo_p2p.consensus.timers import DEFAULT_TIMEOUTS, Timeouts, Timers
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.protocol.kinds import (
    Bye,
    Talk,
)
from dudo_p2p.rules import PlayerAction, SeatView

__all__ = [
    "MAX_BUFFERED", "SYNC_BUDGET", "VERIFIED_CACHE",
    "Effect", "Emit", "Log", "Persist", "Send", "TableMachine", "Timeouts",
]


class TableMachine:
    """One seat's live consensus. See the module docstring for the protocol it runs and
    the collaborators it is made of. ``TableMachine(identity, seating, rng, now,
    timeouts=...)`` raises IllegalAction when the identity has no seat; :meth:`restore`
    rebuilds one from its journal."""

    def __init__(
        self,
        identity: Identity,
        seating: Seating,
        rng: RandomBytes,
        now: float,
        *,
        timeouts: Timeouts = DEFAULT_TIMEOUTS,
    ) -> None:
        self.ctx = ctx = SeatContext(identity, seating, rng, timeouts)
        self.timers = Timers(timeouts, seating.n, now)
        self.presence = Presence(timeouts.silence, seating.grace_ms / 1000)
        self.race = ActRace(ctx.seat)
        self.replays = ReplayGuard()  # acks and votes taken: the same frame again is a replay
        self.cuts = Cuts(ctx.seat)  # seats that cannot hear a seat we hear: we relay to them
        self.beats = Beats()  # our heartbeats' counter and link nonces (liveness.py)
        self.talk_book = TalkBook()  # table talk: pace and replays (never in the log)
        self.phases = Phases(ctx, self.timers)
        self.removals = Removals(ctx, self.timers, self.presence, self.race, self.replays,
                                 self._removed, self._agree_held)
        self.intake = LogIntake(ctx, self.timers, self.race, self.phases, self.removals)
        self.catchup = CatchUp(ctx, self.intake, self.removals)
        self.inbox = Inbox(ctx, self.timers, self.intake, self.removals, self.catchup,
                           self.cuts, self.replays, self.talk_book)
        self.play = Play(ctx, self.race, self.phases, self.intake, self.removals)
        # next_deadline, kept until the next public call changes the state (every one ends
        # in _run; heard() and reached() clear it too): the node asks once or twice a
        # wake-up, and between public calls nothing becomes due before it
        self._deadline: float | None = None
        # handed out before the next public call's effects
        self._held: list[Effect] = [Emit(ev.GameStarted(seating.names, seating.rules))]

    def _removed(self, epoch: int, voided: bool, now: float) -> Effects:
        return self.intake.removed(epoch, voided, now)

    def _agree_held(self, now: float) -> Effects:
        return self.intake.try_finalize(now)

    # ---- who we are, and what the collaborators hold -----------------------------------------

    @property
    def identity(self) -> Identity:
        return self.ctx.identity

    @property
    def seating(self) -> Seating:
        return self.ctx.seating

    @property
    def seat(self) -> int:
        return self.ctx.seat

    @property
    def replica(self) -> Replica:
        """The replica of the log (read it; only the machine changes it)."""
        return self.ctx.replica

    @property
    def timeouts(self) -> Timeouts:
        return self.ctx.timeouts

    @property
    def secrets(self) -> EpochSecrets | None:
        """Our secrets of the current epoch, once drawn."""
        return self.phases.secrets

    @property
    def votes(self) -> VoteBook:
        return self.removals.votes

    @property
    def certificates(self) -> dict[tuple[int, int], list[bytes]]:
        """The removal certificates we hold, by (epoch, removed seat): the votes of each."""
        return self.removals.votes.certificates

    @property
    def expelled(self) -> set[int]:
        """The seats caught cheating."""
        return self.removals.expelled

    @property
    def proofs(self) -> list[tuple[bytes, bytes]]:
        """The equivocation proofs we hold, for the record."""
        return self.removals.proofs

    @property
    def removed_me(self) -> bool:
        return self.removals.removed_me

    @property
    def abandoned(self) -> list[bytes]:
        """The claims that ended the game abandoned (§4.6); [] when it was not."""
        return self.removals.abandoned

    @property
    def abandoned_by(self) -> int | None:
        """The seat the abandoning claims were about."""
        return self.removals.abandoned_by

    @property
    def table_gone(self) -> bool:
        return self.removals.table_gone

    @property
    def gone(self) -> ev.TableGone:
        """Which case of a table gone ended the game (meaningful once :attr:`table_gone`)."""
        return self.removals.gone

    @property
    def act_certs(self) -> dict[bytes, list[bytes]]:
        """The certificate (signed acks) of every act we chained, by its digest."""
        return self.intake.act_certs

    @property
    def peer_lengths(self) -> dict[int, int]:
        """Each seat's log length, as its last heartbeat said."""
        return self.catchup.peer_lengths

    @property
    def peer_heads(self) -> dict[int, bytes]:
        """Each seat's head, as its last heartbeat said."""
        return self.catchup.peer_heads

    @property
    def pacer(self) -> SyncPacer:
        return self.catchup.pacer

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended for our seat, or None while it runs."""
        return self.removals.outcome

    @property
    def over(self) -> bool:
        """The game is over for our seat: it ended, the table removed us, it was abandoned
        or the table is gone (:attr:`outcome` says which)."""
        return self.removals.outcome is not None

    def open_frame(self, frame: bytes) -> Envelope:
        """``frame`` authenticated as a message of this table (RemoteProtocolError
        otherwise: ``open_envelope`` with our game and seats), through the cache of verified
        frames, so that a frame checked here before :meth:`receive` (the node's link proof
        of a heartbeat) is not verified twice."""
        return self.ctx.open(frame)

    def untold(self, now: float) -> set[int]:
        """Seats that have not shown they heard of their removal (CatchUp.untold)."""
        return self.catchup.untold(now)

    def settled(self, over_at: float, now: float) -> bool:
        """Our game ended at ``over_at`` and leaving at ``now`` strands no one
        (:func:`~dudo_p2p.consensus.settling.settled`)."""
        return settling.settled(self.ctx, self.removals, self.catchup, over_at, now)

    def settle_deadline(self, over_at: float, now: float) -> float:
        """When :meth:`settled` may next turn true by the clock alone (``inf``: only a
        frame can settle us; :func:`~dudo_p2p.consensus.settling.settle_deadline`)."""
        return settling.settle_deadline(self.removals, self.catchup, over_at, now)

    @property
    def next_heartbeat(self) -> float:
        """When our next heartbeat is due (the machine schedules its own: at once when the
        game ends for us or a link came up, ``Timers.beat_at_once``)."""
        return self.timers.next_heartbeat

    def next_deadline(self, now: float) -> float:
        """When :meth:`tick` next has something to do (``now``: at once); ticking earlier
        is a wasted call, never a change (:mod:`~dudo_p2p.consensus.deadlines`). A node sleeps
        until then or until a frame arrives."""
        if self._deadline is None:
            self._deadline = deadlines.next_deadline(
                self.ctx, self.timers, self.presence, self.removals, self.race, now,
                self.catchup.lag())
        return self._deadline

    # ---- the game, for the session ----------------------------------------------------------

    def view(self) -> SeatView:
        """Our seat's view: public state plus the dice our secrets let us see."""
        return self.play.view()

    def legal_actions(self) -> list[PlayerAction]:
        """What our seat may submit now ([] while the table has not agreed the last act)."""
        return self.play.legal_actions()

    def submit(self, action: PlayerAction, now: float) -> list[Effect]:
        """Sign and send our action. Raises IllegalAction (nothing changes) when not legal."""
        return self._run(self.play.submit(action, now))

    def talk(self, phrase: int, now: float) -> list[Effect]:
        """Say quick phrase ``phrase`` to the table (signed, not in the log); nothing when we
        spoke less than a second ago (``consensus.talk``)."""
        if not self.talk_book.may_send(now):
            return []
        frame = self.ctx.seal(self.talk_book.counter, Talk(phrase)).to_bytes()
        return self._run([Send(frame)])

    def leave(self, now: float) -> list[Effect]:
        """Tell the table we leave for good (and consent to our removal: §4.6)."""
        return self._run(self._leaving())

    def _leaving(self) -> Effects:
        yield from self.removals.consent()
        yield Send(self.ctx.seal(0, Bye("quit")).to_bytes())

    def record(self, genesis: bytes, signatures: list[bytes]) -> bytes:
        """The game record of our chain so far (see :mod:`dudo_p2p.consensus.record`)."""
        return encode_record(
            genesis, signatures, self.ctx.replica.chain, self.removals.votes.certificates,
            self.removals.proofs, self.removals.abandoned,
        )

    def receive(self, frame: bytes, now: float) -> list[Effect]:
        """Handle one frame from the wire (:class:`~dudo_p2p.consensus.inbox.Inbox`); bad
        input becomes a Log effect, never an exception."""
        if self.inbox.duplicate_relay(frame):
            return []  # nothing changed at all
        return self._run(self.inbox.receive(frame, now))

    @classmethod
    def restore(
        cls,
        identity: Identity,
        seating: Seating,
        records: list[bytes],
        rng: RandomBytes,
        now: float,
        *,
        timeouts: Timeouts = DEFAULT_TIMEOUTS,
    ) -> TableMachine:
        """A machine rebuilt from its journal after a crash: the chain is replayed through the
        same checks as live entries, our secrets and our own unagreed act are taken back (so
        we re-send the very same entries, never different ones), then we ask the table for
        whatever we missed. Raises RemoteProtocolError on a journal that does not replay."""
        machine = cls(identity, seating, rng, now, timeouts=timeouts)
        # the restored machine's first effects: not the game's start (it started before)
        machine._held = list(restoring.replay_journal(
            records, now, machine.intake, machine.removals, machine.phases, machine.catchup))
        return machine

    # ---- time ---------------------------------------------------------------------------

    def start(self, now: float) -> list[Effect]:
        """First effects after construction (our epoch-0 commitment)."""
        return self._run(self.intake.advance(now))

    def heard(self, seat: int, now: float) -> None:
        """A fresh frame from ``seat`` arrived on its own proven connection (the node's call,
        made before ``receive``; :mod:`~dudo_p2p.consensus.liveness`): the only input that
        resets its silence clock."""
        if 0 <= seat < self.seating.n and seat != self.seat:
            self.timers.heard(seat, now)
            self._deadline = None

    def reached(self, seat: int, now: float) -> None:
        """Our link to ``seat`` just came up (the node saw its handshake with that seat's
        process; nothing from it is heard yet): the table is not gone while it may still
        speak (:data:`~dudo_p2p.consensus.presence.REACHED_WAIT`), and our heartbeat is due
        at once, so that it proves the new link and shows our log without waiting a whole
        interval (a seat removed while out of reach is told within a round trip)."""
        if 0 <= seat < self.seating.n and seat != self.seat:
            self.presence.reached[seat] = now
            self.presence.relinked(seat, self.timers.last_heard[seat], now,
                                   self.replica.epoch.number, self.timeouts.heartbeat)
            self.timers.next_heartbeat = min(self.timers.next_heartbeat, now)
            self._deadline = None  # next_deadline: the heartbeat is due now

    def tick(self, now: float) -> list[Effect]:
        """Timers: heartbeats, re-sends, suspicion votes (:meth:`next_deadline` says when
        one is due). A seat that knows it was removed beats no more: its silence is what
        shows the seats that told it that it heard (:meth:`untold`), even while a window
        still shows the end."""
        return self._run(self._ticked(now))

    def _ticked(self, now: float) -> Effects:
        if self.timers.heartbeat_due(now) and not self.removed_me:
            rep = self.ctx.replica
            for seat, body in self.beats.round(rep.head, len(rep.chain), self.seating,
                                               self.seat):
                yield Send(self.ctx.seal(0, body).to_bytes(), to=seat)
        if not self.over:
            yield from self.intake.resend(now)
            yield from self.removals.suspect(now, self.catchup.lag())

    def _run(self, steps: Iterable[Effect]) -> list[Effect]:
        """Every public call that may change the state ends here: its effects, in order,
        after any held (since construction, or from a call that raised). A step that raises
        leaves what it did held for the next call (the state it describes has changed)."""
        out, self._held = self._held, []
        try:
            out.extend(steps)
        except BaseException:
            self._held = out
            raise
        self._deadline = None  # the state moved: next_deadline computes it again
        return out
