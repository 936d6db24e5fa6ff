"""Every way an epoch's phase, or a lobby's, may change: two tables (protocol.md §4, §4.9;
issue 19).

An epoch is one deal of the table log (:mod:`~dudo_p2p.consensus.replica`). Its phase changes
only through :func:`next_phase`, which reads :data:`EPOCH_TRANSITIONS`: the phase it is in, the
:class:`Trigger` that happened (an act chained, a concurrent phase completed, a removal), and
the phase that follows. A trigger the table does not list for a phase is our own bug, never a
peer's (the replica decides triggers from entries it has already checked), so it raises
AssertionError. As in h11's ``_state.py``, everything that moves an epoch is here, and the
code that chains entries only names what happened.

The table, read row by row (:data:`DEAL` is "deal again": the next epoch, which opens in SETUP
when the engine awaits the opener's choices and in COMMIT otherwise, or OVER, in this epoch,
when one seat is left: :func:`deal_phase`)::

    SETUP    CHOSEN -> COMMIT                      the opener's choices are chained
    COMMIT   COMMITTED -> NONCE                    every seat's commit is chained
    NONCE    SEEDED -> BIDDING                     the nonces give the round seed
             OPENER_DRAWN -> DEAL                  ... which drew the opener instead
    BIDDING  CALLED -> REVEAL                      a call is chained
             WON -> OVER                           an act ended the game
    REVEAL   RESOLVED -> SIGN                      every reveal (or enough: withheld.py)
             REBUILD -> RECOVER                    a withheld key matters and can be rebuilt
    RECOVER  RESOLVED -> SIGN                      the withheld keys were rebuilt
    SIGN     SIGNED -> DEAL                        every seat signed the result
             WON -> OVER                           ... of the game's last round
    after the call (REVEAL, RECOVER, SIGN)
             WITHHELD -> REVEAL                    a seat removed: its reveal is set aside
    any phase
             VOIDED -> DEAL                        a removal voids the epoch

The lobby (:mod:`~dudo_p2p.consensus.lobby`, before a game: a host gathering seats, a joiner
seeking one) moves through :data:`LOBBY_TRANSITIONS` with :func:`lobby_move` the same way::

    SEEKING    WELCOMED -> GATHERING      a host took us (joiner)
    GATHERING  PROPOSED -> SIGNING        a genesis is held: ours (host), or the host's
               LOST_HOST -> SEEKING       our host went silent or refused us (joiner)
    SIGNING    PROPOSED -> SIGNING        the host's different genesis replaces ours (joiner)
               WITHDRAWN -> GATHERING     a seat never signed or left: gather again
               SIGNED -> SEATED           every seat's signature is in: the game runs
               LOST_HOST -> SEEKING       our host went silent or refused us (joiner)
    SEATED     (the game runs; a peer restarted from its journal starts here)

Pure data and small functions: no I/O, no clock.
"""

from __future__ import annotations

import enum
from typing import Final

from dudo_p2p.protocol.kinds import Commit, KeyShare, Nonce, ResultSign, Reveal
from dudo_p2p.protocol.messages import Message
from dudo_p2p.rules import Phase


class EpochPhase(enum.Enum):
    """Where the current epoch stands (see :mod:`~dudo_p2p.consensus.replica`)."""

    SETUP = "setup"
    COMMIT = "commit"
    NONCE = "nonce"
    BIDDING = "bidding"
    REVEAL = "reveal"
    RECOVER = "recover"
    SIGN = "sign"
    OVER = "over"


class Trigger(enum.Enum):
    """What happened to the epoch (the rows of :data:`EPOCH_TRANSITIONS`)."""

    CHOSEN = "the opener's choices are chained (the engine left SETUP)"
    COMMITTED = "every member's commit is chained"
    SEEDED = "every member's nonce is chained: the round seed exists"
    OPENER_DRAWN = "the round seed drew the opener (epoch 0, or a draw voided)"
    CALLED = "a call is chained (the engine awaits the dice)"
    WON = "the engine says one seat is left"
    RESOLVED = "the round resolved with every dice key needed"
    REBUILD = "a withheld dice key matters and the members can rebuild it"
    SIGNED = "every member signed the result"
    WITHHELD = "a seat was removed after the call"
    VOIDED = "a removal voids the epoch"


class Deal(enum.Enum):
    """The target "deal again" (:func:`deal_phase` says which phase that is)."""

    DEAL = "deal"


DEAL: Final = Deal.DEAL

