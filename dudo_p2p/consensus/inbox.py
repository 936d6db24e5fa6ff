"""Receiving a frame (protocol.md §4.10, §6): from bytes on the wire to the collaborator it
concerns.

:class:`Inbox` is the collaborator of :class:`~dudo_p2p.consensus.machine.TableMachine` that
takes every frame a peer sends: a relay of an entry we hold is dropped before its signature
is checked; the rest is authenticated, refused when it is not bound to its context (an ack
or a vote of another epoch or slot, a replay, a proof or sync with a seq other than 0) and
dispatched by kind: acks to the intake (an act's ack counts towards its agreement), votes,
proofs and bad deals to removals, heartbeats and sync to catch-up, talk to the talk book,
log entries to the intake. A signed vote also shows a cut (:mod:`~dudo_p2p.consensus.cuts`),
and a frame of a seat cut from a voter is sent on to it. Nothing from the wire raises out of
:meth:`Inbox.receive`: a refusal is a ``Log`` effect. Its effects are yielded as they are
made, so a step that raises part-way keeps those made before it.
"""

from __future__ import annotations

from dudo_p2p.consensus import events as ev
from dudo_p2p.consensus.bindings import ReplayGuard, check_ack, check_vote
from dudo_p2p.consensus.catchup import CatchUp
from dudo_p2p.consensus.context import SeatContext
from dudo_p2p.consensus.cuts import Cuts
from dudo_p2p.consensus.effects import Effects, Emit, Log, Send
from dudo_p2p.consensus.intake import LogIntake
from dudo_p2p.consensus.liveness import check_addressed
from dudo_p2p.consensus.reasons import Reason
from dudo_p2p.consensus.removal import Removals
from dudo_p2p.consensus.talk import TalkBook
from dudo_p2p.consensus.timers import Timers
from dudo_p2p.errors import DudoError, RemoteProtocolError
from dudo_p2p.protocol.envelope import Envelope, peek
from dudo_p2p.protocol.kinds import (
    Ack,
    Act,
    BadDeal,
    Bye,
    Heartbeat,
    Proof,
    SyncReply,
    SyncRequest,
    Talk,
    Vote,
)


