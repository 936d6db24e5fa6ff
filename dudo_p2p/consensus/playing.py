"""Our seat's play: what it sees, what it may do now, and its act signed and sent.

:class:`Play` is the collaborator of :class:`~dudo_p2p.consensus.machine.TableMachine` behind
its session-facing calls ``view``, ``legal_actions`` and ``submit``: our view of the table
(the dice our secrets let us see), the actions our seat may submit now (none while the table
has not agreed the last act, or before our secrets of the epoch exist), and our act sealed
on the head, journalled durably before it leaves, then taken into the log like any entry.
"""

from __future__ import annotations

from dudo_p2p.consensus import journal
from dudo_p2p.consensus.actions_wire import action_fields
from dudo_p2p.consensus.acts import ActRace
from dudo_p2p.consensus.context import SeatContext
from dudo_p2p.consensus.effects import Effects, Persist, Send
from dudo_p2p.consensus.intake import LogIntake
from dudo_p2p.consensus.phases import Phases
from dudo_p2p.consensus.removal import Removals
from dudo_p2p.consensus.replica import EpochPhase
from dudo_p2p.errors import IllegalAction
from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.protocol.kinds import Act
from dudo_p2p.rules import GameState, PlayerAction, SeatView


class Play:
    """Our seat's view, legal actions and submitted acts (module docstring)."""

    def __init__(self, ctx: SeatContext, race: ActRace, phases: Phases, intake: LogIntake,
                 removals: Removals) -> None:
        self.ctx = ctx
        self.race = race
        self.phases = phases
        self.intake = intake
        self.removals = removals
        self._legal: tuple[GameState, list[PlayerAction]] | None = None  # legal_actions'

    def view(self) -> SeatView:
        """Our seat's view: public state plus the dice our secrets let us see."""
        own: tuple[int, ...] | None = None
        others: dict[int, tuple[int, ...]] = {}
        secrets, rep = self.phases.secrets, self.ctx.replica
        if secrets is not None and rep.phase is EpochPhase.BIDDING:
            own, others = secrets.visible_dice(rep, self.ctx.seat)
        return rep.engine.view(self.ctx.seat, own, others=others)

    def legal_actions(self) -> list[PlayerAction]:
        """What our seat may submit now ([] while the table has not agreed the last act)."""
        if not self.may_submit():
            return []
        engine = self.ctx.replica.engine
        cached = self._legal
        if cached is None or cached[0] is not engine:
            # the engine is immutable and replaced by every change of the game: its legal
            # actions are enumerated once (every bid there is), not on every call of a
            # session's loop
            cached = self._legal = (engine, [
                a for a in engine.legal_actions(self.ctx.seat) if isinstance(a, PlayerAction)])
        return list(cached[1])

    def may_submit(self) -> bool:
        """The game is on for us, an act is expected and none of ours waits for its acks."""
        phase = self.ctx.replica.phase
        return (
            self.removals.outcome is None
            and phase in (EpochPhase.SETUP, EpochPhase.BIDDING)
            and self.race.slot.mine is None
            and (self.phases.secrets is not None or phase is EpochPhase.SETUP)
        )

    def submit(self, action: PlayerAction, now: float) -> Effects:
        """Our act for ``action``, signed, journalled and sent (a generator: nothing happens
        until it runs). Raises IllegalAction, before anything changes, when not legal."""
        if not self.may_submit():
            raise IllegalAction("wait: the table has not agreed on the last action yet")
        if getattr(action, "seat", None) != self.ctx.seat:
            raise IllegalAction("an action for another seat")
        rep = self.ctx.replica
        why = rep.engine.why_illegal(action)
        if why is not None:
            raise IllegalAction(why)
        kind, count, face, option = action_fields(action)
        env = self.ctx.seal(rep.epoch.acts, Act(rep.head, kind, count, face, option))
        own = self.phases.own_current = env.to_bytes()
        return self._submitted(own, env, now)

    def _submitted(self, own: bytes, env: Envelope, now: float) -> Effects:
        yield Persist(journal.own_record(own), durable=True)  # durable: before it leaves
        yield Send(own)
        yield from self.intake.consider(env, now)
