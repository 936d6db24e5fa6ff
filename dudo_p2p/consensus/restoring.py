"""A seat's machine rebuilt from its journal after a crash (protocol.md §4.7).

:func:`replay_journal` feeds a fresh machine's collaborators the journal's records: the
chain is replayed through the same checks as live entries (acts with their certificates,
removals at the epoch they name), our secrets and our own unagreed act are taken back (so
we re-send the very same entries, never different ones, which would be equivocation), and
the machine's first effects ask the table for whatever we missed. Pure: the caller reads
the journal and hands the records in.
"""

from __future__ import annotations

from dudo_p2p.consensus import journal
from dudo_p2p.consensus.catchup import CatchUp
from dudo_p2p.consensus.effects import Effects, Log, Send
from dudo_p2p.consensus.intake import LogIntake
from dudo_p2p.consensus.phases import Phases
from dudo_p2p.consensus.removal import Removals
from dudo_p2p.consensus.replica import ChainItem
from dudo_p2p.consensus.secrets import EpochSecrets


def replay_journal(records: list[bytes], now: float, intake: LogIntake, removals: Removals,
                   phases: Phases, catchup: CatchUp) -> Effects:
    """Take ``records`` into a fresh machine's collaborators; yields its first effects.
    Raises RemoteProtocolError on a journal that does not replay."""
    ctx = intake.ctx
    rep = ctx.replica
    own: list[bytes] = []
    for record in journal.read_journal(records):
        match record:
            case journal.Item(data):
                rep.replay([ChainItem(rep.epoch.number, b"", data)], ctx.open)
            case journal.Agreed(data, acks):
                rep.replay([ChainItem(rep.epoch.number, b"", data)], ctx.open)
                intake.act_certs[rep.chain[-1].digest] = acks
            case journal.Removal(epoch, target, reason, votes):
                removals.votes.certificates[(epoch, target)] = votes
                # at the epoch it names: a removal joined to the epoch just voided by
                # another (§4.6) would otherwise be chained as one of the next epoch
                rep.remove(target, reason, epoch)
            case journal.Secrets(fields):
                phases.secrets = EpochSecrets.from_record(fields)
            case journal.Own(data):
                own.append(data)
            case journal.Abandoned(seat, _, claims):
                removals.abandoned, removals.abandoned_by = claims, seat
    intake.persisted_len = len(rep.chain)
    rep.spilled = []  # in the journal already
    intake.seen = {item.digest for item in rep.chain}
    if phases.secrets is not None and phases.secrets.epoch != rep.epoch.number:
        phases.secrets = None
    removals.hold.restored(rep)  # our acks are not journalled (removal_hold.py)
    yield Log("info", f"restored {len(rep.chain)} entries from the journal")
    for data in own:
        env = ctx.open(data)
        if env.round_no == rep.epoch.number and env.seq == rep.epoch.acts:
            phases.own_current = data
            yield Send(data)
            yield from intake.consider(env, now)
    yield from catchup.ask_everyone(now)