class Inbox:
    """Frames in: checked, then handed to the collaborator they concern (module docstring)."""

    def __init__(self, ctx: SeatContext, timers: Timers, intake: LogIntake, removals: Removals,
                 catchup: CatchUp, cuts: Cuts, replays: ReplayGuard, talk: TalkBook) -> None:
        self.ctx = ctx
        self.timers = timers
        self.intake = intake
        self.removals = removals
        self.catchup = catchup
        self.cuts = cuts
        self.replays = replays
        self.talk = talk

    def receive(self, frame: bytes, now: float) -> Effects:
        """The effects of one frame from the wire (not a :meth:`duplicate_relay`); bad input
        becomes a Log effect, never an exception."""
        ctx = self.ctx
        try:
            # through the cache of verified frames: an entry opened here comes back inside
            # the first ack of it, and is not verified a second time then (context.py)
            env = ctx.open(frame)
        except RemoteProtocolError as exc:
            yield Log("warning", f"rejected frame: {type(exc).__name__}: {exc}")
            return
        author = ctx.seat_of(env.author)  # known_authors guarantees it
        if author == ctx.seat:
            return  # our own message relayed back
        if isinstance(env.body, Vote):
            yield from self._note_cut(author, env.body, now)
        try:
            self._check_context(env)
        except RemoteProtocolError as exc:
            # refused before it counts for anything, a sign of life included (§6)
            yield Log("info", f"refused {env.kind} of seat {author}: {exc}")
            if isinstance(env.body, Ack):
                # a re-sent ack still shows that its author holds the entry it acks: the
                # table went on with a seat we voted out since we first took that ack (a
                # one-way cut: our vote came after the ack, and only its re-sends follow)
                yield from self._observe_refused_ack(author, env.body, now)
            return
        # no "heard" here: a signed frame may come from anyone holding a copy (liveness.py)
        try:
            yield from self._dispatch(author, env, now)
        except DudoError as exc:  # remote faults, and illegal actions a peer signed
            yield Log("warning", f"rejected {env.kind} from seat {author}: {exc}")
            return
        for seat in self.cuts.relay_to(author, env.kind, env.digest()):  # cuts.py
            yield Send(frame, to=seat)

    def duplicate_relay(self, frame: bytes) -> bool:
        """An ack relaying a commit, nonce, reveal or result-sign we already hold changes
        nothing, so it is dropped before its signature is checked (n - 2 of every n - 1
        relays are such duplicates). Acks of acts always count: they are votes."""
        peeked = peek(frame, body=True)
        if peeked is None or peeked.kind != "ack":
            return False
        body = peeked.body
        entry = body.get("entry") if isinstance(body, dict) else None
        held = self.ctx.verified.get(entry) if isinstance(entry, bytes) else None
        return (held is not None and not isinstance(held.body, Act)
                and held.digest() in self.intake.seen)

    def _observe_refused_ack(self, author: int, ack: Ack, now: float) -> Effects:
        try:
            inner = self.ctx.open(ack.entry)
        except RemoteProtocolError:
            return  # the refusal already said why
        if self.ctx.seating.seat_of(inner.author) not in (None, self.ctx.seat):
            yield from self.removals.observe_relay(author, inner, self.intake.seen, now)

    def _note_cut(self, voter: int, vote: Vote, now: float) -> Effects:
        """A signed vote, even one of an epoch we left (stale for the tally, it still says
        what its author hears): a seat we hear voted out for silence is cut off from its
        voter, and we relay its entries to it from now on (:mod:`~dudo_p2p.consensus.cuts`)."""
        target = self.ctx.seating.seat_of(vote.target)
        if target is None:
            return
        heard = not self.timers.silent(target, now)
        if self.cuts.note(voter, target, Reason.parse(vote.reason), heard):
            yield Log("info", f"seat {voter} votes seat {target} out, which we hear: we relay "
                              "that seat's entries to it")

    def _check_context(self, env: Envelope) -> None:
        """RemoteProtocolError for an ack or a vote not bound to what it is about, of an
        epoch we have left, or taken before (a replay; :mod:`~dudo_p2p.consensus.bindings`),
        and for a proof, sync or bye with a seq other than 0 (protocol.md §4.10)."""
        rep = self.ctx.replica
        if isinstance(env.body, Proof | BadDeal | SyncRequest | SyncReply | Bye) and env.seq != 0:
            raise RemoteProtocolError(f"a {env.kind} travels with seq 0, not {env.seq}")
        if isinstance(env.body, Ack):
            inner = self.ctx.open(env.body.entry)
            check_ack(env, inner)
            if env.round_no < rep.epoch.number or (
                isinstance(inner.body, Act) and env.round_no == rep.epoch.number
                and env.seq < rep.epoch.acts
            ):
                raise RemoteProtocolError(f"stale: an ack of ({env.round_no}, {env.seq})")
        elif isinstance(env.body, Vote):
            check_vote(env, self.ctx.seating)
            if rep.removal_epoch(env.round_no) is None:
                raise RemoteProtocolError(f"stale: a vote of epoch {env.round_no}")
        else:
            return
        if self.replays.replayed(env):
            raise RemoteProtocolError("a replay of a frame already taken")

    def _dispatch(self, author: int, env: Envelope, now: float) -> Effects:
        """Hand a checked frame to the collaborator it concerns; its effects as they are made
        (a step that raises comes after those of the steps before it)."""
        ctx, intake, removals = self.ctx, self.intake, self.removals
        body = env.body
        match body:
            case Ack(entry=entry):
                epoch = ctx.replica.epoch.number
                inner = ctx.open(entry)
                inner_author = ctx.seating.seat_of(inner.author)
                if inner_author is not None and inner_author != ctx.seat:
                    yield from removals.observe_relay(author, inner, intake.seen, now)
                    yield from intake.consider(inner, now)
                if isinstance(inner.body, Act) and inner.round_no == epoch:
                    self.replays.take(env)
                    yield from intake.take_ack(author, env, inner, now)
                elif inner.round_no == epoch and inner.digest() in intake.seen:
                    self.replays.take(env)
            case Vote():
                yield from removals.take_vote(author, env, now)
            case Proof(first=first, second=second):
                yield from removals.cheats.take_proof(first, second, now)
            case BadDeal():
                yield from removals.cheats.take_bad_deal(author, env, now)
            case Heartbeat(head=head, length=length):
                check_addressed(body, ctx.identity.public_key)
                yield from self.catchup.take_heartbeat(author, head, length, now)
            case SyncRequest(have=have):
                yield from self.catchup.answer_sync(author, have, now)
            case SyncReply(start=start, entries=entries, more=more):
                yield from self.catchup.take_reply(author, start, entries, more, now)
            case Bye():
                yield from removals.vote(author, Reason.QUIT, now)
            case Talk(phrase=phrase):  # table talk: shown or dropped, never in the log
                why = self.talk.take(author, env, ctx.replica.epoch.number, now)
                yield (Emit(ev.TalkHeard(author, phrase)) if why is None
                       else Log("info", f"dropped talk of seat {author}: {why}"))
            case _:
                yield from intake.consider(env, now)
