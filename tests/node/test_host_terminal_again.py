"""``dudo-p2p host`` played from the terminal offers one more game with the same table (issue
15): real processes on loopback, the host's seat answered on its stdin as a person types
(a number per turn: ¡dudo! when offered, so games end fast; ``y`` or ``n`` when asked
"one more game?"), two ``bot --again`` seats following it. Bounded waits, conditions."""

from __future__ import annotations

import codecs
import json
import os
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from node_helpers import GAME_TIMEOUT, Peer, bot_args, free_tcp_port, host_args, loopback_net
from test_node_again import records_of

from dudo_p2p.cli.host_terminal import AGAIN_QUESTION
from dudo_p2p.consensus.record import verify_record
from dudo_p2p.rules import Bid

pytestmark = pytest.mark.e2e

START_S = 60.0  # processes starting and seating, at load
DUDO = re.compile(r"^\s+(\d+): ¡Dudo!$", re.MULTILINE)
PROMPT = "\n> "


class TerminalHost(Peer):
    """A ``host`` without ``--headless``: its stdout read as it comes (a prompt ends
    without a newline), its stdin written as a person would type."""

    def __init__(self, args: list[str]) -> None:
        super().__init__("host", [a for a in args if a != "--headless"], stdin=subprocess.PIPE)

    def _read_out(self) -> None:
        assert self.proc.stdout is not None
        decoder = codecs.getincrementaldecoder("utf-8")()
        fd = self.proc.stdout.fileno()
        while chunk := os.read(fd, 4096):
            with self._changed:
                self._out.append(decoder.decode(chunk))
                self._changed.notify_all()

    def text(self) -> str:
        with self._changed:
            return "".join(self._out)

    def wait_output(self, seen: int, timeout: float) -> None:
        """Until stdout holds more than ``seen`` characters, or the process ended."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while sum(map(len, self._out)) <= seen and self.proc.poll() is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self._changed.wait(min(left, 0.2))

    def summary(self) -> dict[str, Any]:
        """The ``--json`` line (after a prompt: our answer's newline is not echoed)."""
        last = [line for line in self.text().splitlines() if "{" in line][-1]
        value: dict[str, Any] = json.loads(last[last.index("{"):])
        return value

    def type(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()


def play_from_the_terminal(host: TerminalHost, again: list[str], timeout: float) -> list[str]:
    """Answer every prompt of the host until it exits: a turn with ¡dudo! (else the first
    action), "one more game?" with the next of ``again``. The answers given to "one more
    game?", in order."""
    answered, said = 0, []
    deadline = time.monotonic() + timeout
    while host.proc.poll() is None and time.monotonic() < deadline:
        text = host.text()
        blocks = text.split(PROMPT)[:-1]  # each ends where a prompt was printed
        for block in blocks[answered:]:
            if AGAIN_QUESTION in block.rsplit("\n", 1)[-1]:
                said.append(again[len(said)] if len(said) < len(again) else "n")
                host.type(said[-1])
            else:
                dudo = DUDO.findall(block.rsplit("your dice:", 1)[-1])
                host.type(dudo[0] if dudo else "0")
        answered = len(blocks)
        host.wait_output(len(text), 1.0)
    return said


@pytest.mark.parametrize("answers", [["y", "n"], ["n"]], ids=["again", "no_more"])
def test_the_terminal_host_offers_one_more_game_with_the_same_table(
    tmp_path: Path, peers: list[Peer], beacon_port: int, answers: list[str]
) -> None:
    net = loopback_net(beacon_port)
    port = str(free_tcp_port())
    host = TerminalHost(host_args("host", tmp_path, 3, "--port", port, "--turn-timer", "0",
                                  "--record", str(tmp_path / "host"), *net))
    peers.append(host)
    assert host.wait_line("host: table", START_S), host.explain()
    bots = [Peer(name, bot_args(name, tmp_path, "--join", f"127.0.0.1:{port}", "--again",
                                "60", "--games", "2", "--record", str(tmp_path / name), *net))
            for name in ("ana", "beto")]
    peers.extend(bots)
    said = play_from_the_terminal(host, answers, timeout=len(answers) * GAME_TIMEOUT + START_S)
    assert said == answers, host.text()[-3000:] + host.explain()
    assert host.finish(timeout=10) == 0, host.explain()
    games = len(answers) if answers[-1] == "n" else len(answers) + 1
    chains = {p.name: records_of(tmp_path / p.name) for p in [host, *bots] if p.finish(30) == 0}
    assert set(chains) == {"host", "ana", "beto"}, "\n".join(p.explain() for p in bots)
    assert {len(c) for c in chains.values()} == {games}
    hashes = {tuple(verify_record(r).log_hash for r in c) for c in chains.values()}
    assert len(hashes) == 1, "every seat holds the same games"
    records = [verify_record(r) for r in chains["host"]]
    assert all(r.finished for r in records)
    assert host.summary()["log_hash"] == records[-1].log_hash
    text = host.text()
    assert text.count(AGAIN_QUESTION) == games, text[-3000:]
    # in the window's English words (ui/words.action_words): "  3: four fives", "  7: ¡Dudo!"
    listed_bid = any(f": {Bid(n, face).spoken('en')}\n" in text
                     for n in range(1, 31) for face in range(1, 7))
    assert "your dice: " in text and listed_bid and DUDO.search(text), text[-3000:]
    if games == 2:
        first, second = records
        assert second.prev == first.log_hash and set(second.pubs) == set(first.pubs)
        assert "game 2 started at table" in text, text[-3000:]
        told = text[text.index(AGAIN_QUESTION):text.index("game 2 started")]
        print(f"\nbetween the question and game 2 the host was told: {told!r}")
    else:  # the host said no: the bots were told, they did not wait their 60 s for a table
        assert all(b.summary()["rounds"] > 0 for b in bots)