S = EpochPhase
T = Trigger
# every legal transition (module docstring); VOIDED from OVER happens only in a record
# replayed offline: a live machine removes nobody once the game is over
EPOCH_TRANSITIONS: Final[dict[EpochPhase, dict[Trigger, EpochPhase | Deal]]] = {
    S.SETUP: {T.CHOSEN: S.COMMIT, T.VOIDED: DEAL},
    S.COMMIT: {T.COMMITTED: S.NONCE, T.VOIDED: DEAL},
    S.NONCE: {T.SEEDED: S.BIDDING, T.OPENER_DRAWN: DEAL, T.VOIDED: DEAL},
    S.BIDDING: {T.CALLED: S.REVEAL, T.WON: S.OVER, T.VOIDED: DEAL},
    S.REVEAL: {T.RESOLVED: S.SIGN, T.REBUILD: S.RECOVER, T.WITHHELD: S.REVEAL, T.VOIDED: DEAL},
    S.RECOVER: {T.RESOLVED: S.SIGN, T.WITHHELD: S.REVEAL, T.VOIDED: DEAL},
    S.SIGN: {T.SIGNED: DEAL, T.WON: S.OVER, T.WITHHELD: S.REVEAL, T.VOIDED: DEAL},
    S.OVER: {T.VOIDED: DEAL},
}
del S, T

# the phases of an epoch whose call is chained: a removal then works on the reveals
AFTER_CALL = (EpochPhase.REVEAL, EpochPhase.RECOVER, EpochPhase.SIGN)

# the concurrent phases and the entry each takes from every member
CONCURRENT: Final[dict[EpochPhase, type[Message]]] = {
    EpochPhase.COMMIT: Commit,
    EpochPhase.NONCE: Nonce,
    EpochPhase.REVEAL: Reveal,
    EpochPhase.RECOVER: KeyShare,
    EpochPhase.SIGN: ResultSign,
}


def next_phase(phase: EpochPhase, trigger: Trigger) -> EpochPhase | Deal:
    """The phase that follows ``phase`` on ``trigger`` (:data:`DEAL`: deal again); raises
    AssertionError for a transition the table does not list (our own bug)."""
    target = EPOCH_TRANSITIONS[phase].get(trigger)
    if target is None:
        raise AssertionError(f"no transition from {phase.value} on {trigger.name}")
    return target


def deal_phase(engine: Phase) -> EpochPhase:
    """Where dealing again leads, from the engine's phase: OVER when one seat is left (the
    epoch ends there), else the next epoch's first phase."""
    if engine is Phase.OVER:
        return EpochPhase.OVER
    return EpochPhase.SETUP if engine is Phase.SETUP else EpochPhase.COMMIT


def act_trigger(phase: EpochPhase, engine: Phase) -> Trigger | None:
    """What an act just chained in ``phase`` did, from the engine's phase after it; None
    when the epoch stays where it is (a bid, or one of several opener choices)."""
    if phase is EpochPhase.SETUP and engine is not Phase.SETUP:
        return Trigger.CHOSEN
    if phase is EpochPhase.BIDDING and engine is Phase.REVEAL:
        return Trigger.CALLED
    if engine is Phase.OVER:
        return Trigger.WON
    return None


class LobbyPhase(enum.Enum):
    """Where a peer stands in the lobby's handshake (``consensus.lobby.Phase``)."""

    SEEKING = "seeking"  # joiner: saying hello, not welcomed yet
    GATHERING = "gathering"  # host: seats free; joiner: welcomed, waiting for the genesis
    SIGNING = "signing"  # holds a genesis, collecting the seats' signatures
    SEATED = "seated"  # every signature in: the game runs


class LobbyTrigger(enum.Enum):
    """What happened in the lobby (the rows of :data:`LOBBY_TRANSITIONS`)."""

    WELCOMED = "a host welcomed us to a seat"
    PROPOSED = "a genesis is held (ours as host, the host's as joiner)"
    WITHDRAWN = "the genesis being signed was withdrawn: gather again"
    SIGNED = "every seat signed the genesis"
    LOST_HOST = "our host went silent or refused us"


L = LobbyPhase
G = LobbyTrigger
# every legal transition of the lobby (module docstring)
LOBBY_TRANSITIONS: Final[dict[LobbyPhase, dict[LobbyTrigger, LobbyPhase]]] = {
    L.SEEKING: {G.WELCOMED: L.GATHERING},
    L.GATHERING: {G.PROPOSED: L.SIGNING, G.LOST_HOST: L.SEEKING},
    L.SIGNING: {G.PROPOSED: L.SIGNING, G.WITHDRAWN: L.GATHERING, G.SIGNED: L.SEATED,
                G.LOST_HOST: L.SEEKING},
    L.SEATED: {},
}
del L, G


def lobby_move(phase: LobbyPhase, trigger: LobbyTrigger) -> LobbyPhase:
    """The lobby phase that follows ``phase`` on ``trigger``; AssertionError for a
    transition :data:`LOBBY_TRANSITIONS` does not list (our own bug: the lobby decides its
    triggers from frames it has already checked)."""
    target = LOBBY_TRANSITIONS[phase].get(trigger)
    if target is None:
        raise AssertionError(f"no lobby transition from {phase.value} on {trigger.name}")
    return target
