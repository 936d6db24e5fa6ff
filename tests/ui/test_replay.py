"""The replay viewer: a verified record stepped through; the dice shown are the record's."""

from __future__ import annotations

import pygame
import pytest
from consensus.fakenet import FakeNet

from dudo_p2p.consensus.record import RecordViolation, verify_record
from dudo_p2p.rules import Calzo, Dudo, Phase, Raise, RuleSet
from dudo_p2p.rules.legality import count_showing
from dudo_p2p.session.replay import Replay
from dudo_p2p.ui import draw
from dudo_p2p.ui.app import App
from dudo_p2p.ui.i18n import Tr
from dudo_p2p.ui.replay_scene import ReplayScene
from dudo_p2p.ui.request import TableRequest, Unavailable
from dudo_p2p.ui.words import result_lines

from .conftest import FakeClock
from .helpers import TextRecorder, key


@pytest.fixture(scope="module")
def record() -> bytes:
    net = FakeNet(3, RuleSet(starting_dice=3), seed=21)
    net.run()
    assert len(net.heads()) == 1
    return net.machines[0].record(net.genesis, net.signatures)


def test_every_reveal_shows_the_dice_and_result_the_record_holds(record: bytes) -> None:
    replay = Replay.load(record)
    final = replay.final
    reveals = [s.reveal for s in replay.steps if s.reveal is not None]
    assert reveals == list(final.results)  # one reveal step per round, in order
    last = len(replay.steps) - 1
    for index, step in enumerate(replay.steps):
        result = replay.result_of(index)
        shown = replay.dice_at(index)
        if step.reveal is not None:
            assert shown == step.reveal.dice
        elif index == last:
            # the game's end: the last round's dice stay face up under the winner
            assert step.state.phase is Phase.OVER and replay.steps[last - 1].reveal is not None
            assert shown == final.results[-1].dice == replay.shown_result(index).dice  # type: ignore[union-attr]
        else:
            assert shown is None  # under the cups until the reveal...
            from_start = replay.dice_at(index, from_start=True)
            assert from_start == (result.dice if result is not None else None)  # ...unless F
    assert replay.summary.log_hash == verify_record(record).log_hash


def test_the_steps_are_the_bids_and_calls_of_the_record_in_order(record: bytes) -> None:
    replay = Replay.load(record)
    final = replay.final
    assert final.phase is Phase.OVER and final.winner == replay.summary.winner
    calls = [s.action for s in replay.steps if isinstance(s.action, Dudo | Calzo)]
    assert [type(c).__name__.lower() for c in calls] == [r.kind for r in final.results]
    for index, step in enumerate(replay.steps):
        if isinstance(step.action, Raise):
            assert step.state.standing_bid == step.action.bid
            chance = replay.bid_chance(index)
            assert chance is not None and 0.0 <= chance <= 1.0


def test_player_summary_counts_bids_that_held_and_calls_that_were_right(record: bytes) -> None:
    replay = Replay.load(record)
    final = replay.final
    by_round = {r.round_no: r for r in final.results}
    for stats in replay.player_stats():
        raises = [(i, s) for i, s in enumerate(replay.steps)
                  if isinstance(s.action, Raise) and s.action.seat == stats.seat]
        held = sum(
            count_showing([d for hand in by_round[s.round_no].dice for d in hand],
                          s.action.bid.face, wild=replay.steps[i - 1].state.wild)
            >= s.action.bid.count
            for i, s in raises if isinstance(s.action, Raise)
        )
        assert (stats.bids, stats.bids_held) == (len(raises), held)
        doubts = [r for r in final.results if r.kind == "dudo" and r.caller == stats.seat]
        assert stats.doubts == len(doubts)
        assert stats.doubts_right == sum(r.losses.get(stats.seat, 0) == 0 for r in doubts)


