"""A removal held back while the call it races may still be agreed (protocol.md §4.6, issue 19).

Where a removal lands decides the log: before the epoch's call it voids the epoch, after it
the round resolves without the removed seat (withheld.py). The call is chained on a peer
once every seat of the epoch has acked it, so a peer lacking one ack (lost with the seat
that crashed) cannot tell whether another peer holds them all: soak seed 5190 voided the
epoch on one survivor while the other resolved the call, and the two logs never met again.

So a removal that completes while the candidate we ack for the current slot is
*decisive* (chaining it ends the bidding: a call, or an act that ends the game) is **held**:

- the candidate we ack is agreed when every seat of the epoch not removed has acked it (the
  removed seats' acks are no longer needed: one of them crashed before acking), or when it
  comes with the acks of every seat of the epoch (a certificate, in catch-up); it is chained
  and the held removals follow it, after the call;
- we void the epoch instead when a seat still in it, whose ack of our candidate we do not
  hold, shows that it voided: a signed entry of a later epoch, or a heartbeat whose head is
  the one voiding gives. That seat had acked nothing when it voided (or it would hold the
  removal too), and it acks nothing of a voided epoch, so no peer can agree the call; we
  ignore that sign from a seat we voted out of the epoch while its removal could still be
  completed with our vote (it might be, elsewhere, and then the call is agreed there);
- while a removal is held we vote a seat missing its ack out only when it is silent (not
  heard), never for the missing ack alone: a seat that voided is heard and acks nothing, and
  removing it would let the call be agreed while another peer voided on its word.

A peer restored from its journal does not know the acks it sent before the crash (they are
not journalled): until the slot moves it holds a removal as if it acked a decisive candidate
(and, acking none it knows of, voids on any seat's sign).

A peer acks only one candidate per slot and switches only to a better one (acts.py), so the
only act of the slot any peer can agree is the one we ack now; a peer that agrees it without
the removed seats needs our ack, which we gave only to it. Hence every peer places the
removal on the same side of the call. :class:`Hold` is that bookkeeping; the removals
collaborator asks it, the intake agrees and chains.

Pure: no I/O, no clock.
"""

from __future__ import annotations

from itertools import combinations

from dudo_p2p.consensus.acts import ActRace
from dudo_p2p.consensus.chain import chain_hash, removal_digest
from dudo_p2p.consensus.replica import EpochPhase, Replica
from dudo_p2p.consensus.transitions import Trigger, act_trigger
from dudo_p2p.errors import DudoError
from dudo_p2p.protocol.envelope import Envelope

DECISIVE = (Trigger.CALLED, Trigger.WON)  # an act after which a removal no longer voids


def decisive(rep: Replica, env: Envelope) -> bool:
    """Chaining the act ``env`` now would end the bidding (a call, or the game won)."""
    try:
        action = rep.check_act(env)
    except DudoError:
        return False
    return act_trigger(rep.phase, rep.engine.apply(action).phase) in DECISIVE


