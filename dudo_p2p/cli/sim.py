"""``dudo-p2p sim --peers N``: N headless bot peers, each its own OS process, on loopback.

Peer 0 runs ``host --headless --players N --table CODE``, the others ``bot --discover --table
CODE``: the whole stack (discovery, links, lobby, consensus, fair dice, journals) between real
processes. Everything stays on this machine: links bind 127.0.0.1 and beacons go only to
127.255.255.255, on a free UDP port unless ``--beacon-port`` is given. Identities and journals
live in a temporary directory removed at the end.

``--seed`` fixes the table code and the bots' choices; dice come from each peer's os.urandom
(fair dice need real randomness), so two runs with one seed differ. With ``--json`` the last
line is ``{"winner", "rounds", "seconds", "peers": [{"name", "log_hash"}, ...]}``. Exit 0
only when every peer finished and all ended on the same log hash.
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from dudo_p2p.bots import LEVELS
from dudo_p2p.net.beacon import new_table_code
from dudo_p2p.net.discovery import LOOPBACK_BROADCAST

LOOPBACK = "127.0.0.1"


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "sim", help="N headless bot peers, each its own process, on loopback",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--peers", type=int, required=True, metavar="N", help="2 to 6")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--level", default="normal", choices=LEVELS)
    parser.add_argument("--record", type=Path, default=None, metavar="DIR",
                        help="every peer writes its game record into DIR")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--timeout", type=float, default=600.0, metavar="S")
    parser.add_argument("--beacon-port", type=int, default=None, metavar="P",
                        help="UDP beacon port (default: a free one, so runs never meet)")
    parser.add_argument("-v", "--verbose", action="count", default=0)
    parser.set_defaults(handler=run)


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("0.0.0.0", 0))
        port: int = probe.getsockname()[1]
        return port


def peer_command(args: argparse.Namespace, index: int, code: str, beacon_port: int,
                 work: Path, seed: int) -> list[str]:
    common = [
        "--name", f"peer{index}", "--identity", str(work / f"id{index}"),
        "--journal", str(work / f"journal{index}"), "--json", "--seed", str(seed + index),
        "--level", args.level, "--bind", LOOPBACK, "--broadcast", LOOPBACK_BROADCAST,
        "--beacon-port", str(beacon_port), "--table", code, "--timeout", str(args.timeout),
        *(["-v"] * args.verbose),
    ]
    if args.record is not None:
        common += ["--record", str(args.record)]
    base = [sys.executable, "-m", "dudo_p2p"]
    if index == 0:
        rules = [x for rule in args.rule for x in ("--rule", rule)]
        return [*base, "host", "--headless", "--players", str(args.peers), *rules, *common]
    return [*base, "bot", "--discover", *common]


def run(args: argparse.Namespace) -> int:
    if not 2 <= args.peers <= 6:
        print("sim: --peers is 2..6", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
    code = new_table_code(random.Random(seed))
    beacon_port = args.beacon_port or free_udp_port()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="dudo-sim-") as tmp:
        work = Path(tmp)
        procs: list[subprocess.Popen[str]] = []
        logs = []
        try:
            for i in range(args.peers):
                # Peer 0's stderr is ours (its one line per round is the progress line).
                err = None if i == 0 else (work / f"stderr{i}").open("w")
                logs.append(err)
                procs.append(subprocess.Popen(
                    peer_command(args, i, code, beacon_port, work, seed),
                    stdout=subprocess.PIPE, stderr=err, text=True,
                ))
            outputs = _collect(procs, started + args.timeout + 10)
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
            for handle in logs:
                if handle is not None:
                    handle.close()
        seconds = round(time.monotonic() - started, 3)
        summaries = [_last_json(out) for out in outputs]
        for i, (proc, summary) in enumerate(zip(procs, summaries, strict=True)):
            if proc.returncode != 0 or summary is None:
                tail = (work / f"stderr{i}").read_text()[-2000:] if i else ""
                print(f"sim: peer{i} exited {proc.returncode}\n{tail}", file=sys.stderr)
    hashes = {s.get("log_hash") if s else None for s in summaries}
    ok = all(p.returncode == 0 for p in procs) and len(hashes) == 1 and None not in hashes
    first = summaries[0] or {}
    result = {
        "winner": first.get("winner"),
        "rounds": first.get("rounds", 0),
        "seconds": seconds,
        "peers": [
            {"name": f"peer{i}", "log_hash": s.get("log_hash") if s else None}
            for i, s in enumerate(summaries)
        ],
    }
    if args.json:
        print(json.dumps(result), flush=True)
    else:
        state = "all peers agree" if ok else "PEERS DISAGREE OR FAILED"
        print(f"{args.peers} peers, winner {result['winner']} after {result['rounds']} rounds "
              f"in {seconds} s: {state}")
    return 0 if ok else 1


def _collect(procs: list[subprocess.Popen[str]], deadline: float) -> list[str]:
    """Every process's stdout, waiting for each at most until ``deadline``."""
    outputs = []
    for proc in procs:
        try:
            out, _ = proc.communicate(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
        outputs.append(out or "")
    return outputs


def _last_json(out: str) -> dict[str, Any] | None:
    for line in reversed(out.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                value = json.loads(line)
            except ValueError:
                return None
            return value if isinstance(value, dict) else None
    return None