def test_an_invalid_record_opens_nothing_and_names_the_item(record: bytes) -> None:
    broken = bytearray(record)
    broken[len(broken) // 2] ^= 0x01
    with pytest.raises(RecordViolation) as caught:
        Replay.load(bytes(broken))
    assert "item" in str(caught.value) or caught.value.index == -1


def _no_tables(request: TableRequest) -> object:
    raise Unavailable("none")


def test_keys_step_by_move_and_by_round_and_the_table_shows_the_dice(
    record: bytes, clock: FakeClock, surface: pygame.Surface
) -> None:
    replay = Replay.load(record)
    app = App(_no_tables, "en", clock, surface=surface)  # type: ignore[arg-type]
    scene = ReplayScene(app, replay)
    app.switch(scene)
    key(app, pygame.K_RIGHT)
    assert scene.index == 1
    key(app, pygame.K_END)
    assert scene.index == len(replay.steps) - 1
    key(app, pygame.K_HOME)
    key(app, pygame.K_DOWN)
    assert scene.index == replay.round_starts()[1]
    reveal_at = next(i for i, s in enumerate(replay.steps) if s.reveal is not None)
    scene.go(reveal_at)
    app.frame()
    assert scene.shown_dice() == replay.steps[reveal_at].reveal.dice  # type: ignore[union-attr]
    scene.go(1)
    assert scene.shown_dice() is None
    key(app, pygame.K_f)
    assert scene.shown_dice() == replay.result_of(1).dice  # type: ignore[union-attr]
    app.frame()  # draws with every die face up
    key(app, pygame.K_ESCAPE)
    assert not app.running


def test_the_replay_command_prints_the_game_and_refuses_a_broken_record(
    record: bytes, tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    from pathlib import Path

    from dudo_p2p.cli.main import main

    folder = Path(str(tmp_path))
    good, bad = folder / "game.dudo", folder / "bad.dudo"
    good.write_bytes(record)
    broken = bytearray(record)
    broken[len(broken) // 3] ^= 0x10
    bad.write_bytes(bytes(broken))
    assert main(["replay", str(good), "--text"]) == 0
    out = capsys.readouterr().out
    replay = Replay.load(record)
    assert f"log hash {replay.summary.log_hash}" in out
    assert out.count("reveal [") == len(replay.final.results)
    assert main(["replay", str(bad), "--text"]) == 1
    assert "INVALID" in capsys.readouterr().err
    assert main(["replay", str(folder / "missing.dudo")]) == 2
    shot = folder / "step.png"
    assert main(["replay", str(good), "--screenshot", str(shot), "--step", "5"]) == 0
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_every_step_moves_something_from_the_first_bid_to_the_winner(
    record: bytes, clock: FakeClock, surface: pygame.Surface,
    monkeypatch: pytest.MonkeyPatch
) -> None:
    # session 10 (watchux): the record began with two identical "Round 1 begins" steps (the
    # table before and after its opener was drawn), so the first → changed nothing; and End
    # showed "Round N begins", the last bid that was already called, and every cup down
    replay = Replay.load(record)
    assert replay.steps[0].state.phase is Phase.BIDDING and replay.steps[0].action is None
    assert isinstance(replay.steps[1].action, Raise)
    app = App(_no_tables, "en", clock, surface=surface)  # type: ignore[arg-type]
    scene = ReplayScene(app, replay)
    app.switch(scene)
    recorder = TextRecorder()
    monkeypatch.setattr(draw, "text", recorder)
    key(app, pygame.K_END)
    shown = recorder.frame(app)
    final = replay.final
    winner = replay.names[final.winner]  # type: ignore[index]
    assert "The game is over" in shown and f"{winner} wins" in shown
    assert not any(line.startswith("Round ") and line.endswith(" begins") for line in shown)
    last_bid = final.results[-1].bid
    assert last_bid is not None and last_bid.spoken("en") not in shown  # called: not standing
    assert scene.shown_dice() == final.results[-1].dice
    # the winner's line sits below the result's lines, never on one of them
    lines = [rect for message, rect, _ in recorder.drawn
             if message in result_lines(app.tr, replay.names, final.results[-1])]
    crown = next(rect for message, rect, _ in recorder.drawn if message == f"{winner} wins")
    assert lines and all(not crown.colliderect(rect) for rect in lines)


@pytest.mark.parametrize("lang", ["es", "en"])
def test_a_bids_chance_keeps_its_number_and_percent_sign_on_one_line(lang: str) -> None:
    # seen in Spanish: "...tenía un 100" and "% de ser cierta" on the next line
    tr = Tr(lang)
    for pct in range(101):
        for width in range(200, 330, 3):
            for line in draw.wrap(tr("replay.chance", pct=pct), 20, width):
                assert not line.startswith("%"), (pct, width, line)


def test_the_text_replay_names_the_winner(
    record: bytes, tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    from pathlib import Path

    from dudo_p2p.cli.main import main

    good = Path(str(tmp_path)) / "game.dudo"
    good.write_bytes(record)
    assert main(["replay", str(good), "--text"]) == 0
    replay = Replay.load(record)
    winner = replay.names[replay.final.winner]  # type: ignore[index]
    assert f"\n{winner} wins\n" in capsys.readouterr().out


def test_a_seat_removed_as_its_round_resolved_is_said_and_its_unshown_bid_has_no_chance(
    clock: FakeClock, surface: pygame.Surface, monkeypatch: pytest.MonkeyPatch
) -> None:
    # session 10 (watchux): p2 crashes during round 2; the table removes it as that round
    # resolves (its dice never come out: none in the result). The viewer only dimmed its
    # plate (no "p2 leaves the table"), and gave its bid a chance from no dice (3 %)
    net = FakeNet(3, RuleSet(starting_dice=3), seed=5)
    net.run_until(lambda: any(len(m.replica.engine.bids) > 2 for m in net.machines
                              if m is not None))
    net.crash(2)
    net.run()
    replay = Replay.load(net.machines[0].record(net.genesis, net.signatures))
    assert not replay.final.alive[2]
    (gone,) = [i for i, s in enumerate(replay.steps) if s.removed is not None]
    assert replay.steps[gone].removed == 2
    resolved = replay.steps[gone - 1].reveal
    assert resolved is not None and resolved.dice[2] == () and 2 not in resolved.eliminated
    assert replay.steps[gone].round_no == resolved.round_no  # said in the round it left
    assert gone + 1 in replay.round_starts()  # and the next round starts after it
    theirs = [i for i, s in enumerate(replay.steps)
              if isinstance(s.action, Raise) and s.action.seat == 2
              and s.round_no == resolved.round_no]
    assert theirs and all(replay.bid_chance(i) is None for i in theirs)
    app = App(_no_tables, "en", clock, surface=surface)  # type: ignore[arg-type]
    scene = ReplayScene(app, replay)
    app.switch(scene)
    scene.go(gone)
    recorder = TextRecorder()
    monkeypatch.setattr(draw, "text", recorder)
    assert "p2 leaves the table" in recorder.frame(app)
    # the round dealt after it was called off (no result): said at the next round's start,
    # as a seat's window said it, instead of round 4 silently following round 2
    nxt = gone + 1
    voided = list(replay.voided_before(nxt))
    assert voided == list(range(resolved.round_no + 1, replay.steps[nxt].round_no)) != []
    assert all(r.round_no not in voided for r in replay.final.results)
    assert not any(replay.voided_before(i) for i in replay.round_starts() if i != nxt)
    scene.go(nxt)
    shown = recorder.frame(app)
    assert f"Round {voided[0]} called off: the dice are dealt again" in shown
