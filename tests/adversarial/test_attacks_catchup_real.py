"""Catch-up attacks over real ZeroMQ links (issue 21 §3, §7): honest ``dudo-p2p host``/``bot``
processes on loopback, the hostile node of the test process in the last seat.

The same attacks, scripted on the in-memory network, are in
tests/consensus/test_consensus_catchup_attacks.py.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from consensus.test_consensus_withheld import outcomes
from node_helpers import Peer

from dudo_p2p.bots import make_bot
from dudo_p2p.consensus.machine import TableMachine
from dudo_p2p.consensus.record import verify_record
from dudo_p2p.consensus.replica import Replica
from dudo_p2p.crypto.dice import derive_dice
from dudo_p2p.protocol.envelope import Envelope
from dudo_p2p.protocol.kinds import Ack, Act, Heartbeat, Reveal, SyncReply
from dudo_p2p.rules import GameState, PlayerAction, Raise

from .hostile import HostileNode, Out, drive, opened
from .table import open_table

pytestmark = pytest.mark.e2e

BEAT_EVERY = 0.1  # the hostile's heartbeats to the victim: ten times the honest rate


def test_acks_withheld_from_one_seat_do_not_get_it_removed(
    tmp_path: Path, peers: list[Peer], hostiles: list[HostileNode]
) -> None:
    """The hostile seat sends its acks of acts to everyone but the victim (a bot), never
    answers the victim's sync-requests, and beats to the victim ten times a second so its
    heartbeat is always the first to show a longer log. Before: the victim asked only the
    hostile, never caught up, and the host and the hostile voted it out for 'timeout'. Now
    the victim asks the seats ahead of it in turn; the host answers with each act and the
    acks that made it final (the withheld one included); the game ends with the victim
    seated to the end, or beaten by the dice, never removed."""
    table = open_table(tmp_path, peers, hostiles, 3, seed=6)
    node = table.hostile
    me = node.table.seat
    victim = next(s for s in node.honest_seats() if s != 0)  # the bot; seat 0 is the host
    withheld = [0]

    def tamper(node: HostileNode, frame: bytes, to: int | None) -> Out:
        env = opened(frame)
        if env is None:
            return [(frame, to)]
        if isinstance(env.body, SyncReply) and to == victim:
            return []
        if isinstance(env.body, Ack) and (inner := opened(env.body.entry)) is not None \
                and isinstance(inner.body, Act):
            withheld[0] += 1
            return [(frame, s) for s in node.honest_seats() if s != victim and to in (None, s)]
        return [(frame, to)]

    last_beat = [0.0]

    def beat(node: HostileNode) -> None:
        m = node.machine
        if m is None or m.over or time.monotonic() - last_beat[0] < BEAT_EVERY:
            return
        last_beat[0] = time.monotonic()
        beats = m.beats  # our own counter: every heartbeat of ours is fresh on its link
        beats.counter += 1
        beat = Heartbeat(m.replica.head, len(m.replica.chain), beats.counter,
                         m.seating.pubs[victim], beats.links.get(victim, b""))
        node.send_raw(node.seal(beat), victim)

    node.tamper = tamper
    drive(node, lambda: all(p.proc.poll() is not None for p in table.honest), 150,
          each_step=beat)
    summaries = table.finish()
    assert withheld[0] > 0, "the hostile never acked an act"
    removals = table.record().removals
    assert victim not in [seat for seat, _ in removals], (removals, table.log())
    for peer in table.honest:
        assert "bot1 left" not in table.log(peer) and "b1 left" not in table.log(peer), \
            peer.explain()
    assert summaries[0]["winner"] is not None
    assert me is not None


def state_at_call(m: TableMachine) -> GameState:
    """The engine just after the call of the current epoch (its reveals are chained): the
    chain up to its first reveal, replayed."""
    chain = m.replica.chain
    first = next(i for i in range(m.replica.epoch.anchor_index, len(chain))
                 if (e := opened(chain[i].data)) is not None and isinstance(e.body, Reveal))
    again = Replica(m.seating)
    again.replay(chain[:first], m.open_frame)
    return again.engine


@pytest.mark.parametrize("dice_matter", [False, True], ids=["dice-cannot-matter", "dice-matter"])
def test_a_withheld_reveal_does_not_undo_the_loss(
    tmp_path: Path, peers: list[Peer], hostiles: list[HostileNode], dice_matter: bool
) -> None:
    """The hostile seat holds its reveal back until it has the others' keys, computes the
    outcome and, in the kind of round the case wants, never reveals (the colluder's move of
    issue 21 §7: it would do so when its partner loses); otherwise it reveals late and tries
    the next round.

    - dice-cannot-matter: the loss is the same whatever its own dice are. To make such
      rounds come (honest bots bid close to the odds, where three hidden dice nearly always
      matter) it bids the whole table's dice count whenever it may. The round resolves as
      if revealed.
    - dice-matter: its dice decide the outcome (a normal round of three seats: its key was
      dealt at COMMIT, §3.7). The host and the bot publish their shares, rebuild its key,
      and the round resolves with its **real** dice.

    Before: it lost its seat but the round was voided and dealt again, and the loser kept
    its die. Now the host's record shows the very loss (and, when its dice matter, the very
    hand) its true key gave, and the hostile is removed."""
    table = open_table(tmp_path, peers, hostiles, 3, seed=7)
    node = table.hostile
    me = node.table.seat
    held: list[tuple[bytes, int | None]] = []
    attack: dict[str, object] = {}

    def mine(env: Envelope | None) -> Envelope | None:
        """Our own reveal, sent as itself or inside an ack."""
        if env is not None and isinstance(env.body, Ack):
            env = opened(env.body.entry)
        ok = env is not None and env.author == node.identity.public_key
        return env if ok and env is not None and isinstance(env.body, Reveal) else None

    def tamper(node: HostileNode, frame: bytes, to: int | None) -> Out:
        env = opened(frame)
        if attack.get("epoch") is not None and env is not None and isinstance(env.body,
                                                                               SyncReply):
            return []  # nor in catch-up
        reveal = mine(env)
        if reveal is None or reveal.round_no in released:
            return [(frame, to)]
        if reveal.round_no == attack.get("epoch"):
            return []
        held.append((frame, to))
        return []

    released: set[int] = set()
    tried: list[object] = []

    def decide(node: HostileNode) -> None:
        m = node.machine
        if m is None or m.over or not held or "epoch" in attack:
            return
        first = mine(opened(held[0][0]))
        assert first is not None
        ep = m.replica.epoch
        if ep.number != first.round_no or not ep.keys:
            return  # the others' keys are not all in yet
        at_call = state_at_call(m)
        assert ep.seed is not None
        others = [s for s in ep.participants if s != me]
        known = {s: derive_dice(ep.keys[s], m.seating.game_id, ep.number, s, ep.seed,
                                at_call.dice_counts[s]) for s in others}
        truth = m.replica.engine.results[-1]
        possible = len(outcomes(at_call, known, me))
        tried.append((ep.number, possible, truth.losses))
        wanted = possible > 1 and m.replica.deals_keys() if dice_matter else possible == 1
        if m.replica.palifico_mode()[0] == "normal" and wanted:
            attack.update(epoch=ep.number, round=truth.round_no, losses=truth.losses,
                          hand=truth.dice[me])
            held.clear()
            return
        released.add(first.round_no)
        for frame, to in held:
            node.send_raw(frame, to)
        held.clear()

    bot = make_bot("easy", random.Random(7))

    def play(node: HostileNode) -> None:
        decide(node)
        m = node.machine
        legal = m.legal_actions() if m is not None and not m.over else []
        if m is None or not legal:
            return
        raises = [a for a in legal if isinstance(a, Raise)]
        top = max(raises, key=lambda a: a.bid.count) if raises else None
        total = sum(m.replica.engine.dice_counts)
        if top is not None and top.bid.count >= total and "epoch" not in attack \
                and not dice_matter:
            action: PlayerAction = top
        else:
            action = bot.decide(m.view(), list(legal))  # type: ignore[assignment]
        node.carry_out(m.submit(action, node.clock()))

    node.tamper = tamper
    drive(node, lambda: all(p.proc.poll() is not None for p in table.honest), 150,
          play=False, each_step=play)
    summaries = table.finish(hostile_plays=False)
    assert "epoch" in attack, f"no round to attack in a whole game: {summaries[0]} {tried}"
    assert (me, "timeout") in table.record().removals
    (path,) = sorted(table.records.glob("*.dudo"))
    engines: list[GameState] = []
    verify_record(path.read_bytes(), observe=lambda _, engine: engines.append(engine))
    results = {r.round_no: r for r in engines[-1].results}
    assert attack["round"] in results, "the round was voided: the withholding undid the loss"
    got = results[attack["round"]]  # type: ignore[index]
    assert got.losses == attack["losses"], table.log()
    assert got.dice[me] == (attack["hand"] if dice_matter else ()), table.log()