class Hold:
    """The removals of the current epoch held back while the call we ack may be agreed."""

    def __init__(self, me: int, race: ActRace) -> None:
        self.me = me
        self.race = race
        self.epoch: int | None = None
        self.targets: set[int] = set()  # the seats whose removal completed and is held
        self.voiding = False  # a seat showed it voided: the held removals void the epoch
        self.left: set[int] = set()  # seats that showed they voided the epoch (they vote no more)
        # restored from a journal at (epoch, act slot): the acks we sent before the crash are
        # not journalled, so until the slot moves we may have acked a call we do not know
        self.unsure: tuple[int, int] | None = None
        self._heads: tuple[int, dict[bytes, frozenset[int]]] | None = None

    def active(self, epoch: int) -> bool:
        """Removals of ``epoch`` are held now."""
        return self.epoch == epoch and bool(self.targets)

    def held(self, epoch: int) -> frozenset[int]:
        """The seats whose removal of ``epoch`` is held: removed (their votes no longer
        count, they leave the majority), not yet placed."""
        return frozenset(self.targets) if self.active(epoch) else frozenset()

    def mine(self, rep: Replica) -> Envelope | None:
        """The candidate we ack for the current slot, when it is decisive."""
        digest = self.race.slot.mine
        if digest is None or rep.phase not in (EpochPhase.SETUP, EpochPhase.BIDDING):
            return None
        env = self.race.slot.candidates.get(digest)
        return env if env is not None and decisive(rep, env) else None

    def restored(self, rep: Replica) -> None:
        """We were restored from our journal: see :attr:`unsure`."""
        self.unsure = (rep.epoch.number, rep.epoch.acts)

    def _unsure(self, rep: Replica) -> bool:
        return (self.unsure == (rep.epoch.number, rep.epoch.acts) and self.race.slot.mine is None
                and rep.phase in (EpochPhase.SETUP, EpochPhase.BIDDING))

    def stale(self, rep: Replica) -> bool:
        """Removals are held but we ack no decisive candidate now (nor may have, unsure):
        nothing they wait for can be agreed, they void the epoch."""
        return self.active(rep.epoch.number) and self.mine(rep) is None and not self._unsure(rep)

    def holds(self, rep: Replica, epoch: int, target: int) -> bool:
        """The removal of ``target`` in ``epoch`` has its votes: hold it (True) rather than
        apply it now. Our own removal is never held (the table goes on without us)."""
        self._follow(rep.epoch.number)
        if (epoch != rep.epoch.number or target == self.me or self.voiding
                or (self.mine(rep) is None and not self._unsure(rep))):
            self.targets.discard(target)
            return False
        self.targets.add(target)
        return True

    def _follow(self, epoch: int) -> None:
        if self.epoch != epoch:
            self.epoch, self.targets, self.voiding, self.left = epoch, set(), False, set()

    def saw_left(self, epoch: int, seat: int) -> None:
        """``seat`` showed that it voided ``epoch`` (our current one): it votes there no more."""
        self._follow(epoch)
        self.left.add(seat)

    def released(self) -> list[int]:
        """The targets held, to be tried again (the log moved, or we void): the hold ends."""
        targets = sorted(self.targets)
        self.targets = set()
        return targets

    def deciders(self, rep: Replica) -> tuple[int, ...] | None:
        """While removals are held: the seats of the epoch whose acks agree our candidate
        (the epoch's seats not removed); else None."""
        ep = rep.epoch
        if not self.active(ep.number):
            return None
        return tuple(s for s in ep.participants if s not in self.targets and s not in ep.withheld)

    def agreed(self, rep: Replica) -> tuple[Envelope, tuple[int, ...]] | None:
        """Our decisive candidate, when every seat of the epoch not removed has acked it."""
        deciders = self.deciders(rep)
        if deciders is None:
            return None  # (the common case, on every ack: nothing held, nothing to check)
        env = self.mine(rep)
        if env is None:
            return None
        if not set(deciders) <= self.race.acks(env.digest(), rep.epoch.number):
            return None
        return env, deciders

    def shows_void(self, rep: Replica, seat: int, ignored: bool) -> bool:
        """``seat`` showed that it left the epoch without the call: may we void on its
        word? (See the module docstring: not when we hold its ack of our candidate, nor when
        we voted it out and its removal could still be completed with our vote: ``ignored``,
        :meth:`~dudo_p2p.consensus.removal.Removals.ignores`.)"""
        ep = rep.epoch
        if not self.active(ep.number) or self.voiding or seat == self.me:
            return False
        if seat not in ep.participants or seat in self.targets or seat in ep.withheld:
            return False
        env = self.mine(rep)  # None: held while unsure, acking nothing we know of
        if env is not None and seat in self.race.acks(env.digest(), ep.number):
            return False
        if ignored:
            return False
        self.voiding = True
        return True

    def void_head(self, rep: Replica, head: bytes) -> bool:
        """``head`` is the head a peer holds after voiding the current epoch by the removal
        of some of its seats (the chain back at the anchor, the removals in seat order)."""
        ep = rep.epoch
        if self._heads is None or self._heads[0] != ep.number:
            game = rep.seating.game_id
            heads: dict[bytes, frozenset[int]] = {}
            others = [s for s in ep.participants if s != self.me]
            for size in range(1, len(others) + 1):
                for gone in combinations(others, size):
                    h = ep.anchor
                    for seat in gone:  # already in seat order
                        h = chain_hash(h, removal_digest(game, ep.number, seat))
                    heads[h] = frozenset(gone)
            self._heads = (ep.number, heads)
        return head in self._heads[1]
