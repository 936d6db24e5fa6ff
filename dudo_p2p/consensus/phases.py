"""Concurrent phases and our automatic steps (protocol.md §4.3): what we owe, what it means.

:class:`PhasesMixin` is the layer of :class:`~dudo_p2p.consensus.machine.TableMachine` that
walks an epoch's phases for our seat:

- a concurrent entry that completes its phase (COMMIT, NONCE, REVEAL, RECOVER, SIGN) chains
  the phase and tells the session what it means (a round started, a round resolved, the
  game is over);
- in each phase our seat sends what it owes, exactly once per (epoch, phase): our commitment
  (our secrets drawn and journalled durably first), nonce, reveal or result signature, and
  it is also our entry for the current position (re-sent while the log is stuck);
- whenever the seat to act changes, the session hears it, with the human turn deadline
  (the opener's SETUP choice included).
"""

from __future__ import annotations

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus import journal
from dudo_p2p.consensus.core import MachineCore
from dudo_p2p.consensus.dealing import received_share
from dudo_p2p.consensus.effects import Emit, Persist, Send
from dudo_p2p.consensus.replica import EpochPhase
from dudo_p2p.consensus.secrets import EpochSecrets
from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.protocol.kinds import KeyShare, Nonce, ResultSign
from dudo_p2p.protocol.messages import Message


class PhasesMixin(MachineCore):
    """Phase completion, its session events, and our seat's automatic entries."""

    def _after_concurrent(self, env: Envelope, now: float) -> None:
        """Hold a checked concurrent entry; if it completes the phase, chain it and go on."""
        before = self.replica.phase
        completed = self.replica.add_concurrent(env)
        if completed:
            self._chained(now)
            self._phase_events(before, now)
            self._advance(now)

    def _phase_events(self, phase: EpochPhase, now: float) -> None:
        """Events for a concurrent phase that just completed (``phase``: the one before)."""
        rep = self.replica
        if phase is EpochPhase.NONCE and rep.phase is EpochPhase.BIDDING:
            info = rep.engine.palifico_round
            self._out.append(
                Emit(
                    ev.RoundStarted(
                        rep.epoch.number,
                        rep.engine.to_act,
                        rep.engine.dice_counts,
                        info.seat if info is not None else None,
                    )
                )
            )
            self._turn_event(now)
        if rep.phase is EpochPhase.SETUP:
            # A new epoch opens with the opener's choice (the direction after the opener
            # draw, or every round with direction_each_round): it is a turn like a bid, with
            # the same deadline. Without this event a human opener's timer bot never played
            # it and the table stalled until the opener was voted out (issue 15).
            self._turn_event(now)
        resolved = phase in (EpochPhase.REVEAL, EpochPhase.RECOVER)
        if resolved and rep.phase is EpochPhase.SIGN and rep.engine.results:
            self._out.append(Emit(ev.RoundResolved(rep.engine.results[-1])))
        if rep.phase is EpochPhase.OVER and rep.engine.winner is not None:
            self._out.append(Emit(ev.GameOver(rep.engine.winner)))
            self.timers.beat_at_once()  # our final length, at once (Timers.beat_at_once)

    def _turn_event(self, now: float) -> None:
        """Tell the session whose turn it is (with the human deadline), if anyone's."""
        to_act = self.replica.engine.to_act
        if to_act is None or self.replica.phase not in (EpochPhase.SETUP, EpochPhase.BIDDING):
            return
        timer = self.seating.turn_timer_ms / 1000
        self._out.append(Emit(ev.TurnTimer(to_act, now + timer if timer > 0 else None)))

    def _advance(self, now: float) -> None:
        """Send what our seat owes the current phase, once."""
        rep = self.replica
        ep = rep.epoch
        if self.seat not in ep.participants or rep.phase is EpochPhase.OVER:
            return
        key = (ep.number, rep.phase.value)
        if key in self.sent:
            return
        body: Message
        match rep.phase:
            case EpochPhase.COMMIT:
                body = self._ensure_secrets().commit_body(rep, self.seat, self.identity)
            case EpochPhase.NONCE:
                assert self.secrets is not None
                body = Nonce(rep.head, self.secrets.nonce)
            case EpochPhase.REVEAL:
                assert self.secrets is not None
                body = self.secrets.reveal_body(rep)
            case EpochPhase.RECOVER:
                share = self._share_of_withheld()
                if share is None:
                    return  # its box to us was bad: we proved it at COMMIT (dealing.py)
                body = share
            case EpochPhase.SIGN:
                body = ResultSign(rep.head)
            case _:
                return
        self.sent.add(key)
        env = self._seal(rep.concurrent_seq(), body)
        self.own_current = env.to_bytes()
        self._out.append(Send(self.own_current))
        self._consider(env, now)

    def _share_of_withheld(self) -> KeyShare | None:
        """Our ``key-share`` of every seat that withheld its reveal: opened again from the
        boxes of their chained commits (a restart keeps no opened share)."""
        rep = self.replica
        ep = rep.epoch
        hidden = tuple(sorted(ep.withheld))
        shares = [received_share(rep, self.seat, s, ep.commits[s], self.identity) for s in hidden]
        opened = tuple(share for share in shares if share is not None)
        return KeyShare(rep.head, hidden, opened) if len(opened) == len(hidden) else None

    def _ensure_secrets(self) -> EpochSecrets:
        """Our secrets for the current epoch, drawn (and journalled, durably, ahead of the
        commitment that will depend on them) the first time they are needed: to commit, or to
        keep the shares another seat sealed to us if its commit comes before ours goes."""
        number = self.replica.epoch.number
        if self.secrets is None or self.secrets.epoch != number:
            self.secrets = EpochSecrets.draw(number, self.replica, self.seat, self.rng)
            record = journal.secrets_record(self.secrets.to_record())
            self._out.append(Persist(record, durable=True))
        return self.secrets
