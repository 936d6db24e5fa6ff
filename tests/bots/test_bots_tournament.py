"""The tournament command: seat rotation, shared dice seeds, output shape, a strong effect."""

from __future__ import annotations

import argparse
import json

import pytest

from dudo_p2p.bots import tournament
from dudo_p2p.errors import InvalidValue


def test_lineup_pads_with_the_last_level() -> None:
    assert tournament.lineup(["expert", "normal"], 4) == ("expert", "normal", "normal", "normal")
    with pytest.raises(InvalidValue):
        tournament.lineup(["a", "b", "c"], 2)


def test_each_block_seats_every_level_in_every_seat_with_the_same_dice() -> None:
    base = ("expert", "normal", "normal", "normal")
    for block in range(3):
        games = range(block * 4, block * 4 + 4)
        seats = [tournament.seating(base, g) for g in games]
        # the expert visits each of the four seats exactly once per block
        assert sorted(s.index("expert") for s in seats) == [0, 1, 2, 3]
        # and the dice stream is the same for the whole block, different across blocks
        assert len({tournament.dice_seed(9, g, 4) for g in games}) == 1
    assert tournament.dice_seed(9, 0, 4) != tournament.dice_seed(9, 4, 4)


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    tournament.add_parser(sub)
    args = parser.parse_args(["tournament", *argv])
    code = args.handler(args)
    return code, capsys.readouterr().out


def test_smoke_json_shape_and_normal_beats_random(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(
        capsys,
        ["--players", "2", "--games", "40", "--bots", "normal,random", "--seed", "3",
         "--workers", "1", "--rule", "starting_dice=3", "--json"],
    )
    assert code == 0
    summary = json.loads(out.strip().splitlines()[-1])
    assert set(summary) == {"games", "win_rate", "ci95"}
    assert summary["games"] == 40
    assert set(summary["win_rate"]) == {"normal", "random"}
    assert summary["win_rate"]["normal"] + summary["win_rate"]["random"] == pytest.approx(1.0)
    lo, hi = summary["ci95"]["normal"]
    assert lo <= summary["win_rate"]["normal"] <= hi
    assert lo > 0.75  # a strong effect, visible at 40 games
    assert "Elo difference normal - random" in out


def test_bad_arguments_exit_with_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = _run(capsys, ["--bots", "normal,grandmaster", "--workers", "1", "--games", "2"])
    assert code == 2
    code, _ = _run(capsys, ["--bots", "normal", "--rule", "nonsense=1", "--workers", "1"])
    assert code == 2
