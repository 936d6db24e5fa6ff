"""Every command's output may go to a reader that stops early (``dudo-p2p replay --text FILE |
head``): the command ends quietly with exit 141 (128 + SIGPIPE, as any Unix tool), never a
``BrokenPipeError`` traceback.

Real processes: the command's stdout is a pipe whose read end is already closed, so its first
write fails whatever the pipe's buffer size (a ``| head`` that exits after its lines is the
same thing, only racier to reproduce).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from consensus.fakenet import FakeNet

from dudo_p2p.cli.exits import Exit
from dudo_p2p.rules import RuleSet


@pytest.fixture(scope="module")
def record_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    net = FakeNet(3, RuleSet(starting_dice=3), seed=21)
    net.run()
    path = tmp_path_factory.mktemp("pipe") / "game.dudo"
    path.write_bytes(net.machines[0].record(net.genesis, net.signatures))
    return path


def _run_into_closed_pipe(args: list[str]) -> subprocess.CompletedProcess[bytes]:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line
    try:
        return subprocess.run([sys.executable, "-m", "dudo_p2p.cli.main", *args],
                              stdout=write_end, stderr=subprocess.PIPE, timeout=120,
                              check=False)
    finally:
        os.close(write_end)


@pytest.mark.parametrize("command", [
    ["replay", "--text", "{file}"],
    ["replay", "--json", "{file}"],
    ["verify", "{file}"],
    ["watch", "--help"],
])
def test_a_reader_that_went_away_ends_the_command_quietly(
    record_file: Path, command: list[str]
) -> None:
    args = [a.replace("{file}", str(record_file)) for a in command]
    done = _run_into_closed_pipe(args)
    assert b"Traceback" not in done.stderr, done.stderr.decode()
    assert b"BrokenPipeError" not in done.stderr, done.stderr.decode()
    # --help ends through argparse's own exit (0): its output is lost, nothing is raised
    expected = 0 if "--help" in command else Exit.BROKEN_PIPE
    assert done.returncode == expected, done.stderr.decode()


def test_the_same_command_to_a_reader_that_stays_prints_the_game(record_file: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "dudo_p2p.cli.main", "replay", "--text",
                           str(record_file)], capture_output=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.startswith(b"3 players")
