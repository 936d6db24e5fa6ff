"""Concurrent phases and our automatic steps (protocol.md §4.3): what we owe, what it means.

:class:`Phases` is the collaborator of :class:`~dudo_p2p.consensus.machine.TableMachine` that
walks an epoch's phases for our seat (how a phase changes is
:mod:`~dudo_p2p.consensus.transitions`; this is what our seat does about it):

- a concurrent phase that completes tells the session what it means (a round started, a
  round resolved, the game is over: :meth:`Phases.completed`);
- in each phase our seat sends what it owes, exactly once per (epoch, phase): our commitment
  (our secrets drawn and journalled durably first), nonce, reveal, key share or result
  signature (:meth:`Phases.owed`); it is also our entry for the current position (re-sent
  while the log is stuck), and the machine takes it into the log like any other;
- whenever the seat to act changes, the session hears it, with the human turn deadline
  (the opener's SETUP choice included: :meth:`Phases.turn`).

It owns our secrets of the epoch, the (epoch, phase) pairs we sent for and our entry for the
current position; every method yields the effects it makes, in order.
"""

from __future__ import annotations

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus import journal
from dudo_p2p.consensus.context import SeatContext
from dudo_p2p.consensus.dealing import received_share
from dudo_p2p.consensus.effects import Effects, EffectsThen, Emit, Persist, Send
from dudo_p2p.consensus.replica import EpochPhase
from dudo_p2p.consensus.secrets import EpochSecrets
from dudo_p2p.consensus.timers import Timers
from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.protocol.kinds import KeyShare, Nonce, ResultSign
from dudo_p2p.protocol.messages import Message


class Phases:
    """Our seat's secrets and automatic entries, and the events of phases (module docstring)."""

    def __init__(self, ctx: SeatContext, timers: Timers) -> None:
        self.ctx = ctx
        self.timers = timers
        self.secrets: EpochSecrets | None = None
        self.sent: set[tuple[int, str]] = set()  # (epoch, phase) we sent our entry for
        self.own_current: bytes | None = None  # our entry for the current position

    def completed(self, phase: EpochPhase, now: float) -> Effects:
        """Events for a concurrent phase that just completed (``phase``: the one before)."""
        rep = self.ctx.replica
        if phase is EpochPhase.NONCE and rep.phase is EpochPhase.BIDDING:
            info = rep.engine.palifico_round
            yield Emit(
                ev.RoundStarted(
                    rep.epoch.number,
                    rep.engine.to_act,
                    rep.engine.dice_counts,
                    info.seat if info is not None else None,
                )
            )
            yield from self.turn(now)
        if rep.phase is EpochPhase.SETUP:
            # A new epoch opens with the opener's choice (the direction after the opener
            # draw, or every round with direction_each_round): it is a turn like a bid, with
            # the same deadline. Without this event a human opener's timer bot never played
            # it and the table stalled until the opener was voted out (issue 15).
            yield from self.turn(now)
        resolved = phase in (EpochPhase.REVEAL, EpochPhase.RECOVER)
        if resolved and rep.phase is EpochPhase.SIGN and rep.engine.results:
            yield Emit(ev.RoundResolved(rep.engine.results[-1]))
        yield from self.game_over()

    def game_over(self) -> Effects:
        """GameOver when the log just ended the game with a winner; our final length is
        beaten at once (Timers.beat_at_once)."""
        rep = self.ctx.replica
        if rep.phase is not EpochPhase.OVER or rep.engine.winner is None:
            return
        yield Emit(ev.GameOver(rep.engine.winner))
        self.timers.beat_at_once()

    def turn(self, now: float) -> Effects:
        """Tell the session whose turn it is (with the human deadline), if anyone's."""
        rep = self.ctx.replica
        to_act = rep.engine.to_act
        if to_act is None or rep.phase not in (EpochPhase.SETUP, EpochPhase.BIDDING):
            return
        timer = self.ctx.seating.turn_timer_ms / 1000
        yield Emit(ev.TurnTimer(to_act, now + timer if timer > 0 else None))

    def owed(self) -> EffectsThen[Envelope | None]:
        """What our seat owes the current phase, once: yields the effects (our secrets
        journalled first when drawn, then the entry sent) and returns the entry, which the
        caller takes into the log (None when nothing is owed)."""
        ctx = self.ctx
        rep = ctx.replica
        ep = rep.epoch
        if ctx.seat not in ep.participants or rep.phase is EpochPhase.OVER:
            return None
        key = (ep.number, rep.phase.value)
        if key in self.sent:
            return None
        body: Message
        match rep.phase:
            case EpochPhase.COMMIT:
                secrets = yield from self.ensure_secrets()
                body = secrets.commit_body(rep, ctx.seat, ctx.identity)
            case EpochPhase.NONCE:
                assert self.secrets is not None
                body = Nonce(rep.head, self.secrets.nonce)
            case EpochPhase.REVEAL:
                assert self.secrets is not None
                body = self.secrets.reveal_body(rep)
            case EpochPhase.RECOVER:
                share = self._share_of_withheld()
                if share is None:
                    return None  # its box to us was bad: we proved it at COMMIT (dealing.py)
                body = share
            case EpochPhase.SIGN:
                body = ResultSign(rep.head)
            case _:
                return None
        self.sent.add(key)
        env = ctx.seal(rep.concurrent_seq(), body)
        self.own_current = env.to_bytes()
        yield Send(self.own_current)
        return env

    def _share_of_withheld(self) -> KeyShare | None:
        """Our ``key-share`` of every seat that withheld its reveal: opened again from the
        boxes of their chained commits (a restart keeps no opened share)."""
        ctx = self.ctx
        rep = ctx.replica
        ep = rep.epoch
        hidden = tuple(sorted(ep.withheld))
        shares = [received_share(rep, ctx.seat, s, ep.commits[s], ctx.identity) for s in hidden]
        opened = tuple(share for share in shares if share is not None)
        return KeyShare(rep.head, hidden, opened) if len(opened) == len(hidden) else None

    def ensure_secrets(self) -> EffectsThen[EpochSecrets]:
        """Our secrets for the current epoch, drawn (and journalled, durably, ahead of the
        commitment that will depend on them: the effect yielded) the first time they are
        needed: to commit, or to keep the shares another seat sealed to us if its commit
        comes before ours goes."""
        ctx = self.ctx
        number = ctx.replica.epoch.number
        if self.secrets is not None and self.secrets.epoch == number:
            return self.secrets
        self.secrets = secrets = EpochSecrets.draw(number, ctx.replica, ctx.seat, ctx.rng)
        yield Persist(journal.secrets_record(secrets.to_record()), durable=True)
        return secrets

    def forget(self, epoch: int, *, voided: bool) -> None:
        """A removal in ``epoch``: what we sent in it may be owed again, and when it voided
        the epoch our secrets of it are void too (after the call the epoch goes on: our
        reveal may still be owed)."""
        self.sent = {k for k in self.sent if k[0] != epoch}
        if voided:
            self.secrets = None
