"""The last entry whose content checked, and the state it checked against (issue 19, CPU).

An entry is checked when it is taken (:meth:`~dudo_p2p.consensus.intake.LogIntake.consider`)
and again when it is chained (:meth:`~dudo_p2p.consensus.replica.Replica.chain_act`,
``add_concurrent``), and its content check can be costly: a reveal's is a base
multiplication (:func:`~dudo_p2p.crypto.vss.key_ok`) and a hash, an act's the rules. A
:class:`CheckMemo` lets the second check skip the content when nothing it reads changed:
the same entry object, epoch object, phase, head, engine and withheld seats (all that a
commit's shape, the commitments a nonce or reveal opens, and the rules read). The checks of
position, phase, seq and duplicates always run again. Pure: no I/O, no clock.
"""

from __future__ import annotations

from dudo_p2p.consensus.chain import EpochState
from dudo_p2p.consensus.transitions import EpochPhase
from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.rules import GameState, PlayerAction

# (entry, epoch, phase, head, engine, number of withheld seats, an act's action)
_State = tuple[Envelope, EpochState, EpochPhase, bytes, GameState, int]


class CheckMemo:
    """One entry's passed content check (module docstring)."""

    def __init__(self) -> None:
        self._state: _State | None = None
        self._action: PlayerAction | None = None

    def passed(self, env: Envelope, epoch: EpochState, head: bytes,
               engine: GameState) -> bool:
        """Whether ``env``'s content passed its check in exactly this state."""
        state = self._state
        return (state is not None and state[0] is env and state[1] is epoch
                and state[2] is epoch.phase and state[3] == head and state[4] is engine
                and state[5] == len(epoch.withheld))

    @property
    def action(self) -> PlayerAction | None:
        """The action of the act that passed (None: a concurrent entry)."""
        return self._action

    def remember(self, env: Envelope, epoch: EpochState, head: bytes, engine: GameState,
                 action: PlayerAction | None) -> None:
        """``env``'s content passed its check in this state (``action``: an act's)."""
        self._state = (env, epoch, epoch.phase, head, engine, len(epoch.withheld))
        self._action = action
