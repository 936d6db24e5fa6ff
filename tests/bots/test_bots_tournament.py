"""The tournament command: seat rotation, shared dice seeds, output shape, a strong effect."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

from dudo_p2p.bots import tournament, tournament_cli
from dudo_p2p.bots.stats import wilson_interval
from dudo_p2p.errors import InvalidValue
from dudo_p2p.rules import RuleSet


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
    tournament_cli.add_parser(sub)
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


def test_pool_members_are_seated_and_a_strong_effect_shows(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out = _run(
        capsys,
        ["--players", "2", "--games", "60", "--bots", "normal,pool:binomial", "--seed", "3",
         "--workers", "1", "--json"],
    )
    assert code == 0
    summary = json.loads(out.strip().splitlines()[-1])
    assert set(summary["win_rate"]) == {"normal", "pool:binomial"}
    assert summary["ci95"]["normal"][0] > 0.7  # normal beats it ~0.98 on long runs


def test_matrix_prints_every_level_against_every_member_with_intervals(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out = _run(
        capsys,
        ["--matrix", "--levels", "random,normal", "--pool", "binomial,pool:liar",
         "--games", "12", "--seed", "4", "--workers", "1", "--rule", "starting_dice=3",
         "--json"],
    )
    assert code == 0
    lines = out.strip().splitlines()
    data = json.loads(lines[-1])
    assert data["players"] == 2 and data["games"] == 12 and data["seed"] == 4
    assert set(data["cells"]) == {"random", "normal"}
    table = lines[1:-1]
    assert table[0].split() == ["level", "binomial", "liar"]
    assert [row.split()[0] for row in table[1:]] == ["random", "normal"]
    for row in table[1:]:
        level = row.split()[0]
        printed = [float(x) for x in re.findall(r"\d\.\d{3}", row)]
        assert len(printed) == 6  # rate, lo, hi for each of the two members
        for i, member in enumerate(("pool:binomial", "pool:liar")):
            cell = data["cells"][level][member]
            wins = round(cell["win_rate"] * 12)
            assert cell["ci95"] == pytest.approx(wilson_interval(wins, 12), abs=1e-4)
            expected = [cell["win_rate"], *cell["ci95"]]
            assert printed[3 * i : 3 * i + 3] == pytest.approx(expected, abs=6e-4)
    assert "12 games a cell" in lines[0]


def test_matrix_progress_line_names_each_cell(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    tournament_cli.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        ["tournament", "--matrix", "--levels", "easy", "--pool", "tight,loose", "--games", "4",
         "--workers", "1", "--rule", "starting_dice=3"]
    )
    assert args.handler(args) == 0
    err = capsys.readouterr().err
    assert "matrix: cell 1/2 easy vs pool:tight: 4/4 games" in err
    assert "matrix: cell 2/2 easy vs pool:loose: 4/4 games" in err


def test_matrix_refuses_unknown_names(capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = _run(capsys, ["--matrix", "--pool", "grandmaster", "--workers", "1"])
    assert code == 2
    code, _ = _run(capsys, ["--matrix", "--levels", "pool:tight", "--workers", "1"])
    assert code == 2
    code, _ = _run(capsys, ["--workers", "1"])  # neither --bots nor --matrix
    assert code == 2


def test_a_run_cut_and_resumed_from_its_log_counts_the_same_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = RuleSet.parse_options(["starting_dice=3"])
    whole = tournament.run_tournament(2, 10, ["normal", "easy"], 4, rules)
    log = tmp_path / "games.jsonl"
    tournament.run_tournament(2, 10, ["normal", "easy"], 4, rules, out=log)
    lines = log.read_text().splitlines()
    assert len(lines) == 11 and json.loads(lines[0])["bots"] == ["normal", "easy"]
    # cut after four games, in the middle of the fifth line (a kill while writing)
    log.write_text("\n".join(lines[:5]) + "\n" + lines[5][:7])
    played: list[int] = []
    real = tournament.play_one

    def counting(job: tournament.Job) -> tuple[int, str]:
        played.append(job.game)
        return real(job)

    monkeypatch.setattr(tournament, "play_one", counting)
    resumed = tournament.run_tournament(2, 10, ["normal", "easy"], 4, rules, out=log)
    assert played == [4, 5, 6, 7, 8, 9]
    assert resumed == whole
    assert len(log.read_text().splitlines()) == 11
    # fewer games than the log holds: the first ones are read, nothing is played
    played.clear()
    first = tournament.run_tournament(2, 4, ["normal", "easy"], 4, rules, out=log)
    assert played == [] and first.games == 4 and sum(first.wins.values()) == 4


def test_a_log_of_another_tournament_is_refused(tmp_path: Path) -> None:
    rules = RuleSet.parse_options(["starting_dice=3"])
    log = tmp_path / "games.jsonl"
    tournament.run_tournament(2, 2, ["normal", "easy"], 4, rules, out=log)
    with pytest.raises(InvalidValue):
        tournament.run_tournament(2, 2, ["normal", "easy"], 5, rules, out=log)
    log.write_text("not json\n")
    with pytest.raises(InvalidValue):
        tournament.run_tournament(2, 2, ["normal", "easy"], 4, rules, out=log)
